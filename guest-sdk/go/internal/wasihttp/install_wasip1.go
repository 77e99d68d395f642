//go:build wasip1

package wasihttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	_ "unsafe" // for go:linkname
)

// roundTripHook is net/http's tfwasmRoundTrip: `tfwasm build-go` builds net/http with its
// Transport.RoundTrip asking this hook first (an overlay of net/http's roundtrip.go), so
// every Transport a provider or its libraries make (http.DefaultTransport and its clones,
// go-cleanhttp's, the AWS SDK's, any with its own dialer) goes out through wasi:http.
//
//go:linkname roundTripHook net/http.tfwasmRoundTrip
var roundTripHook func(*http.Transport, *http.Request) (bool, *http.Response, error)

// Install routes every net/http Transport's http and https requests through wasi:http.
func Install() {
	roundTripHook = roundTrip
}

// roundTrip takes a Transport's http and https requests; other schemes (one a provider
// registered with Transport.RegisterProtocol) stay with the Transport. As a RoundTripper
// must, it closes the request body whatever happens.
func roundTrip(_ *http.Transport, req *http.Request) (bool, *http.Response, error) {
	if req.URL == nil {
		return true, nil, errors.New("http: nil Request.URL")
	}
	scheme := req.URL.Scheme
	if scheme != "http" && scheme != "https" {
		return false, nil, nil
	}
	defer func() {
		if req.Body != nil {
			req.Body.Close()
		}
	}()
	// As the Transport does: a request whose context has ended is not sent.
	if err := req.Context().Err(); err != nil {
		return true, nil, context.Cause(req.Context())
	}
	if err := knownLength(req); err != nil {
		return true, nil, err
	}
	resp, err := send(req, scheme)
	return true, resp, err
}

// maxBody is the most a request body may hold: the host's limit on what it sends.
const maxBody = 8 << 20

// knownLength reads a body of unknown length (ContentLength -1, or 0 with a body net/http
// cannot size: a pipe, a file, a wrapped reader) into memory and states its length: wasi:http
// holds a request to the length it states, where the Transport would have chunked it.
func knownLength(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength > 0 {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("reading the request body: %w", err)
	}
	if len(data) > maxBody {
		return fmt.Errorf("the request body exceeds the host's limit of %d bytes", maxBody)
	}
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.ContentLength = int64(len(data))
	return nil
}
