package wasihttp

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
)

// Install points http.DefaultTransport, and so every clone of it and http.DefaultClient, at
// wasi:http.
func Install() {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return
	}
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) {
		return dial("http", addr), nil
	}
	t.DialTLSContext = func(ctx context.Context, _, addr string) (net.Conn, error) {
		return dial("https", addr), nil
	}
	// HTTP/2 needs a TLS connection to negotiate; the pipe speaks HTTP/1.1.
	t.ForceAttemptHTTP2 = false
}

// dial returns the Transport's end of a pipe whose other end serves the requests written
// to it through wasi:http, as scheme://addr.
func dial(scheme, addr string) net.Conn {
	transport, server := net.Pipe()
	go serve(server, scheme, addr)
	return transport
}

func serve(conn net.Conn, scheme, addr string) {
	defer conn.Close()
	reader := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(reader)
		if err != nil {
			return
		}
		req.URL.Scheme = scheme
		if req.Host == "" {
			req.Host = addr
		}
		req.URL.Host = req.Host
		resp, err := send(req, scheme)
		if req.Body != nil {
			req.Body.Close()
		}
		if err != nil {
			// The Transport sees the connection end and fails the request; where the host
			// refused it, the host's own diagnostic says which grant to add.
			return
		}
		if err := resp.Write(conn); err != nil {
			return
		}
		if strings.EqualFold(req.Header.Get("Connection"), "close") {
			return
		}
	}
}
