// Package wasihttp sends a Go provider's HTTP requests through wasi:http, where the host
// allows them only to the hosts its operator granted, makes the connection (pooled, with
// the operator's proxy and trusted CAs) and applies the call's deadline.
//
// Every net/http Transport hands its requests here (install_wasip1.go), whatever its dialer:
// the host makes the connection, so a Transport's own connection settings (its dialer,
// proxy, TLS configuration: CAs, client certificates, InsecureSkipVerify) do not apply, and
// the answer is read whole before it is returned.
package wasihttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	handler "tfwasm.dev/go/internal/wit/imports/wasi_http_outgoing_handler"
	types "tfwasm.dev/go/internal/wit/imports/wasi_http_types"
	streams "tfwasm.dev/go/internal/wit/imports/wasi_io_streams"
	witrt "tfwasm.dev/go/internal/witrt/types"
)

// chunk is the most bytes moved per stream call.
const chunk = 64 << 10

// connectionHeader names the headers about the connection, which the host's own connection
// sets (as net/http's Transport ignores a Host header and writes these itself).
var connectionHeader = map[string]bool{
	"Host": true, "Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Transfer-Encoding": true, "Upgrade": true, "Te": true, "Trailer": true,
}

// send makes req (whose URL is absolute) through wasi:http and returns the whole answer.
func send(req *http.Request, scheme string) (*http.Response, error) {
	var entries []witrt.Tuple2[string, []uint8]
	for name, values := range req.Header {
		canonical := http.CanonicalHeaderKey(name)
		if connectionHeader[canonical] {
			continue
		}
		if canonical == "User-Agent" {
			// One, and none when it is empty, as the Transport writes it.
			if len(values) > 0 && values[0] != "" {
				entries = append(entries, witrt.Tuple2[string, []uint8]{F0: "user-agent", F1: []byte(values[0])})
			}
			continue
		}
		for _, v := range values {
			entries = append(entries, witrt.Tuple2[string, []uint8]{F0: strings.ToLower(name), F1: []byte(v)})
		}
	}
	// A known length rather than chunked encoding, which simple servers (Python's http.server)
	// do not read: the host's HTTP client chunks a request of unstated length unless it is a
	// GET or HEAD, so a body-less DELETE states its zero length.
	if req.Header.Get("Content-Length") == "" && req.ContentLength >= 0 &&
		(req.ContentLength > 0 || (req.Method != http.MethodGet && req.Method != http.MethodHead)) {
		entries = append(entries, witrt.Tuple2[string, []uint8]{F0: "content-length", F1: []byte(strconv.FormatInt(req.ContentLength, 10))})
	}
	// What net/http's Transport writes when the caller set none.
	if _, set := req.Header["User-Agent"]; !set {
		entries = append(entries, witrt.Tuple2[string, []uint8]{F0: "user-agent", F1: []byte("Go-http-client/1.1")})
	}
	fields := types.FieldsFromList(entries)
	if fields.IsErr() {
		return nil, fmt.Errorf("request headers refused by the host (tag %d)", fields.Err().Tag())
	}
	out := types.MakeOutgoingRequest(fields.Ok())
	if out.SetMethod(method(req.Method)).IsErr() {
		return nil, fmt.Errorf("method %q refused by the host", req.Method)
	}
	s := types.MakeSchemeHttp()
	if scheme == "https" {
		s = types.MakeSchemeHttps()
	}
	if out.SetScheme(witrt.Some(s)).IsErr() {
		return nil, fmt.Errorf("scheme %q refused by the host", scheme)
	}
	authority := req.Host
	if authority == "" {
		authority = req.URL.Host
	}
	if out.SetAuthority(witrt.Some(authority)).IsErr() {
		return nil, fmt.Errorf("host %q refused by the host", authority)
	}
	if out.SetPathWithQuery(witrt.Some(req.URL.RequestURI())).IsErr() {
		return nil, fmt.Errorf("path %q refused by the host", req.URL.RequestURI())
	}
	body := out.Body()
	if body.IsErr() {
		return nil, fmt.Errorf("the request body is unavailable")
	}
	future := handler.Handle(out, witrt.None[*types.RequestOptions]())
	if future.IsErr() {
		return nil, errorCode(future.Err())
	}
	if err := writeBody(body.Ok(), req.Body); err != nil {
		return nil, err
	}
	pending := future.Ok()
	defer pending.Drop()
	poll := pending.Subscribe()
	poll.Block()
	poll.Drop()
	got := pending.Get()
	if got.IsNone() || got.Some().IsErr() {
		return nil, fmt.Errorf("no response from the host")
	}
	answer := got.Some().Ok()
	if answer.IsErr() {
		return nil, errorCode(answer.Err())
	}
	return response(req, answer.Ok())
}

func writeBody(body *types.OutgoingBody, from io.ReadCloser) error {
	if from != nil {
		stream := body.Write()
		if stream.IsErr() {
			return fmt.Errorf("the request body stream is unavailable")
		}
		w := stream.Ok()
		buf := make([]byte, 4096)
		for {
			n, err := from.Read(buf)
			if n > 0 {
				if w.BlockingWriteAndFlush(buf[:n]).IsErr() {
					w.Drop()
					return fmt.Errorf("writing the request body failed")
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				w.Drop()
				return err
			}
		}
		w.Drop()
	}
	if finished := types.OutgoingBodyFinish(body, witrt.None[*types.Fields]()); finished.IsErr() {
		return errorCode(finished.Err())
	}
	return nil
}

func response(req *http.Request, in *types.IncomingResponse) (*http.Response, error) {
	defer in.Drop()
	resp := &http.Response{
		StatusCode: int(in.Status()),
		Status:     strconv.Itoa(int(in.Status())) + " " + http.StatusText(int(in.Status())),
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{},
		Request:    req,
	}
	headers := in.Headers()
	for _, e := range headers.Entries() {
		resp.Header.Add(e.F0, string(e.F1))
	}
	headers.Drop()
	consumed := in.Consume()
	if consumed.IsErr() {
		return nil, fmt.Errorf("the response body is unavailable")
	}
	incoming := consumed.Ok()
	stream := incoming.Stream()
	if stream.IsErr() {
		incoming.Drop()
		return nil, fmt.Errorf("the response body stream is unavailable")
	}
	r := stream.Ok()
	var data bytes.Buffer
	for {
		read := r.BlockingRead(chunk)
		if read.IsErr() {
			if read.Err().Tag() == streams.StreamError_Closed {
				break
			}
			r.Drop()
			incoming.Drop()
			return nil, fmt.Errorf("reading the response body failed")
		}
		data.Write(read.Ok())
	}
	r.Drop()
	incoming.Drop()
	resp.Body = io.NopCloser(&data)
	resp.ContentLength = int64(data.Len())
	resp.Header.Del("Transfer-Encoding")
	resp.Header.Set("Content-Length", strconv.Itoa(data.Len()))
	return resp, nil
}

func method(m string) types.Method {
	switch m {
	case "", http.MethodGet:
		return types.MakeMethodGet()
	case http.MethodHead:
		return types.MakeMethodHead()
	case http.MethodPost:
		return types.MakeMethodPost()
	case http.MethodPut:
		return types.MakeMethodPut()
	case http.MethodDelete:
		return types.MakeMethodDelete()
	case http.MethodConnect:
		return types.MakeMethodConnect()
	case http.MethodOptions:
		return types.MakeMethodOptions()
	case http.MethodTrace:
		return types.MakeMethodTrace()
	case http.MethodPatch:
		return types.MakeMethodPatch()
	default:
		return types.MakeMethodOther(m)
	}
}

// errorCode says why wasi:http failed; a host outside the operator's grants is
// HTTP-request-denied, which the host explains in a diagnostic of its own, naming the grant
// to add. The error starts with that diagnostic's summary, so the host drops the provider's
// diagnostic that only restates it (one error, the clear one).
func errorCode(code types.ErrorCode) error {
	switch code.Tag() {
	case types.ErrorCode_HttpRequestDenied:
		return fmt.Errorf("Outgoing HTTP request denied: its destination is not granted to this provider")
	case types.ErrorCode_DnsError, types.ErrorCode_DnsTimeout:
		return fmt.Errorf("the host name could not be resolved")
	case types.ErrorCode_ConnectionRefused:
		return fmt.Errorf("connection refused")
	case types.ErrorCode_ConnectionTimeout, types.ErrorCode_HttpResponseTimeout, types.ErrorCode_ConnectionReadTimeout:
		return fmt.Errorf("the request timed out")
	case types.ErrorCode_TlsCertificateError, types.ErrorCode_TlsProtocolError, types.ErrorCode_TlsAlertReceived:
		return fmt.Errorf("TLS failed")
	case types.ErrorCode_HttpResponseBodySize:
		return fmt.Errorf("the response body exceeds the host's limit")
	default:
		return fmt.Errorf("wasi:http error (code %d)", code.Tag())
	}
}
