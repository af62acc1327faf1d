package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Calls without a token cannot make the server hold their messages: 16
// parallel calls of 27 MB each (under the body limit, far over the 64 KiB
// a call without a token may send), over native gRPC and over gRPC-Web,
// to an operation that needs a token and to the login, leave `wasteflow
// serve`'s peak resident memory (VmHWM) within 50 MB of its idle memory.
// Before the gRPC faces admitted a call before reading its message, the
// same calls took it from 86 MB to between 0.9 and 2.3 GB.
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
	web := &http.Client{Transport: &http.Transport{}}
	for _, method := range []string{"/svc.bxa.bmu.v1.api.BmuDocumentApi/GetDocument", "/svc.core.v1.api.AuthApi/IssueRefreshToken"} {
		for _, face := range []string{"native", "grpc-web"} {
			var wg sync.WaitGroup
			t0 := time.Now()
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					if face == "native" {
						in, out := msg, []byte(nil)
						if err := conn.Invoke(metadata.AppendToOutgoingContext(ctx, "provider_id", "dev-1"), method, &in, &out, grpc.ForceCodec(bytesCodec{})); err == nil {
							t.Errorf("%s over %s: answered without a token", method, face)
						}
						return
					}
					body := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+method, bytes.NewReader(append(body, msg...)))
					req.Header.Set("Content-Type", "application/grpc-web+proto")
					req.Header.Set("provider_id", "dev-1")
					resp, err := web.Do(req)
					if err != nil {
						// The server answered and closed before the client had
						// sent the message: refused before it was read, which is
						// the point (the client sees its write reset).
						if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
							return
						}
						t.Errorf("%s over %s: %v", method, face, err)
						return
					}
					resp.Body.Close()
					if resp.Header.Get("Grpc-Status") == "" || resp.Header.Get("Grpc-Status") == "0" {
						t.Errorf("%s over %s: status %q", method, face, resp.Header.Get("Grpc-Status"))
					}
				}()
			}
			wg.Wait()
			peak := procMemMB(t, cmd.Process.Pid, "VmHWM")
			t.Logf("%s over %s: 16 calls of 27 MB without a token in %s; idle %.0f MB, peak %.0f MB", method, face, time.Since(t0).Round(time.Millisecond), idle, peak)
			if peak-idle > 50 {
				t.Errorf("%s over %s: peak memory %.0f MB, %.0f MB over idle (%.0f MB)", method, face, peak, peak-idle, idle)
			}
		}
	}
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
