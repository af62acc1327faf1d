package main

import (
	"context"
	"encoding/csv"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The terminal report after an upgrade: periods that ended as the law
// foresees, stored as OVERDUE and closed before LAPSED existed, are LAPSED
// once `wasteflow migrate` has applied 00005, apart from the real miss; a
// suspended deadline shows the days it had left.
func TestReportShowsLapsedAndSuspendedDays(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db)
		gdb, err := models.Open(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer models.Close(gdb)
		// As a release before 00005 left the database.
		m, err := models.NewMigrator(gdb, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UpTo(context.Background(), 4); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		started, due, since := now.AddDate(0, 0, -40), now.AddDate(0, 0, -10), now.AddDate(0, 0, -2)
		closed := due.Add(time.Minute)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(gdb.Omit("Settings").Create(&models.Provider{ID: "p", Environment: "development", Name: "P"}).Error) // settings came with 00028
		must(gdb.Omit("ParentID", "AuditSeq", "AuditHash", "Children", "Summary", "Tally", "Archive", "Archived").Create(&models.Document{ID: "d1", ProviderID: "p", Kind: "NOTIFICATION", Number: "DE-2026-000042", State: "ACKNOWLEDGED",
			Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: started, UpdatedAt: now}).Error)
		for _, dl := range []models.Deadline{
			{ID: "miss", Rule: "ACKNOWLEDGEMENT_DUE", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION", State: "OVERDUE", DueAt: due},
			{ID: "tacit", Rule: "DECISION_DUE", PartyOrg: "auth-be", PartyRole: "AUTHORITY_TRANSIT", State: "OVERDUE", DueAt: due, ClosedAt: &closed},
			{ID: "expiry", Rule: "CONSENT_VALIDITY", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "OVERDUE", DueAt: due, ClosedAt: &closed},
			{ID: "paused", Rule: "DECISION_DUE", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION", State: "SUSPENDED",
				DueAt: since.Add(2677981 * time.Second), SuspendedSince: &since},
		} {
			dl.DocumentID, dl.ProviderID, dl.LegalBasis, dl.StartedAt, dl.UpdatedAt = "d1", "p", "Art. 9 Regulation (EU) 2024/1157", started, now
			must(gdb.Create(&dl).Error)
		}
		// The upgrade.
		if code, _, stderr := runCmd(t, env, "migrate"); code != exitOK {
			t.Fatal(stderr)
		}

		code, out, stderr := runCmd(t, env, "report", "deadlines")
		if code != exitOK || !strings.Contains(out, "4 deadline(s)") {
			t.Fatalf("report: exit %d\n%s%s", code, out, stderr)
		}
		// One line per deadline: who must act and rule pick it out.
		line := func(rule, party string) string {
			for l := range strings.Lines(out) {
				if strings.Contains(l, " "+rule+" ") && strings.Contains(l, " "+party+" ") {
					return strings.TrimSpace(l)
				}
			}
			t.Fatalf("no line of %s %s in\n%s", rule, party, out)
			return ""
		}
		for _, c := range []struct{ rule, party, state, days string }{
			{"ACKNOWLEDGEMENT_DUE", "auth-nl", "OVERDUE", " late"},
			{"DECISION_DUE", "auth-be", "LAPSED", "  -"},
			{"CONSENT_VALIDITY", "acme", "LAPSED", "  -"},
			{"DECISION_DUE", "auth-nl", "SUSPENDED", "  31 days left (suspended)"},
		} {
			if l := line(c.rule, c.party); !strings.Contains(l, "  "+c.state+"  ") || !strings.HasSuffix(l, c.days) {
				t.Errorf("%s %s: %q, want state %s and days %q", c.rule, c.party, l, c.state, c.days)
			}
		}

		code, out, _ = runCmd(t, env, "report", "deadlines", "-state", "lapsed")
		if code != exitOK || !strings.Contains(out, "2 deadline(s)") || strings.Contains(out, "OVERDUE") || strings.Count(out, "LAPSED") != 2 {
			t.Errorf("-state lapsed: exit %d\n%s", code, out)
		}
		code, out, _ = runCmd(t, env, "report", "deadlines", "-state", "overdue")
		if code != exitOK || !strings.Contains(out, "1 deadline(s)") || !strings.Contains(out, "ACKNOWLEDGEMENT_DUE") || strings.Contains(out, "LAPSED") {
			t.Errorf("-state overdue: exit %d\n%s", code, out)
		}

		code, out, _ = runCmd(t, env, "report", "deadlines", "-format", "csv")
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != exitOK || err != nil || len(rows) != 5 || rows[0][7] != "state" || rows[0][11] != "remaining" {
			t.Fatalf("csv: exit %d, %v\n%s", code, err, out)
		}
		got := map[string]string{}
		for _, r := range rows[1:] {
			got[r[3]+" "+r[5]] = r[7] + "|" + r[11]
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
}
