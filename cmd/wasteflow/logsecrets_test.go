package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/credentials"
)

// syncBuffer is a log both of a process's streams write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// failMarker makes a statement fail: the test's triggers refuse a row
// that carries it, on PostgreSQL with an error whose message quotes the
// row's value (as a data exception does).
const failMarker = "FAIL-THIS-STATEMENT"

// refuseMarked installs the triggers that make a document or client id
// carrying failMarker fail to be written.
func refuseMarked(t *testing.T, dbcfg configs.Database) {
	t.Helper()
	db, err := models.Open(context.Background(), dbcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = models.Close(db) }()
	var stmts []string
	if dbcfg.Driver == "postgres" {
		stmts = []string{
			// "invalid input syntax for type integer: <the value>" (22P02)
			`CREATE FUNCTION refuse_marked_doc() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM (NEW.data::text)::int; RETURN NEW; END $$`,
			`CREATE TRIGGER refuse_marked_doc BEFORE INSERT OR UPDATE ON documents FOR EACH ROW WHEN (NEW.data::text LIKE '%` + failMarker + `%') EXECUTE FUNCTION refuse_marked_doc()`,
			`CREATE FUNCTION refuse_marked_client() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM NEW.secret_hash::int; RETURN NEW; END $$`,
			`CREATE TRIGGER refuse_marked_client BEFORE INSERT ON client_ids FOR EACH ROW WHEN (NEW.description = '` + failMarker + `') EXECUTE FUNCTION refuse_marked_client()`,
		}
	} else {
		for _, op := range []string{"INSERT", "UPDATE"} {
			stmts = append(stmts, `CREATE TRIGGER refuse_marked_doc_`+op+` BEFORE `+op+` ON documents WHEN NEW.data LIKE '%`+failMarker+`%' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`)
		}
		stmts = append(stmts, `CREATE TRIGGER refuse_marked_client BEFORE INSERT ON client_ids WHEN NEW.description = '`+failMarker+`' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`)
	}
	for _, s := range stmts {
		if err := db.Exec(s).Error; err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestLogCarriesNoSecrets (issue 44.7): a server's whole log, at level
// debug, through a run that logs in every demo account (and once with a
// wrong password), issues and uses a client id, registers a group and
// logs it in, stores a notification with free text, opens an inspection
// link, sends a forged token, and makes two statements fail (a document
// with its free text, a client id with its secret's hash: on PostgreSQL
// with an error that quotes the value), carries none of the passwords,
// secrets, tokens, hashes or free texts.
func TestLogCarriesNoSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		bin := buildBinary(t)
		env := demoEnv(t, bin, dbcfg)
		env = append(env, "WASTEFLOW_LOG_LEVEL=debug")
		refuseMarked(t, dbcfg)

		var log syncBuffer
		cmd := exec.Command(bin, "serve", "-no-scheduler")
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stopped := false
		t.Cleanup(func() {
			if !stopped {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		urlRe := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)`)
		var base string
		for end := time.Now().Add(30 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
			if m := urlRe.FindStringSubmatch(log.String()); m != nil {
				base = m[1]
			} else if time.Now().After(end) {
				t.Fatalf("the server never said where it listens:\n%s", log.String())
			}
		}

		call := func(method, path, token string, body any) (int, map[string]any) {
			t.Helper()
			var rd io.Reader
			if body != nil {
				raw, _ := json.Marshal(body)
				rd = bytes.NewReader(raw)
			}
			req, _ := http.NewRequest(method, base+path, rd)
			req.Header.Set("provider_id", "dev-1")
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			var m map[string]any
			_ = json.Unmarshal(out, &m)
			return resp.StatusCode, m
		}
		ok := func(path, token string, body any) map[string]any {
			t.Helper()
			st, m := call(http.MethodPost, path, token, body)
			if st != 200 {
				t.Fatalf("%s: HTTP %d %v", path, st, m)
			}
			return m
		}
		const (
			authAPI = "/svc.core.v1.api.AuthApi/"
			grpAPI  = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"
			coAPI   = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
			app     = "demo-app-token-dev-1-0123456789abcdef"
		)
		var secrets []string // what the log must not hold
		login := func(creds map[string]any) (string, string) {
			t.Helper()
			rt := ok(authAPI+"IssueRefreshToken", "", creds)["refreshToken"].(string)
			at := ok(authAPI+"RequestAccess", rt, map[string]any{})
			return rt, at["accessToken"].(string)
		}
		var alice string
		for _, u := range []string{"alice", "tom", "rita", "bernd", "noor", "bart", "dora"} {
			pw := u + "-demo-password"
			rt, at := login(map[string]any{"usernameCredentials": map[string]string{"username": u, "password": pw}, "appToken": app})
			secrets = append(secrets, pw, rt, at)
			if u == "alice" {
				alice = at
			}
		}
		wrong := "a-wrong-password-0b5e9c"
		if st, _ := call(http.MethodPost, authAPI+"IssueRefreshToken", "", map[string]any{
			"usernameCredentials": map[string]string{"username": "alice", "password": wrong}, "appToken": app}); st == 200 {
			t.Fatal("a wrong password logs in")
		}
		nul := "nul-user-password-3c1d"
		call(http.MethodPost, authAPI+"IssueRefreshToken", "", map[string]any{
			"usernameCredentials": map[string]string{"username": "al\u0000ice", "password": nul}, "appToken": app})
		secrets = append(secrets, wrong, nul)

		// A client id: its secret, its use, and a statement carrying its
		// hash that fails.
		c := ok(authAPI+"IssueClientId", alice, map[string]any{"description": "erp"})
		clientSecret := c["clientSecret"].(string)
		crt, cat := login(map[string]any{"clientIdCredentials": map[string]string{"clientId": c["clientId"].(string), "clientSecret": clientSecret}, "appToken": app})
		keys, err := credentials.LoadKeyring(envValue(env, "WASTEFLOW_SECRET_KEY_FILE"), false)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, clientSecret, keys.MAC(credentials.PurposeClientSecret, clientSecret), crt, cat)
		if st, m := call(http.MethodPost, authAPI+"IssueClientId", alice, map[string]any{"description": failMarker}); st != 500 {
			t.Fatalf("the statement that should fail: HTTP %d %v", st, m)
		}

		// A group: its secret and token.
		g := ok(grpAPI+"RegisterGroup", alice, map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		gt := ok(grpAPI+"Login", "", map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})["groupToken"].(string)
		secrets = append(secrets, g["groupSecret"].(string), gt)

		// A document's free text, stored; and one whose statement fails.
		stored := "Vertraulicher Freitext der Firma 0815"
		failed := "Vertraulicher Freitext " + failMarker + " 4711"
		ok(coAPI+"CreateSubmission", alice, map[string]any{"notification": map[string]any{"wasteDescription": stored}})
		if st, m := call(http.MethodPost, coAPI+"CreateSubmission", alice, map[string]any{"notification": map[string]any{"wasteDescription": failed}}); st != 500 {
			t.Fatalf("the statement that should fail: HTTP %d %v", st, m)
		}
		secrets = append(secrets, stored, failed, failMarker)

		// A forged token, an inspection link's token.
		forged := "eyJhbGciOiJFZERTQSJ9.forged-token-payload-5a7c.c2lnbmF0dXJl"
		call(http.MethodPost, coAPI+"ListDocuments", forged, map[string]any{})
		inspect := "insp-token-value-9e8d7c6b5a"
		call(http.MethodGet, "/inspect/"+inspect, "", nil)
		secrets = append(secrets, forged, inspect)

		// Stop the server, so that its log is complete.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		stopped = true
		text := log.String()
		if dbcfg.Driver == "postgres" && !strings.Contains(text, "SQLSTATE 22P02") {
			t.Errorf("the failed statements are not logged:\n%s", text)
		}
		if !strings.Contains(text, "internal error") {
			t.Errorf("the failed requests are not logged:\n%s", text)
		}
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("the log holds %q", s)
			}
		}
		if m := regexp.MustCompile(`[0-9a-f]{64}`).FindAllString(text, -1); len(m) > 0 {
			t.Errorf("the log holds what looks like a hash: %q", m)
		}
		if t.Failed() {
			t.Logf("the log:\n%s", text)
		}
	})
}

// envValue is key's value in env (the last one).
func envValue(env []string, key string) string {
	v := ""
	for _, e := range env {
		if k, val, ok := strings.Cut(e, "="); ok && k == key {
			v = val
		}
	}
	return filepath.Clean(v)
}
