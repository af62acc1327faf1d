package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Native gRPC in cleartext is served by grpc-go's own HTTP/2 server, the
// fastest gRPC server in Go (net/http's HTTP/2 server, which connect-go
// runs on, costs about twice as much per call: one write per frame, a
// goroutine hand-off per request). Both answer on the one port: Listen
// looks at each new connection's first request before either server sees
// it.
//
//   - HTTP/1.1 (REST, the pages, gRPC-Web, connect), and HTTP/2 in
//     cleartext whose first request is not gRPC, go to net/http (gin, and
//     connect-go for gRPC-Web and the connect protocol);
//   - HTTP/2 in cleartext whose first request says application/grpc goes
//     to grpc-go. Such a connection is a gRPC connection: a REST request
//     sent on it later is answered 415 (gRPC clients open their own).
//
// Over TLS, ALPN has already chosen HTTP/2 and net/http serves every call
// (connect-go for gRPC); a TLS-terminating load balancer in front gives
// cleartext HTTP/2 to the fast path.

var clientPreface = []byte(http2.ClientPreface)

// splitListener is the listener net/http serves: it yields every
// connection but the native gRPC ones, which go to grpcConns.
type splitListener struct {
	net.Listener
	httpConns chan net.Conn
	grpc      *connListener
	timeout   time.Duration
	closeOnce sync.Once
	done      chan struct{}
	err       error
}

// connListener is the listener grpc-go serves: the connections the split
// found to be gRPC.
type connListener struct {
	addr      net.Addr
	conns     chan net.Conn
	done      chan struct{} // the split's
	closed    chan struct{}
	closeOnce sync.Once
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close ends grpc-go's accepting (its server stops); the split owns the
// socket, and closes what it finds for gRPC from then on.
func (l *connListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// newSplitListener splits ln; timeout bounds the wait for a connection's
// first request (WASTEFLOW_READ_HEADER_TIMEOUT, the slowloris guard).
func newSplitListener(ln net.Listener, timeout time.Duration) *splitListener {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	s := &splitListener{Listener: ln, httpConns: make(chan net.Conn), timeout: timeout, done: make(chan struct{})}
	s.grpc = &connListener{addr: ln.Addr(), conns: make(chan net.Conn), done: s.done, closed: make(chan struct{})}
	go s.acceptLoop()
	return s
}

func (s *splitListener) acceptLoop() {
	var delay time.Duration
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) { // out of file descriptors and the like: back off, as net/http does
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(delay):
					continue
				case <-s.done:
				}
			}
			s.closeWith(err)
			return
		}
		delay = 0
		go s.route(c)
	}
}

// route reads the connection's start and hands it to its server.
func (s *splitListener) route(c net.Conn) {
	toGRPC, conn, err := sniff(c, s.timeout)
	if err != nil {
		c.Close()
		return
	}
	out := s.httpConns
	if toGRPC {
		out = s.grpc.conns
	}
	var closed chan struct{} // nil: blocks
	if toGRPC {
		closed = s.grpc.closed
	}
	select {
	case out <- conn:
	case <-s.done:
		c.Close()
	case <-closed:
		c.Close()
	}
}

func (s *splitListener) Accept() (net.Conn, error) {
	select {
	case c := <-s.httpConns:
		return c, nil
	case <-s.done:
		if s.err != nil {
			return nil, s.err
		}
		return nil, net.ErrClosed
	}
}

// Close stops accepting for both servers; their connections live on until
// each server's shutdown ends them.
func (s *splitListener) Close() error { return s.closeWith(nil) }

// closeWith closes once; Accept answers cause from then on (nil: closed).
func (s *splitListener) closeWith(cause error) error {
	var err error
	s.closeOnce.Do(func() {
		s.err = cause
		close(s.done)
		err = s.Listener.Close()
	})
	return err
}

// sniff tells a native gRPC connection from the rest. For HTTP/2 with
// prior knowledge it answers the client's preface with an empty SETTINGS
// frame (gRPC clients wait for the server's before they send a request),
// reads frames up to the first request's headers and the client's
// acknowledgement of those settings, and decodes the headers' content
// type. The connection it returns replays what was read, less that
// acknowledgement (the server behind has its own settings to be
// acknowledged).
func sniff(c net.Conn, timeout time.Duration) (bool, net.Conn, error) {
	if err := c.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return false, nil, err
	}
	br := bufio.NewReader(c)
	// As many bytes as it takes to tell: an HTTP/1 request differs from
	// the preface in its first byte, and may be shorter than the preface.
	for n := 1; ; n = min(max(n+1, br.Buffered()), len(clientPreface)) {
		start, err := br.Peek(n)
		if err != nil {
			return false, nil, err
		}
		if !bytes.HasPrefix(clientPreface, start) {
			_ = c.SetReadDeadline(time.Time{})
			return false, &replayConn{Conn: c, r: br}, nil
		}
		if n == len(clientPreface) {
			break
		}
	}
	if _, err := c.Write(settingsFrame); err != nil {
		return false, nil, err
	}
	var seen bytes.Buffer
	if _, err := io.CopyN(&seen, br, int64(len(clientPreface))); err != nil {
		return false, nil, err
	}
	fr := http2.NewFramer(nil, io.TeeReader(br, &seen))
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.MaxHeaderListSize = maxSniffHeaders
	fr.SetMaxReadFrameSize(1 << 20)
	var grpc, headers, acked bool
	for !headers || !acked {
		at := seen.Len()
		if at > maxSniffed {
			return false, nil, errors.New("no acknowledgement of the server's settings")
		}
		f, err := fr.ReadFrame()
		if err != nil {
			return false, nil, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() && !acked {
				acked = true
				seen.Truncate(at) // ours, not the server's
			}
		case *http2.MetaHeadersFrame:
			headers = true
			for _, hf := range f.RegularFields() {
				if hf.Name == "content-type" {
					grpc = isNativeGRPC(hf.Value)
				}
			}
		case *http2.GoAwayFrame:
			return false, nil, errors.New("the client went away")
		}
	}
	_ = c.SetReadDeadline(time.Time{})
	return grpc, &replayConn{Conn: c, r: io.MultiReader(&seen, br)}, nil
}

// isNativeGRPC: application/grpc and application/grpc+<codec>, not
// gRPC-Web (application/grpc-web...), which is connect's.
func isNativeGRPC(ct string) bool {
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
}

// maxSniffHeaders bounds the first request's headers (as the servers
// behind do: 4 MiB); maxSniffed what the sniff holds: those headers, and
// what a client may send before it acknowledges the settings (a window of
// request bodies, other requests).
const (
	maxSniffHeaders = 4 << 20
	maxSniffed      = maxSniffHeaders + 1<<20
)

// settingsFrame is an empty SETTINGS frame: length 0, type 4, no flags,
// stream 0.
var settingsFrame = []byte{0, 0, 0, 4, 0, 0, 0, 0, 0}

// replayConn reads what the sniff read before the rest of the connection.
type replayConn struct {
	net.Conn
	r io.Reader
}

func (c *replayConn) Read(p []byte) (int, error) { return c.r.Read(p) }
