package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// hasDocumentID reports whether an operation's request names a workflow
// document by a top-level documentId.
func hasDocumentID(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "documentId" || (name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && hasDocumentID(f.Type)) {
			return true
		}
	}
	return false
}

// The refusal matrix, generated from the operation table: every REST
// operation called by every kind of caller that must be refused (no token,
// a forged one, an expired one, one of a revoked session, a refresh token
// or a group token where an access token is needed and the other way
// round, another provider's, a provider of another environment (501, code
// 12, as the gateway answers a route it does not serve), an organisation
// of the other kind, a token without the operation's scope) and, on every
// operation naming a document, by an organisation that is no party to it.
// Each is refused as our rules say (401, 403, 501, or for the non-party
// the 404 of a document that does not exist, word for word), and nothing
// changes: no document, audit row, event, session or idempotency key is
// written by a refused call.
func TestRefusalMatrix(t *testing.T) {
	parallel(t)
	// access tokens live 5 minutes
	d := &docEnv{authEnv: startServer(t, dbtest.SQLite(t), 1000, 100000, 5*time.Minute), tokens: map[string]string{}}
	// a document alice (notifier) and noor (authority) are parties to; eve is not
	id := d.submitted(t)
	_, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "matrix", "eventKinds": []string{"DEADLINE_OVERDUE"}})
	if g["groupId"] == nil {
		t.Fatalf("register: %s", raw)
	}
	login := func(provider, user, pw string) (access, refresh string) {
		app := appUI
		if provider == "dev-2" {
			app = "app-token-dev2-0123456789abcde"
		}
		return d.access(t, provider, d.login(t, provider, user, pw, app))
	}
	expired, _ := login("dev-1", "alice", "alice-password-1")
	d.advance(10 * time.Minute)
	alice, aliceRefresh := login("dev-1", "alice", "alice-password-1")
	noor, _ := login("dev-1", "noor", "noor-password-1")
	eve, _ := login("dev-1", "eve", "eve-password-12")
	bob, _ := login("dev-1", "bob", "bob-password-12") // no usermgt scope
	revoked, _ := login("dev-1", "rita", "rita-password-1")
	// rita's session ended as an operator would end it
	if err := d.db.Exec("UPDATE sessions SET revoked_at = CURRENT_TIMESTAMP WHERE account_id = (SELECT id FROM accounts WHERE username = 'rita' AND provider_id = 'dev-1')").Error; err != nil {
		t.Fatal(err)
	}
	other, _ := login("dev-2", "alice", "alice-two-pass")
	// a provider of another environment, as a sandbox's beside production
	if err := d.db.Exec("INSERT INTO providers (id, environment, name, created_at, updated_at) VALUES ('test-9', 'test', 'Sandbox', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)").Error; err != nil {
		t.Fatal(err)
	}
	_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	group := lg["groupToken"].(string)

	counts := func() string {
		var out []string
		for _, q := range []string{"SELECT COUNT(*) FROM documents", "SELECT COALESCE(SUM(version), 0) FROM documents", "SELECT COUNT(*) FROM audit_events",
			"SELECT COUNT(*) FROM events", "SELECT COUNT(*) FROM sessions", "SELECT COUNT(*) FROM idempotency_keys", "SELECT COUNT(*) FROM document_entries"} {
			var n int64
			if err := d.db.Raw(q).Scan(&n).Error; err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(n))
		}
		return strings.Join(out, " ")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	send := func(op api.Operation, provider, token, docID string) (int, map[string]any, string) {
		body := []byte("{}")
		u := d.url + op.Path()
		if hasDocumentID(op.Request) {
			if op.Verb == http.MethodGet {
				u += "?documentId=" + url.QueryEscape(docID)
			} else {
				m := map[string]string{"documentId": docID}
				if slices.Contains(versionFields(t, op.Request), "version") {
					m["version"] = "1" // required (400 first without it); a non-party's answer comes before it counts
				}
				body, _ = json.Marshal(m)
			}
		}
		var rd io.Reader
		if op.Verb != http.MethodGet {
			rd = bytes.NewReader(body)
		}
		req, _ := http.NewRequest(op.Verb, u, rd)
		req.Header.Set("provider_id", provider)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", op.Path(), err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return resp.StatusCode, m, string(raw)
	}

	before := counts()
	cells, documentCells := 0, 0
	for _, op := range d.srv.Operations() {
		if op.NoREST() || op.Security == api.NoToken || op.Security == api.OptionalAccessToken {
			continue
		}
		type caller struct {
			name, provider, token string
			want                  int
		}
		var callers []caller
		switch op.Security {
		case api.AccessToken:
			callers = []caller{{"no token", "dev-1", "", 401}, {"a forged token", "dev-1", "not.a.token", 401}, {"an expired token", "dev-1", expired, 401},
				{"a revoked session's token", "dev-1", revoked, 401}, {"a refresh token", "dev-1", aliceRefresh, 401}, {"a group token", "dev-1", group, 401},
				{"another provider's token", "dev-1", other, 401}, {"a provider of another environment", "test-9", alice, 501}}
			switch op.Org {
			case "company":
				callers = append(callers, caller{"an authority", "dev-1", noor, 403})
			case "authority":
				callers = append(callers, caller{"a company", "dev-1", alice, 403})
			}
			if op.Scope == "usermgt" {
				callers = append(callers, caller{"a token without usermgt", "dev-1", bob, 403})
			}
		case api.GroupToken:
			callers = []caller{{"no token", "dev-1", "", 401}, {"a forged token", "dev-1", "not.a.token", 401}, {"an access token", "dev-1", alice, 401}}
		case api.RefreshToken:
			callers = []caller{{"no token", "dev-1", "", 401}, {"an access token", "dev-1", alice, 401}, {"a group token", "dev-1", group, 401}}
		}
		for _, c := range callers {
			st, m, raw := send(op, c.provider, c.token, id)
			cells++
			if st != c.want || m["code"] == nil || m["message"] == nil {
				t.Errorf("%s %s by %s: %d %s, want %d with code and message", op.Verb, op.Path(), c.name, st, raw, c.want)
			}
		}
		// A non-party learns nothing: the answer is a missing document's
		// (404; a report filtered on the document: the same empty one).
		if hasDocumentID(op.Request) && op.Security == api.AccessToken && op.Org != "authority" && op.Scope != "usermgt" {
			documentCells++
			st, _, raw := send(op, "dev-1", eve, id)
			missing := "ntf_" + strings.Repeat("0", len(id)-4)
			st2, _, raw2 := send(op, "dev-1", eve, missing)
			if (st != 404 && st != 200) || st != st2 || strings.ReplaceAll(raw, id, missing) != raw2 {
				t.Errorf("%s %s by a non-party: %d %s; for a missing document: %d %s", op.Verb, op.Path(), st, raw, st2, raw2)
			}
		}
	}
	if after := counts(); after != before {
		t.Errorf("refused calls changed the database (documents, versions, audit rows, events, sessions, keys, entries): %s before, %s after", before, after)
	}
	t.Logf("refusal matrix: %d operation × caller cells refused as declared, %d document operations answered a non-party as for a missing document", cells, documentCells)

	// The other side: the caller each operation is for passes its gate.
	// With a body naming at most the document it answers what the body
	// earns (200, 400 naming a field, 404 of a thing the body does not
	// name, 409), never 401, 403, 501 or a server error. Each call has
	// fresh tokens: some operations end the session they are called with.
	allowed := 0
	for _, op := range d.srv.Operations() {
		if op.NoREST() || op.Security == api.NoToken {
			continue
		}
		user, pw := "alice", "alice-password-1" // a company with usermgt, notifier of the document
		if op.Org == "authority" {
			user, pw = "noor", "noor-password-1" // its authority of destination
		}
		access, refresh := login("dev-1", user, pw)
		token := access
		switch op.Security {
		case api.RefreshToken:
			token = refresh
		case api.GroupToken:
			_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
			token = lg["groupToken"].(string)
		}
		st, _, raw := send(op, "dev-1", token, id)
		allowed++
		if st == 401 || st == 403 || st == 501 || st >= 500 {
			t.Errorf("%s %s by the caller it is for (%s): %d %s", op.Verb, op.Path(), user, st, raw)
		}
	}
	t.Logf("allowed callers: %d operations passed their gate", allowed)
}
