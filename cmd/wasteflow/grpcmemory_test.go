package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Calls without a token cannot make the server hold their messages: 16
// parallel calls of 27 MB each (under the body limit, far over the 64 KiB
// a call without a token may send), over native gRPC and over gRPC-Web,
// to an operation that needs a token and to the login, leave `wasteflow
// serve`'s peak resident memory (VmHWM) within 50 MB of its idle memory.
// Before the gRPC faces admitted a call before reading its message, the
// same calls took it from 86 MB to between 0.9 and 2.3 GB. Every call is
// refused before its message is read: the operation that needs a token
// with UNAUTHENTICATED, the login (which needs none) with
// RESOURCE_EXHAUSTED, by the message's length prefix.
func TestUnauthenticatedGRPCCallsKeepMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	env := append(demoEnv(t, bin, dbtest.SQLite(t)), "WASTEFLOW_LOG_LEVEL=info", "WASTEFLOW_ADDR=127.0.0.1:0")
	cmd, base := startServe(t, bin, env)
	waitHealthy(base, 10*time.Second)
	time.Sleep(time.Second)
	idle := procMemMB(t, cmd.Process.Pid, "VmRSS")
	u, _ := url.Parse(base)

	const size = 27_000_000
	msg := append([]byte{0x0a}, binary.AppendUvarint(nil, size)...) // field 1, bytes
	msg = append(msg, bytes.Repeat([]byte("A"), size)...)
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, call := range []struct {
		method string
		want   codes.Code
	}{
		{"/svc.bxa.bmu.v1.api.BmuDocumentApi/GetDocument", codes.Unauthenticated},
		{"/svc.core.v1.api.AuthApi/IssueRefreshToken", codes.ResourceExhausted},
	} {
		method := call.method
		for _, face := range []string{"native", "grpc-web"} {
			var wg sync.WaitGroup
			var answered atomic.Int32
			t0 := time.Now()
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if face == "native" {
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						in, out := msg, []byte(nil)
						err := conn.Invoke(metadata.AppendToOutgoingContext(ctx, "provider_id", "dev-1"), method, &in, &out, grpc.ForceCodec(bytesCodec{}))
						if got := grpcstatus.Code(err); got != call.want {
							t.Errorf("%s over %s without a token: %s (%v), want %s", method, face, got, err, call.want)
						} else {
							answered.Add(1)
						}
						return
					}
					resp, readErr, writeErr := grpcWebCall(u.Host, method, msg)
					if readErr != nil {
						// No answer to read: the server refused and closed
						// before it read the message, and its close reset the
						// connection the client was still writing the message
						// to (both sides see it closed). Anything else (a
						// timeout, a message written whole and no answer) is
						// a failure.
						if !closedByPeer(readErr) || !(errors.Is(writeErr, syscall.ECONNRESET) || errors.Is(writeErr, syscall.EPIPE)) {
							t.Errorf("%s over %s without a token: no answer: read: %v; write: %v", method, face, readErr, writeErr)
						}
						return
					}
					answered.Add(1)
					if got := resp.Header.Get("Grpc-Status"); resp.StatusCode != http.StatusOK || got != strconv.Itoa(int(call.want)) {
						t.Errorf("%s over %s without a token: HTTP %d, grpc-status %q (%s), want HTTP 200, grpc-status %d (%s)", method, face, resp.StatusCode, got, resp.Header.Get("Grpc-Message"), call.want, call.want)
					}
				}()
			}
			wg.Wait()
			// The refusal itself is seen, not only closed connections.
			if face == "grpc-web" && answered.Load() == 0 {
				t.Errorf("%s over %s: none of the 16 calls got an answer", method, face)
			}
			peak := procMemMB(t, cmd.Process.Pid, "VmHWM")
			t.Logf("%s over %s: 16 calls of 27 MB without a token in %s (%d answers read); idle %.0f MB, peak %.0f MB", method, face, time.Since(t0).Round(time.Millisecond), answered.Load(), idle, peak)
			if peak-idle > 50 {
				t.Errorf("%s over %s: peak memory %.0f MB, %.0f MB over idle (%.0f MB)", method, face, peak, peak-idle, idle)
			}
		}
	}
}

// grpcWebCall makes a gRPC-Web call of msg to method at addr, over a
// connection of its own, and reads the answer while it writes the call:
// a call refused before its message is read is answered, and its
// connection closed, while the client is still writing the message, so
// the write fails (reset, broken pipe) once the answer is in, and an
// http.Client, which races its write's error against the answer, may
// report the write's error instead of the answer. readErr is the error
// of reading the answer (none: resp is it); writeErr that of writing the
// call, when there is no answer.
func grpcWebCall(addr, method string, msg []byte) (resp *http.Response, readErr, writeErr error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err, nil
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	prefix := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, addr, len(prefix)+len(msg))
	_ = http.Header{"Content-Type": {"application/grpc-web+proto"}, "Provider_id": {"dev-1"}}.Write(&head)
	head.WriteString("\r\n")
	// written straight to the connection (not by http.Request.Write,
	// whose error for a body it could not write hides the reset's errno)
	call := net.Buffers{head.Bytes(), prefix, msg}
	written := make(chan error, 1)
	go func() { _, err := call.WriteTo(c); written <- err }()
	resp, readErr = http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodPost})
	if readErr == nil {
		c.Close() // ends the write, whose error is then ours
		<-written
		return resp, nil, nil
	}
	return nil, readErr, <-written // the write ends with the connection, or at the deadline
}

// closedByPeer: the error of a read from a connection the other side
// closed (cleanly or with a reset).
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// bytesCodec sends a message's bytes as they are.
type bytesCodec struct{}

func (bytesCodec) Name() string                  { return "proto" }
func (bytesCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }
func (bytesCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append((*v.(*[]byte))[:0], data...)
	return nil
}

// procMemMB is a line of /proc/<pid>/status (VmRSS, VmHWM) in MB.
func procMemMB(t *testing.T, pid int, key string) float64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	t.Fatalf("no %s", key)
	return 0
}
