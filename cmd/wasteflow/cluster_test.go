package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestClusterSuite is part of `make stress` (PostgreSQL and HAProxy): three
// server processes on one database, each with its scheduler on (a sweep
// every 2 s), behind HAProxy (Debian's package: round robin, health-checked
// on /readyz every 200 ms). The crash suite's load goes through HAProxy,
// with two notifier-group readers long-polling by cursor, while every 1-3 s
// one instance is killed with SIGKILL and restarted. Afterwards the crash
// suite's invariants hold, every poll was answered (by whichever instance,
// or refused at once when its instance died, never left hanging), and each
// reader received every event of its organisation exactly once, in order.
func TestClusterSuite(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("the cluster suite runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("the cluster suite needs HAProxy (Debian: apt-get install haproxy; .ci/run installs it)")
	}
	bin, db, env := stressSetup(t)
	addrs := []string{freeAddr(), freeAddr(), freeAddr()}
	front := freeAddr()
	base := "http://" + front

	var mu sync.Mutex
	procs := make([]*exec.Cmd, len(addrs))
	start := func(i int) {
		cmd := &exec.Cmd{Path: bin, Args: []string{bin, "serve"}, Env: append(env, "WASTEFLOW_ADDR="+addrs[i], "WASTEFLOW_SWEEP_SCHEDULE=@every 2s")}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		procs[i] = cmd
		mu.Unlock()
		waitHealthy("http://"+addrs[i], 10*time.Second)
	}
	for i := range addrs {
		start(i)
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()

	startHAProxy(t, haproxy, front, addrs, "inter 200ms fall 1 rise 1")
	waitHealthy(base, 10*time.Second)

	killer := func(ctx context.Context, kills *atomic.Int64) {
		for ctx.Err() == nil {
			time.Sleep(time.Duration(1000+rand.IntN(2000)) * time.Millisecond)
			i := rand.IntN(len(addrs))
			mu.Lock()
			_ = procs[i].Process.Kill()
			_ = procs[i].Wait()
			mu.Unlock()
			kills.Add(1)
			start(i)
		}
	}
	crashLoad(t, crashRun{name: "cluster suite: 3 instances behind HAProxy, one killed every 1-3 s", db: db, base: base, killer: killer, longPolls: true})
}

// startHAProxy starts HAProxy at front before addrs, round robin,
// health-checked on /readyz with check (inter, fall, rise), until the test
// ends. When no instance is ready it answers 503 in the gateway's shape with
// Retry-After, as docs/operators.md's example does.
func startHAProxy(t *testing.T, haproxy, front string, addrs []string, check string) {
	t.Helper()
	cfg := fmt.Sprintf(`global
    maxconn 4096
defaults
    mode http
    timeout connect 1s
    timeout client 60s
    timeout server 60s
    timeout check 3s
    retries 3
    option redispatch
frontend wasteflow
    bind %s
    default_backend instances
backend instances
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    http-error status 503 content-type application/json string "{\"code\":14,\"message\":\"no wasteflow instance is ready: try again shortly\",\"details\":[]}" hdr Retry-After 1
`, front)
	for i, a := range addrs {
		cfg += fmt.Sprintf("    server i%d %s check %s\n", i+1, a, check)
	}
	cfgFile := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := exec.Command(haproxy, "-f", cfgFile, "-db")
	if err := lb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lb.Process.Kill(); _ = lb.Wait() })
}

// pollStats are the long-polling readers of a crash run: two readers of one
// notifier group of auth-de-by (the dispatch authority of the load's
// notifications), each keeping its own cursor.
type pollStats struct {
	// signing: processes created and waited on (WaitSigningProcess) while
	// another session opens and signs them
	signCreated, signSigned, signWaits, signWaitRefused, signWaitHung atomic.Int64
	signSeen                                                          sync.Map // process id -> the final state a wait saw

	token          string
	polls, refused atomic.Int64
	hung           atomic.Int64
	received       [2][]int64
	mu             sync.Mutex
	longest        time.Duration
	registered     bool
	waitSeconds    int
}

type poster func(path, token, key string, body any) (int, map[string]any)
type untiler func(ctx context.Context, path, token, key string, body any) (map[string]any, int)

// run registers the group and starts the readers (in wg) until ctx ends.
func (p *pollStats) run(ctx context.Context, t *testing.T, wg *sync.WaitGroup, post poster, until untiler) {
	step := func(path, token, key string, body any) map[string]any {
		m, _ := until(ctx, path, token, key, body)
		if m == nil {
			t.Errorf("the long-poll readers could not start: %s failed until the end", path)
		}
		return m
	}
	m := step("/svc.core.v1.api.AuthApi/IssueRefreshToken", "", "", map[string]any{
		"usernameCredentials": map[string]string{"username": "bernd", "password": "bernd-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
	if m == nil {
		return
	}
	if m = step("/svc.core.v1.api.AuthApi/RequestAccess", m["refreshToken"].(string), "", nil); m == nil {
		return
	}
	g := step("/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/RegisterGroup", m["accessToken"].(string), "cluster-group",
		map[string]any{"name": "cluster-readers", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	if g == nil {
		return
	}
	lg := step("/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/Login", "", "", map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	if lg == nil {
		return
	}
	p.token, p.registered, p.waitSeconds = lg["groupToken"].(string), true, 3
	p.startSigning(ctx, t, wg, post, until)
	for r := range p.received {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor := ""
			for ctx.Err() == nil {
				cursor = p.poll(t, r, post, cursor, p.waitSeconds)
			}
		}()
	}
}

// poll asks once from cursor for reader r and records what came; it
// returns the cursor to go on from.
func (p *pollStats) poll(t *testing.T, r int, post poster, cursor string, wait int) string {
	began := time.Now()
	st, m := post("/svc.namespaced_notifier.v1.api.NotificationApi/ListNotifications", p.token, "", map[string]any{"cursor": cursor, "waitSeconds": wait})
	took := time.Since(began)
	p.polls.Add(1)
	p.mu.Lock()
	p.longest = max(p.longest, took)
	p.mu.Unlock()
	if st != 200 {
		p.refused.Add(1)
		if took > time.Duration(wait+2)*time.Second {
			p.hung.Add(1) // neither answered nor refused in time
		}
		time.Sleep(50 * time.Millisecond)
		return cursor
	}
	list, _ := m["notifications"].([]any)
	for _, n := range list {
		id, err := strconv.ParseInt(n.(map[string]any)["cursor"].(string), 10, 64)
		if err != nil {
			t.Errorf("reader %d: a cursor that is not ours: %v", r, n)
			continue
		}
		p.received[r] = append(p.received[r], id)
	}
	if next, _ := m["nextCursor"].(string); next != "" {
		return next
	}
	return cursor
}

// check drains both readers and compares what each received with the
// events stored for the group's organisation and kinds.
func (p *pollStats) check(t *testing.T, gdb *gorm.DB, post poster) []string {
	if !p.registered {
		return []string{"the long-poll readers never started"}
	}
	var problems []string
	var want []int64
	// Cursors count positions in the organisation's stream (given after
	// commit, by a sequencer woken by the database's notifications or
	// its safety poll); every stored event must have one within seconds
	// of the load's end (the last fault may have just ended).
	var unplaced int64
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := gdb.Raw("SELECT COUNT(*) FROM events WHERE position IS NULL").Scan(&unplaced).Error; err != nil {
			t.Fatal(err)
		}
		if unplaced == 0 || time.Now().After(deadline) {
			break
		}
	}
	if unplaced > 0 {
		problems = append(problems, fmt.Sprintf("%d events without a position 15 s after the load", unplaced))
	}
	if err := gdb.Raw("SELECT position FROM events WHERE provider_id = 'dev-1' AND organisation_id = 'auth-de-by' AND kind = 'DOCUMENT_STATE_CHANGED' AND position IS NOT NULL ORDER BY position").Scan(&want).Error; err != nil {
		t.Fatal(err)
	}
	for r := range p.received {
		cursor := ""
		if n := len(p.received[r]); n > 0 {
			cursor = strconv.FormatInt(p.received[r][n-1], 10)
		}
		for range 1000 { // drain what came after the load stopped
			before := len(p.received[r])
			cursor = p.poll(t, r, post, cursor, 0)
			if len(p.received[r]) == before {
				break
			}
		}
		got := p.received[r]
		if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }) {
			problems = append(problems, fmt.Sprintf("reader %d received events out of order", r))
		}
		seen := map[int64]int{}
		for _, id := range got {
			seen[id]++
		}
		var twice, missing int
		for _, n := range seen {
			if n > 1 {
				twice++
			}
		}
		for _, id := range want {
			if seen[id] == 0 {
				missing++
			}
		}
		if twice > 0 || missing > 0 || len(seen) != len(want) {
			problems = append(problems, fmt.Sprintf("reader %d: %d events received, %d stored, %d twice, %d missing", r, len(got), len(want), twice, missing))
		}
	}
	if n := p.hung.Load(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d long polls neither answered nor refused in time", n))
	}
	problems = append(problems, p.checkSigning()...)
	fmt.Printf("  %-36s %d polls (%d refused, retried), longest %s; %d events to each reader, each once, in order\n",
		"long polls (2 readers, 3 s waits)", p.polls.Load(), p.refused.Load(), p.longest.Round(time.Millisecond), len(want))
	return problems
}

// startSigning runs signing processes through the load: alice asks for a
// signature of a note and waits for it (WaitSigningProcess, 3 s at a time,
// on whichever instance) while, in another session, she opens and signs
// it; each process is waited on until its wait sees it final.
func (p *pollStats) startSigning(ctx context.Context, t *testing.T, wg *sync.WaitGroup, post poster, until untiler) {
	access := func(user string) string {
		m, _ := until(ctx, "/svc.core.v1.api.AuthApi/IssueRefreshToken", "", "", map[string]any{
			"usernameCredentials": map[string]string{"username": user, "password": user + "-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
		if m == nil {
			return ""
		}
		m, _ = until(ctx, "/svc.core.v1.api.AuthApi/RequestAccess", m["refreshToken"].(string), "", nil)
		if m == nil {
			return ""
		}
		return m["accessToken"].(string)
	}
	// the note names no official numbers: its signer is of the asking
	// organisation (here the asker herself, in another session)
	alice, signer := access("alice"), access("alice")
	if alice == "" || signer == "" {
		t.Error("the signing load could not log in")
		return
	}
	const api = "/svc.signer.sign.v1.SigningProcessApi/"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			note := []byte(fmt.Sprintf(`<BGS xmlns="urn:wasteflow:eanv:1"><BGSERZLayer xmlns="urn:wasteflow:eanv:1" Id="layer-1" index="1" layerType="ERZEUGER" atbRolle="ERZ"><Felder><nummer>%014d</nummer></Felder></BGSERZLayer></BGS>`, 900_000_000+i))
			m, _ := until(ctx, api+"CreateSigningProcess", alice, fmt.Sprintf("sign-%d", i), map[string]any{"document": note, "signer": "alice"})
			if m == nil {
				return
			}
			id := m["process"].(map[string]any)["id"].(string)
			p.signCreated.Add(1)
			waited := make(chan struct{})
			go func() { // alice waits until a wait sees it final
				defer close(waited)
				for range 100 {
					began := time.Now()
					st, m := post(api+"WaitSigningProcess", alice, "", map[string]any{"processId": id, "waitSeconds": 3})
					p.signWaits.Add(1)
					if st != 200 {
						p.signWaitRefused.Add(1)
						if time.Since(began) > 5*time.Second {
							p.signWaitHung.Add(1)
						}
						time.Sleep(50 * time.Millisecond)
						continue
					}
					if state := m["process"].(map[string]any)["state"].(string); state != "CREATED" && state != "OPENED" {
						p.signSeen.Store(id, state)
						return
					}
				}
			}()
			time.Sleep(20 * time.Millisecond) // the wait is waiting
			until(context.Background(), api+"OpenSigningProcess", signer, "", map[string]any{"processId": id})
			for range 200 { // an answer lost with its instance: sign again, or find it signed
				st, m := post(api+"SignSigningProcess", signer, "", map[string]any{"processId": id})
				if st == 200 || (st == 400 && strings.Contains(fmt.Sprint(m["message"]), "SIGNED")) {
					p.signSigned.Add(1)
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			<-waited
		}
	}()
}

// checkSigning compares what the waits saw with what was signed.
func (p *pollStats) checkSigning() []string {
	var problems []string
	seen := 0
	p.signSeen.Range(func(_, v any) bool {
		seen++
		if v != "SIGNED" {
			problems = append(problems, fmt.Sprintf("a wait saw a process end %v", v))
		}
		return true
	})
	if int64(seen) != p.signSigned.Load() || p.signSigned.Load() != p.signCreated.Load() || seen == 0 {
		problems = append(problems, fmt.Sprintf("signing: %d created, %d signed, %d seen signed by their waits", p.signCreated.Load(), p.signSigned.Load(), seen))
	}
	if n := p.signWaitHung.Load(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d signing waits neither answered nor refused in time", n))
	}
	fmt.Printf("  %-36s %d created, %d signed and seen signed by their waits; %d waits (%d refused, retried)\n",
		"signing processes", p.signCreated.Load(), p.signSigned.Load(), p.signWaits.Load(), p.signWaitRefused.Load())
	return problems
}
