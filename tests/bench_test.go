package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// BenchmarkListProvider measures a whole request over loopback: routing,
// middleware, a database read, encoding.
func BenchmarkListProvider(b *testing.B) {
	base := startB(b)
	hammer(b, func() *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+"/svc.core.v1.api.DiscoveryApi/ListProvider", nil)
		return req
	})
}

// hammer sends build's requests from parallel clients; each must be a 200.
func hammer(b *testing.B, build func() *http.Request) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Do(build())
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

func postJSON(client *http.Client, url, provider, bearer string, body []byte) (map[string]any, int, error) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("provider_id", provider)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return m, resp.StatusCode, nil
}

// BenchmarkLogin: IssueRefreshToken by password over loopback (argon2id
// bound: 19 MiB, t=2, at most 4 at once). Reports logins/s.
func BenchmarkLogin(b *testing.B) {
	a := startAuth(b, dbtest.SQLite(b), 1<<30)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	body := mustJSON(map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "alice-password-1"}, "appToken": appUI})
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, st, err := postJSON(client, a.url+opLogin, "dev-1", "", body); err != nil || st != 200 {
				b.Errorf("login: %d %v", st, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "logins/s")
}

// BenchmarkRequestAccess: one refresh-token chain per client, rotated on
// every call. Reports exchanges/s.
func BenchmarkRequestAccess(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres"} {
		b.Run(db, func(b *testing.B) {
			cfg := dbtest.SQLite(b)
			if db == "postgres" {
				cfg = dbtest.Postgres(b)
			}
			a := startAuth(b, cfg, 1<<30)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			login := mustJSON(map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "alice-password-1"}, "appToken": appUI})
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				m, st, err := postJSON(client, a.url+opLogin, "dev-1", "", login)
				if err != nil || st != 200 {
					b.Errorf("login: %d %v", st, err)
					return
				}
				rt := m["refreshToken"].(string)
				for pb.Next() {
					m, st, err := postJSON(client, a.url+opAccess, "dev-1", rt, nil)
					if err != nil || st != 200 {
						b.Errorf("RequestAccess: %d %v", st, err)
						return
					}
					rt = m["refreshToken"].(string)
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "exchanges/s")
		})
	}
}
