package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

const watchAsAuthority = "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/WatchDocument"

// A stream never holds a large-body slot: its request is small, so a
// streaming operation is admitted with at most 1 MiB (the large-body
// threshold) on every face. Four gRPC-Web watches padded past 1 MiB (an
// unknown field) are refused with RESOURCE_EXHAUSTED before their message
// is read, instead of each taking a slot for the stream's life, and a
// large REST upload meanwhile gets its slot; a native one is refused
// alike.
func TestGRPCStreamsTakeNoLargeBodySlot(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		noor := hdr("dev-1", d.token(t, "noor"))
		padded := grpcFrame(append(protoBytesField(1, []byte(id)), protoBytesField(1000, bytes.Repeat([]byte("A"), 2<<20))...))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		type answer struct {
			code codes.Code
			msg  string
			err  error
		}
		answers := make(chan answer, 4)
		for range 4 { // the default WASTEFLOW_LARGE_BODY_SLOTS
			go func() {
				code, msg, err := webStream(ctx, d.url, watchAsAuthority, noor, padded, int64(len(padded)))
				answers <- answer{code, msg, err}
			}()
		}
		time.Sleep(time.Second) // the watches are open (or refused)
		xml := fmt.Sprintf(`{"docXml":%q}`, strings.Repeat("A", 2<<20))
		req, _ := http.NewRequest(http.MethodPost, d.url+bmuAPI+"GetDocument", strings.NewReader(xml))
		req.Header.Set("provider_id", "dev-1")
		req.Header.Set("Authorization", "Bearer "+d.token(t, "alice"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest { // read, and its XML refused; not 503
			t.Errorf("a large REST upload beside four padded watches: HTTP %d %.200s", resp.StatusCode, body)
		}
		cancel()
		for range 4 {
			a := <-answers
			if a.err != nil || a.code != codes.ResourceExhausted || !strings.Contains(a.msg, strconv.Itoa(1<<20)) {
				t.Errorf("a watch padded past 1 MiB over gRPC-Web: %s %q %v", a.code, a.msg, a.err)
			}
		}
		u, _ := url.Parse(d.url)
		code, msg, took := stalledNativeCall(t, u.Host, watchAsAuthority, noor)
		if code != codes.ResourceExhausted || !strings.Contains(msg, strconv.Itoa(1<<20)) {
			t.Errorf("a native watch announcing %d bytes: %s %q after %s", stalledSize, code, msg, took)
		}
	})
}

// A message is read within the server's read timeout
// (WASTEFLOW_READ_TIMEOUT), on every face, as REST's body is: native gRPC
// calls that announce 2 MB and send nothing more hold their large-body
// slots until then, not for as long as keepalive keeps their connection;
// then they end with DEADLINE_EXCEEDED, their slots come back and a large
// REST upload gets one. The same for a native call that never ends its
// side, for a gRPC-Web stream whose request does not come (the stream
// lifts the timeouts only once its request is in), and for REST (408,
// DEADLINE_EXCEEDED).
func TestGRPCReadsAMessageWithinTheReadTimeout(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		const readTimeout = 4 * time.Second // longer than a slot's 2 s wait below
		base := d.withReadTimeout(t, readTimeout)
		u, _ := url.Parse(base)
		id := d.submitted(t)
		alice := hdr("dev-1", d.token(t, "alice"))
		type answer struct {
			name string
			code codes.Code
			msg  string
			took time.Duration
			err  error
		}
		answers := make(chan answer, 8)
		stall := func(name string, f func() (codes.Code, string, time.Duration, error)) {
			go func() {
				code, msg, took, err := f()
				answers <- answer{name, code, msg, took, err}
			}()
		}
		for i := range 4 { // the default WASTEFLOW_LARGE_BODY_SLOTS
			stall(fmt.Sprintf("native, 2 MB announced (%d)", i), func() (codes.Code, string, time.Duration, error) {
				return nativeStall(u.Host, bmuAPI+"GetDocument", alice, lengthPrefix(2_000_000), 3*readTimeout)
			})
		}
		stall("native, the client's side never ended", func() (codes.Code, string, time.Duration, error) {
			return nativeStall(u.Host, bmuAPI+"GetDocument", alice, grpcFrame(protoBytesField(1, []byte("<x/>"))), 3*readTimeout)
		})
		stall("gRPC-Web stream, its request not sent", func() (codes.Code, string, time.Duration, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*readTimeout)
			defer cancel()
			t0 := time.Now()
			code, msg, err := webStream(ctx, base, watchAsAuthority, hdr("dev-1", d.token(t, "noor")), lengthPrefix(100), 105)
			return code, msg, time.Since(t0), err
		})
		stall("REST, its body not sent", func() (codes.Code, string, time.Duration, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*readTimeout)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+bmuAPI+"GetDocument", &stalledBody{rest: []byte("{"), ctx: ctx})
			req.ContentLength = 100
			req.Header.Set("Content-Type", "application/json")
			for k, v := range alice {
				req.Header.Set(k, v)
			}
			t0 := time.Now()
			resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
			if err != nil {
				return 0, "", time.Since(t0), err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout {
				return 0, "", time.Since(t0), fmt.Errorf("HTTP %d %s", resp.StatusCode, b)
			}
			return codes.DeadlineExceeded, string(b), time.Since(t0), nil
		})
		time.Sleep(300 * time.Millisecond) // the four native calls hold the slots
		xml := fmt.Sprintf(`{"docXml":%q}`, strings.Repeat("A", 2<<20))
		upload := func() (int, string) {
			req, _ := http.NewRequest(http.MethodPost, base+bmuAPI+"GetDocument", strings.NewReader(xml))
			for k, v := range alice {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		// The four native calls take the slots once their headers arrived;
		// on a loaded machine that can take longer than the pause above, and
		// an upload that came first got a slot and its XML refused (400).
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			st, b := upload()
			if st == http.StatusServiceUnavailable {
				break
			}
			if st != http.StatusBadRequest || time.Now().After(end) {
				t.Fatalf("a large REST upload while four stalled gRPC calls hold the slots: HTTP %d %.200s", st, b)
			}
		}
		for range 7 {
			a := <-answers
			if a.err != nil || a.code != codes.DeadlineExceeded || !strings.Contains(a.msg, "WASTEFLOW_READ_TIMEOUT") ||
				a.took < readTimeout-time.Second || a.took > readTimeout+2*time.Second {
				t.Errorf("%s: %s %q after %s (read timeout %s): %v", a.name, a.code, a.msg, a.took, readTimeout, a.err)
			}
		}
		if st, b := upload(); st != http.StatusBadRequest { // a slot, the body read, its XML refused
			t.Errorf("a large REST upload after the stalled calls ended: HTTP %d %.200s", st, b)
		}
		// the watch itself, with its request sent, outlives the read timeout
		frame := grpcFrame(protoBytesField(1, []byte(id)))
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout+time.Second)
		defer cancel()
		if code, msg, err := webStream(ctx, base, watchAsAuthority, hdr("dev-1", d.token(t, "noor")), frame, int64(len(frame))); err == nil {
			t.Errorf("a watch ended before the client did: %s %q", code, msg)
		}
	})
}

// withReadTimeout serves d's server again with the read timeout given, as
// wasteflow serve does (WASTEFLOW_READ_TIMEOUT: net/http's ReadTimeout
// and the gRPC face's): its base URL.
func (d *docEnv) withReadTimeout(t *testing.T, timeout time.Duration) string {
	t.Helper()
	cfg := *d.deps.Config
	cfg.ReadTimeout = timeout
	deps := d.deps
	deps.Config = &cfg
	srv, err := handlers.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.Protocols = rpc.HTTPProtocols()
	hs.Config.ReadTimeout = timeout
	hs.Listener = srv.Listen(hs.Listener)
	hs.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	})
	return hs.URL
}

// webStream sends a gRPC-Web call over HTTP/1.1 whose body is data, then
// nothing until ctx ends, announced as size bytes, and reads its status
// (trailers-only, or the trailer frame at the end of the answer); an
// error when none comes before ctx ends (safe outside the test's
// goroutine).
func webStream(ctx context.Context, base, path string, headers map[string]string, data []byte, size int64) (codes.Code, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, &stalledBody{rest: data, ctx: ctx})
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if v := resp.Header.Get("Grpc-Status"); v != "" {
		n, _ := strconv.Atoi(v)
		msg, _ := url.PathUnescape(resp.Header.Get("Grpc-Message"))
		return codes.Code(n), msg, nil
	}
	var prefix [5]byte
	for {
		if _, err := io.ReadFull(resp.Body, prefix[:]); err != nil {
			return 0, "", fmt.Errorf("no status: %w", err)
		}
		frame := make([]byte, binary.BigEndian.Uint32(prefix[1:]))
		if _, err := io.ReadFull(resp.Body, frame); err != nil {
			return 0, "", fmt.Errorf("no status: %w", err)
		}
		if prefix[0]&0x80 == 0 {
			continue // a message
		}
		code, msg := codes.Unknown, ""
		for _, line := range strings.Split(string(frame), "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "grpc-status":
				c, _ := strconv.Atoi(strings.TrimSpace(v))
				code = codes.Code(c)
			case "grpc-message":
				msg, _ = url.PathUnescape(strings.TrimSpace(v))
			}
		}
		return code, msg, nil
	}
}
