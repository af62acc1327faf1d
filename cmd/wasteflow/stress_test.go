package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/audit"
)

// TestCrashSuite is `make stress`: a PostgreSQL-backed server process under
// mixed load from 8 clients (creates and filings of notifications with
// Idempotency-Keys, token rotation, imports of transport documents) is
// killed with SIGKILL every 300-800 ms and restarted, PostgreSQL is
// restarted once, and afterwards every acknowledged write must be there
// once, every audit chain intact, every document's version its audit rows.
func TestCrashSuite(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("the crash suite runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	bin, db, env := stressSetup(t)
	addr := freeAddr()
	base := "http://" + addr
	env = append(env, "WASTEFLOW_ADDR="+addr)

	// The server, restarted by the killer.
	var mu sync.Mutex
	var proc *exec.Cmd
	start := func() {
		cmd := &exec.Cmd{Path: bin, Args: []string{bin, "serve", "-no-scheduler"}, Env: env}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		proc = cmd
		mu.Unlock()
		waitHealthy(base, 10*time.Second)
	}
	start()
	defer func() {
		mu.Lock()
		_ = proc.Process.Kill()
		_ = proc.Wait()
		mu.Unlock()
	}()
	// The killer: SIGKILL every 300-800 ms, restart at once; PostgreSQL restarted once.
	pgRestarted := false
	killer := func(ctx context.Context, kills *atomic.Int64) {
		for ctx.Err() == nil {
			time.Sleep(time.Duration(300+rand.IntN(500)) * time.Millisecond)
			mu.Lock()
			_ = proc.Process.Kill()
			_ = proc.Wait()
			mu.Unlock()
			kills.Add(1)
			if !pgRestarted && kills.Load() == 20 {
				pgRestarted = true
				if out, err := exec.Command("sh", "-c", "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main restart").CombinedOutput(); err != nil {
					t.Logf("PostgreSQL restart: %v %s", err, out)
					pgRestarted = false
				}
			}
			start()
		}
	}
	crashLoad(t, crashRun{name: "crash suite", db: db, base: base, killer: killer, note: func() string { return fmt.Sprintf("PostgreSQL restarted: %v", pgRestarted) }})
}

// stressSetup builds the binary, and loads the demo data into a fresh
// PostgreSQL schema; env is what every server process of it runs with.
func stressSetup(t *testing.T) (bin string, db configs.Database, env []string) {
	t.Helper()
	db = dbtest.Postgres(t)
	bin, env = stressSetupOn(t, db)
	return bin, db, env
}

// stressSetupOn is stressSetup on the database db.
func stressSetupOn(t *testing.T, db configs.Database) (bin string, env []string) {
	t.Helper()
	bin = buildBinary(t)
	return bin, demoEnv(t, bin, db)
}

// freeAddr is a loopback address with a port free when asked (for a
// server process the test starts next).
func freeAddr() string {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	return ln.Addr().String()
}

// buildBinary builds the server once per test process (the tests that
// run it in parallel would otherwise compile it at the same time) into a
// directory TestMain removes.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "wasteflow-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir, built.bin = dir, filepath.Join(dir, "wasteflow")
		if out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	if grpcurlBuild.bin != "" {
		_ = os.RemoveAll(filepath.Dir(grpcurlBuild.bin))
	}
	os.Exit(code)
}

// demoEnv is the environment of a server of bin on db, which holds the
// demo's accounts and documents.
func demoEnv(t *testing.T, bin string, db configs.Database) (env []string) {
	t.Helper()
	dir := t.TempDir()
	env = append(os.Environ(), "WASTEFLOW_DATABASE_URL="+db.URL, "WASTEFLOW_SECRET_KEY_FILE="+filepath.Join(dir, "k"),
		"WASTEFLOW_JWT_SIGNING_KEY_FILE="+filepath.Join(dir, "jwt.pem"), "WASTEFLOW_LOG_LEVEL=error", "WASTEFLOW_SIGNER_KEYS="+dir,
		"WASTEFLOW_METRICS_ADDR=127.0.0.1:0") // several servers on one machine: each its own metrics port
	if out, err := (&exec.Cmd{Path: bin, Args: []string{bin, "demo"}, Env: env}).CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	return env
}

// waitHealthy waits up to limit for base's /healthz.
func waitHealthy(base string, limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
	}
}

// crashRun is one run of the crash load: clients at base, a killer that
// kills (and restarts) what serves it until ctx ends, counting kills.
type crashRun struct {
	name   string
	db     configs.Database
	base   string
	killer func(ctx context.Context, kills *atomic.Int64)
	// longPolls adds notifier-group readers long-polling by cursor, whose
	// every event must arrive once, in order.
	longPolls bool
	// note, optional, says what else the run did (printed with the figures).
	note func() string
	// answerWithin, when set, is the promise of a run whose server is never
	// killed: every answer comes within it, and every 5xx answer carries
	// Retry-After (a failure to retry, not a hang or a bare error).
	answerWithin time.Duration
}

// crashLoad runs the crash load (WASTEFLOW_STRESS_SECONDS, default 60 s)
// against r.base while r.killer kills, then checks the invariants: every
// acknowledged effect there once, no duplicate, deadlines and events
// consistent with the states, every audit chain intact, no session with
// two live refresh tokens (and with long polls, every event delivered to
// every cursor exactly once, every poll answered).
func crashLoad(t *testing.T, r crashRun) {
	duration := 60 * time.Second
	if s, err := strconv.Atoi(os.Getenv("WASTEFLOW_STRESS_SECONDS")); err == nil && s > 0 {
		duration = time.Duration(s) * time.Second
	}
	db, base := r.db, r.base
	client := &http.Client{Timeout: 5 * time.Second}
	var answers answerStats
	post := func(path, token, key string, body any) (int, map[string]any) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(raw))
		req.Header.Set("provider_id", "dev-1")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		began := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			answers.note(path, 0, nil, time.Since(began), r.answerWithin)
			return 0, nil
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		answers.note(path, resp.StatusCode, resp.Header, time.Since(began), r.answerWithin)
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		return resp.StatusCode, m
	}
	// until retries a request through crashes until it is acknowledged.
	// An intent that meets a document changed meanwhile (409, code 10)
	// goes again at the version the refusal names, under a key of its own
	// (the key's answer is that refusal).
	until := func(ctx context.Context, path, token, key string, body any) (map[string]any, int) {
		for tries := 1; ; tries++ {
			st, m := post(path, token, key, body)
			if st == 200 {
				return m, tries
			}
			if b, ok := body.(map[string]any); ok && st == http.StatusConflict {
				if v := currentVersion(m); v != "" && b["version"] != nil {
					b["version"], key = v, key+"-v"+v
				}
			}
			if ctx.Err() != nil && tries > 200 {
				return nil, tries
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	loginAs := func(user string) string {
		m, _ := until(context.Background(), "/svc.core.v1.api.AuthApi/IssueRefreshToken", "", "", map[string]any{
			"usernameCredentials": map[string]string{"username": user, "password": user + "-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
		rt := m["refreshToken"].(string)
		m, _ = until(context.Background(), "/svc.core.v1.api.AuthApi/RequestAccess", rt, "", nil)
		return m["accessToken"].(string)
	}
	login := func() string { return loginAs("alice") }
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	org := func(id string) map[string]any { return map[string]any{"organisationId": id} }
	notification := map[string]any{
		"notifier": org("acme"), "consignee": org("recyc"), "facility": org("recyc"), "producers": []any{org("acme")}, "carriers": []any{org("truck")},
		"competentAuthorities":  map[string]any{"dispatch": org("auth-de-by"), "destination": org("auth-nl"), "transit": []any{org("auth-be")}},
		"wasteClassifications":  []any{map[string]any{"list": "EU_LIST_OF_WASTE", "code": "16 02 13*"}},
		"recoveryDisposalCodes": []any{"R4"}, "totalQuantity": map[string]any{"tonnes": map[string]any{"units": "100"}}, "numberOfShipments": 5,
		"shipmentPeriod": map[string]any{"firstDeparture": day(7), "lastDeparture": day(300)}, "packagingTypes": []any{"BULK"},
		"route": map[string]any{"transitCountries": []any{"BE"}, "meansOfTransport": []any{"ROAD"}},
	}
	annex7 := map[string]any{
		"arranger": org("acme"), "consignee": org("recyc"), "facility": org("recyc"), "producers": []any{org("acme")},
		"carriers":             []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}},
		"competentAuthorities": map[string]any{"dispatch": org("auth-de-by"), "destination": org("auth-nl")},
		"wasteClassifications": []any{map[string]any{"list": "BASEL_ANNEX_IX", "code": "B3011"}}, "usualDescription": "PET flakes",
		"recoveryCode": "R3", "actualQuantity": map[string]any{"tonnes": map[string]any{"units": "20"}}, "actualDateOfShipment": day(7),
	}
	var submissions, acks, annexes, consents, movementsAcked atomic.Int64

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var kills, creates, filings, imports, retries atomic.Int64
	var acked sync.Map // key -> document id
	var importsAcked sync.Map
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := login()
			authority := loginAs("noor")
			var dispatch, transit string
			if c == 7 { // this client also takes notifications to consent and ships under them
				dispatch, transit = loginAs("bernd"), loginAs("bart")
			}
			for i := 0; ctx.Err() == nil; i++ {
				if time.Now().Unix()%200 == 0 { // access tokens last 5 minutes: fresh ones now and then
					at = login()
				}
				key := fmt.Sprintf("c%d-%d", c, i)
				m, tries := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateSubmission", at, key, map[string]any{"notification": map[string]any{}})
				if m == nil {
					return
				}
				retries.Add(int64(tries - 1))
				id := m["document"].(map[string]any)["id"].(string)
				ver := docVersion(m) // the version each next intent sends: the last answer's
				acked.Store(key, id)
				creates.Add(1)
				if c%2 == 0 {
					if _, t := until(ctx, "/svc.core.v1.api.DocumentApi/ImportTransportDocument", at, key+"-imp", map[string]any{
						"document":   []byte(fmt.Sprintf(`<BGS xmlns="urn:wasteflow:eanv:1"><BGSERZLayer xmlns="urn:wasteflow:eanv:1" Id="layer-1" index="1" layerType="ERZEUGER" atbRolle="ERZ"><Felder><nummer>%014d</nummer></Felder></BGSERZLayer></BGS>`, c*1_000_000+i)),
						"distribute": map[string]any{"value": false}}); t > 0 {
						importsAcked.Store(key, true)
						imports.Add(1)
					}
				} else {
					// A metadata-only filing change: a correction of the draft is not possible,
					// so withdraw every tenth draft (one transition, once).
					switch {
					case i%10 == 0:
						if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetByIntent", at, key+"-wd", map[string]any{
							"document": map[string]any{"notification": map[string]any{"id": id, "version": "1", "withdrawal": map[string]any{"reason": "stress"}}}, "intent": "WITHDRAWAL"}); m != nil {
							filings.Add(1)
						}
					case i%3 == 1: // filed, and every other one acknowledged: deadlines start and stop
						if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetSubmission", at, key+"-sub", map[string]any{"documentId": id, "version": ver, "notification": notification}); m != nil {
							submissions.Add(1)
							ver = docVersion(m)
							if i%2 == 1 {
								if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/SubmitAcknowledgement", authority, key+"-ack", map[string]any{"documentId": id, "version": ver}); m != nil {
									acks.Add(1)
									ver = docVersion(m)
									if c == 7 {
										// The financial guarantee (Art. 7): movements need one approved.
										consented := true
										for j, step := range []struct{ tok, intent, block string }{{at, "GUARANTEE", "guarantee"}, {dispatch, "GUARANTEE_APPROVAL", "guaranteeApproval"}} {
											fields := map[string]any{"kind": "FINANCIAL_GUARANTEE", "amount": map[string]any{"units": "250000"}, "currency": "EUR",
												"guarantor": "Bank", "reference": "S-" + key, "validFrom": day(0), "validUntil": day(300)}
											if step.intent == "GUARANTEE_APPROVAL" {
												fields = map[string]any{"remarks": "stress"}
											}
											face := map[string]string{"GUARANTEE": "CompanyDocumentApi", "GUARANTEE_APPROVAL": "AuthorityDocumentApi"}[step.intent]
											if m, _ := until(ctx, "/svc.bxa.diwass.v1.api."+face+"/SetByIntent", step.tok, fmt.Sprintf("%s-gu%d", key, j), map[string]any{"intent": step.intent,
												"document": map[string]any{"notification": map[string]any{"id": id, "version": ver, step.block: fields}}}); m == nil {
												consented = false
											} else {
												ver, _ = m["document"].(map[string]any)["notification"].(map[string]any)["version"].(string) // SetByIntent answers the container
											}
										}
										for j, tok := range []string{dispatch, authority, transit} {
											if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/SetDecision", tok, fmt.Sprintf("%s-dec%d", key, j),
												map[string]any{"documentId": id, "version": ver, "decision": map[string]any{"type": "CONSENT"}}); m == nil {
												consented = false
											} else {
												ver = docVersion(m)
											}
										}
										if consented {
											consents.Add(1)
											if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateMovementTemplate", at, key+"-mv", map[string]any{"notificationId": id,
												"movementTemplate": map[string]any{"actualDateOfShipment": day(7), "actualQuantity": map[string]any{"tonnes": map[string]any{"units": "10"}},
													"packagingTypes": []any{"BULK"}, "carriers": []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}}}}); m != nil {
												mv := m["document"].(map[string]any)["id"].(string)
												if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/SubmitAcknowledgement", authority, key+"-mvack", map[string]any{"documentId": mv, "version": docVersion(m)}); m != nil {
													movementsAcked.Add(1)
												}
											}
										}
									}
								}
							}
						}
					case i%3 == 2: // an Annex VII document announced
						if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateAnnex7", at, key+"-a7", map[string]any{"annex7": annex7}); m != nil {
							a7 := m["document"].(map[string]any)["id"].(string)
							if m, _ := until(ctx, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetAnnex7", at, key+"-a7s", map[string]any{"documentId": a7, "version": docVersion(m), "annex7": annex7}); m != nil {
								annexes.Add(1)
							}
						}
					}
				}
			}
		}()
	}
	// Token rotation through crashes: each RequestAccess carries a key made
	// of the refresh token it consumes, so a retry after a lost answer gets
	// the same successor instead of a refused, already consumed token.
	var rotations atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		m, _ := until(ctx, "/svc.core.v1.api.AuthApi/IssueRefreshToken", "", "", map[string]any{
			"usernameCredentials": map[string]string{"username": "rita", "password": "rita-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
		if m == nil {
			return
		}
		rt := m["refreshToken"].(string)
		for ctx.Err() == nil {
			m, _ := until(ctx, "/svc.core.v1.api.AuthApi/RequestAccess", rt, "ra-"+rt[len(rt)-16:], nil)
			if m == nil {
				return
			}
			rt = m["refreshToken"].(string)
			rotations.Add(1)
		}
	}()
	var polls pollStats
	if r.longPolls {
		polls.run(ctx, t, &wg, post, until)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.killer(ctx, &kills)
	}()
	wg.Wait()

	// Invariants.
	gdb, err := models.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer models.Close(gdb)
	var lost, duplicated []string
	ids := map[string]string{}
	acked.Range(func(k, v any) bool {
		ids[k.(string)] = v.(string)
		var n int64
		gdb.Model(&models.Document{}).Where("id = ?", v).Count(&n)
		if n != 1 {
			lost = append(lost, k.(string))
		}
		return true
	})
	var keys int64
	gdb.Model(&models.IdempotencyKey{}).Where("operation LIKE '%CreateSubmission'").Count(&keys)
	if keys != int64(len(ids)) {
		duplicated = append(duplicated, fmt.Sprintf("%d create keys recorded for %d acknowledged creates", keys, len(ids)))
	}
	var importRows, importVersions int64
	importsAcked.Range(func(_, _ any) bool { importRows++; return true })
	gdb.Model(&models.TransportDocumentVersion{}).Count(&importVersions)
	if importVersions != importRows {
		duplicated = append(duplicated, fmt.Sprintf("%d note versions stored for %d acknowledged imports", importVersions, importRows))
	}
	var forked int64
	gdb.Raw("SELECT COUNT(*) FROM (SELECT session_id FROM refresh_tokens WHERE consumed_at IS NULL GROUP BY session_id HAVING COUNT(*) > 1) f").Scan(&forked)
	if forked > 0 {
		duplicated = append(duplicated, fmt.Sprintf("%d sessions with two live refresh tokens", forked))
	}
	// Deadlines and events agree with the states.
	var inconsistent []string
	for what, q := range map[string]string{
		"SUBMITTED notifications without exactly one unmet ACKNOWLEDGEMENT_DUE": `SELECT COUNT(*) FROM documents d WHERE d.kind = 'NOTIFICATION' AND d.state = 'SUBMITTED'
			AND (SELECT COUNT(*) FROM deadlines x WHERE x.document_id = d.id AND x.rule = 'ACKNOWLEDGEMENT_DUE' AND x.state IN ('OPEN', 'DUE_SOON', 'OVERDUE')) <> 1`,
		"ACKNOWLEDGED notifications without a met acknowledgement and three unmet decisions": `SELECT COUNT(*) FROM documents d WHERE d.kind = 'NOTIFICATION' AND d.state = 'ACKNOWLEDGED'
			AND ((SELECT COUNT(*) FROM deadlines x WHERE x.document_id = d.id AND x.rule = 'ACKNOWLEDGEMENT_DUE' AND x.state IN ('MET', 'MET_LATE')) <> 1
			  OR (SELECT COUNT(*) FROM deadlines x WHERE x.document_id = d.id AND x.rule = 'DECISION_DUE' AND x.state IN ('OPEN', 'DUE_SOON', 'OVERDUE')) <> 3)`,
		"state changes without their events": `SELECT COUNT(*) FROM audit_events a WHERE a.from_state <> '' AND a.from_state <> a.to_state
			AND NOT EXISTS (SELECT 1 FROM events e WHERE e.dedup_key LIKE a.document_id || ':' || a.seq || ':%')`,
	} {
		var n int64
		if err := gdb.Raw(q).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			inconsistent = append(inconsistent, fmt.Sprintf("%d %s", n, what))
		}
	}
	breaks, rows, err := audit.Verify(context.Background(), gdb)
	if err != nil {
		t.Fatal(err)
	}
	note := ""
	if r.note != nil {
		note = ", " + r.note()
	}
	fmt.Printf("\n%s (%s, 8 clients%s)\n", r.name, duration, note)
	fmt.Printf("  %-36s %d\n", "faults (kills, restarts, outages)", kills.Load())
	fmt.Printf("  %-36s %d (%d retries)\n", "acknowledged creates", creates.Load(), retries.Load())
	fmt.Printf("  %-36s %d\n", "acknowledged withdrawals", filings.Load())
	fmt.Printf("  %-36s %d filed, %d acknowledged\n", "notification transitions", submissions.Load(), acks.Load())
	fmt.Printf("  %-36s %d\n", "Annex VII documents announced", annexes.Load())
	fmt.Printf("  %-36s %d consented, %d movements acknowledged\n", "consents and movements", consents.Load(), movementsAcked.Load())
	fmt.Printf("  %-36s %d\n", "acknowledged imports", imports.Load())
	fmt.Printf("  %-36s %d (sessions with two live tokens: %d)\n", "acknowledged token rotations", rotations.Load(), forked)
	fmt.Printf("  %-36s %d\n", "lost acknowledged creates", len(lost))
	fmt.Printf("  %-36s %d\n", "duplicate effects", len(duplicated))
	fmt.Printf("  %-36s %d\n", "deadline or event inconsistencies", len(inconsistent))
	fmt.Printf("  %-36s %d rows, %d broken chains\n", "audit trail", rows, len(breaks))
	if r.longPolls {
		inconsistent = append(inconsistent, polls.check(t, gdb, post)...)
	}
	if r.answerWithin > 0 {
		inconsistent = append(inconsistent, answers.report(r.answerWithin)...)
	}
	if len(lost) > 0 || len(duplicated) > 0 || len(breaks) > 0 || len(inconsistent) > 0 {
		t.Fatalf("lost %v, duplicated %v, inconsistent %v, broken %v", lost, duplicated, inconsistent, breaks)
	}
}

// answerStats counts a crash run's answers by kind, and the ones that break
// the promise of answerWithin (a late answer, a 5xx without Retry-After, no
// answer at all).
type answerStats struct {
	mu                         sync.Mutex
	ok, refused, other, failed int64
	late, bare                 int64
	slowest                    time.Duration
	firstLate, firstBare       string
	firstOther                 string
}

func (a *answerStats) note(path string, status int, h http.Header, took, within time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.slowest = max(a.slowest, took)
	switch {
	case status == 0:
		a.failed++
	case status == http.StatusOK:
		a.ok++
	case status >= 500 && h.Get("Retry-After") != "":
		a.refused++
	case status >= 500:
		a.bare++
		if a.firstBare == "" {
			a.firstBare = fmt.Sprintf("%s answered %d without Retry-After", path, status)
		}
	default:
		a.other++
		if a.firstOther == "" {
			a.firstOther = fmt.Sprintf(" (first: %s answered %d)", path, status)
		}
	}
	if within > 0 && (took > within || status == 0) {
		a.late++
		if a.firstLate == "" {
			a.firstLate = fmt.Sprintf("%s: status %d after %s", path, status, took.Round(time.Millisecond))
		}
	}
}

// report prints the figures and returns what broke the promise.
func (a *answerStats) report(within time.Duration) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Printf("  %-36s %d succeeded, %d refused with 503 and Retry-After, %d other%s, %d unanswered\n", "answers", a.ok, a.refused, a.other, a.firstOther, a.failed)
	fmt.Printf("  %-36s %s (promised within %s)\n", "slowest answer", a.slowest.Round(time.Millisecond), within)
	var broken []string
	if a.late > 0 {
		broken = append(broken, fmt.Sprintf("%d requests unanswered or answered after %s (first: %s)", a.late, within, a.firstLate))
	}
	if a.bare > 0 {
		broken = append(broken, fmt.Sprintf("%d 5xx answers without Retry-After (first: %s)", a.bare, a.firstBare))
	}
	return broken
}
