package models_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// LoadDocument's one statement reads the same deadlines as the plain query,
// with the caller's party check, on both databases.
func TestLoadDocumentReadsItsDeadlines(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		now := time.Date(2026, 12, 1, 9, 0, 0, 123456000, time.UTC)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error)
		must(db.Create(&models.Document{ID: "d", ProviderID: "p", Kind: "NOTIFICATION", Number: "n", State: "DRAFT", Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: now, UpdatedAt: now}).Error)
		must(db.Create(&models.DocumentParty{DocumentID: "d", OrganisationID: "acme", Role: "NOTIFIER"}).Error)
		warn, closed := now.Add(time.Hour), now.Add(2*time.Hour)
		must(db.Create(&[]models.Deadline{
			{ID: "b", DocumentID: "d", ProviderID: "p", Rule: "R", LegalBasis: "Art. 1", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "MET",
				StartedAt: now, DueAt: now.AddDate(0, 0, 10), WarnAt: &warn, ClosedAt: &closed, SuspendedDays: 3, UpdatedAt: now},
			{ID: "a", DocumentID: "d", ProviderID: "p", Rule: "S", LegalBasis: "Art. 2", PartyOrg: "nl", PartyRole: "AUTHORITY", State: "OPEN",
				StartedAt: now, DueAt: now.AddDate(0, 0, 3), UpdatedAt: now},
		}).Error)
		var want []models.Deadline
		must(db.Where("document_id = ?", "d").Order("started_at, id").Find(&want).Error)
		doc, got, err := models.LoadDocument(db, "d", "p", []string{"NOTIFICATION"}, "acme", true)
		must(err)
		if doc.ID != "d" || doc.Version != 1 || len(got) != 2 || got[0].ID != "a" {
			t.Fatalf("loaded %+v %+v", doc, got)
		}
		for i := range want {
			if !reflect.DeepEqual(norm(want[i]), norm(got[i])) {
				t.Fatalf("deadline %d:\n plain %+v\n  load %+v", i, want[i], got[i])
			}
		}
		if _, _, err := models.LoadDocument(db, "d", "p", nil, "stranger", false); err != models.ErrNotFound {
			t.Fatalf("a stranger: %v", err)
		}
	})
}

// norm compares times as instants.
func norm(d models.Deadline) models.Deadline {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	d.StartedAt, d.DueAt, d.UpdatedAt = d.StartedAt.UTC(), d.DueAt.UTC(), d.UpdatedAt.UTC()
	d.WarnAt, d.SuspendedSince, d.ClosedAt = utc(d.WarnAt), utc(d.SuspendedSince), utc(d.ClosedAt)
	return d
}
