package tests

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/wasteflow/wasteflow/models/dbtest"
	core "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
)

// BenchmarkCallOverhead is one small operation (the provider directory,
// one indexed read) called in turn over REST (HTTP/1.1 and HTTP/2 in
// cleartext) and over gRPC, for what each face adds to a call; `make
// bench` prints them. On this 2-core machine on 25 November 2026, client
// included: REST about 145 µs a call, REST over h2c about 205 µs, gRPC
// (grpc-go's client and server) about 220 µs: HTTP/2's frames (the
// trailers, flow control), more writes and goroutine hand-offs on both
// sides. That is latency one call at a time; under load, where a
// connection's calls share writes, gRPC's rate equals REST's (TestLoad).
func BenchmarkCallOverhead(b *testing.B) {
	check := checkWire
	checkWire = false // the server as it runs
	defer func() { checkWire = check }()
	d := startDocs(b, dbtest.SQLite(b))
	get := func(b *testing.B, c *http.Client, major int) {
		for b.Loop() {
			r, err := c.Get(d.url + "/svc.core.v1.api.DiscoveryApi/ListProvider")
			if err != nil || r.ProtoMajor != major {
				b.Fatal(err, r)
			}
			_, _ = io.ReadAll(r.Body)
			r.Body.Close()
		}
	}
	b.Run("rest", func(b *testing.B) { get(b, http.DefaultClient, 1) })
	b.Run("rest-h2c", func(b *testing.B) {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		get(b, &http.Client{Transport: &http.Transport{Protocols: p}}, 2)
	})
	b.Run("grpc", func(b *testing.B) {
		c := core.NewDiscoveryApiClient(dialGRPC(b, d.url))
		for b.Loop() {
			if _, err := c.ListProvider(context.Background(), &core.ListProviderRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
