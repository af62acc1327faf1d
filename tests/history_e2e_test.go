package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/audit"
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
		dbtest.SkipAtEnd(d.db) // a row changed behind the server's back: the replay parts there on purpose
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

// A decision's audit row says the decision taken (issue 44; the compliance
// guide promised it, the row's detail was empty): its type, tacit or not,
// how many conditions it sets and until when it consents, and the consent
// in force once every authority consented. The details are part of the
// hashed rows: the chain verifies over the history and for the admin
// check, and a changed detail breaks it at its row.
func TestDecisionAuditRowsSayTheDecision(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t) // shipment period 2027-01-10 to 2027-12-20
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{
			"type": "CONSENT_WITH_CONDITIONS", "conditions": []string{"sealed containers", "no transhipment"}, "validUntil": "2027-06-30"}})
		today, err := time.Parse(time.DateOnly, d.clockToday(t))
		if err != nil {
			t.Fatal(err)
		}
		noorDefault := min(today.AddDate(1, 0, 0).Format(time.DateOnly), "2027-12-20") // a year, within the shipment period
		d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		// bart (transit) stays silent: tacit consent when his period ends.
		if st, _, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 40}); st != 200 {
			t.Fatalf("40 days on: %d %s", st, raw)
		}
		// An objection on another notification.
		objected := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": objected})
		d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": objected, "decision": map[string]any{"type": "OBJECTION", "grounds": "the facility lacks a permit"}})

		rows := func(doc string) ([]map[string]any, map[string]any) {
			t.Helper()
			st, m, raw := d.call(t, "alice", co+"GetDocumentHistory", map[string]any{"documentId": doc})
			if st != 200 {
				t.Fatalf("history: %d %s", st, raw)
			}
			var out []map[string]any
			for _, e := range m["entries"].([]any) {
				if e := e.(map[string]any); e["intent"] == "DECISION" || e["intent"] == "TACIT_CONSENT" {
					out = append(out, e)
				}
			}
			return out, m["chain"].(map[string]any)
		}
		decisions, chain := rows(id)
		if chain["verified"] != true {
			t.Fatalf("the chain with details: %v", chain)
		}
		want := []struct{ intent, org, detail string }{
			{"DECISION", "auth-de", `^CONSENT_WITH_CONDITIONS, 2 conditions, valid until 2027-06-30$`},
			{"DECISION", "auth-nl", `^CONSENT, 0 conditions, valid until ` + noorDefault + ` \(the default\)$`},
			{"TACIT_CONSENT", "", `^CONSENT \(tacit: the decision period expired\), 0 conditions, valid until \d{4}-\d{2}-\d{2} \(the default\); ` +
				`every authority consented: the consent is valid until 2027-06-30 with 2 conditions$`},
		}
		if len(decisions) != len(want) {
			t.Fatalf("decision rows: %v", decisions)
		}
		for i, w := range want {
			e := decisions[i]
			if e["intent"] != w.intent || w.org != "" && e["actorOrganisationId"] != w.org || !regexp.MustCompile(w.detail).MatchString(e["detail"].(string)) {
				t.Errorf("row %v %v: detail %q, want %s %s %s", e["seq"], e["intent"], e["detail"], w.intent, w.org, w.detail)
			}
		}
		objection, chain := rows(objected)
		if len(objection) != 1 || objection[0]["detail"] != "OBJECTION, 0 conditions, no validity (an objection)" || chain["verified"] != true {
			t.Errorf("the objection's row: %v %v", objection, chain)
		}
		if breaks, n, err := audit.Verify(context.Background(), d.db); err != nil || len(breaks) != 0 || n == 0 {
			t.Fatalf("verify-audit: %v %d %v", breaks, n, err)
		}
		// The detail is hashed: changing it breaks the chain at its row.
		seq := decisions[0]["seq"]
		dbtest.SkipAtEnd(d.db) // a row changed behind the server's back: the replay parts there on purpose
		if err := d.db.Exec("UPDATE audit_events SET detail = 'CONSENT, 0 conditions, valid until 2027-12-20' WHERE document_id = ? AND seq = ?", id, seq).Error; err != nil {
			t.Fatal(err)
		}
		if _, c := rows(id); c["verified"] != false || fmt.Sprint(c["brokenAt"]) != fmt.Sprint(seq) {
			t.Fatalf("a changed detail: %v", c)
		}
	})
}
