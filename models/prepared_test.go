package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The hot path's statements run prepared (PostgreSQL): pgx, under gorm,
// keeps each statement it has run prepared on its connection (its
// statement cache), so a document's second load parses and plans nothing
// new. gorm's own PrepareStmt would prepare them a second time through
// database/sql; measured, it adds nothing (development.md, "Speed").
// Sending statements unprepared (pgx's simple protocol, as behind a pooler
// in transaction mode) fails this test.
func TestHotStatementsArePrepared(t *testing.T) {
	cfg := dbtest.Postgres(t)
	db := dbtest.Open(t, cfg)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error)
	for _, id := range []string{"a", "b"} {
		must(db.Create(&models.Document{ID: id, ProviderID: "p", Kind: "NOTIFICATION", Number: "N-" + id, State: "DRAFT", Version: 1, Data: "{}",
			CreatedBy: "1", CreatedAt: now, UpdatedAt: now}).Error)
		must(db.Create(&models.DocumentParty{DocumentID: id, OrganisationID: "acme", Role: "NOTIFIER"}).Error)
	}
	type prepared struct{ All, Documents int }
	var first, second prepared
	must(models.NewDocumentStore(db).Update(context.Background(), func(ctx context.Context, tx *models.DocumentTx) error {
		for i, id := range []string{"a", "b"} {
			if _, err := tx.Load(models.DocumentQuery{ID: id, Provider: "p", Party: "acme", Lock: true, Root: true}); err != nil {
				return err
			}
			into := &first
			if i == 1 {
				into = &second
			}
			if err := models.Conn(ctx, db).Raw(`SELECT count(*) AS all, count(*) FILTER (WHERE statement LIKE '%FROM documents%') AS documents FROM pg_prepared_statements`).Scan(into).Error; err != nil { // on the transaction's connection
				return err
			}
		}
		return nil
	}))
	if first.Documents == 0 {
		t.Fatalf("after a document's load its connection holds no prepared statement that reads documents (%d in all)", first.All)
	}
	if second != first {
		t.Fatalf("loading a second document prepared statements again: %+v after the first, %+v after the second", first, second)
	}
}
