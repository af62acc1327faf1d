package models_test

import (
	"context"
	"reflect"
	"strings"
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

// A document's family (its children, or a child's siblings) is read as
// relatives read it, oldest first, with which children the caller is a
// party to, the same on both databases: id, kind, number, state, version,
// the summary (the data only without one), the rest blank.
func TestLoadReadsTheFamily(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		must(db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error)
		n := "n"
		must(db.Create(&models.Document{ID: n, ProviderID: "p", Kind: "NOTIFICATION", Number: "N-1", State: "CONSENTED", Version: 4, Data: "{}", Children: 3,
			CreatedBy: "1", CreatedAt: now, UpdatedAt: now, AuditSeq: 4, AuditHash: "h"}).Error)
		kids := []models.Document{ // created out of their ids' order: the family comes oldest first
			{ID: "m3", Summary: `{"sequenceNumber":1}`, Data: `{"big":"aggregate"}`, CreatedAt: now.Add(time.Minute)},
			{ID: "m1", Summary: `{"sequenceNumber":2}`, Data: `{"big":"aggregate"}`, CreatedAt: now.Add(2 * time.Minute)},
			{ID: "m2", Summary: "", Data: `{"stored":"before-summaries"}`, CreatedAt: now.Add(3 * time.Minute)},
		}
		for i := range kids {
			k := &kids[i]
			k.ProviderID, k.Kind, k.Number, k.State, k.Version, k.ParentID = "p", "MOVEMENT", "N-1-"+k.ID, "SUBMITTED", int64(i+2), &n
			k.CreatedBy, k.UpdatedAt, k.AuditSeq, k.AuditHash = "1", k.CreatedAt, 7, "hash-"+k.ID
			must(db.Create(k).Error)
		}
		for _, p := range []models.DocumentParty{{DocumentID: n, OrganisationID: "acme", Role: "NOTIFIER"},
			{DocumentID: "m3", OrganisationID: "acme", Role: "NOTIFIER"}, {DocumentID: "m2", OrganisationID: "acme", Role: "NOTIFIER"},
			{DocumentID: "m1", OrganisationID: "truck", Role: "CARRIER"}} {
			must(db.Create(&p).Error)
		}
		load := func(q models.DocumentQuery) *models.LoadedDocument {
			t.Helper()
			var out *models.LoadedDocument
			must(models.NewDocumentStore(db).Update(context.Background(), func(_ context.Context, tx *models.DocumentTx) error {
				var err error
				out, err = tx.Load(q)
				return err
			}))
			return out
		}
		type seen struct {
			ID, Kind, Number, State, Data, Summary string
			Version                                int64
			Blank                                  bool
		}
		of := func(docs []models.Document) []seen {
			var out []seen
			for _, d := range docs {
				blank := d.ProviderID == "" && d.ParentID == nil && d.AuditSeq == 0 && d.AuditHash == "" && d.Children == 0 && d.CreatedBy == ""
				out = append(out, seen{d.ID, d.Kind, d.Number, d.State, strings.ReplaceAll(d.Data, " ", ""), d.Summary, d.Version, blank}) // PostgreSQL writes jsonb with spaces
			}
			return out
		}
		want := []seen{
			{"m3", "MOVEMENT", "N-1-m3", "SUBMITTED", "", `{"sequenceNumber":1}`, 2, true},
			{"m1", "MOVEMENT", "N-1-m1", "SUBMITTED", "", `{"sequenceNumber":2}`, 3, true},
			{"m2", "MOVEMENT", "N-1-m2", "SUBMITTED", `{"stored":"before-summaries"}`, "", 4, true},
		}
		parent := load(models.DocumentQuery{ID: n, Provider: "p", Party: "acme"})
		if got := of(parent.Children); !reflect.DeepEqual(got, want) {
			t.Errorf("children:\n got %+v\nwant %+v", got, want)
		}
		if v := parent.Visible; len(v) != 3 || !v["m3"] || v["m1"] || !v["m2"] {
			t.Errorf("acme's children: %v", v)
		}
		if v := load(models.DocumentQuery{ID: n, Provider: "p"}).Visible; len(v) != 3 || !v["m1"] || !v["m2"] || !v["m3"] {
			t.Errorf("without a party every child is visible: %v", v)
		}
		child := load(models.DocumentQuery{ID: "m1", Provider: "p", Lock: true, ParentChildren: true})
		if got := of(child.ParentChildren); !reflect.DeepEqual(got, want) {
			t.Errorf("siblings:\n got %+v\nwant %+v", got, want)
		}
		if child.Parent == nil || child.Parent.ID != n || child.Parent.AuditHash != "h" || child.Doc.AuditHash != "hash-m1" || strings.ReplaceAll(child.Doc.Data, " ", "") != `{"big":"aggregate"}` {
			t.Errorf("the child and its parent are read whole: %+v, %+v", child.Doc, child.Parent)
		}
	})
}
