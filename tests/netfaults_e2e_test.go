package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/audit"
)

// The database's network failing (PostgreSQL behind toxiproxy, in
// process): with 200 ms added to every packet requests succeed, slowly;
// when the network swallows everything (a black hole: toxiproxy accepts
// and drops, as a pooler whose server is gone would) a request answers 503
// with Retry-After when its time is up (WASTEFLOW_REQUEST_TIMEOUT, 3 s
// here) instead of hanging; a connection reset mid-request answers 503 or
// succeeds; and when the network comes back the server works again by
// itself, nothing half-applied (every audit chain intact, every document's
// version its audit rows).
func TestDatabaseNetworkFaults(t *testing.T) {
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	real := dbtest.Postgres(t)
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	upstream := hostPort(real.DSN)
	proxy := toxiproxy.NewProxy(srv, "postgres", "127.0.0.1:0", upstream)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Stop)
	cfg := real
	cfg.DSN, cfg.URL = strings.Replace(real.DSN, upstream, proxy.Listen, 1), strings.Replace(real.URL, upstream, proxy.Listen, 1)
	d := startDocs(t, cfg)
	deps := d.deps
	c := *deps.Config
	c.RequestTimeout = 3 * time.Second
	deps.Config = &c
	s, err := handlers.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, s)
	t.Cleanup(hs.Close)
	faulty := &authEnv{env: &env{url: hs.URL, srv: s, t: t}, db: d.db}
	token := d.token(t, "alice")
	get := func(id string) (int, http.Header, []byte, time.Duration) {
		began := time.Now()
		st, h, body := faulty.do(t, call{method: http.MethodPost, path: co + "GetDocument", headers: hdr("dev-1", token), body: []byte(`{"documentId":"` + id + `"}`)})
		return st, h, body, time.Since(began)
	}
	toxic := func(body string) func() {
		t.Helper()
		w, err := proxy.Toxics.AddToxicJson(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := proxy.Toxics.RemoveToxic(context.Background(), w.Name); err != nil {
				t.Fatal(err)
			}
		}
	}
	id := d.submitted(t)
	// A notifier group of the destination authority, to long-poll through the faults.
	_, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	if g["groupId"] == nil {
		t.Fatalf("register: %s", raw)
	}
	_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	group := lg["groupToken"].(string)
	// The submission's event, read once it is listed (a long poll: it gets
	// its position once the transactions before it ended), so that the
	// polls below start after it; read from the server without the 3 s
	// request timeout (under a loaded make test the position once came
	// later than that, and the faulty server answered 503 before any
	// fault).
	_, first, _ := d.post(t, ntf+"ListNotifications", hdr("dev-1", group), map[string]any{"waitSeconds": 15})
	if n, _ := first["notifications"].([]any); len(n) == 0 {
		t.Fatalf("the submission's event is not listed: %v", first)
	}
	cursor := first["nextCursor"]
	poll := func(wait int) (int, http.Header, []byte, time.Duration) {
		began := time.Now()
		raw, _ := json.Marshal(map[string]any{"cursor": cursor, "waitSeconds": wait})
		st, h, body := faulty.do(t, call{method: http.MethodPost, path: ntf + "ListNotifications", headers: hdr("dev-1", group), body: raw})
		return st, h, body, time.Since(began)
	}
	// A long poll longer than the request's time answers, empty, before
	// that time is up (not cut off by it).
	if st, _, body, took := poll(10); st != 200 || took > 3*time.Second || !strings.Contains(string(body), `"notifications":[]`) {
		t.Fatalf("a 10 s long poll with a 3 s request timeout: %d after %s: %s", st, took, body)
	}

	// 200 ms each way: slow, but answered.
	remove := toxic(`{"name": "slow", "type": "latency", "stream": "downstream", "attributes": {"latency": 200}}`)
	if st, _, body, took := get(id); st != 200 || took < 200*time.Millisecond {
		t.Fatalf("with 200 ms of latency: %d after %s: %s", st, took, body)
	}
	remove()

	// A black hole: 503 with Retry-After when the request's time is up.
	// Long polls waiting when it begins read again (sharing one read of a
	// database that does not answer) and end with their requests' time too.
	var polls sync.WaitGroup
	for range 3 {
		polls.Add(1)
		go func() {
			defer polls.Done()
			if st, h, body, took := poll(2); st != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || took > 4*time.Second {
				t.Errorf("a long poll in a black hole: %d (Retry-After %q) after %s: %s", st, h.Get("Retry-After"), took, body)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	remove = toxic(`{"name": "hole", "type": "timeout", "stream": "upstream", "attributes": {"timeout": 0}}`)
	polls.Wait()
	st, h, body, took := get(id)
	if st != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || took > 6*time.Second {
		t.Fatalf("in a black hole: %d (Retry-After %q) after %s: %s", st, h.Get("Retry-After"), took, body)
	}
	t.Logf("in a black hole: 503 after %s", took.Round(time.Millisecond))
	remove()

	// Connections reset mid-request: 503 or done, never half-done.
	remove = toxic(`{"name": "reset", "type": "reset_peer", "stream": "upstream", "attributes": {"timeout": 0}}`)
	for range 3 {
		st, h, body, _ := get(id)
		if st != 200 && (st != http.StatusServiceUnavailable || h.Get("Retry-After") == "") {
			t.Fatalf("with connections reset: %d (Retry-After %q) %s", st, h.Get("Retry-After"), body)
		}
	}
	remove()

	// A failover: every connection to the database dropped at once (the
	// proxy restarted, as a new primary behind the same address would be),
	// under load: each request answers 200 or 503, none hangs.
	var wg sync.WaitGroup
	var bad, answered, refused atomic.Int64
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				st, h, body, took := get(id)
				if st == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
					st = -st // a refusal must say when to retry
				}
				switch st {
				case 200:
					answered.Add(1)
				case http.StatusServiceUnavailable:
					refused.Add(1)
				}
				if (st != 200 && st != http.StatusServiceUnavailable) || took > 5*time.Second {
					if bad.Add(1) == 1 {
						t.Errorf("during the failover: %d after %s: %s", st, took, body)
					}
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	proxy.Stop()
	time.Sleep(300 * time.Millisecond)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("through the failover: %d answered, %d refused with 503", answered.Load(), refused.Load())

	// Back by itself: the next requests succeed, writes too.
	recovered := time.Now()
	for {
		st, _, _, _ := get(id)
		if st == 200 {
			break
		}
		if time.Since(recovered) > 15*time.Second {
			t.Fatalf("the server did not recover from the network's failure: %d", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("working again %s after the network came back", time.Since(recovered).Round(time.Millisecond))
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
	// No connection left behind by the failures: idle, none is in use.
	pool, err := d.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); pool.Stats().InUse > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("connections in use after the faults, with nothing running: %+v", pool.Stats())
		}
	}
	t.Logf("pool after the faults: %d open, %d in use (at most %d)", pool.Stats().OpenConnections, pool.Stats().InUse, pool.Stats().MaxOpenConnections)
	direct := dbtest.Open(t, real)
	breaks, rows, err := audit.Verify(context.Background(), direct)
	if err != nil || len(breaks) > 0 {
		t.Fatalf("audit trail: %d rows, broken %v (%v)", rows, breaks, err)
	}
	var mismatched int64
	if err := direct.Raw("SELECT COUNT(*) FROM documents d WHERE d.version <> (SELECT COUNT(*) FROM audit_events a WHERE a.document_id = d.id)").Scan(&mismatched).Error; err != nil || mismatched > 0 {
		t.Fatalf("%d documents whose version is not their audit rows (%v)", mismatched, err)
	}
}

// hostPort is the host:port of a PostgreSQL URL or key=value DSN.
func hostPort(dsn string) string {
	if i := strings.Index(dsn, "@"); i >= 0 && strings.HasPrefix(dsn, "postgres") {
		rest := dsn[i+1:]
		if j := strings.IndexAny(rest, "/?"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	return "127.0.0.1:5432"
}
