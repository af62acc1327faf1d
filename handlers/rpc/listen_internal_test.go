package rpc

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// flakyListener fails its first Accept as a process out of file
// descriptors does, then accepts.
type flakyListener struct {
	net.Listener
	failed atomic.Bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if !l.failed.Swap(true) {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// Running out of file descriptors for a moment does not stop the server
// accepting: the split backs off and accepts again.
func TestSplitListenerSurvivesATemporaryAcceptError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	split := newSplitListener(&flakyListener{Listener: ln}, time.Second)
	defer split.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.0\n\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		conn, err := split.Accept()
		if err == nil {
			conn.Close()
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("after a temporary error: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not accepted")
	}
	if err := split.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := split.Accept(); err == nil {
		t.Fatal("Accept after Close")
	}
}
