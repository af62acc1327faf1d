package tests

import (
	"context"
	"encoding/csv"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// suspendedLeft is what the seeded suspended deadline had left when it was
// suspended: 30 days, 23 hours, 53 minutes and 1 second.
const suspendedLeft = 2677981 * time.Second

// seedLapsedAndSuspended stores, on the document id, a transit authority's
// tacit consent and a consent's end of validity the way the engine stored
// them before LAPSED existed (OVERDUE, closed), and a suspended decision
// period of the destination authority.
func seedLapsedAndSuspended(t *testing.T, d *docEnv, id string) {
	t.Helper()
	now := d.clock.Now()
	started := now.AddDate(0, 0, -40)
	due := now.AddDate(0, 0, -10)
	closed := due.Add(time.Minute)
	since := now.AddDate(0, 0, -2)
	for _, dl := range []models.Deadline{
		{ID: "dl_tacit", Rule: "DECISION_DUE", LegalBasis: "Art. 9(1) Regulation (EU) 2024/1157", PartyOrg: "auth-be", PartyRole: "AUTHORITY_TRANSIT",
			State: "OVERDUE", StartedAt: started, DueAt: due, WarnAt: &started, ClosedAt: &closed},
		{ID: "dl_expiry", Rule: "CONSENT_VALIDITY", LegalBasis: "Art. 9 and 14 Regulation (EU) 2024/1157", PartyOrg: "acme", PartyRole: "NOTIFIER",
			State: "OVERDUE", StartedAt: started, DueAt: due, WarnAt: &started, ClosedAt: &closed},
		{ID: "dl_suspended", Rule: "DECISION_DUE", LegalBasis: "Art. 9(1) Regulation (EU) 2024/1157", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION",
			State: "SUSPENDED", StartedAt: started, DueAt: since.Add(suspendedLeft), WarnAt: &started, SuspendedSince: &since},
	} {
		dl.DocumentID, dl.ProviderID, dl.UpdatedAt = id, "dev-1", now
		dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
		if err := d.db.Create(&dl).Error; err != nil {
			t.Fatal(err)
		}
	}
	// Migration 00005 turns the closed OVERDUE rows into LAPSED: forget that
	// it ran and run it again, as it ran on an upgraded server.
	if err := d.db.Exec("DELETE FROM goose_db_version WHERE version_id = 5").Error; err != nil {
		t.Fatal(err)
	}
	m, err := models.NewMigrator(d.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(context.Background(), 5); err != nil {
		t.Fatalf("migration 00005: %v", err)
	}
}

// A period that ended as the law foresees is LAPSED, apart from real misses,
// in the list, the summary and the CSV export; a suspended deadline's
// remaining time is a duration in the API and days in the CSV.
func TestLapsedAndSuspendedDeadlinesInReports(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t) // auth-nl never acknowledges it: a real miss
		doc, _ := d.get(t, "alice", id)
		number := doc["number"].(string)
		d.advance(20 * 24 * time.Hour)
		if _, err := d.notes.Sweep(context.Background(), d.clock.Now()); err != nil {
			t.Fatal(err)
		}
		seedLapsedAndSuspended(t, d, id)

		list := func(state string) (total string, byRuleAndParty map[string]map[string]any) {
			t.Helper()
			st, m, raw := d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
				"filter": []any{map[string]any{"path": "state", "op": "EQUAL", "operands": []any{map[string]any{"s": state}}}}}})
			if st != 200 {
				t.Fatalf("state=%s: %d %s", state, st, raw)
			}
			byRuleAndParty = map[string]map[string]any{}
			for _, x := range m["entries"].([]any) {
				e := x.(map[string]any)
				if e["state"] != state || e["documentNumber"] != number {
					t.Errorf("state=%s lists %v", state, e)
				}
				byRuleAndParty[e["rule"].(string)+" "+e["party"].(string)] = e
			}
			return m["total"].(string), byRuleAndParty
		}

		t.Run("ListDeadlines state=LAPSED", func(t *testing.T) {
			total, got := list("LAPSED")
			if total != "2" || len(got) != 2 || got["DECISION_DUE auth-be"] == nil || got["CONSENT_VALIDITY acme"] == nil {
				t.Fatalf("LAPSED: total %s, %v", total, got)
			}
			if e := got["DECISION_DUE auth-be"]; e["timeZone"] != "Europe/Brussels" {
				t.Errorf("the Belgian authority's deadline falls due in %v, want Europe/Brussels", e["timeZone"])
			}
			if e := got["DECISION_DUE auth-be"]; e["closedAt"] == nil || e["partyRole"] != "AUTHORITY_TRANSIT" || e["remaining"] != "" {
				t.Errorf("tacit consent: %v", e)
			}
			total, got = list("OVERDUE")
			if total != "1" || got["ACKNOWLEDGEMENT_DUE auth-nl"] == nil {
				t.Fatalf("OVERDUE must hold only the real miss: total %s, %v", total, got)
			}
		})

		t.Run("ListDeadlines: a suspended deadline's remaining duration", func(t *testing.T) {
			total, got := list("SUSPENDED")
			e := got["DECISION_DUE auth-nl"]
			if total != "1" || e == nil {
				t.Fatalf("SUSPENDED: total %s, %v", total, got)
			}
			if e["remaining"] != "2677981s" || e["suspendedSince"] == nil {
				t.Errorf("suspended entry: %v", e)
			}
		})

		t.Run("summary counts LAPSED apart", func(t *testing.T) {
			st, m, raw := d.call(t, "noor", rep+"GetDeadlineSummary", map[string]any{})
			if st != 200 {
				t.Fatalf("summary: %d %s", st, raw)
			}
			counts := func(key, field string) map[string]string {
				out := map[string]string{}
				for _, x := range m[key].([]any) {
					c := x.(map[string]any)
					out[c[field].(string)+" "+c["state"].(string)] = c["count"].(string)
				}
				return out
			}
			wantRule := map[string]string{"ACKNOWLEDGEMENT_DUE OVERDUE": "1", "DECISION_DUE LAPSED": "1", "CONSENT_VALIDITY LAPSED": "1", "DECISION_DUE SUSPENDED": "1"}
			if got := counts("byRuleAndState", "rule"); !maps.Equal(got, wantRule) {
				t.Errorf("by rule and state %v, want %v", got, wantRule)
			}
			wantAuth := map[string]string{"auth-nl OVERDUE": "1", "auth-be LAPSED": "1", "auth-nl SUSPENDED": "1"}
			if got := counts("byAuthority", "authority"); !maps.Equal(got, wantAuth) {
				t.Errorf("by authority %v, want %v", got, wantAuth)
			}
			if m["total"] != "4" {
				t.Errorf("total %v, want 4", m["total"])
			}
		})

		t.Run("CSV: LAPSED, and days for a suspended deadline", func(t *testing.T) {
			st, _, body := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=LAPSED&state=SUSPENDED&state=OVERDUE",
				headers: hdr("dev-1", d.token(t, "noor"))})
			if st != 200 {
				t.Fatalf("export: %d %s", st, body)
			}
			rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
			if err != nil || len(rows) != 5 || !slices.Equal(rows[0], handlers.CSVHeader) || rows[0][11] != "remaining" {
				t.Fatalf("csv: %q %v", body, err)
			}
			got := map[string]string{}
			for _, r := range rows[1:] {
				got[r[3]+" "+r[5]] = r[7] + "|" + r[11]
				if zone := map[string]string{"auth-be": "Europe/Brussels", "auth-nl": "Europe/Amsterdam", "auth-de": "Europe/Berlin", "acme": "Europe/Berlin"}[r[5]]; zone != "" && r[12] != zone {
					t.Errorf("time_zone of %s: %q, want %s", r[5], r[12], zone)
				}
				if r[7] == "LAPSED" && r[10] == "" {
					t.Errorf("a LAPSED row without closed_at: %v", r)
				}
			}
			want := map[string]string{
				"ACKNOWLEDGEMENT_DUE auth-nl": "OVERDUE|",
				"DECISION_DUE auth-be":        "LAPSED|",
				"CONSENT_VALIDITY acme":       "LAPSED|",
				"DECISION_DUE auth-nl":        "SUSPENDED|31 days left (suspended)",
			}
			if !maps.Equal(got, want) {
				t.Errorf("csv rows (state|remaining) %v, want %v", got, want)
			}
		})
	})
}
