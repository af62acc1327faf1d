package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	recho "github.com/wasteflow/wasteflow/rules/echo"
)

// The traps of issue 44 for careful users (points 11, 12, 15 and 16), on
// both databases; TestCoreFlowsOverGRPC runs them over gRPC too.

// Issue 44.11: a NUL character (U+0000) in any string of a request is
// refused while decoding (400, code 3, naming the field), before anything
// is stored: PostgreSQL answered 500 where SQLite stored it. The login
// needs no token; a document's free text through its create and through
// SetByIntent; a query parameter.
func TestNULIsRefusedInEveryString(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		noor := d.token(t, "noor") // logged in before counting
		sessions, docs := d.count(t, "sessions"), d.documents(t)

		st, _, raw := d.post(t, opLogin, hdr("dev-1", ""), map[string]any{
			"usernameCredentials": map[string]string{"username": "ali\x00ce", "password": "alice-password-1"}, "appToken": appUI})
		wantViolation(t, st, raw, "usernameCredentials.username", "NUL")

		c := content()
		c["wasteDescription"] = "solvents\x00; DROP"
		st, _, raw = d.call(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})
		wantViolation(t, st, raw, "notification.wasteDescription", "NUL")

		doc, _ := d.get(t, "alice", id)
		doc["withdrawal"] = map[string]any{"reason": "no longer \x00 needed"}
		st, _, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
		wantViolation(t, st, raw, "document.notification.withdrawal.reason", "NUL")

		st, _, raw = d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "version": "1", "notification": c})
		wantViolation(t, st, raw, "notification.wasteDescription", "NUL")

		if !overGRPC(t) { // a query parameter (REST's GET)
			st, _, raw = d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?documentId=" + url.QueryEscape("ntf\x00x"), headers: hdr("dev-1", noor)})
			wantViolation(t, st, raw, "documentId", "NUL")
		}

		if s, n := d.count(t, "sessions"), d.documents(t); s != sessions || n != docs {
			t.Fatalf("sessions %d -> %d, documents %d -> %d: a refused request stored something", sessions, s, docs, n)
		}
		if doc, _ := d.get(t, "alice", id); doc["state"] != "DRAFT" || doc["version"] != "1" {
			t.Fatalf("the draft changed: %v %v", doc["state"], doc["version"])
		}
	})
}

// Issue 44.12: SetByIntent takes the document's version as the expected
// version; a document without it (left out, misspelt "verison", or 0) is
// refused naming document.<kind>.version, never fired without the check.
func TestSetByIntentNeedsTheVersion(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		for _, tc := range []struct {
			name string
			edit func(doc map[string]any)
		}{
			{"left out", func(doc map[string]any) { delete(doc, "version") }},
			{"misspelt", func(doc map[string]any) { doc["verison"] = doc["version"]; delete(doc, "version") }},
			{"zero", func(doc map[string]any) { doc["version"] = "0" }},
		} {
			doc, _ := d.get(t, "alice", id)
			doc["withdrawal"] = map[string]any{"reason": "not needed"}
			tc.edit(doc)
			st, _, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
			wantViolation(t, st, raw, "document.notification.version", "required")
			if !overGRPC(t) { // the bare document (a kind's Get answer; gRPC's message is the container) is refused alike
				st, _, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": doc, "intent": "WITHDRAWAL"})
				wantViolation(t, st, raw, "document.version", "required")
			}
			if now, _ := d.get(t, "alice", id); now["state"] != "DRAFT" || now["version"] != "1" {
				t.Fatalf("%s: the document changed: %v %v", tc.name, now["state"], now["version"])
			}
		}
		// A stale version is still 409; the version as read goes through.
		doc, _ := d.get(t, "alice", id)
		doc["withdrawal"] = map[string]any{"reason": "not needed"}
		doc["version"] = "7"
		st, _, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
		wantError(t, 409, 10, st, raw)
		doc["version"] = "1"
		st, m, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
		if st != 200 || m["document"].(map[string]any)["notification"].(map[string]any)["state"] != "WITHDRAWN" {
			t.Fatalf("with its version: %d %.300s", st, raw)
		}
	})
}

// Issue 44.15: every id a request names is held to the limit the
// integrators guide states (128 characters: 400 naming the field), and no
// answer repeats more than recho.Max (64) characters of a value sent.
func TestIDsAreHeldToTheirLimit(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		huge := strings.Repeat("d", 100_000)
		echoes := func(raw []byte) bool { return strings.Contains(string(raw), strings.Repeat("d", recho.Max+1)) }

		for _, tc := range []struct {
			path  string
			body  map[string]any
			field string
		}{
			{co + "GetNotification", map[string]any{"documentId": huge}, "documentId"},
			{co + "GetDocument", map[string]any{"documentId": huge}, "documentId"},
			{co + "SetSubmission", map[string]any{"documentId": huge, "version": "1", "notification": content()}, "documentId"},
			{co + "GetDocumentHistory", map[string]any{"documentId": huge}, "documentId"},
			{co + "CreateMovementTemplate", map[string]any{"notificationId": huge}, "notificationId"},
			{"/svc.core.v1.api.AuthApi/RevokeRefreshToken", map[string]any{"sessionId": huge}, "sessionId"},
			{signAPI + "CreateSigningProcess", map[string]any{"signer": huge}, "signer"},
			{opChange, map[string]any{"targetUsername": huge}, "targetUsername"},
		} {
			st, _, raw := d.call(t, "alice", tc.path, tc.body)
			limit := "at most 128 characters"
			if strings.Contains(tc.field, "signer") || strings.Contains(tc.field, "Username") {
				limit = "at most 200 characters" // a name
			}
			wantViolation(t, st, raw, tc.field, limit)
			if echoes(raw) {
				t.Fatalf("%s: the answer repeats the id: %.200s", tc.path, raw)
			}
		}
		doc, _ := d.get(t, "alice", id)
		doc["id"], doc["withdrawal"] = huge, map[string]any{}
		st, _, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
		wantViolation(t, st, raw, "document.notification.id", "at most 128 characters")

		// An id within the limit that names nothing: 404, quoting at most 64 characters of it.
		long := strings.Repeat("d", 128)
		st, _, raw = d.call(t, "alice", co+"GetNotification", map[string]any{"documentId": long})
		wantError(t, 404, 5, st, raw, "(128 characters)")
		if echoes(raw) {
			t.Fatalf("the 404 repeats the id: %s", raw)
		}
		if !overGRPC(t) { // a query parameter
			st, _, raw = d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?documentId=" + huge, headers: hdr("dev-1", d.token(t, "noor"))})
			wantViolation(t, st, raw, "documentId", "at most 128 characters")
		}
		// Other values a message quotes: an Idempotency-Key reused.
		key := strings.Repeat("d", 200)
		h := hdr("dev-1", d.token(t, "alice"))
		h["Idempotency-Key"] = key
		d.post(t, co+"CreateSubmission", h, map[string]any{"notification": content()})
		st, _, raw = d.post(t, co+"CreateSubmission", h, map[string]any{"notification": map[string]any{}})
		wantError(t, 409, 6, st, raw, "(200 characters)")
		if echoes(raw) {
			t.Fatalf("the 409 repeats the key: %s", raw)
		}
	})
}

// Issue 44.16: an expired access token says that it expired (the message,
// and WWW-Authenticate's error_description as RFC 6750 has it), so that a
// client knows to refresh; a token that is no token still says invalid.
func TestExpiredTokenSaysSo(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startServer(t, dbcfg, 1000, 100000, 5*time.Minute)
		rt := a.login(t, "dev-1", "alice", "alice-password-1", appUI)
		at, rt2 := a.access(t, "dev-1", rt)
		a.clock.Advance(5*time.Minute + 31*time.Second) // past exp and the leeway

		st, h, raw := a.do(t, call{path: co + "ListDocuments", headers: hdr("dev-1", at), body: []byte("{}")})
		wantError(t, 401, 16, st, raw, "the access token expired")
		if !overGRPC(t) { // gRPC has no WWW-Authenticate: its message says it
			if w := h.Get("WWW-Authenticate"); !strings.Contains(w, `error="invalid_token"`) || !strings.Contains(w, `error_description="the access token expired"`) {
				t.Fatalf("WWW-Authenticate %q", w)
			}
		}
		// The refresh token still works; once it expires, it says so too.
		at2, rt3 := a.access(t, "dev-1", rt2)
		if st, _, raw := a.do(t, call{path: co + "ListDocuments", headers: hdr("dev-1", at2), body: []byte("{}")}); st != 200 {
			t.Fatalf("a fresh access token: %d %s", st, raw)
		}
		a.clock.Advance(31 * 24 * time.Hour)
		st, _, raw = a.post(t, opAccess, hdr("dev-1", rt3), nil)
		wantError(t, 401, 16, st, raw, "the refresh token expired")

		st, h, raw = a.do(t, call{path: co + "ListDocuments", headers: hdr("dev-1", "not.a.token"), body: []byte("{}")})
		m := wantError(t, 401, 16, st, raw, "invalid token")
		if strings.Contains(m["message"].(string), "expired") || (!overGRPC(t) && strings.Contains(h.Get("WWW-Authenticate"), "expired")) {
			t.Fatalf("a forged token said it expired: %s %q", raw, h.Get("WWW-Authenticate"))
		}
	})
}
