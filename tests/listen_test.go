package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// plainServer is a server on a migrated SQLite database, served as
// wasteflow serve does (Server.Listen); readHeader is its
// WASTEFLOW_READ_HEADER_TIMEOUT.
func plainServer(t *testing.T, readHeader time.Duration) string {
	t.Helper()
	db, err := models.Open(context.Background(), dbtest.SQLite(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	if _, err := models.Migrate(context.Background(), db, nil); err != nil {
		t.Fatal(err)
	}
	cfg, _ := configs.Load(func(string) (string, bool) { return "", false })
	cfg.ReadHeaderTimeout = readHeader
	srv, err := handlers.New(handlers.Deps{Config: cfg, DB: db})
	if err != nil {
		t.Fatal(err)
	}
	return serveH2C(t, srv).URL
}

// One port, three kinds of connection: HTTP/1.1 (even a request shorter
// than HTTP/2's preface is answered at once, not after the sniff's
// timeout), HTTP/2 in cleartext for REST (net/http), and native gRPC
// (grpc-go's server: its health service lists the services, which
// connect-go's does not implement).
func TestOnePortSplitsConnectionsByTheirFirstRequest(t *testing.T) {
	base := plainServer(t, 10*time.Second)
	addr := strings.TrimPrefix(base, "http://")

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.0\n\n"); err != nil { // 22 bytes, the preface has 24
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a short HTTP/1.0 request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/healthz over HTTP/1.0: %d", resp.StatusCode)
	}

	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: p}}
	for range 2 { // the connection is kept: the second request goes on it
		resp, err = h2c.Get(base + "/svc.core.v1.api.DiscoveryApi/ListProvider")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ProtoMajor != 2 || !strings.Contains(string(body), "providers") {
			t.Fatalf("REST over h2c: %d HTTP/%d %s", resp.StatusCode, resp.ProtoMajor, body)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	health := healthpb.NewHealthClient(dialGRPC(t, base))
	list, err := health.List(ctx, &healthpb.HealthListRequest{})
	if err != nil {
		t.Fatalf("health List over native gRPC: %v", err)
	}
	if list.GetStatuses()["svc.core.v1.api.DiscoveryApi"].GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health List: %v", list)
	}
	if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "no.such.Service"}); grpcstatus.Code(err) != codes.NotFound {
		t.Fatalf("an unknown service: %v", err)
	}
}

// A connection that opens and says nothing is closed after
// WASTEFLOW_READ_HEADER_TIMEOUT, as net/http closes a slow request; one
// that says HTTP/2's preface and then nothing too.
func TestSilentConnectionsAreClosed(t *testing.T) {
	addr := strings.TrimPrefix(plainServer(t, 300*time.Millisecond), "http://")
	for name, say := range map[string]string{"nothing": "", "the preface only": "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, say); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		_, err = io.Copy(io.Discard, c) // the server's SETTINGS, if any, then EOF
		if err != nil || time.Since(start) > 3*time.Second {
			t.Errorf("%s: %v after %v, want the server to close within its timeout", name, err, time.Since(start))
		}
	}
}

// TLS on the cleartext port is not mistaken for HTTP/2: net/http answers
// it (and the client fails its handshake) without a hang.
func TestTLSOnTheCleartextPortFails(t *testing.T) {
	addr := strings.TrimPrefix(plainServer(t, 10*time.Second), "http://")
	d := &net.Dialer{Timeout: 3 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		c.Close()
		t.Fatal("a TLS handshake succeeded on the cleartext port")
	}
}

// A client that sends a request and then data without acknowledging the
// server's settings is cut off once the sniff holds more than a request's
// headers and a window of bodies, not buffered without end.
func TestSniffHoldsABoundedStart(t *testing.T) {
	addr := strings.TrimPrefix(plainServer(t, 30*time.Second), "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	go io.Copy(io.Discard, c) // the server's SETTINGS, never acknowledged
	fr := http2.NewFramer(c, nil)
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", addr}, {":path", "/svc.core.v1.api.AuthApi/RequestAccess"}, {"content-type", "application/grpc"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 16<<10)
	sent := 0
	for ; sent < 64<<20; sent += len(chunk) {
		if err := fr.WriteData(1, false, chunk); err != nil {
			break
		}
	}
	if sent >= 64<<20 {
		t.Fatalf("the server took %d MiB before its settings were acknowledged", sent>>20)
	}
	t.Logf("cut off after %d MiB", sent>>20)
}

// A client that keeps its stream alive with pings every 10 s (as behind a
// load balancer) keeps its connection: grpc-go's default policy would end
// it with too_many_pings after the third.
func TestKeepalivePingsKeepAStream(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 35 s")
	}
	t.Parallel()
	base := plainServer(t, 10*time.Second)
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { _, err := watch.Recv(); ended <- err }()
	select {
	case err := <-ended:
		t.Fatalf("the stream ended: %v", err)
	case <-time.After(35 * time.Second):
	}
}
