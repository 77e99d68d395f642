//go:build wasip1

package wasihttp

import (
	"errors"
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
	resp, err := send(req, scheme)
	if req.Body != nil {
		req.Body.Close()
	}
	return true, resp, err
}
