package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A retrieval document reads its children by their parent first, whatever
// plan PostgreSQL keeps for the prepared statement (PostgreSQL): planned
// for any parent and any party (a generic plan, which a connection
// switches to after a few runs), on statistics taken while the party had
// few documents, the statement once started from the party's rows and
// looked up each of its documents to keep the parent's children, reading
// every document of the organisation for each retrieval document (found
// in make bench: a notification of 8 movements at a tenth of its rate).
func TestGenericPlanReadsChildrenFirst(t *testing.T) {
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
	n := "n"
	must(db.Create(&models.Document{ID: n, ProviderID: "p", Kind: "NOTIFICATION", Number: "N-1", State: "CONSENTED", Version: 1, Data: "{}", Children: 3,
		CreatedBy: "1", CreatedAt: now, UpdatedAt: now}).Error)
	must(db.Create(&models.DocumentParty{DocumentID: n, OrganisationID: "acme", Role: "NOTIFIER"}).Error)
	for i := range 3 {
		id := fmt.Sprint("m", i)
		must(db.Create(&models.Document{ID: id, ProviderID: "p", Kind: "MOVEMENT", Number: "N-1-" + id, State: "SUBMITTED", Version: 1, Data: "{}", ParentID: &n,
			Summary: `{"sequenceNumber":1}`, CreatedBy: "1", CreatedAt: now.Add(time.Duration(i) * time.Minute), UpdatedAt: now}).Error)
		must(db.Create(&models.DocumentParty{DocumentID: id, OrganisationID: "acme", Role: "NOTIFIER"}).Error)
	}
	// Statistics that make the party's rows look few (a thousand
	// organisations of two documents each) and a parent's children many (a
	// parent of 500): the plan for any party and parent then starts from
	// the party. Then the party gets 3,000 documents.
	for _, q := range []string{
		"ALTER TABLE documents SET (autovacuum_enabled = false)",
		"ALTER TABLE document_parties SET (autovacuum_enabled = false)",
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 VALUES ('big', 'p', 'NOTIFICATION', 'N-big', 'CONSENTED', 1, '{}', '1', now(), now(), 0, '', 500)`,
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, summary, parent_id, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'k' || g, 'p', 'MOVEMENT', 'N-big-' || g, 'SUBMITTED', 1, '{}', '{"sequenceNumber":1}', 'big', '1', now(), now(), 0, '', 0 FROM generate_series(1, 500) g`,
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'o' || g, 'p', 'NOTIFICATION', 'N-o' || g, 'SUBMITTED', 1, '{}', '1', now(), now(), 0, '', 0 FROM generate_series(1, 2000) g`,
		`INSERT INTO document_parties (document_id, organisation_id, role) SELECT 'o' || g, 'org' || (g % 1000), 'NOTIFIER' FROM generate_series(1, 2000) g`,
		"ANALYZE documents", "ANALYZE document_parties",
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'd' || g, 'p', 'NOTIFICATION', 'N-d' || g, 'SUBMITTED', 1, '{}', '1', now(), now(), 0, '', 0 FROM generate_series(1, 3000) g`,
		`INSERT INTO document_parties (document_id, organisation_id, role) SELECT 'd' || g, 'acme', 'NOTIFIER' FROM generate_series(1, 3000) g`,
	} {
		must(db.Exec(q).Error)
	}
	var fetched int64
	var loaded *models.LoadedDocument
	must(models.NewDocumentStore(db).Update(context.Background(), func(ctx context.Context, tx *models.DocumentTx) error {
		conn := models.Conn(ctx, db)
		if err := conn.Exec("SET LOCAL plan_cache_mode = force_generic_plan").Error; err != nil {
			return err
		}
		// rows of documents this connection read by index and by scan (its
		// counts not yet reported, the seeding's key checks among them)
		read := func() (n int64) {
			must(conn.Raw("SELECT COALESCE(idx_tup_fetch, 0) + seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'documents' AND schemaname = current_schema()").Scan(&n).Error)
			return n
		}
		before := read()
		var err error
		if loaded, err = tx.Load(models.DocumentQuery{ID: n, Provider: "p", Party: "acme", ChildrenLimit: 50, ChildrenFinal: []string{"COMPLETED"}}); err != nil {
			return err
		}
		fetched = read() - before
		return nil
	}))
	if len(loaded.Children) != 3 || loaded.ChildrenVisible != 3 {
		t.Fatalf("children %d, visible %d; want 3 and 3", len(loaded.Children), loaded.ChildrenVisible)
	}
	if fetched > 100 {
		t.Fatalf("reading a notification of 3 movements read %d rows of documents (its party has 3,004 documents): the plan starts from the party, not the parent", fetched)
	}
}
