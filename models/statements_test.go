package models_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// How PostgreSQL runs the hot statements: prepared, and with plans that
// hold for any parameters.

// documentsOn opens a fresh PostgreSQL schema with provider p and returns
// it with add, which stores a document of p (d's ID, kind, number, state,
// parent, children, summary and creation; the rest filled in) with orgs
// (acme when none) as its notifiers and their list entries, as the runner
// indexes a document, and must, which fails the test on an error.
func documentsOn(t *testing.T) (db *gorm.DB, add func(d models.Document, orgs ...string), must func(error)) {
	return documentsIn(t, dbtest.Postgres(t))
}

// documentsIn is documentsOn on cfg's database.
func documentsIn(t *testing.T, cfg configs.Database) (db *gorm.DB, add func(d models.Document, orgs ...string), must func(error)) {
	db = dbtest.Open(t, cfg)
	must = func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Error)
	add = func(d models.Document, orgs ...string) {
		t.Helper()
		d.ProviderID, d.Version, d.Data, d.CreatedBy = "p", 1, "{}", "1"
		if d.CreatedAt.IsZero() {
			d.CreatedAt = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		}
		d.UpdatedAt = d.CreatedAt
		must(db.Create(&d).Error)
		if len(orgs) == 0 {
			orgs = []string{"acme"}
		}
		for _, org := range orgs {
			must(db.Create(&models.DocumentParty{DocumentID: d.ID, OrganisationID: org, Role: "NOTIFIER"}).Error)
			must(db.Create(&models.DocumentEntry{DocumentID: d.ID, OrganisationID: org, ProviderID: "p", Kind: d.Kind, Number: d.Number, State: d.State,
				Version: d.Version, ParentID: d.ParentID, Roles: "NOTIFIER", CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}).Error)
		}
	}
	return db, add, must
}

// The hot path's statements run prepared (PostgreSQL): pgx, under gorm,
// keeps each statement it has run prepared on its connection (its
// statement cache), so a document's second load parses and plans nothing
// new. gorm's own PrepareStmt would prepare them a second time through
// database/sql, once per transaction; measured, it made transitions about
// 40 % slower (development.md, "Speed").
// Sending statements unprepared (pgx's simple protocol, as behind a pooler
// in transaction mode) fails this test.
func TestHotStatementsArePrepared(t *testing.T) {
	db, add, must := documentsOn(t)
	for _, id := range []string{"a", "b"} {
		add(models.Document{ID: id, Kind: "NOTIFICATION", Number: "N-" + id, State: "DRAFT"})
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

// A retrieval document reads its children by their parent first, whatever
// plan PostgreSQL keeps for the prepared statement (PostgreSQL): planned
// for any parent and any party (a generic plan, which a connection
// switches to after a few runs), on statistics taken while the party had
// few documents, the statement once started from the party's rows and
// looked up each of its documents to keep the parent's children, reading
// every document of the organisation for each retrieval document (found
// in make bench: a notification of 8 movements at a tenth of its rate).
func TestGenericPlanReadsChildrenFirst(t *testing.T) {
	db, add, must := documentsOn(t)
	n := "n"
	add(models.Document{ID: n, Kind: "NOTIFICATION", Number: "N-1", State: "CONSENTED", Children: 3})
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range 3 {
		id := fmt.Sprint("m", i)
		add(models.Document{ID: id, Kind: "MOVEMENT", Number: "N-1-" + id, State: "SUBMITTED", ParentID: &n, Summary: `{"sequenceNumber":1}`,
			CreatedAt: start.Add(time.Duration(i) * time.Minute)})
	}
	// Statistics that make the party's rows look few (a thousand
	// organisations of two documents each) and a parent's children many (a
	// parent of 500): the plan for any party and parent then starts from
	// the party. Then the party gets 3,000 documents.
	for _, q := range []string{
		"ALTER TABLE documents SET (autovacuum_enabled = false)",
		"ALTER TABLE document_parties SET (autovacuum_enabled = false)",
		"ALTER TABLE document_entries SET (autovacuum_enabled = false)",
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 VALUES ('big', 'p', 'NOTIFICATION', 'N-big', 'CONSENTED', 1, '{}', '1', now(), now(), 0, '', 500)`,
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, summary, parent_id, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'k' || g, 'p', 'MOVEMENT', 'N-big-' || g, 'SUBMITTED', 1, '{}', '{"sequenceNumber":1}', 'big', '1', now(), now(), 0, '', 0 FROM generate_series(1, 500) g`,
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'o' || g, 'p', 'NOTIFICATION', 'N-o' || g, 'SUBMITTED', 1, '{}', '1', now(), now(), 0, '', 0 FROM generate_series(1, 2000) g`,
		`INSERT INTO document_parties (document_id, organisation_id, role) SELECT 'o' || g, 'org' || (g % 1000), 'NOTIFIER' FROM generate_series(1, 2000) g`,
		`INSERT INTO document_entries (document_id, organisation_id, provider_id, kind, number, state, version, roles, intents, actionable, created_at, updated_at)
		 SELECT 'o' || g, 'org' || (g % 1000), 'p', 'NOTIFICATION', 'N-o' || g, 'SUBMITTED', 1, 'NOTIFIER', '', FALSE, now(), now() FROM generate_series(1, 2000) g`,
		`INSERT INTO document_entries (document_id, organisation_id, provider_id, kind, number, state, version, parent_id, roles, intents, actionable, created_at, updated_at)
		 SELECT 'k' || g, 'acme', 'p', 'MOVEMENT', 'N-big-' || g, 'SUBMITTED', 1, 'big', 'NOTIFIER', '', FALSE, now(), now() FROM generate_series(1, 500) g`,
		"ANALYZE documents", "ANALYZE document_parties", "ANALYZE document_entries",
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'd' || g, 'p', 'NOTIFICATION', 'N-d' || g, 'SUBMITTED', 1, '{}', '1', now(), now(), 0, '', 0 FROM generate_series(1, 3000) g`,
		`INSERT INTO document_parties (document_id, organisation_id, role) SELECT 'd' || g, 'acme', 'NOTIFIER' FROM generate_series(1, 3000) g`,
		`INSERT INTO document_entries (document_id, organisation_id, provider_id, kind, number, state, version, roles, intents, actionable, created_at, updated_at)
		 SELECT 'd' || g, 'acme', 'p', 'NOTIFICATION', 'N-d' || g, 'SUBMITTED', 1, 'NOTIFIER', '', FALSE, now(), now() FROM generate_series(1, 3000) g`,
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
		// rows of documents and list entries this connection read by index
		// and by scan (its counts not yet reported, the seeding's key checks
		// among them)
		read := func() (n int64) {
			must(conn.Raw("SELECT sum(COALESCE(idx_tup_fetch, 0) + seq_tup_read) FROM pg_stat_xact_user_tables WHERE relname IN ('documents', 'document_entries') AND schemaname = current_schema()").Scan(&n).Error)
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
		t.Fatalf("reading a notification of 3 movements read %d rows of documents and list entries (its party has 3,504 documents): the plan starts from the party, not the parent", fetched)
	}
}

// A retrieval document lists at most ChildrenLimit of the children its
// caller is a party to, those in none of ChildrenFinal first, then the
// latest (those made in one instant by their numbers, whose order here is
// not the ids'), and counts them all, picked from the caller's list
// entries (both databases; SQLite picks in SQL only when the children do
// not all fit). A notification of 120 movements in four states, made ten
// at a time in one instant, a tenth of them another organisation's
// alone; then most open ones complete, as acts would, and the pick follows.
func TestChildrenPickedFromEntries(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db, add, must := documentsIn(t, cfg)
		n := "n"
		const size, limit = 120, 50
		add(models.Document{ID: n, Kind: "NOTIFICATION", Number: "N-1", State: "CONSENTED", Children: size}, "acme", "truck")
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		states := []string{"SUBMITTED", "COMPLETED", "TEMPLATE", "TAKEN_BACK", "COMPLETED"}
		final := []string{"COMPLETED", "TAKEN_BACK"}
		type child struct {
			id, number, state string
			at                time.Time
			acme              bool
		}
		var all []child
		for i := range size {
			c := child{id: fmt.Sprintf("m%03d", (i*37)%size), number: fmt.Sprintf("N-1-M%03d", i+1), state: states[(i*7)%len(states)], at: start.Add(time.Duration(i/10) * time.Minute), acme: i%10 != 4}
			orgs := []string{"acme", "truck"}
			if !c.acme {
				orgs = []string{"truck"}
			}
			add(models.Document{ID: c.id, Kind: "MOVEMENT", Number: c.number, State: c.state, ParentID: &n, Summary: `{"sequenceNumber":1}`, CreatedAt: c.at}, orgs...)
			all = append(all, c)
		}
		var checkBy func(when string, states []string)
		expect := func() (ids []string, visible int64) {
			var seen []child
			for _, c := range all {
				if c.acme {
					seen = append(seen, c)
				}
			}
			slices.SortFunc(seen, func(a, b child) int {
				if fa, fb := slices.Contains(final, a.state), slices.Contains(final, b.state); fa != fb {
					if fa {
						return 1
					}
					return -1
				}
				if c := b.at.Compare(a.at); c != 0 {
					return c
				}
				return strings.Compare(b.number, a.number)
			})
			for _, c := range seen[:limit] {
				ids = append(ids, c.id)
			}
			slices.Sort(ids)
			return ids, int64(len(seen))
		}
		// the pick by state (a branch per state of the child kind, one of
		// them with no child) and the pick without the states
		kindStates := []string{"SUBMITTED", "TEMPLATE", "REJECTED", "COMPLETED", "TAKEN_BACK"}
		check := func(when string) {
			t.Helper()
			for _, by := range [][]string{kindStates, nil} {
				checkBy(when, by)
			}
		}
		checkBy = func(when string, states []string) {
			t.Helper()
			var loaded *models.LoadedDocument
			must(models.NewDocumentStore(db).Update(context.Background(), func(ctx context.Context, tx *models.DocumentTx) (err error) {
				loaded, err = tx.Load(models.DocumentQuery{ID: n, Provider: "p", Party: "acme", ChildrenLimit: limit, ChildrenFinal: final, ChildrenStates: states})
				return err
			}))
			if states == nil {
				when += " (without the states)"
			}
			var got []string
			for i, c := range loaded.Children {
				got = append(got, c.ID)
				if !loaded.Visible[c.ID] || c.Summary == "" {
					t.Fatalf("%s: child %s: visible %v, summary %q", when, c.ID, loaded.Visible[c.ID], c.Summary)
				}
				if i > 0 && c.CreatedAt.Before(loaded.Children[i-1].CreatedAt) {
					t.Fatalf("%s: children not oldest first: %s after %s", when, c.ID, loaded.Children[i-1].ID)
				}
			}
			slices.Sort(got)
			want, visible := expect()
			if !loaded.ChildrenBounded || loaded.ChildrenVisible != visible || !slices.Equal(got, want) {
				t.Fatalf("%s: bounded %v, %d visible, picked %v; want %d visible, picked %v", when, loaded.ChildrenBounded, loaded.ChildrenVisible, got, visible, want)
			}
		}
		check("first")
		// every open movement completed but those of the first ten made
		for i := range all {
			if i >= 10 && !slices.Contains(final, all[i].state) {
				all[i].state = "COMPLETED"
				must(db.Exec("UPDATE documents SET state = 'COMPLETED' WHERE id = ?", all[i].id).Error)
				must(db.Exec("UPDATE document_entries SET state = 'COMPLETED' WHERE document_id = ?", all[i].id).Error)
			}
		}
		check("after completions")
	})
}

// The pick reads no more of a large family's entries than it lists: each
// state's newest up to the limit (the count reads the rest from the same
// index, without the rows). A notification of 500 movements all open,
// then all closed: 00034's two branches read all 500 entries in one of
// them (to find that there was no closed one, then no open one).
func TestLargeFamilyPickReadsTheLimit(t *testing.T) {
	db, add, must := documentsOn(t)
	const size, limit = 500, 50
	add(models.Document{ID: "big", Kind: "NOTIFICATION", Number: "N-big", State: "CONSENTED", Children: size}, "acme")
	for _, q := range []string{
		// no visibility map: each entry an index scan reads is fetched from
		// the table too, and counted
		"ALTER TABLE document_entries SET (autovacuum_enabled = false)",
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, summary, parent_id, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'k' || g, 'p', 'MOVEMENT', 'N-big-' || g, 'SUBMITTED', 1, '{}', '{"sequenceNumber":1}', 'big', '1', now(), now(), 0, '', 0 FROM generate_series(1, 500) g`,
		`INSERT INTO document_entries (document_id, organisation_id, provider_id, kind, number, state, version, parent_id, roles, intents, actionable, created_at, updated_at)
		 SELECT 'k' || g, 'acme', 'p', 'MOVEMENT', 'N-big-' || g, 'SUBMITTED', 1, 'big', 'NOTIFIER', '', FALSE, now() + g * interval '1 second', now() FROM generate_series(1, 500) g`,
		"ANALYZE document_entries",
	} {
		must(db.Exec(q).Error)
	}
	read := func(when string) {
		t.Helper()
		var entries int64
		var loaded *models.LoadedDocument
		must(models.NewDocumentStore(db).Update(context.Background(), func(ctx context.Context, tx *models.DocumentTx) error {
			conn := models.Conn(ctx, db)
			count := func() (n int64) {
				must(conn.Raw("SELECT COALESCE(idx_tup_fetch, 0) + seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'document_entries' AND schemaname = current_schema()").Scan(&n).Error)
				return n
			}
			before := count()
			var err error
			loaded, err = tx.Load(models.DocumentQuery{ID: "big", Provider: "p", Party: "acme", ChildrenLimit: limit,
				ChildrenFinal: []string{"COMPLETED", "TAKEN_BACK"}, ChildrenStates: []string{"SUBMITTED", "COMPLETED", "TAKEN_BACK"}})
			entries = count() - before
			return err
		}))
		if len(loaded.Children) != limit || loaded.ChildrenVisible != size {
			t.Fatalf("%s: %d children listed, %d visible; want %d and %d", when, len(loaded.Children), loaded.ChildrenVisible, limit, size)
		}
		// the count's 500 index entries, the listed 50 and the end of each branch
		t.Logf("%s: %d list entries read", when, entries)
		if entries > size+limit+10 {
			t.Fatalf("%s: the retrieval document of a notification of %d movements read %d list entries: more than it counts and lists", when, size, entries)
		}
	}
	read("all open")
	must(db.Exec("UPDATE document_entries SET state = 'COMPLETED' WHERE parent_id = 'big'").Error)
	must(db.Exec("UPDATE documents SET state = 'COMPLETED' WHERE parent_id = 'big'").Error)
	read("all closed")
}
