package wasihttp

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
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
	conn := &pipeConn{Conn: transport}
	go serve(server, scheme, addr, &conn.failed)
	return conn
}

// pipeConn is the Transport's end of the pipe: when the serving end stopped because a request
// could not be sent, its reads fail with that error instead of a bare EOF, so the provider's
// error says why (for a denied request, the words the host's own diagnostic starts with,
// which lets the host drop the provider's restatement of it).
type pipeConn struct {
	net.Conn
	failed atomic.Pointer[error]
}

func (c *pipeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		if why := c.failed.Load(); why != nil {
			return n, *why
		}
	}
	return n, err
}

func serve(conn net.Conn, scheme, addr string, failed *atomic.Pointer[error]) {
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
			// The Transport sees the connection end with this error and fails the request;
			// where the host refused it, the host's own diagnostic says which grant to add.
			failed.Store(&err)
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
