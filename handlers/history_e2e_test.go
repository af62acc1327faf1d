package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A document's history: every write a row, oldest first, with who (the
// username for one's own organisation only) and the states; the chain
// verified, and broken when a row is changed behind the server's back; a
// non-party gets the 404 of a missing document; the machine's JSON and
// the OpenAPI JSON the console reads.
func TestDocumentHistory(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		history := func(user, face string) map[string]any {
			t.Helper()
			st, m, raw := d.call(t, user, face+"GetDocumentHistory", map[string]any{"documentId": id})
			if st != 200 {
				t.Fatalf("history as %s: %d %s", user, st, raw)
			}
			return m
		}
		h := history("alice", co)
		entries := h["entries"].([]any)
		if len(entries) != 3 || fmt.Sprint(h["version"]) != "3" || h["state"] != "ACKNOWLEDGED" {
			t.Fatalf("history: %v", h)
		}
		want := [][3]string{{"CREATE", "", "DRAFT"}, {"SUBMISSION", "DRAFT", "SUBMITTED"}, {"ACKNOWLEDGEMENT", "SUBMITTED", "ACKNOWLEDGED"}}
		for i, w := range want {
			e := entries[i].(map[string]any)
			if e["intent"] != w[0] || e["fromState"] != w[1] || e["toState"] != w[2] || fmt.Sprint(e["seq"]) != fmt.Sprint(i+1) {
				t.Fatalf("row %d: %v, want %v", i, e, w)
			}
		}
		if a := entries[1].(map[string]any); a["actor"] != "alice" || a["actorOrganisationId"] != "acme" {
			t.Fatalf("alice's own row: %v", a)
		}
		if a := entries[2].(map[string]any); a["actor"] != "" || a["actorOrganisationId"] != "auth-nl" {
			t.Fatalf("another organisation's row names the organisation only: %v", a)
		}
		chain := h["chain"].(map[string]any)
		if chain["verified"] != true || chain["head"] != entries[2].(map[string]any)["hash"] {
			t.Fatalf("chain: %v", chain)
		}
		if n := history("noor", au); n["entries"].([]any)[2].(map[string]any)["actor"] != "noor" {
			t.Fatalf("noor's own row: %v", n["entries"])
		}
		// a non-party: the answer of a missing document
		st, _, raw := d.call(t, "eve", co+"GetDocumentHistory", map[string]any{"documentId": id})
		missing := "ntf_" + strings.Repeat("0", len(id)-4)
		st2, _, raw2 := d.call(t, "eve", co+"GetDocumentHistory", map[string]any{"documentId": missing})
		if st != 404 || st2 != 404 || strings.ReplaceAll(string(raw), id, missing) != string(raw2) {
			t.Fatalf("a non-party: %d %s; missing: %d %s", st, raw, st2, raw2)
		}
		// a row changed behind the server's back breaks the chain there
		if err := d.db.Exec("UPDATE audit_events SET to_state = 'CONSENTED' WHERE document_id = ? AND seq = 2", id).Error; err != nil {
			t.Fatal(err)
		}
		if c := history("alice", co)["chain"].(map[string]any); c["verified"] != false || fmt.Sprint(c["brokenAt"]) != "2" || c["reason"] == "" {
			t.Fatalf("a changed row: %v", c)
		}

		// What the console draws and reads its forms from.
		for path, check := range map[string]func(m map[string]any) bool{
			"/workflows/notification.json": func(m map[string]any) bool {
				return m["initial"] == "DRAFT" && len(m["transitions"].([]any)) > 10
			},
			"/openapi.json": func(m map[string]any) bool {
				_, ok := m["paths"].(map[string]any)["/svc.bxa.diwass.v1.api.CompanyDocumentApi/GetDocumentHistory"]
				return ok
			},
		} {
			resp, err := http.Get(d.url + path)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			err = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !check(m) {
				t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
			}
		}
	})
}
