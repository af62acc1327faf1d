package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/events"
	"github.com/wasteflow/wasteflow/workflows/wake"
)

// TestIdleWaitsCostNothing is part of make stress (PostgreSQL): 1,000
// long polls on ListNotifications spread over three instances sharing one
// database. While they wait and nothing happens, the database serves at
// most 10 transactions a second (pg_stat_database); then events are made
// through the first instance one at a time, and the time from each
// event's commit to each waiter's answer is measured (p99 at most 100
// ms); every waiter receives every event once, in order.
func TestIdleWaitsCostNothing(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	const waiters, rounds = 1000, 20
	dbcfg := dbtest.Postgres(t)
	d := startDocs(t, dbcfg)
	urls, srvs := []string{d.url}, []*handlers.Server{d.srv}
	for range 2 {
		db := dbtest.Open(t, dbcfg)
		hub := &wake.Hub{}
		listen(t, dbcfg, map[string]models.Feed{models.EventChannel: hub}, hub.Live)
		deps := d.deps
		deps.DB = db
		deps.Events = &events.Service{Store: models.NewEventStore(db), Poll: 250 * time.Millisecond, Wake: hub}
		srv, err := handlers.New(deps)
		if err != nil {
			t.Fatal(err)
		}
		hs := serveH2C(t, srv)
		t.Cleanup(hs.Close)
		urls, srvs = append(urls, hs.URL), append(srvs, srv)
	}
	_, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	if g["groupId"] == nil {
		t.Fatalf("register: %s", raw)
	}
	_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	gt := lg["groupToken"].(string)
	client := &http.Client{Timeout: 40 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: waiters, MaxIdleConns: 3 * waiters}}
	poll := func(url, cursor string) (map[string]any, error) {
		body, _ := json.Marshal(map[string]any{"cursor": cursor, "waitSeconds": 30})
		req, _ := http.NewRequest(http.MethodPost, url+ntf+"ListNotifications", bytes.NewReader(body))
		req.Header.Set("provider_id", "dev-1")
		req.Header.Set("Authorization", "Bearer "+gt)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%d %s", resp.StatusCode, raw)
		}
		var m map[string]any
		return m, json.Unmarshal(raw, &m)
	}
	first, err := poll(d.url, "")
	if err != nil {
		t.Fatal(err)
	}
	start := first["nextCursor"].(string)
	transactions := func() int64 {
		var n int64
		if err := d.db.Raw("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	// made[i] is when event round i committed; got collects each answer's delay.
	var made [rounds]atomic.Int64
	var mu sync.Mutex
	var delays []time.Duration
	var failures atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for w := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url, cursor, seen := urls[w%len(urls)], start, 0
			for seen < rounds {
				m, err := poll(url, cursor)
				if err != nil {
					if failures.Add(1) <= 3 {
						t.Logf("waiter %d: %v", w, err)
					}
					return
				}
				at := time.Now()
				for _, n := range m["notifications"].([]any) {
					if seen < rounds {
						if c := made[seen].Load(); c > 0 {
							mu.Lock()
							delays = append(delays, at.Sub(time.Unix(0, c)))
							mu.Unlock()
						}
					}
					seen++
					_ = n
				}
				cursor = m["nextCursor"].(string)
			}
		}()
	}
	// Idle: every waiter is waiting; the stats are flushed at most every
	// second by each backend, so let them settle, then count for 20 s.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int64
		for _, srv := range srvs {
			n += metricAt(t, srv, `wasteflow_waiters{kind="events"}`)
		}
		if n == waiters {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waiters registered", n, waiters)
		}
	}
	// Counted inside the waits: from 11 s after the last one registered
	// (PostgreSQL 15 flushes an idle connection's statistics within 10 s:
	// the polls that started the waits must be counted before) to 2 s
	// before the first one ends (a client asks again after each wait: that
	// costs what one poll costs).
	registered := time.Since(began)
	time.Sleep(11 * time.Second)
	before, t0 := transactions(), time.Now()
	time.Sleep(17*time.Second - registered)
	idle := float64(transactions()-before) / time.Since(t0).Seconds()
	t.Logf("all %d waiting after %s; idle for %s", waiters, registered.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))

	// Events, one at a time: each one a new notification filed through the
	// first instance (a state change the authority is told of).
	for i := range rounds {
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		made[i].Store(time.Now().UnixNano()) // before the request that makes the event: its own time counts too
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": content()})
		time.Sleep(300 * time.Millisecond)
	}
	wg.Wait()
	slices.Sort(delays)
	p50, p99 := delays[len(delays)/2], delays[len(delays)*99/100]
	fmt.Printf("waits waiters=%d instances=3 idle_transactions_per_s=%.1f events=%d answers=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f failures=%d\n",
		waiters, idle, rounds, len(delays), ms(p50), ms(p99), ms(delays[len(delays)-1]), failures.Load())
	if failures.Load() > 0 {
		t.Errorf("%d waiters failed", failures.Load())
	}
	if idle > 10 {
		t.Errorf("%d idle waits cost %.1f transactions a second", waiters, idle)
	}
	if len(delays) != waiters*rounds {
		t.Errorf("%d answers with an event, want %d", len(delays), waiters*rounds)
	}
	if p99 > 100*time.Millisecond {
		t.Errorf("an event reached its waiters in %s (p99)", p99)
	}
}

// metricAt reads one value of srv's metrics.
func metricAt(t *testing.T, srv *handlers.Server, name string) int64 {
	t.Helper()
	return int64(metricOf(t, srv, name))
}
