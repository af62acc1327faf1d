package tests

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/codec"
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

// Issue 44.12, for every operation: each field named version in a request
// (an intent operation's DocumentRef.version, SetByIntent's
// document.<kind>.version), found in the operation table so that a new
// operation cannot slip through, is required: left out, misspelt
// ("verison") or 0, the request is refused (400, code 3, naming the
// field) and no document changes; a stale one still reaches the check
// (409, code 10) for the operation's own kind.
func TestEveryVersionIsRequired(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(4))
		docs := map[string][]string{ // kind -> documents of it: a draft and one the authorities are parties to
			"notification": {d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string), nid},
			"annex7":       {d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)},
			"movement":     {d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})["id"].(string)},
		}
		byIntent := map[string]string{"notification": "WITHDRAWAL", "annex7": "WITHDRAWAL", "movement": "CARRIER_TRANSPORT"} // an intent with a block
		read := func(id string) map[string]any {                                                                             // the container GetDocument answers
			st, m, raw := d.post(t, co+"GetDocument", hdr("dev-1", d.token(t, "alice")), map[string]any{"documentId": id})
			if st != 200 {
				t.Fatalf("GetDocument %s: %d %s", id, st, raw)
			}
			return m["document"].(map[string]any)
		}
		versions := func() map[string]any {
			out := map[string]any{}
			for kind, ids := range docs {
				for _, id := range ids {
					out[id] = read(id)[kind].(map[string]any)["version"]
				}
			}
			return out
		}
		before := versions()
		for kind := range read(nid) { // every kind SetByIntent's container holds has a document here
			if len(docs[kind]) == 0 || byIntent[kind] == "" {
				t.Fatalf("no document or intent of kind %s here: add one", kind)
			}
		}
		variants := []struct {
			name string
			edit func(m map[string]any)
		}{
			{"left out", func(m map[string]any) { delete(m, "version") }},
			{"misspelt", func(m map[string]any) { m["verison"] = m["version"]; delete(m, "version") }},
			{"zero", func(m map[string]any) { m["version"] = "0" }},
		}
		send := func(user, path string, body map[string]any) (int, []byte) { // as it is: not d.call, which sends the version it knows
			st, _, raw := d.post(t, path, hdr("dev-1", d.token(t, user)), body)
			return st, raw
		}
		checked := 0
		for _, o := range d.srv.Operations() {
			path := "/" + o.Package + "." + o.Service + "/" + o.Method
			user := "alice"
			if strings.Contains(o.Service, "Authority") {
				user = "noor"
			}
			if o.Request == reflect.TypeFor[handlers.SetByIntentRequest]() {
				// The document is free-form JSON to the codec: its kind's
				// retrieval document, whose version is the expected one.
				for kind, ids := range docs {
					if kind == "movement" { // refused by its kind (400, code 9): movements use their operations
						continue
					}
					checked++
					for _, v := range variants {
						doc := read(ids[0])[kind].(map[string]any)
						v.edit(doc)
						st, raw := send(user, path, map[string]any{"document": map[string]any{kind: doc}, "intent": byIntent[kind]})
						wantViolation(t, st, raw, "document."+kind+".version", "required")
					}
				}
				continue
			}
			fields := versionFields(t, o.Request)
			if len(fields) == 0 {
				continue
			}
			if !slices.Equal(fields, []string{"version"}) {
				t.Fatalf("%s: versions at %v: teach this test to send them", path, fields)
			}
			checked++
			stale := 0
			for _, ids := range docs {
				for _, id := range ids {
					for _, v := range variants {
						body := map[string]any{"documentId": id, "version": "1"}
						v.edit(body)
						st, raw := send(user, path, body)
						wantViolation(t, st, raw, "version", map[bool]string{true: "at least 1", false: "required"}[v.name == "zero"])
					}
					if st, _ := send(user, path, map[string]any{"documentId": id, "version": "999"}); st == 409 {
						stale++
					}
				}
			}
			if stale == 0 {
				t.Errorf("%s: a stale version reached the check (409) on no document", path)
			}
		}
		if checked < 22+2*2 { // the intent operations and SetByIntent's kinds on two faces, today
			t.Fatalf("only %d operations (and kinds) with a version found", checked)
		}
		if after := versions(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("versions %v -> %v: a refused request changed a document", before, after)
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

// versionFields are the JSON paths of the fields named version in a
// request type, by the codec's analysis (inlined fields in place), through
// messages and pointers: "version" for an intent operation's DocumentRef,
// "document.notification.version" for SetByIntent's document.
func versionFields(t testing.TB, typ reflect.Type) []string {
	t.Helper()
	desc, err := codec.Describe(typ)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(d *codec.Desc, prefix string, depth int)
	walk = func(d *codec.Desc, prefix string, depth int) {
		for d.Shape == codec.ShapePointer {
			d = d.Elem
		}
		if d.Shape != codec.ShapeMessage || depth > 3 {
			return
		}
		for _, f := range d.Fields {
			if f.Name == "version" {
				out = append(out, prefix+f.Name)
			}
			walk(f.Type, prefix+f.Name+".", depth+1)
		}
	}
	walk(desc, "", 0)
	return out
}
