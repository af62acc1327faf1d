package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// hookReceiver is an integrator's endpoint on loopback: it verifies each
// message with the Standard Webhooks reference library, answers 503 while
// down (or, with flaky set, to that share of messages) and 204 otherwise.
type hookReceiver struct {
	srv    *httptest.Server
	secret atomic.Pointer[string]
	down   atomic.Bool
	hold   atomic.Bool // answer only after 3 s (a kill lands during the attempt)
	flaky  float64
	mu     sync.Mutex
	tries  map[string]int   // attempts by webhook-id
	taken  map[string]int   // 2xx answers by webhook-id
	order  map[string][]int // each document's cursors in the order first accepted
	bad    []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{tries: map[string]int{}, taken: map[string]int{}, order: map[string][]int{}}
	r.down.Store(true)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		defer r.mu.Unlock()
		secret := r.secret.Load()
		wh, err := standardwebhooks.NewWebhook(*secret)
		if err == nil {
			err = wh.Verify(body, req.Header)
		}
		if err != nil {
			r.bad = append(r.bad, fmt.Sprintf("%s: %v", id, err))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.tries[id]++
		down := r.down.Load()
		if r.hold.Load() { // the sender is killed meanwhile: this attempt fails whatever comes after
			r.mu.Unlock()
			time.Sleep(3 * time.Second)
			r.mu.Lock()
			down = true
		}
		if down || (r.flaky > 0 && rand.Float64() < r.flaky) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.taken[id] == 0 {
			var env struct {
				Data struct {
					DocumentID string `json:"documentId"`
					Cursor     string `json:"cursor"`
				} `json:"data"`
			}
			_ = json.Unmarshal(body, &env)
			c, _ := strconv.Atoi(env.Data.Cursor)
			r.order[env.Data.DocumentID] = append(r.order[env.Data.DocumentID], c)
		}
		r.taken[id]++
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// hookClient talks to one server process as the demo's users and groups.
type hookClient struct {
	t    *testing.T
	base string
}

func (c *hookClient) post(path, token string, body any) map[string]any {
	c.t.Helper()
	raw, _ := json.Marshal(body)
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(raw))
		req.Header.Set("provider_id", "dev-1")
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil && attempt < 50 { // a process being restarted
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			c.t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if resp.StatusCode != 200 || json.Unmarshal(out, &m) != nil {
			c.t.Fatalf("%s: %d %.300s", path, resp.StatusCode, out)
		}
		return m
	}
}

func (c *hookClient) login(user string) string {
	rt := c.post("/svc.core.v1.api.AuthApi/IssueRefreshToken", "", map[string]any{
		"usernameCredentials": map[string]string{"username": user, "password": user + "-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
	return c.post("/svc.core.v1.api.AuthApi/RequestAccess", rt["refreshToken"].(string), map[string]any{})["accessToken"].(string)
}

// endpoint registers a group of user's organisation and an endpoint of it
// at r for DOCUMENT_STATE_CHANGED; it returns the group token.
func (c *hookClient) endpoint(user string, r *hookReceiver) string {
	const grp = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"
	g := c.post(grp+"RegisterGroup", c.login(user), map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	gt := c.post(grp+"Login", "", map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})["groupToken"].(string)
	e := c.post("/svc.namespaced_notifier.v1.api.WebhookApi/CreateWebhookEndpoint", gt, map[string]any{"url": r.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	secret := e["secret"].(string)
	r.secret.Store(&secret)
	return gt
}

// startServe starts `wasteflow serve` with env and returns it with its URL.
func startServe(t *testing.T, bin string, env []string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-no-scheduler")
	cmd.Env = env
	return cmd, listening(t, cmd)
}

// listening starts cmd (a serve command), stops it when the test ends,
// and returns the address its log says it listens on.
func listening(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	base, _ := listeningWithMetrics(t, cmd)
	return base
}

// metricsRe finds the address of the metrics in the log line of serve
// that says where it listens.
var metricsRe = regexp.MustCompile(`metrics=http://(127\.0\.0\.1:\d+)/metrics`)

// listeningWithMetrics is listening, with the host:port of the metrics
// (WASTEFLOW_METRICS_ADDR; "" when off).
func listeningWithMetrics(t *testing.T, cmd *exec.Cmd) (base, metrics string) {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urlRe := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)`)
	var log strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			if mm := metricsRe.FindStringSubmatch(lines.Text()); mm != nil {
				metrics = mm[1]
			}
			return m[1], metrics
		}
	}
	t.Fatalf("the server never said where it listens:\n%s", log.String())
	return "", ""
}

// A webhook retry survives a kill: a delivery failing against a receiver
// that is down is retried by the server; the server is killed with
// SIGKILL during its third attempt; the receiver comes up; the restarted
// server rescues the attempt's job and makes the retry, under the same
// webhook-id, and it is accepted once.
func TestWebhookRetrySurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		t.Parallel()
		// A kill that lands during an attempt leaves its job running: the
		// next process rescues it after WASTEFLOW_JOB_RESCUE_AFTER (above
		// the attempt job's own limit, the webhook timeout plus 10 s).
		env := append(demoEnv(t, bin, db), "WASTEFLOW_LOG_LEVEL=info", "WASTEFLOW_ADDR=127.0.0.1:0", "WASTEFLOW_JOB_POLL=100ms",
			"WASTEFLOW_JOB_TIMEOUT=5s", "WASTEFLOW_JOB_RESCUE_AFTER=13s", "WASTEFLOW_WEBHOOK_TIMEOUT=2s",
			"WASTEFLOW_WEBHOOK_POLL=100ms", "WASTEFLOW_WEBHOOK_RETRIES=300ms,600ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s")
		gdb := dbtest.Open(t, db)
		var doc struct { // a notification the Dutch authority has yet to acknowledge
			ID      string
			Version int64
		}
		if err := gdb.Raw(`SELECT d.id, d.version FROM documents d JOIN deadlines l ON l.document_id = d.id
WHERE l.rule = 'ACKNOWLEDGEMENT_DUE' AND l.party_org = 'auth-nl' AND l.state IN ('OPEN', 'DUE_SOON', 'OVERDUE') ORDER BY d.id LIMIT 1`).Scan(&doc).Error; err != nil || doc.ID == "" {
			t.Fatalf("no notification to acknowledge in the demo: %v", err)
		}
		cmd, base := startServe(t, bin, env)
		c := &hookClient{t: t, base: base}
		r := newHookReceiver(t)
		c.endpoint("alice", r)
		c.post("/svc.bxa.diwass.v1.api.AuthorityDocumentApi/SubmitAcknowledgement", c.login("noor"),
			map[string]any{"documentId": doc.ID, "version": fmt.Sprint(doc.Version), "acknowledgement": map[string]any{"remarks": "received"}})
		// Two failed attempts; the third is held by the receiver, and the
		// server is killed during it (its job stays marked running).
		var id string
		for deadline := time.Now().Add(30 * time.Second); id == ""; time.Sleep(20 * time.Millisecond) {
			r.mu.Lock()
			for k, n := range r.tries {
				if n >= 2 {
					id = k
					r.hold.Store(true)
				}
			}
			r.mu.Unlock()
			if time.Now().After(deadline) {
				t.Fatal("no retry within 30 s")
			}
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			r.mu.Lock()
			n := r.tries[id]
			r.mu.Unlock()
			if n >= 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no third attempt within 30 s")
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		r.down.Store(false)
		r.hold.Store(false)
		r.mu.Lock()
		before := r.tries[id]
		r.mu.Unlock()
		killed := time.Now()
		startServe(t, bin, env)
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			r.mu.Lock()
			taken, tries, bad := r.taken[id], r.tries[id], slices.Clone(r.bad)
			r.mu.Unlock()
			if len(bad) > 0 {
				t.Fatalf("messages that do not verify: %v", bad)
			}
			if taken > 0 {
				if taken != 1 || tries <= before {
					t.Fatalf("%s: accepted %d times, %d attempts (%d before the kill)", id, taken, tries, before)
				}
				t.Logf("%s: %d attempts before the kill, accepted %v after the restart", id, before, time.Since(killed).Round(10*time.Millisecond))
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not delivered within 2 minutes of the restart (%d attempts)", id, tries)
			}
		}
	})
}

// TestWebhooksSurviveKills is `make stress`: three server processes on one
// PostgreSQL deliver a stream of events (inserted as the engine does, in
// transactions of a few, spread over 40 documents) to a receiver that
// refuses a fifth of the messages at random, while one process after the
// other is killed with SIGKILL and restarted. Every event must be
// accepted, each document's first acceptances in the order of its events,
// and duplicates only as resends of one id (an attempt cut between the
// receiver's answer and its record).
func TestWebhooksSurviveKills(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	bin, db, env := stressSetup(t)
	seconds := 30
	if s, err := strconv.Atoi(os.Getenv("WASTEFLOW_STRESS_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	env = append(env, "WASTEFLOW_JOB_POLL=100ms", "WASTEFLOW_WEBHOOK_POLL=100ms", "WASTEFLOW_JOB_TIMEOUT=10s", "WASTEFLOW_JOB_RESCUE_AFTER=15s",
		"WASTEFLOW_WEBHOOK_TIMEOUT=2s", "WASTEFLOW_WEBHOOK_RETRIES=200ms,400ms,800ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s")
	const instances = 3
	addrs := make([]string, instances)
	procs := make([]*exec.Cmd, instances)
	var mu sync.Mutex
	start := func(i int) {
		cmd := &exec.Cmd{Path: bin, Args: []string{bin, "serve", "-no-scheduler"}, Env: append(slices.Clone(env), "WASTEFLOW_ADDR="+addrs[i])}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		procs[i] = cmd
		mu.Unlock()
		waitHealthy("http://"+addrs[i], 10*time.Second)
	}
	for i := range addrs {
		addrs[i] = freeAddr()
		start(i)
	}
	defer func() {
		mu.Lock()
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
		mu.Unlock()
	}()
	r := newHookReceiver(t)
	r.flaky = 0.2
	c := &hookClient{t: t, base: "http://" + addrs[0]}
	c.endpoint("alice", r)
	r.down.Store(false)

	gdb := dbtest.Open(t, db)
	stop := time.Now().Add(time.Duration(seconds) * time.Second)
	var kills atomic.Int64
	done := make(chan struct{})
	go func() { // the killer: one process every 0.5-1.5 s
		defer close(done)
		for time.Now().Before(stop) {
			time.Sleep(time.Duration(500+rand.IntN(1000)) * time.Millisecond)
			i := rand.IntN(instances)
			mu.Lock()
			_ = procs[i].Process.Kill()
			_ = procs[i].Wait()
			mu.Unlock()
			kills.Add(1)
			start(i)
		}
	}()
	var made int
	for seq := 0; time.Now().Before(stop); seq++ { // the events: 5 a transaction, every 20 ms
		tx := gdb.Begin()
		for j := range 5 {
			n := seq*5 + j
			if err := tx.Exec(`INSERT INTO events (provider_id, organisation_id, kind, document_id, deadline_id, dedup_key, payload, created_at)
VALUES ('dev-1', 'acme', 'DOCUMENT_STATE_CHANGED', ?, '', ?, '{"stress": true}', now())`, fmt.Sprintf("stress-doc-%02d", n%40), fmt.Sprintf("stress:%d", n)).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit().Error; err != nil {
			t.Fatal(err)
		}
		made += 5
		time.Sleep(20 * time.Millisecond)
	}
	<-done
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r.mu.Lock()
		got := len(r.taken)
		r.mu.Unlock()
		if got >= made {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events accepted 3 minutes after the load", got, made)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Fatalf("messages that do not verify: %v", r.bad[:min(5, len(r.bad))])
	}
	dups, tries := 0, 0
	for id, n := range r.taken {
		dups += n - 1
		tries += r.tries[id]
	}
	for doc, cursors := range r.order {
		if !slices.IsSorted(cursors) {
			t.Errorf("%s: accepted out of order: %v", doc, cursors)
		}
	}
	if len(r.taken) != made {
		t.Errorf("%d distinct events accepted, %d made", len(r.taken), made)
	}
	t.Logf("%d events to 1 endpoint over %d s, %d kills of 3 instances: all accepted, each document in order; %d attempts (a fifth refused), %d duplicate acceptances",
		made, seconds, kills.Load(), tries, dups)
}
