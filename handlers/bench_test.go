package handlers_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// BenchmarkListProvider measures a whole request over loopback: routing,
// middleware, a database read, encoding.
func BenchmarkListProvider(b *testing.B) {
	e := startB(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get(e + "/svc.core.v1.api.DiscoveryApi/ListProvider")
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("HTTP %d", resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkEchoPost measures the provider check, body read and JSON codec.
func BenchmarkEchoPost(b *testing.B) {
	base := startB(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	body := `{"id":"42","count":7,"name":"waste","tags":["a","b","c"],"qpar":{"pageStart":0,"pageSize":50},"items":[{"pageStart":1},{"pageStart":2}]}`
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, base+"/svc.test.v1.api.EchoApi/Echo", strings.NewReader(body))
			req.Header.Set("provider_id", "dev-1")
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("HTTP %d", resp.StatusCode)
				return
			}
		}
	})
}

func startB(b *testing.B) string {
	b.Helper()
	return newServer(b, dbtest.SQLite(b)).url
}
