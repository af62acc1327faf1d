package reports_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/reports"
)

func TestRemainingOfASuspendedDeadline(t *testing.T) {
	since := time.Date(2026, 12, 10, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *models.Deadline {
		return &models.Deadline{State: "SUSPENDED", DueAt: since.Add(d), SuspendedSince: &since}
	}
	for _, c := range []struct {
		left       time.Duration
		text, json string
	}{
		{2677981 * time.Second, "31 days left (suspended)", "2677981s"},
		{31 * 24 * time.Hour, "31 days left (suspended)", "2678400s"},
		{31*24*time.Hour + time.Second, "32 days left (suspended)", "2678401s"},
		{24 * time.Hour, "1 day left (suspended)", "86400s"},
		{time.Hour, "1 day left (suspended)", "3600s"},
		{0, "0 days left (suspended)", "0s"},
		{-36 * time.Hour, "2 days late (suspended)", "-129600s"},
	} {
		d := at(c.left)
		if got := reports.RemainingText(d); got != c.text {
			t.Errorf("%v left: text %q, want %q", c.left, got, c.text)
		}
		if got := reports.RemainingDuration(d); got != c.json {
			t.Errorf("%v left: duration %q, want %q", c.left, got, c.json)
		}
	}
	running := &models.Deadline{State: "OPEN", DueAt: since}
	if reports.RemainingText(running) != "" || reports.RemainingDuration(running) != "" {
		t.Error("a running deadline has a remaining time")
	}
}

// seed stores one document of provider p, visible to the given parties,
// with the given deadlines.
func seed(t *testing.T, db *gorm.DB, id string, parties map[string]string, dls ...models.Deadline) {
	t.Helper()
	now := time.Now().UTC()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Create(&models.Document{ID: id, ProviderID: "p", Kind: "NOTIFICATION", Number: "N-" + id, State: "ACKNOWLEDGED",
		Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: now, UpdatedAt: now}).Error)
	for org, role := range parties {
		must(db.Create(&models.DocumentParty{DocumentID: id, OrganisationID: org, Role: role}).Error)
	}
	for i := range dls {
		dls[i].DocumentID, dls[i].ProviderID, dls[i].LegalBasis, dls[i].UpdatedAt = id, "p", "Art. 9(1)", now
		must(db.Create(&dls[i]).Error)
	}
}

func TestLapsedIsCountedApartFromOverdue(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		ctx := context.Background()
		if err := db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error; err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		due := start.AddDate(0, 0, 30)
		swept := due.Add(3 * time.Hour) // the sweep closed the lapsed ones a little after they fell due
		now := due.AddDate(0, 0, 5)
		seed(t, db, "d1", map[string]string{"acme": "NOTIFIER", "auth-be": "AUTHORITY_TRANSIT", "auth-nl": "AUTHORITY_DESTINATION"},
			models.Deadline{ID: "tacit", Rule: "DECISION_DUE", PartyOrg: "auth-be", PartyRole: "AUTHORITY_TRANSIT", State: "LAPSED",
				StartedAt: start, DueAt: due, ClosedAt: &swept},
			models.Deadline{ID: "miss", Rule: "DECISION_DUE", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION", State: "OVERDUE",
				StartedAt: start, DueAt: due},
			models.Deadline{ID: "expiry", Rule: "CONSENT_VALIDITY", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "LAPSED",
				StartedAt: start, DueAt: due, ClosedAt: &swept})
		svc := &reports.Service{Store: models.NewReportStore(db), Now: func() time.Time { return now }}
		v := reports.Viewer{ProviderID: "p", OrganisationID: "acme"}

		lapsed := "LAPSED"
		list, total, err := svc.List(ctx, v, &qpar.QueryParameter{Filter: []qpar.Filter{{Path: "state", Op: qpar.Equal, Operands: []qpar.Operand{{S: &lapsed}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range list {
			ids = append(ids, e.ID)
		}
		slices.Sort(ids)
		if total != 2 || !slices.Equal(ids, []string{"expiry", "tacit"}) {
			t.Fatalf("state=LAPSED: total %d, %v", total, ids)
		}

		counts := func(asOf time.Time) (byRule, byAuth map[string]int64) {
			t.Helper()
			sum, err := svc.Summarize(ctx, v, time.Time{}, time.Time{}, asOf)
			if err != nil {
				t.Fatal(err)
			}
			byRule, byAuth = map[string]int64{}, map[string]int64{}
			for _, c := range sum.ByRuleAndState {
				byRule[c.Rule+" "+c.State] += c.Count
			}
			for _, c := range sum.ByAuthority {
				byAuth[c.Authority+" "+c.State] += c.Count
			}
			return byRule, byAuth
		}
		want := map[string]int64{"DECISION_DUE LAPSED": 1, "DECISION_DUE OVERDUE": 1, "CONSENT_VALIDITY LAPSED": 1}
		wantAuth := map[string]int64{"auth-be LAPSED": 1, "auth-nl OVERDUE": 1}
		for name, asOf := range map[string]time.Time{
			"now": {},
			// Between the due time and the sweep that closed them, the lapsed
			// periods had already ended as foreseen: not overdue then either.
			"between due and the sweep": due.Add(time.Hour),
		} {
			byRule, byAuth := counts(asOf)
			if !maps.Equal(byRule, want) || !maps.Equal(byAuth, wantAuth) {
				t.Errorf("as of %s: by rule and state %v, want %v; by authority %v, want %v", name, byRule, want, byAuth, wantAuth)
			}
		}
		// Before they fell due, all three were running.
		byRule, _ := counts(due.Add(-time.Hour))
		if !maps.Equal(byRule, map[string]int64{"DECISION_DUE OPEN": 2, "CONSENT_VALIDITY OPEN": 1}) {
			t.Errorf("before due: %v", byRule)
		}
	})
}
