package reports_test

import (
	"context"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/reports"
)

// Sorted by urgency, then due_at (the deadline page's default): OVERDUE
// first, then DUE_SOON, then the rest, each by due date, on both databases;
// urgency filters too.
func TestUrgencyOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		if err := db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error; err != nil {
			t.Fatal(err)
		}
		day := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		dl := func(id, state string, days int) models.Deadline {
			return models.Deadline{ID: id, Rule: "ACKNOWLEDGEMENT_DUE", PartyOrg: "auth", PartyRole: "AUTHORITY_DESTINATION",
				State: state, StartedAt: day, DueAt: day.AddDate(0, 0, days)}
		}
		seed(t, db, "d1", map[string]string{"auth": "AUTHORITY_DESTINATION"},
			dl("open-early", "OPEN", 1), dl("met-earlier", "MET", -9), dl("soon-late", "DUE_SOON", 6), dl("overdue-late", "OVERDUE", -1),
			dl("soon-early", "DUE_SOON", 3), dl("overdue-early", "OVERDUE", -5), dl("suspended", "SUSPENDED", 2), dl("lapsed", "LAPSED", -7))
		svc := &reports.Service{Store: models.NewReportStore(db), Now: func() time.Time { return day }}
		v := reports.Viewer{ProviderID: "p", OrganisationID: "auth"}
		list, _, err := svc.List(context.Background(), v, &qpar.QueryParameter{
			Sort: []qpar.Sort{{Path: "urgency", Direction: qpar.Asc}, {Path: "due_at", Direction: qpar.Asc}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list {
			got = append(got, e.ID)
		}
		want := []string{"overdue-early", "overdue-late", "soon-early", "soon-late", "met-earlier", "lapsed", "open-early", "suspended"}
		if len(got) != len(want) {
			t.Fatalf("order %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("order %v, want %v", got, want)
			}
		}
		one := int32(1)
		urgent, total, err := svc.List(context.Background(), v, &qpar.QueryParameter{
			Filter: []qpar.Filter{{Path: "urgency", Op: qpar.LesserOrEqualThan, Operands: []qpar.Operand{{NInt32: &one}}}}})
		if err != nil || total != 4 || len(urgent) != 4 {
			t.Fatalf("urgency <= 1: %d of %d, %v", len(urgent), total, err)
		}
	})
}
