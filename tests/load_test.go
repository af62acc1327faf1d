package tests

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/credentials"
)

// TestLoad is the load benchmark `make bench` runs: over real HTTP with N
// keep-alive clients for a fixed time, each figure of the server beside its
// baseline (the minimal SQL of the operation on the same database and
// driver, or the argon2id call), on SQLite always and on PostgreSQL when
// WASTEFLOW_TEST_DATABASE_URL is set. It prints a table and one line per
// figure: bench figure=... db=... clients=... server=... baseline=...
// ratio=... p99_ms=...
//
// WASTEFLOW_BENCH=1 runs it; WASTEFLOW_BENCH_SECONDS sets each run's length
// (default 5); WASTEFLOW_BENCH_DBS (sqlite,postgres) and
// WASTEFLOW_BENCH_FIGURES (transition,getdocument,history,family,access,login,print) pick some;
// WASTEFLOW_BENCH_PROFILE (a folder) keeps a CPU profile of each run.
func TestLoad(t *testing.T) {
	if os.Getenv("WASTEFLOW_BENCH") == "" {
		t.Skip("the load benchmark runs with WASTEFLOW_BENCH=1 (make bench)")
	}
	dur := benchDuration()
	var figures []figure
	var heap []string // the print heap figures
	dbs := []string{"sqlite"}
	if os.Getenv("WASTEFLOW_TEST_DATABASE_URL") != "" {
		dbs = append(dbs, "postgres")
	}
	if only := os.Getenv("WASTEFLOW_BENCH_DBS"); only != "" { // e.g. postgres
		dbs = slices.DeleteFunc(dbs, func(db string) bool { return !strings.Contains(only, db) })
	}
	want := func(name string) bool { // WASTEFLOW_BENCH_FIGURES, e.g. transition,getdocument
		only := os.Getenv("WASTEFLOW_BENCH_FIGURES")
		return only == "" || slices.Contains(strings.Split(only, ","), name)
	}
	for _, name := range dbs {
		cfg := dbtest.SQLite(t)
		transitionClients := []int{8, 64}
		if name == "postgres" {
			cfg = dbtest.Postgres(t)
			transitionClients = []int{1, 8, 64}
		}
		b := newLoadBench(t, name, cfg, dur)
		b.floor = b.newFloor()
		if want("transition") {
			for _, n := range transitionClients {
				figures = append(figures, b.transitions(n)...)
			}
		}
		if want("getdocument") {
			for _, n := range []int{8, 64} {
				figures = append(figures, b.getDocument(n)...)
			}
		}
		if want("history") { // it builds 8,000 transitions first
			figures = append(figures, b.history(8)...)
		}
		if want("family") {
			figures = append(figures, b.family(8)...)
		}
		if want("access") {
			figures = append(figures, b.requestAccess(64))
		}
		if want("login") {
			figures = append(figures, b.logins(8))
		}
		if want("print") {
			figures = append(figures, b.print(1), b.print(8))
			heap = append(heap, fmt.Sprintf("bench figure=print_heap db=%s prints=1000 live_heap_growth_kib=%.0f", name, b.printHeap()))
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\n%-17s %-8s %7s %10s %10s %10s %7s %8s %9s %10s %7s\n", "figure", "db", "clients", "server/s", "floor/s", "raw/s", "÷ floor", "p99 ms", "floor p99", "REST/s", "÷ REST")
	for _, f := range figures {
		fmt.Fprintf(&out, "%-17s %-8s %7d %10.0f ", f.name, f.db, f.clients, f.server)
		if f.floor > 0 {
			fmt.Fprintf(&out, "%10.0f ", f.floor)
		} else {
			fmt.Fprintf(&out, "%10s ", "-")
		}
		fmt.Fprintf(&out, "%10.0f ", f.baseline)
		if f.floor > 0 {
			fmt.Fprintf(&out, "%7.2f %8.1f %9.1f", f.server/f.floor, f.p99, f.floorP99)
		} else {
			fmt.Fprintf(&out, "%7s %8.1f %9s", "-", f.p99, "-")
		}
		if f.rest > 0 {
			fmt.Fprintf(&out, " %10.0f %7.2f", f.rest, f.server/f.rest)
		}
		out.WriteString("\n")
	}
	for _, f := range figures {
		fmt.Fprintf(&out, "bench figure=%s db=%s clients=%d server=%.0f", f.name, f.db, f.clients, f.server)
		if f.floor > 0 {
			fmt.Fprintf(&out, " floor=%.0f", f.floor)
		}
		fmt.Fprintf(&out, " raw=%.0f", f.baseline)
		if f.floor > 0 {
			fmt.Fprintf(&out, " server_floor=%.3f", f.server/f.floor)
		}
		fmt.Fprintf(&out, " server_raw=%.3f p99_ms=%.1f", f.server/f.baseline, f.p99)
		if f.floor > 0 {
			fmt.Fprintf(&out, " floor_p99_ms=%.1f", f.floorP99)
		}
		if f.rest > 0 {
			fmt.Fprintf(&out, " rest=%.0f over_rest=%.3f", f.rest, f.server/f.rest)
		}
		if q := f.queue; q != nil {
			fmt.Fprintf(&out, " pool_wait_ms_per_op=%.2f pool_waits_per_op=%.2f tx_wait_ms_per_op=%.2f tx_waits_per_op=%.2f gc_cpu_share=%.2f",
				q.waitMsPerOp, q.waitedPerOp, q.txWaitMsPerOp, q.txWaitedPerOp, q.gcShare)
		}
		out.WriteString("\n")
	}
	for _, h := range heap {
		out.WriteString(h + "\n")
	}
	fmt.Print(out.String())
}

type figure struct {
	name, db         string
	clients          int
	server, baseline float64 // operations per second
	p99              float64 // the server's, in milliseconds
	// floor is the minimal HTTP handler's rate (load_floor_test.go) and
	// floorP99 its 99th percentile, where the figure has one.
	floor, floorP99 float64
	// rest is the same operation's rate over REST, beside a gRPC figure.
	rest float64
	// queue is where the server's requests waited (REST and gRPC runs
	// together), where measured.
	queue *queueing
}

// queueing is where a run's requests waited: for a connection of the
// server's pool (database/sql's count and time of waits, per operation),
// in line for a transaction's slot (models.TransactionLine),
// and the garbage collector's share of the process's CPU (the process
// holds the clients too).
type queueing struct{ waitMsPerOp, waitedPerOp, txWaitMsPerOp, txWaitedPerOp, gcShare float64 }

// queued runs run and says how its ops operations queued.
func (b *loadBench) queued(run func() (ops float64)) *queueing {
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(samples)
	gc0, all0 := samples[0].Value.Float64(), samples[1].Value.Float64()
	before := b.sql.Stats()
	line0, _ := models.TransactionLine(b.d.db)
	ops := run()
	after := b.sql.Stats()
	line, _ := models.TransactionLine(b.d.db)
	metrics.Read(samples)
	q := &queueing{gcShare: (samples[0].Value.Float64() - gc0) / max(samples[1].Value.Float64()-all0, 1e-9)}
	if ops > 0 {
		q.waitMsPerOp = float64((after.WaitDuration - before.WaitDuration).Microseconds()) / 1000 / ops
		q.waitedPerOp = float64(after.WaitCount-before.WaitCount) / ops
		q.txWaitMsPerOp = float64((line.Waited - line0.Waited).Microseconds()) / 1000 / ops
		q.txWaitedPerOp = float64(line.Waits-line0.Waits) / ops
	}
	return q
}

type loadBench struct {
	t      *testing.T
	d      *docEnv
	db     string
	sql    *sql.DB
	dur    time.Duration
	client *http.Client
	read   []string // notifications GetDocument reads
	floor  *floor
	// lastAnswer is the size of the latest answer post read.
	lastAnswer atomic.Int64
	profiles   int // runs profiled (WASTEFLOW_BENCH_PROFILE)
}

func newLoadBench(t *testing.T, name string, cfg configs.Database, dur time.Duration) *loadBench {
	d := startDocs(t, cfg)
	sqlDB, err := d.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	return &loadBench{t: t, d: d, db: name, sql: sqlDB, dur: dur,
		client: &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}}
}

// run calls op from clients goroutines for the bench's duration; it
// returns operations per second and the 99th percentile latency.
// benchDuration is each run's length: WASTEFLOW_BENCH_SECONDS, default 5.
func benchDuration() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("WASTEFLOW_BENCH_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 5 * time.Second
}

func (b *loadBench) run(clients int, op func(client, i int) error) (float64, float64) {
	b.t.Helper()
	lat, elapsed := b.runFor(clients, b.dur, op, make([]int, clients))
	return rate(lat, elapsed), pct99(lat)
}

// runFor calls op from clients goroutines for d; client c's calls are
// numbered from next[c] on, and next holds where they stopped.
func (b *loadBench) runFor(clients int, d time.Duration, op func(client, i int) error, next []int) ([]time.Duration, time.Duration) {
	b.t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	lat := make([][]time.Duration, clients)
	defer b.profile(clients)()
	start := time.Now()
	end := start.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ; time.Now().Before(end); next[c]++ {
				t0 := time.Now()
				if err := op(c, next[c]); err != nil {
					failed.Store(err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.t.Fatal(err)
	}
	all := slices.Concat(lat...)
	if len(all) == 0 {
		b.t.Fatal("no operation completed")
	}
	return all, elapsed
}

// profile writes a CPU profile of one run to WASTEFLOW_BENCH_PROFILE (a
// folder) when it is set, numbered in the order of the runs and named by
// the figure's function and line that asked for it: the server is in this process, so the
// profile is the server's work (with the clients'), not the setup's.
func (b *loadBench) profile(clients int) func() {
	dir := os.Getenv("WASTEFLOW_BENCH_PROFILE")
	if dir == "" {
		return func() {}
	}
	b.profiles++
	at := "run" // the first caller that is not run, runFor or versus: the figure's function and line
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		name := f.Function[strings.LastIndex(f.Function, "/")+1:]
		if !strings.HasPrefix(name, "tests.(*loadBench).run") && !strings.HasPrefix(name, "tests.(*loadBench).versus") {
			at = fmt.Sprintf("%s-%d", strings.NewReplacer("tests.", "", "(*loadBench).", "", "(", "", ")", "", "*", "").Replace(name), f.Line)
			break
		}
		if !more {
			break
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%02d-%s-%dc.pprof", b.db, b.profiles, at, clients))
	f, err := os.Create(path)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		b.t.Logf("CPU profile of the run: %s", path)
	}
}

// versus runs the same operation over REST and over gRPC in turns, an
// eighth of the bench's duration each (REST, gRPC, gRPC, REST, twice), so
// that both meet the database in the same condition (its growing tables,
// checkpoints, autovacuum), which one run after the other does not: a
// checkpoint in one run moved a 1-client figure by a fifth.
func (b *loadBench) versus(clients int, rest, grpc func(client, i int) error) (restRate, restP99, grpcRate, grpcP99 float64) {
	b.t.Helper()
	var lats [2][]time.Duration
	var took [2]time.Duration
	next := [2][]int{make([]int, clients), make([]int, clients)}
	ops := [2]func(int, int) error{rest, grpc}
	for _, k := range []int{0, 1, 1, 0, 0, 1, 1, 0} {
		lat, d := b.runFor(clients, b.dur/8, ops[k], next[k])
		lats[k], took[k] = append(lats[k], lat...), took[k]+d
	}
	return rate(lats[0], took[0]), pct99(lats[0]), rate(lats[1], took[1]), pct99(lats[1])
}

func rate(lat []time.Duration, d time.Duration) float64 { return float64(len(lat)) / d.Seconds() }

func pct99(lat []time.Duration) float64 {
	slices.Sort(lat)
	return float64(lat[len(lat)*99/100].Microseconds()) / 1000
}

// post sends body as user and requires a 200 without business errors.
func (b *loadBench) post(path, token string, body []byte) error {
	req, _ := http.NewRequest(http.MethodPost, b.d.url+path, bytes.NewReader(body))
	req.Header.Set("provider_id", "dev-1")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.lastAnswer.Store(int64(len(raw)))
	if resp.StatusCode != 200 || bytes.Contains(raw, []byte(`"businessErrors":[{`)) {
		if i := bytes.Index(raw, []byte(`"businessErrors":[{`)); i > 0 {
			raw = raw[i:] // what went wrong, not the document
		}
		return fmt.Errorf("%s: %d %.300s", path, resp.StatusCode, raw)
	}
	return nil
}

// q writes the database's placeholders for ? (Postgres: $1, $2, ...).
func (b *loadBench) q(query string) string {
	if b.db != "postgres" {
		return query
	}
	var out strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			fmt.Fprintf(&out, "$%d", n)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// docPool is how many notifications the transition clients share: client
// c of n takes documents c, c+n, c+2n, ... in turn, so a document sees tens
// of transitions in a run, as a real one does in its life, not thousands
// (its history, and the cost of reading it, would grow without bound).
// Each figure takes a fresh pool: one run after another on the same
// documents would meet longer histories, and seem slower.
const docPool = 128

// benchVersions holds the version each bench document's next transition
// sends (DocumentRef.version is required): the one its setup's last answer
// carried, one more after each transition that went through. A document
// is one client's, so its calls never meet; the map is not written once
// built.
type benchVersions map[string]*int64

// versionsOf starts the counters of ids at the version their setup left.
func (b *loadBench) versionsOf(ids ...[]string) benchVersions {
	out := benchVersions{}
	for _, list := range ids {
		for _, id := range list {
			v, err := strconv.ParseInt(b.d.readVersion(b.t, "alice", id, nil), 10, 64)
			if err != nil {
				b.t.Fatal(err)
			}
			out[id] = &v
		}
	}
	return out
}

// moved fires op with the version of id and counts it on when op went through.
func (v benchVersions) moved(id string, op func(version int64) error) error {
	err := op(*v[id])
	if err == nil {
		*v[id]++
	}
	return err
}

func (b *loadBench) freshDocs(n int) []string {
	docs := make([]string, n)
	for i := range docs {
		docs[i] = b.d.submitted(b.t)
		b.d.ok(b.t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": docs[i]})
	}
	return docs
}

// transitions: each client moves its own notification between
// ACKNOWLEDGED and INFORMATION_REQUESTED (the authority asks, the notifier
// answers completely). Baseline: lock the row, update it, append an audit
// row, in one transaction.
func (b *loadBench) transitions(clients int) []figure {
	docs := b.freshDocs(docPool)
	tokens := []string{b.d.token(b.t, "noor"), b.d.token(b.t, "alice")}
	vers := b.versionsOf(docs)
	formats := [2]string{`{"documentId":%q,"version":"%d","requestInformation":{"questions":["the analysis, please"]}}`,
		`{"documentId":%q,"version":"%d","replyToRequestInformation":{"answers":["attached"],"complete":true}}`}
	paths := []string{au + "SetRequestInformation", co + "SetReplyToRequestInformation"}
	// Client c moves its documents one after the other through a request
	// and its reply: operation i is step i%2 on its document (i/2)%mine.
	mine := len(docs) / clients
	var server, p99, grpcServer, grpcP99 float64
	queue := b.queued(func() float64 {
		server, p99, grpcServer, grpcP99 = b.versus(clients, func(c, i int) error {
			id := docs[c+clients*((i/2)%mine)]
			return vers.moved(id, func(v int64) error { return b.post(paths[i%2], tokens[i%2], fmt.Appendf(nil, formats[i%2], id, v)) })
		}, b.grpcTransitions(clients))
		return (server + grpcServer) * b.dur.Seconds() / 2
	})
	var sample string // the baseline writes a document as large as the server's
	if err := b.sql.QueryRow(b.q(`SELECT data FROM documents WHERE id = ?`), docs[0]).Scan(&sample); err != nil {
		b.t.Fatal(err)
	}

	b.exec(`CREATE TABLE IF NOT EXISTS bench_docs (id TEXT PRIMARY KEY, state TEXT NOT NULL, version BIGINT NOT NULL, data TEXT NOT NULL, updated_at TEXT NOT NULL)`)
	b.exec(`CREATE TABLE IF NOT EXISTS bench_audit (doc_id TEXT NOT NULL, seq BIGINT NOT NULL, intent TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (doc_id, seq))`)
	for c := range clients {
		b.exec(b.q(`INSERT INTO bench_docs VALUES (?, 'ACKNOWLEDGED', 1, ?, '') ON CONFLICT (id) DO NOTHING`), fmt.Sprintf("bench-%d", c), sample)
	}
	b.floor.answer["transition"] = int(b.lastAnswer.Load())
	// The floor moves notifications of its own through the same two acts,
	// rotating over as many as the server's clients do, with the
	// statements the server's acts ran on a sample (learn).
	floorDocs := b.freshDocs(len(docs) + 1)
	b.learn(b.floor, floorDocs[len(docs)])
	floorFormats := [2]string{`{"documentId":%q,"requestInformation":{"questions":["the analysis, please"]}}`,
		`{"documentId":%q,"replyToRequestInformation":{"answers":["attached"],"complete":true}}`}
	floorRate, floorP99 := b.run(clients, func(c, i int) error {
		return b.floorPost(b.floor, "/transition", fmt.Appendf(nil, floorFormats[i%2], floorDocs[c+clients*((i/2)%mine)]))
	})
	b.forget(floorDocs)
	lock := " FOR UPDATE"
	if b.db != "postgres" {
		lock = ""
	}
	sel, upd, ins := b.q(`SELECT version, data FROM bench_docs WHERE id = ?`+lock),
		b.q(`UPDATE bench_docs SET state = ?, version = ?, data = ?, updated_at = ? WHERE id = ?`),
		b.q(`INSERT INTO bench_audit VALUES (?, ?, ?, ?)`)
	baseline, _ := b.run(clients, func(c, i int) error {
		id := fmt.Sprintf("bench-%d", c)
		tx, err := b.sql.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var version int64
		var data string
		if err := tx.QueryRow(sel, id).Scan(&version, &data); err != nil {
			return err
		}
		now := time.Now().UTC().Format(time.RFC3339Nano)
		if _, err := tx.Exec(upd, []string{"INFORMATION_REQUESTED", "ACKNOWLEDGED"}[i%2], version+1, data, now, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ins, id, version+1, "REQUEST_INFORMATION", now); err != nil {
			return err
		}
		return tx.Commit()
	})
	return []figure{{name: "transition", db: b.db, clients: clients, server: server, baseline: baseline, p99: p99, floor: floorRate, floorP99: floorP99, queue: queue},
		{name: "transition/grpc", db: b.db, clients: clients, server: grpcServer, baseline: baseline, p99: grpcP99, rest: server, floor: floorRate, floorP99: floorP99, queue: queue}}
}

// getDocument: authority GetDocument of 16 notifications with a typical
// history (filed, acknowledged, one information request answered), not
// those the transition figures ran through; baseline: the select by key.
func (b *loadBench) getDocument(clients int) []figure {
	for len(b.read) < 16 {
		id := b.d.submitted(b.t)
		b.d.ok(b.t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		b.d.ok(b.t, "noor", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"the analysis"}}})
		b.d.ok(b.t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
		b.read = append(b.read, id)
	}
	tok := b.d.token(b.t, "noor")
	var server, p99, grpcServer, grpcP99 float64
	queue := b.queued(func() float64 {
		server, p99, grpcServer, grpcP99 = b.versus(clients, func(c, i int) error {
			return b.post(au+"GetDocument", tok, []byte(fmt.Sprintf(`{"documentId":%q}`, b.read[(c+i)%len(b.read)])))
		}, b.grpcGetDocument())
		return (server + grpcServer) * b.dur.Seconds() / 2
	})
	b.floor.answer["getdocument"] = b.answerSize(au+"GetDocument", tok, []byte(fmt.Sprintf(`{"documentId":%q}`, b.read[0])))
	floorRate, floorP99 := b.run(clients, func(c, i int) error {
		return b.floorPost(b.floor, "/getdocument", []byte(fmt.Sprintf(`{"documentId":%q}`, b.read[(c+i)%len(b.read)])))
	})
	sel := b.q(`SELECT data FROM documents WHERE id = ?`)
	baseline, _ := b.run(clients, func(c, i int) error {
		var data string
		return b.sql.QueryRow(sel, b.read[(c+i)%len(b.read)]).Scan(&data)
	})
	return []figure{{name: "getdocument", db: b.db, clients: clients, server: server, baseline: baseline, p99: p99, floor: floorRate, floorP99: floorP99, queue: queue},
		{name: "getdocument/grpc", db: b.db, clients: clients, server: grpcServer, baseline: baseline, p99: grpcP99, rest: server, floor: floorRate, floorP99: floorP99, queue: queue}}
}

// requestAccess: each client rotates its own refresh-token chain.
// Baseline: consume the token, insert its successor, touch the session.
func (b *loadBench) requestAccess(clients int) figure {
	login := []byte(fmt.Sprintf(`{"usernameCredentials":{"username":"alice","password":%q},"appToken":%q}`, passwords["alice"], appUI))
	refresh := make([]string, clients)
	for c := range clients {
		m, st, err := postJSON(b.client, b.d.url+opLogin, "dev-1", "", login)
		if err != nil || st != 200 {
			b.t.Fatalf("login: %d %v", st, err)
		}
		refresh[c] = m["refreshToken"].(string)
	}
	var answer atomic.Int64
	server, p99 := b.run(clients, func(c, i int) error {
		m, st, err := postJSON(b.client, b.d.url+opAccess, "dev-1", refresh[c], nil)
		if err != nil || st != 200 {
			return fmt.Errorf("RequestAccess: %d %v %v", st, err, m)
		}
		refresh[c] = m["refreshToken"].(string)
		answer.Store(int64(len(m["refreshToken"].(string)) + len(m["accessToken"].(string)) + 200))
		return nil
	})
	b.floor.answer["access"] = int(answer.Load())
	b.exec(`CREATE TABLE IF NOT EXISTS bench_sessions (id TEXT PRIMARY KEY, last_used_at TEXT NOT NULL)`)
	b.exec(`CREATE TABLE IF NOT EXISTS bench_tokens (jti TEXT PRIMARY KEY, session_id TEXT NOT NULL, generation BIGINT NOT NULL, consumed_at TEXT)`)
	floorTokens := make([]string, clients)
	for c := range clients {
		for _, s := range []string{"s", "f"} { // s: the raw statements', f: the floor's
			b.exec(b.q(`INSERT INTO bench_sessions VALUES (?, '')`), fmt.Sprintf("%s-%d", s, c))
			b.exec(b.q(`INSERT INTO bench_tokens VALUES (?, ?, 0, NULL)`), fmt.Sprintf("%s-%d-0", s, c), fmt.Sprintf("%s-%d", s, c))
		}
		floorTokens[c] = fmt.Sprintf("f-%d-0", c)
	}
	floorRate, floorP99 := b.run(clients, func(c, i int) error {
		m, st, err := postJSON(b.client, b.floor.srv.URL+"/access", "dev-1", floorTokens[c], nil)
		if err != nil || st != 200 {
			return fmt.Errorf("floor access: %d %v %v", st, err, m)
		}
		floorTokens[c] = m["refreshToken"].(string)
		return nil
	})
	consume, insert, touch := b.q(`UPDATE bench_tokens SET consumed_at = ? WHERE jti = ? AND consumed_at IS NULL`),
		b.q(`INSERT INTO bench_tokens VALUES (?, ?, ?, NULL)`), b.q(`UPDATE bench_sessions SET last_used_at = ? WHERE id = ?`)
	baseline, _ := b.run(clients, func(c, i int) error {
		tx, err := b.sql.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		now, session := time.Now().UTC().Format(time.RFC3339Nano), fmt.Sprintf("s-%d", c)
		res, err := tx.Exec(consume, now, fmt.Sprintf("%s-%d", session, i))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("token %s-%d not consumed", session, i)
		}
		if _, err := tx.Exec(insert, fmt.Sprintf("%s-%d", session, i+1), session, i+1); err != nil {
			return err
		}
		if _, err := tx.Exec(touch, now, session); err != nil {
			return err
		}
		return tx.Commit()
	})
	return figure{name: "access", db: b.db, clients: clients, server: server, baseline: baseline, p99: p99, floor: floorRate, floorP99: floorP99}
}

// logins: IssueRefreshToken by password; baseline: the argon2id check with
// the same parameters, as many at once as the machine has cores.
func (b *loadBench) logins(clients int) figure {
	login := []byte(fmt.Sprintf(`{"usernameCredentials":{"username":"alice","password":%q},"appToken":%q}`, passwords["alice"], appUI))
	server, p99 := b.run(clients, func(c, i int) error { return b.post(opLogin, "", login) })
	h := credentials.NewHasher(runtime.NumCPU())
	hash, err := h.Hash(context.Background(), passwords["alice"])
	if err != nil {
		b.t.Fatal(err)
	}
	baseline, _ := b.run(clients, func(c, i int) error {
		ok, err := h.Verify(context.Background(), passwords["alice"], hash)
		if err == nil && !ok {
			err = fmt.Errorf("the password did not verify")
		}
		return err
	})
	return figure{name: "login", db: b.db, clients: clients, server: server, baseline: baseline, p99: p99}
}

func (b *loadBench) exec(query string, args ...any) {
	b.t.Helper()
	if _, err := b.sql.Exec(query, args...); err != nil {
		b.t.Fatalf("%s: %v", query, err)
	}
}
