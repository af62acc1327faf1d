package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// stalledSize is what the stalled calls announce: a message under the body
// limit (28 MiB), far over the 64 KiB a call without a token may send.
const stalledSize = 27 << 20

// gRPC admits a call before it reads its message, as REST does from the
// headers: a call without a token to an operation that needs one is
// UNAUTHENTICATED, a call that may come without one (a login, a password
// change) and announces more than the unauthenticated limit is
// RESOURCE_EXHAUSTED, as over REST, on both gRPC servers (grpc-go for native gRPC, connect-go for
// gRPC-Web). Each call sends its headers and the 5-byte length prefix of
// a 27 MiB message, then nothing: the answer must come while the client
// still holds the message back. An authenticated large message is still
// read (and a large message over gRPC takes a large-body slot first).
func TestGRPCAdmitsBeforeReadingTheMessage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		u, _ := url.Parse(d.url)
		cases := []struct {
			name    string
			path    string
			headers map[string]string
			code    codes.Code
			message string
		}{
			{"no token", bmuAPI + "GetDocument", hdr("dev-1", ""), codes.Unauthenticated, "Bearer"},
			{"a forged token", bmuAPI + "GetDocument", hdr("dev-1", "eyJhbGciOiJFZERTQSJ9.e30.AAAA"), codes.Unauthenticated, "invalid token"},
			{"an unknown provider", bmuAPI + "GetDocument", hdr("nobody", ""), codes.Unimplemented, "provider_id"},
			{"a login", opLogin, hdr("dev-1", ""), codes.ResourceExhausted, "65536"},
			{"a password change without a token", opChange, hdr("dev-1", ""), codes.ResourceExhausted, "65536"},
		}
		for _, c := range cases {
			t.Run("rest/"+c.name, func(t *testing.T) { // the semantics both gRPC faces match
				st, msg, took := stalledRESTCall(t, d.url, c.path, c.headers)
				want := status.HTTPStatus(status.Code(c.code))
				if c.code == codes.ResourceExhausted {
					want = http.StatusRequestEntityTooLarge // a body too large, not a quota
				}
				if st != want || !strings.Contains(msg, c.message) {
					t.Fatalf("%s: HTTP %d %q after %s, want %d (%q)", c.path, st, msg, took, want, c.message)
				}
			})
			t.Run("native/"+c.name, func(t *testing.T) {
				code, msg, took := stalledNativeCall(t, u.Host, c.path, c.headers)
				if code != c.code || !strings.Contains(msg, c.message) {
					t.Fatalf("%s: %s %q after %s, want %s (%q)", c.path, code, msg, took, c.code, c.message)
				}
			})
			t.Run("grpc-web/"+c.name, func(t *testing.T) {
				code, msg, took := stalledWebCall(t, d.url, c.path, c.headers)
				if code != c.code || !strings.Contains(msg, c.message) {
					t.Fatalf("%s: %s %q after %s, want %s (%q)", c.path, code, msg, took, c.code, c.message)
				}
			})
		}

		// Authenticated, a message over 1 MiB is read (the XML then refused).
		tok := d.token(t, "alice")
		d.grpc = dialGRPC(t, d.url)
		xml := fmt.Sprintf(`{"docXml":%q}`, strings.Repeat("A", 2<<20))
		st, _, raw := d.doGRPC(t, call{path: bmuAPI + "GetDocument", headers: hdr("dev-1", tok), body: []byte(xml)})
		if st != 400 {
			t.Fatalf("an authenticated 2 MiB message over gRPC: %d %.200s", st, raw)
		}
		// Over gRPC-Web too: a real message, with its token.
		frame := grpcFrame(protoBytesField(1, bytes.Repeat([]byte("A"), 2<<20)))
		code, msg := webCall(t, d.url, bmuAPI+"GetDocument", hdr("dev-1", tok), frame)
		if code != codes.InvalidArgument {
			t.Fatalf("an authenticated 2 MiB message over gRPC-Web: %s %.200s", code, msg)
		}
	})
}

// Large messages over gRPC wait for a large-body slot before they are
// read: with every slot held by a REST upload, a large native gRPC call is
// UNAVAILABLE (with its retry delay) quickly, before its message arrives.
func TestGRPCLargeMessagesTakeASlot(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	tok := d.token(t, "alice")
	u, _ := url.Parse(d.url)
	release := holdLargeBodySlots(t, d.url, tok)
	defer release()
	t0 := time.Now()
	code, msg, took := stalledNativeCall(t, u.Host, bmuAPI+"GetDocument", hdr("dev-1", tok))
	if code != codes.Unavailable || !strings.Contains(msg, "WASTEFLOW_LARGE_BODY_SLOTS") || time.Since(t0) > 5*time.Second {
		t.Fatalf("a large gRPC message with the slots taken: %s %q after %s", code, msg, took)
	}
	code, msg, took = stalledWebCall(t, d.url, bmuAPI+"GetDocument", hdr("dev-1", tok))
	if code != codes.Unavailable || !strings.Contains(msg, "WASTEFLOW_LARGE_BODY_SLOTS") {
		t.Fatalf("a large gRPC-Web message with the slots taken: %s %q after %s", code, msg, took)
	}
}

// holdLargeBodySlots takes the four large-body slots with REST uploads
// that stall; release ends them.
func holdLargeBodySlots(t *testing.T, base, tok string) func() {
	done := make(chan struct{})
	started := make(chan struct{}, 4)
	finished := make(chan struct{}, 4)
	for range 4 { // the default WASTEFLOW_LARGE_BODY_SLOTS
		go func() {
			defer func() { finished <- struct{}{} }()
			pr, pw := io.Pipe()
			go func() {
				pw.Write([]byte(`{"docXml":"`))
				started <- struct{}{}
				<-done
				pw.CloseWithError(io.ErrUnexpectedEOF)
			}()
			req, _ := http.NewRequest(http.MethodPost, base+bmuAPI+"GetDocument", pr)
			req.ContentLength = 2 << 20
			req.Header.Set("provider_id", "dev-1")
			req.Header.Set("Authorization", "Bearer "+tok)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 4 {
		<-started
	}
	time.Sleep(200 * time.Millisecond) // the four hold their slots
	return func() {
		close(done)
		for range 4 {
			<-finished
		}
	}
}

// stalledNativeCall opens an HTTP/2 connection in cleartext (the native
// gRPC face), sends a call's headers and the length prefix of a message of
// stalledSize, and waits for the call's status without sending the
// message.
func stalledNativeCall(t *testing.T, addr, path string, headers map[string]string) (codes.Code, string, time.Duration) {
	t.Helper()
	code, msg, took, err := nativeStall(addr, path, headers, lengthPrefix(stalledSize), stallFor)
	if err != nil {
		t.Fatal(err)
	}
	return code, msg, took
}

// lengthPrefix is the 5-byte prefix of an uncompressed message of n bytes.
func lengthPrefix(n uint32) []byte {
	var prefix [5]byte
	binary.BigEndian.PutUint32(prefix[1:], n)
	return prefix[:]
}

// nativeStall is stalledNativeCall sending data (and not the end of the
// client's side), waiting up to wait for the status; an error when none
// comes (safe outside the test's goroutine).
func nativeStall(addr, path string, headers map[string]string, data []byte, wait time.Duration) (codes.Code, string, time.Duration, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, "", 0, err
	}
	defer conn.Close()
	t0 := time.Now()
	_ = conn.SetDeadline(t0.Add(wait))
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		return 0, "", 0, err
	}
	fr := http2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if err := fr.WriteSettings(); err != nil {
		return 0, "", 0, err
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", addr},
		{"content-type", "application/grpc"}, {"te", "trailers"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	for k, v := range headers {
		_ = enc.WriteField(hpack.HeaderField{Name: strings.ToLower(k), Value: v})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true}); err != nil {
		return 0, "", 0, err
	}
	if err := fr.WriteData(1, false, data); err != nil {
		return 0, "", 0, err
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return 0, "", 0, fmt.Errorf("%s: no status after %s (the server waits for the message): %v", path, time.Since(t0), err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := fr.WriteSettingsAck(); err != nil {
					return 0, "", 0, err
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			if s := f.PseudoValue("status"); s != "" && s != "200" {
				return 0, "", 0, fmt.Errorf("%s: HTTP status %s", path, s)
			}
			fields := map[string]string{}
			for _, hf := range f.RegularFields() {
				fields[hf.Name] = hf.Value
			}
			if v := fields["grpc-status"]; v != "" {
				n, _ := strconv.Atoi(v)
				msg, _ := url.PathUnescape(fields["grpc-message"])
				return codes.Code(n), msg, time.Since(t0), nil
			}
		case *http2.RSTStreamFrame:
			return 0, "", 0, fmt.Errorf("%s: the stream was reset (%v) without a status", path, f.ErrCode)
		case *http2.GoAwayFrame:
			return 0, "", 0, fmt.Errorf("%s: the server went away (%v)", path, f.ErrCode)
		}
	}
}

// stalledWebCall is stalledNativeCall as a gRPC-Web call over HTTP/1.1
// with the message's Content-Length.
func stalledWebCall(t *testing.T, base, path string, headers map[string]string) (codes.Code, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stallFor)
	defer cancel()
	var prefix [5]byte
	binary.BigEndian.PutUint32(prefix[1:], stalledSize)
	body := &stalledBody{rest: prefix[:], ctx: ctx} // and nothing more until the call is over
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, body)
	req.ContentLength = 5 + stalledSize
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	t0 := time.Now()
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		t.Fatalf("%s: no answer after %s (the server waits for the message): %v", path, time.Since(t0), err)
	}
	defer resp.Body.Close()
	took := time.Since(t0)
	code, msg := webStatus(t, resp)
	return code, msg, took
}

// stalledRESTCall is stalledNativeCall over REST: a JSON body announced
// by its Content-Length, sent up to its first byte.
func stalledRESTCall(t *testing.T, base, path string, headers map[string]string) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stallFor)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, &stalledBody{rest: []byte("{"), ctx: ctx})
	req.ContentLength = stalledSize
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	t0 := time.Now()
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		t.Fatalf("%s: no answer after %s (the server waits for the body): %v", path, time.Since(t0), err)
	}
	defer resp.Body.Close()
	took := time.Since(t0)
	var e struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Message, took
}

// webCall sends body (gRPC frames) as a gRPC-Web call and reads its status.
func webCall(t *testing.T, base, path string, headers map[string]string, body []byte) (codes.Code, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return webStatus(t, resp)
}

// webStatus is a gRPC-Web answer's status: in the headers (trailers-only)
// or in the trailer frame at the body's end.
func webStatus(t *testing.T, resp *http.Response) (codes.Code, string) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d", resp.StatusCode)
	}
	if v := resp.Header.Get("Grpc-Status"); v != "" {
		n, _ := strconv.Atoi(v)
		msg, _ := url.PathUnescape(resp.Header.Get("Grpc-Message"))
		return codes.Code(n), msg
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for len(body) >= 5 {
		n := int(binary.BigEndian.Uint32(body[1:5]))
		if body[0]&0x80 != 0 { // the trailers
			code, msg := codes.Unknown, ""
			for _, line := range strings.Split(string(body[5:5+n]), "\r\n") {
				k, v, _ := strings.Cut(line, ":")
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "grpc-status":
					c, _ := strconv.Atoi(strings.TrimSpace(v))
					code = codes.Code(c)
				case "grpc-message":
					msg, _ = url.PathUnescape(strings.TrimSpace(v))
				}
			}
			return code, msg
		}
		body = body[5+n:]
	}
	t.Fatal("a gRPC-Web answer without a status")
	return 0, ""
}

// stallFor is how long a stalled call waits for its answer: far longer
// than an admission takes, far shorter than the server's timeouts.
const stallFor = 5 * time.Second

// stalledBody sends rest, then nothing until ctx ends.
type stalledBody struct {
	rest []byte
	ctx  context.Context
}

func (b *stalledBody) Read(p []byte) (int, error) {
	if len(b.rest) > 0 {
		n := copy(p, b.rest)
		b.rest = b.rest[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func grpcFrame(msg []byte) []byte {
	out := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...)
}

// protoBytesField is field num of wire type 2 holding b.
func protoBytesField(num int, b []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(num)<<3|2)
	out = binary.AppendUvarint(out, uint64(len(b)))
	return append(out, b...)
}
