package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
)

// environment returns a lookup over vars plus a private key file.
func environment(t *testing.T, db configs.Database, vars ...string) func(string) (string, bool) {
	m := map[string]string{
		"WASTEFLOW_DATABASE_URL":         db.URL,
		"WASTEFLOW_SECRET_KEY_FILE":      filepath.Join(t.TempDir(), "secret.key"),
		"WASTEFLOW_JWT_SIGNING_KEY_FILE": filepath.Join(t.TempDir(), "jwt.pem"),
		"WASTEFLOW_LOG_LEVEL":            "warn",
		"WASTEFLOW_SIGNER_KEYS":          t.TempDir(),
		"WASTEFLOW_METRICS_ADDR":         "127.0.0.1:0", // servers of tests run side by side
	}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func runCmd(t *testing.T, lookup func(string) (string, bool), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb, lookup, nil)
	return code, out.String(), errb.String()
}

func TestInvalidConfigurationNamesTheVariable(t *testing.T) {
	for variable, value := range map[string]string{
		"WASTEFLOW_ADDR":         "no-port",
		"WASTEFLOW_ENVIRONMENT":  "prod",
		"WASTEFLOW_DATABASE_URL": "mysql://x",
		"WASTEFLOW_READ_TIMEOUT": "soon",
		"WASTEFLOW_BODY_LIMIT":   "-1",
		"WASTEFLOW_LOG_FORMAT":   "xml",
	} {
		code, _, stderr := runCmd(t, environment(t, dbtest.SQLite(t), variable, value), "serve")
		if code != exitError || !strings.Contains(stderr, variable) {
			t.Errorf("%s=%s: exit %d, stderr %q; want exit 1 naming the variable", variable, value, code, stderr)
		}
	}
	if code, _, _ := runCmd(t, environment(t, dbtest.SQLite(t)), "frobnicate"); code != exitUsage {
		t.Errorf("unknown command: exit %d, want %d", code, exitUsage)
	}
}

func TestAdminApplyIsIdempotentAndAtomic(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db)
		file := filepath.Join(t.TempDir(), "bootstrap.yaml")
		os.WriteFile(file, []byte(`
providers:     [{id: dev-9, environment: development, name: "Nine"}]
organisations: [{id: acme, provider: dev-9, kind: company, name: "ACME", country: DE, region: BY}]
applications:  [{provider: dev-9, name: ui, appToken: "an-app-token-that-is-long-enough", scopes: [usermgt]}]
accounts:      [{provider: dev-9, organisation: acme, username: alice, password: "correct-horse-battery", scopes: [usermgt]}]
`), 0o600)
		code, out, stderr := runCmd(t, env, "admin", "apply", file)
		if code != exitOK || !strings.Contains(out, "accounts: 1 created") {
			t.Fatalf("first apply: exit %d\n%s%s", code, out, stderr)
		}
		code, out, stderr = runCmd(t, env, "admin", "apply", file)
		if code != exitOK || !strings.Contains(out, "nothing changed") || !strings.Contains(out, "accounts: 0 created, 0 updated, 1 unchanged") {
			t.Fatalf("second apply: exit %d\n%s%s", code, out, stderr)
		}
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		os.WriteFile(bad, []byte("providers:\n  - {id: p2, environment: test, name: Two}\naccounts:\n  - {provider: nobody, organisation: acme, username: bob, password: \"long-enough-password\"}\n"), 0o600)
		code, _, stderr = runCmd(t, env, "admin", "apply", bad)
		if code != exitError || !strings.Contains(stderr, `accounts[0] (line 4): unknown provider "nobody"`) {
			t.Fatalf("bad file: exit %d, stderr %q", code, stderr)
		}
		// p2 was valid but must not have been applied.
		code, out, _ = runCmd(t, env, "admin", "apply", file)
		if code != exitOK || !strings.Contains(out, "providers: 0 created, 0 updated, 1 unchanged") {
			t.Fatalf("after failed apply: %s", out)
		}
		if code, _, _ := runCmd(t, env, "migrate"); code != exitOK {
			t.Fatalf("migrate on a migrated database: exit %d", code)
		}
	})
}

func TestDemoIsRepeatableAndRefusedInProduction(t *testing.T) {
	db := dbtest.SQLite(t)
	env := environment(t, db)
	code, out, stderr := runCmd(t, env, "demo")
	if code != exitOK || !strings.Contains(out, "alice-demo-password") || !strings.Contains(out, "IssueRefreshToken") ||
		!strings.Contains(out, "demo documents: 14 ") {
		t.Fatalf("demo: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCmd(t, env, "demo")
	if code != exitOK || !strings.Contains(out, "accounts: 0 created, 0 updated, 8 unchanged") || !strings.Contains(out, "has documents already; none added") {
		t.Fatalf("second demo: exit %d\n%s", code, out)
	}
	prod := environment(t, dbtest.SQLite(t), "WASTEFLOW_ENVIRONMENT", "production")
	if code, _, stderr := runCmd(t, prod, "demo"); code != exitError || !strings.Contains(stderr, "production") {
		t.Fatalf("demo in production: exit %d, %s", code, stderr)
	}
	// In production missing keys are never made: serve stops before it
	// touches the database (no file made, nothing migrated).
	fresh := dbtest.SQLite(t)
	if code, _, stderr := runCmd(t, environment(t, fresh, "WASTEFLOW_ENVIRONMENT", "production", "WASTEFLOW_PUBLIC_URL", "https://wasteflow.example.org"), "serve"); code != exitError || !strings.Contains(stderr, "WASTEFLOW_JWT_SIGNING_KEY_FILE") {
		t.Fatalf("serve in production without keys: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(fresh.DSN); !os.IsNotExist(err) {
		t.Fatalf("serve without keys touched the database: %v", err)
	}
}

// The real binary: started, serving (REST, and native gRPC on the same
// port), stopped by SIGTERM with exit status 0; a gRPC stream open at the
// time ends with UNAVAILABLE (its client reconnects elsewhere).
func TestServeStopsCleanlyOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "wasteflow")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(),
			"WASTEFLOW_ADDR=127.0.0.1:0", "WASTEFLOW_DATABASE_URL="+db.URL,
			"WASTEFLOW_SECRET_KEY_FILE="+filepath.Join(t.TempDir(), "k"), "WASTEFLOW_SHUTDOWN_GRACE=5s",
			"WASTEFLOW_JWT_SIGNING_KEY_FILE="+filepath.Join(t.TempDir(), "jwt.pem"), "WASTEFLOW_METRICS_ADDR=127.0.0.1:0")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		urlRe := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)`)
		lines := bufio.NewScanner(stderr)
		var base string
		for lines.Scan() {
			if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
				base = m[1]
				break
			}
		}
		if base == "" {
			t.Fatal("server never said where it listens")
		}
		go io.Copy(io.Discard, stderr)
		resp, err := http.Get(base + "/readyz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("readyz: %v %v", resp, err)
		}
		resp.Body.Close()
		conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := watch.Recv(); err != nil || m.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health over gRPC: %v %v", m, err)
		}
		start := time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if _, err := watch.Recv(); status.Code(err) != codes.Unavailable {
			t.Fatalf("an open stream at shutdown: %v, want UNAVAILABLE", err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("exit after SIGTERM: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no exit within 10 s of SIGTERM")
		}
		t.Logf("stopped %v after SIGTERM", time.Since(start))
		if _, err := http.Get(base + "/healthz"); err == nil {
			t.Fatal("still accepting connections after exit")
		}
	})
}

func TestAdminAccountCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db)
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatalf("demo: %s", stderr)
		}
		code, out, stderr := runCmd(t, env, "admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "carol", "-scopes", "usermgt")
		if code != exitOK || !strings.Contains(out, "password (shown once): ") {
			t.Fatalf("create-account: exit %d\n%s%s", code, out, stderr)
		}
		code, _, stderr = runCmd(t, env, "admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "carol")
		if code != exitError || !strings.Contains(stderr, "already exists") {
			t.Fatalf("duplicate create-account: exit %d %s", code, stderr)
		}
		code, _, stderr = runCmd(t, env, "admin", "create-account", "-provider", "dev-1", "-organisation", "nope", "-username", "dave")
		if code != exitError || !strings.Contains(stderr, "unknown organisation") {
			t.Fatalf("unknown organisation: exit %d %s", code, stderr)
		}
		var buf bytes.Buffer
		code = run(context.Background(), []string{"admin", "reset-password", "-provider", "dev-1", "-username", "carol", "-password-stdin"},
			strings.NewReader("short\n"), &buf, &buf, env, nil)
		if code != exitError || !strings.Contains(buf.String(), "at least 12") {
			t.Fatalf("weak reset: exit %d %s", code, buf.String())
		}
		buf.Reset()
		code = run(context.Background(), []string{"admin", "reset-password", "-provider", "dev-1", "-username", "carol", "-password-stdin"},
			strings.NewReader("carols-new-password\n"), &buf, &buf, env, nil)
		if code != exitOK {
			t.Fatalf("reset: exit %d %s", code, buf.String())
		}
		code, out, stderr = runCmd(t, env, "admin", "issue-app-token", "-provider", "dev-1", "-name", "cli", "-scopes", "usermgt")
		if code != exitOK || !strings.Contains(out, "application created") || !strings.Contains(out, "app token (shown once): app_") {
			t.Fatalf("issue-app-token: exit %d\n%s%s", code, out, stderr)
		}
		if code, _, _ := runCmd(t, env, "admin", "create-account", "-provider", "dev-1"); code != exitUsage {
			t.Fatalf("missing flags: exit %d, want usage", code)
		}
	})
}

// A request still arriving when shutdown begins is served to the end.
func TestShutdownDrainsInFlightRequests(t *testing.T) {
	db := dbtest.SQLite(t)
	env := environment(t, db, "WASTEFLOW_ADDR", "127.0.0.1:0")
	if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
		t.Fatalf("demo: %s", stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"serve"}, strings.NewReader(""), io.Discard, io.Discard, env, func(a string) { addr <- a })
	}()
	base := "http://" + <-addr
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, base+"/svc.core.v1.api.AuthApi/IssueRefreshToken", pr)
	req.Header.Set("provider_id", "dev-1")
	got := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- -1
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	pw.Write([]byte(`{"usernameCredentials":{"username":"alice",`))
	time.Sleep(200 * time.Millisecond) // the handler is now reading the body
	cancel()                           // SIGTERM
	time.Sleep(200 * time.Millisecond)
	select {
	case st := <-got:
		t.Fatalf("answered (%d) before the body was complete", st)
	default:
	}
	pw.Write([]byte(`"password":"alice-demo-password"},"appToken":"demo-app-token-dev-1-0123456789abcdef"}`))
	pw.Close()
	if st := <-got; st != http.StatusOK {
		t.Fatalf("in-flight login got %d, want 200", st)
	}
	if code := <-exit; code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("new connections still accepted after shutdown")
	}
}

func TestVerifyAuditCommand(t *testing.T) {
	db := dbtest.SQLite(t)
	env := environment(t, db)
	if code, _, stderr := runCmd(t, env, "migrate"); code != exitOK {
		t.Fatal(stderr)
	}
	gdb, err := models.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer models.Close(gdb)
	now := time.Now().UTC()
	gdb.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"})
	doc := models.Document{ID: "d1", ProviderID: "p", Kind: "NOTIFICATION", Number: "n", State: "DRAFT", Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: now, UpdatedAt: now}
	gdb.Create(&doc)
	for _, to := range []string{"DRAFT", "SUBMITTED", "ACKNOWLEDGED"} {
		e := models.AuditEvent{DocumentID: "d1", ToState: to, Intent: "X", Actor: "1", At: now}
		if to == "SUBMITTED" {
			e.Detail = "filed with three authorities"
		}
		audit.Link(&e, doc.AuditSeq, doc.AuditHash)
		if err := gdb.Create(&e).Error; err != nil {
			t.Fatal(err)
		}
		doc.AuditSeq, doc.AuditHash = e.Seq, e.Hash
	}
	gdb.Model(&doc).Updates(map[string]any{"audit_seq": doc.AuditSeq, "audit_hash": doc.AuditHash, "version": doc.AuditSeq, "state": "ACKNOWLEDGED"})
	code, out, stderr := runCmd(t, env, "admin", "verify-audit")
	if code != exitOK || !strings.Contains(out, "intact: 3 rows") {
		t.Fatalf("intact chain: exit %d %s %s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, env, "admin", "audit", "n")
	if code != exitOK || !strings.Contains(out, "filed with three authorities") || !strings.Contains(out, "3 row(s), chain intact") {
		t.Fatalf("admin audit: exit %d %s %s", code, out, stderr)
	}
	// The detail is part of the hash.
	gdb.Exec("UPDATE audit_events SET detail = 'filed with two authorities' WHERE seq = 2")
	code, out, _ = runCmd(t, env, "admin", "verify-audit")
	if code != exitError || !strings.Contains(out, "BROKEN document d1: row 2") {
		t.Fatalf("tampered detail: exit %d %s", code, out)
	}
	if code, _, stderr := runCmd(t, env, "admin", "audit", "d1"); code != exitError || !strings.Contains(stderr, "broken") {
		t.Fatalf("admin audit of a broken chain: exit %d %s", code, stderr)
	}
	gdb.Exec("UPDATE audit_events SET detail = 'filed with three authorities', to_state = 'CONSENTED' WHERE seq = 2")
	code, out, _ = runCmd(t, env, "admin", "verify-audit")
	if code != exitError || !strings.Contains(out, "BROKEN document d1: row 2") {
		t.Fatalf("tampered chain: exit %d %s", code, out)
	}
}

func TestWorkflowsGraphCommand(t *testing.T) {
	env := environment(t, dbtest.SQLite(t))
	code, out, _ := runCmd(t, env, "workflows", "graph", "notification")
	if code != exitOK || !strings.HasPrefix(out, `digraph "notification"`) || !strings.Contains(out, `"DRAFT" -> "SUBMITTED" [label="SUBMISSION"]`) {
		t.Fatalf("dot: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, env, "workflows", "graph", "NOTIFICATION", "-format", "mermaid")
	if code != exitOK || !strings.Contains(out, "ACKNOWLEDGED --> CONSENTED : DECISION (callerMayDecide)") {
		t.Fatalf("mermaid: exit %d\n%s", code, out)
	}
	if code, _, _ := runCmd(t, env, "workflows", "graph", "unicorn"); code != exitUsage {
		t.Fatalf("unknown kind: exit %d", code)
	}
}

// The operator's view: a notification filed over HTTP, a sweep as of a
// later date from the command line, the report in a terminal.
func TestSweepAndReportCommands(t *testing.T) {
	db := dbtest.SQLite(t)
	env := environment(t, db, "WASTEFLOW_ADDR", "127.0.0.1:0")
	if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
		t.Fatal(stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"serve", "-no-scheduler"}, strings.NewReader(""), io.Discard, io.Discard, env, func(a string) { addr <- a })
	}()
	base := "http://" + <-addr
	post := func(path, bearer, body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("provider_id", "dev-1")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, m)
		}
		return m
	}
	rt := post("/svc.core.v1.api.AuthApi/IssueRefreshToken", "", `{"usernameCredentials":{"username":"alice","password":"alice-demo-password"},"appToken":"demo-app-token-dev-1-0123456789abcdef"}`)["refreshToken"].(string)
	at := post("/svc.core.v1.api.AuthApi/RequestAccess", rt, "")["accessToken"].(string)
	content := `{"consignee":{"organisationId":"recyc"},"facility":{"organisationId":"recyc"},"carriers":[{"organisationId":"truck"}],"packagingTypes":["BULK"],"competentAuthorities":{"dispatch":{"organisationId":"auth-de-by"},"destination":{"organisationId":"auth-nl"}},"wasteClassifications":[{"list":"EU_LIST_OF_WASTE","code":"16 02 13*"}],"recoveryDisposalCodes":["R4"],"totalQuantity":{"tonnes":{"units":"10","nanos":0}},"numberOfShipments":1,"shipmentPeriod":{"firstDeparture":"2027-01-10","lastDeparture":"2027-06-20"}}`
	doc := post("/svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateSubmission", at, `{"notification":`+content+`}`)["document"].(map[string]any)
	post("/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetSubmission", at, `{"documentId":"`+doc["id"].(string)+`","version":"`+doc["version"].(string)+`","notification":`+content+`}`)
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("serve exit %d", code)
	}

	later := time.Now().UTC().AddDate(0, 1, 0).Format(time.RFC3339)
	// A dry run tells what the sweep would do and writes nothing (the demo
	// documents have deadlines of their own: the filed one is followed).
	overdue := regexp.MustCompile(`([1-9][0-9]*) overdue`)
	code, out, stderr := runCmd(t, env, "admin", "sweep", "-as-of", later, "-dry-run")
	if code != exitOK || !strings.Contains(out, "dry run (nothing written)") || !overdue.MatchString(out) {
		t.Fatalf("dry run: exit %d %s %s", code, out, stderr)
	}
	wouldBe := overdue.FindStringSubmatch(out)[1]
	if code, out, _ := runCmd(t, env, "report", "deadlines", "-state", "overdue"); code != exitOK || strings.Contains(out, doc["number"].(string)) {
		t.Fatalf("after the dry run: exit %d\n%s", code, out)
	}
	code, out, stderr = runCmd(t, env, "admin", "sweep", "-as-of", later)
	if code != exitOK || !strings.Contains(out, wouldBe+" overdue") {
		t.Fatalf("sweep (the dry run said %s overdue): exit %d %s %s", wouldBe, code, out, stderr)
	}
	code, out, _ = runCmd(t, env, "report", "deadlines", "-state", "overdue")
	if code != exitOK || !regexp.MustCompile(regexp.QuoteMeta(doc["number"].(string))+` +NOTIFICATION +ACKNOWLEDGEMENT_DUE .* OVERDUE`).MatchString(out) {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, env, "report", "deadlines", "-format", "csv")
	if code != exitOK || !strings.HasPrefix(out, "document_id,document_number,") || !strings.Contains(out, ",OVERDUE,") {
		t.Fatalf("csv report: exit %d\n%s", code, out)
	}
	prod := environment(t, db, "WASTEFLOW_ENVIRONMENT", "production")
	if code, _, stderr := runCmd(t, prod, "admin", "sweep", "-as-of", later); code != exitError || !strings.Contains(stderr, "refused in production") {
		t.Fatalf("as-of in production: exit %d %s", code, stderr)
	}
	if code, out, stderr := runCmd(t, prod, "admin", "sweep", "-as-of", later, "-dry-run"); code != exitOK || !strings.Contains(out, "dry run") {
		t.Fatalf("a dry run in production: exit %d %s %s", code, out, stderr)
	}
}

// wasteflow openapi prints the served description without a server and
// without touching the configured database.
func TestOpenAPICommand(t *testing.T) {
	db := dbtest.SQLite(t)
	code, out, errs := runCmd(t, environment(t, db), "openapi")
	if code != exitOK || !strings.Contains(out, "openapi: 3.0.3") || !strings.Contains(out, "/svc.core.v1.api.AuthApi/RequestAccess:") ||
		!strings.Contains(out, "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetByIntent:") {
		t.Fatalf("exit %d, stderr %s\n%.500s", code, errs, out)
	}
	if _, err := os.Stat(db.DSN); !os.IsNotExist(err) {
		t.Fatalf("the configured database was touched: %v", err)
	}
}

// The demo's documents build on any day the demo may run (weekends, the
// holidays around Christmas and Easter, late in the UTC day) and show every
// kind, and deadlines in each state a newcomer should see.
func TestDemoDocumentsOnAnyDay(t *testing.T) {
	for _, day := range []string{"2026-11-23T09:00:00Z", "2026-11-28T23:30:00Z", "2026-12-24T08:00:00Z", "2027-01-04T00:15:00Z", "2027-03-29T12:00:00Z", "2027-05-01T16:00:00Z", "2026-12-27T23:59:00Z", "2027-04-02T10:00:00Z", "2027-12-31T22:00:00Z"} {
		t.Run(day, func(t *testing.T) {
			now, _ := time.Parse(time.RFC3339, day)
			dbcfg := dbtest.SQLite(t)
			cfg, err := configs.Load(environment(t, dbcfg))
			if err != nil {
				t.Fatal(err)
			}
			file, err := bootstrap.Parse(bytes.NewReader(configs.DemoBootstrap))
			if err != nil {
				t.Fatal(err)
			}
			ctx, log := context.Background(), newLogger(cfg, io.Discard)
			if _, err := applyBootstrap(ctx, cfg, log, file); err != nil {
				t.Fatal(err)
			}
			err = withMigratedDB(ctx, cfg, log, func(db *gorm.DB) error {
				n, err := demoDocuments(ctx, db, cfg, "dev-1", now, configs.DemoDocuments)
				if err != nil {
					return err
				}
				type count struct {
					Key string
					N   int
				}
				var kinds, states []count
				db.Raw("SELECT kind || ' ' || state AS key, COUNT(*) AS n FROM documents GROUP BY kind, state ORDER BY 1").Scan(&kinds)
				db.Raw("SELECT state AS key, COUNT(*) AS n FROM deadlines GROUP BY state ORDER BY 1").Scan(&states)
				got := fmt.Sprint(kinds, states)
				for _, want := range []string{"NOTIFICATION DRAFT", "NOTIFICATION SUBMITTED", "NOTIFICATION INFORMATION_REQUESTED", "NOTIFICATION CONSENTED",
					"NOTIFICATION CHANGE_REQUESTED", "NOTIFICATION EXPIRED", "NOTIFICATION OBJECTED", "ANNEX_VII ANNOUNCED", "ANNEX_VII IN_TRANSIT",
					"ANNEX_VII RECEIVED_BY_FACILITY", "ANNEX_VII COMPLETED", "MOVEMENT SUBMITTED", "MOVEMENT RECEIVED_BY_FACILITY",
					"{OPEN ", "{DUE_SOON ", "{OVERDUE ", "{LAPSED ", "{SUSPENDED ", "{MET "} {
					if !strings.Contains(got, want) {
						t.Errorf("no %s among %s", strings.Trim(want, "{ "), got)
					}
				}
				if n != 14 {
					t.Errorf("%d documents, want 14", n)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
