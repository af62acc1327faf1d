package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestIdleCostsNothing is part of make stress (PostgreSQL): what an
// instance costs the database while nothing happens, measured from
// outside as an operator would, in pg_stat_database's committed and
// rolled-back transactions of a database of its own. One server process
// (`wasteflow serve`, the demo's data, the scheduler on) first runs with
// no client: at most 2 transactions a second (the job queue and the
// webhook dispatcher wait for notifications, River's leader and
// scheduler and the safety polls remain). Then 1,000 long polls
// (ListNotifications, waitSeconds 30) wait over 50 notifier groups of two
// organisations: once started they add at most 1 transaction a second.
//
// PostgreSQL 15 flushes an idle connection's statistics up to 10 s after
// its last statement, so each count starts 12 s after the work before it
// (the server's start, the polls that started the waits), and the waits
// are counted before the first one ends. What the waits add is their 14 s
// against 14 s without a client two minutes earlier: the instance's
// background repeats every minute, and a minute's work (the sweep,
// River's checks) falling in one short window and not in the other would
// weigh more than the waits. It needs a quiet PostgreSQL cluster, as make
// stress gives it: a transaction running long anywhere in the cluster
// holds back new events' positions, and the sequencer retries until it
// ends.
func TestIdleCostsNothing(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	const groups, waiters = 50, 1000
	db := dbtest.PostgresDatabase(t)
	bin, env := stressSetupOn(t, db)
	addr, metricsAddr := freeAddr(), freeAddr()
	base := "http://" + addr
	cmd := &exec.Cmd{Path: bin, Args: []string{bin, "serve"}, Env: append(env, "WASTEFLOW_ADDR="+addr, "WASTEFLOW_METRICS_ADDR="+metricsAddr)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitHealthy(base, 20*time.Second)

	stats, err := models.Open(context.Background(), configs.Database{URL: db.URL, Driver: "postgres", DSN: db.DSN, MaxOpenConns: 1, MaxIdleConns: 1, ConnMaxLifetime: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer models.Close(stats)
	// The counter's own reads are one transaction each; they are left out.
	count := func() int64 {
		var n int64
		if err := stats.Raw("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	// at is a moment of the run, from the server's start; every
	// background task of an instance repeats within a minute (River's
	// leader and scheduler every 5 s, the safety polls every 10 s and
	// 30 s, the sweep and River's own checks every minute), so windows
	// a whole number of minutes apart see the same background.
	boot := time.Now()
	at := func(d time.Duration) { time.Sleep(time.Until(boot.Add(d))) }
	const window = 14 * time.Second
	// No client: a minute from 12 s after the start (its statistics are
	// in by then), and its first 14 s beside the waits' 14 s below.
	at(12 * time.Second)
	first := count()
	at(12*time.Second + window)
	firstEnd := count()
	at(72 * time.Second)
	idle := float64(count()-first-2) / 60
	quiet := float64(firstEnd-first-1) / window.Seconds()

	// 1,000 waits over 50 groups of acme (alice) and auth-de-by (bernd).
	c := &hookClient{t: t, base: base}
	tokens := make([]string, 0, groups)
	const grp = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"
	for i, user := range []string{"alice", "bernd"} {
		access := c.login(user)
		for g := range groups / 2 {
			r := c.post(grp+"RegisterGroup", access, map[string]any{"name": fmt.Sprintf("erp-%d-%d", i, g), "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
			tokens = append(tokens, c.post(grp+"Login", "", map[string]any{"groupId": r["groupId"], "groupSecret": r["groupSecret"]})["groupToken"].(string))
		}
	}
	client := &http.Client{Timeout: 40 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: waiters, MaxConnsPerHost: waiters}}
	poll := func(ctx context.Context, token, cursor string) (string, int, error) {
		body, _ := json.Marshal(map[string]any{"cursor": cursor, "waitSeconds": 30, "limit": 500})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/svc.namespaced_notifier.v1.api.NotificationApi/ListNotifications", bytes.NewReader(body))
		req.Header.Set("provider_id", "dev-1")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return cursor, 0, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m struct {
			Notifications []json.RawMessage `json:"notifications"`
			NextCursor    string            `json:"nextCursor"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(raw, &m) != nil {
			return cursor, 0, fmt.Errorf("%d %.200s", resp.StatusCode, raw)
		}
		return m.NextCursor, len(m.Notifications), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var failures, caughtUp atomic.Int64
	defer func() { cancel(); wg.Wait() }()
	// The waits' window is the quiet one's, two minutes later; they start
	// 13 s before it.
	at(2*time.Minute - time.Second)
	began := time.Now()
	for w := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor, caught := "", false
			for ctx.Err() == nil { // the demo's events first, then a wait
				next, n, err := poll(ctx, tokens[w%groups], cursor)
				if err != nil {
					if ctx.Err() == nil && failures.Add(1) <= 3 {
						t.Logf("waiter %d: %v", w, err)
					}
					return
				}
				if n < 500 && !caught { // the next poll waits
					caught = true
					caughtUp.Add(1)
				}
				cursor = next
			}
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); caughtUp.Load() < waiters || waitingNow(t, metricsAddr) < waiters; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) || failures.Load() > 0 {
			t.Fatalf("%d of %d waits started in %s", waitingNow(t, metricsAddr), waiters, time.Since(began).Round(time.Millisecond))
		}
	}
	started := time.Since(began)
	if started > 12*time.Second {
		t.Fatalf("the waits took %s to start: too long to measure them before they end", started)
	}
	at(2*time.Minute + 12*time.Second)
	before := count()
	at(2*time.Minute + 12*time.Second + window)
	waiting := float64(count()-before-1) / window.Seconds()
	fmt.Printf("idle transactions_per_s=%.2f (a minute) quiet_14s=%.2f waits=%d groups=%d started_in_s=%.1f with_waits_14s=%.2f added_per_s=%.2f\n",
		idle, quiet, waiters, groups, started.Seconds(), waiting, waiting-quiet)
	if idle > 2 {
		t.Errorf("an idle instance costs %.2f transactions a second (at most 2)", idle)
	}
	if waiting-quiet > 1 {
		t.Errorf("%d waiting long polls add %.2f transactions a second (at most 1)", waiters, waiting-quiet)
	}
	if n := failures.Load(); n > 0 {
		t.Errorf("%d waiters failed", n)
	}
}

// waitingNow is the wasteflow_waiters{kind="events"} gauge of the server
// whose metrics are at addr.
func waitingNow(t *testing.T, addr string) int {
	return int(metrics(t, "http://"+addr)[`wasteflow_waiters{kind="events"}`])
}
