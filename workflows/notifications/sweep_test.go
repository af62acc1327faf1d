package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/movements"
)

// seed writes count ACKNOWLEDGED notifications whose dispatch and
// destination consented and whose transit authority's DECISION_DUE falls
// due at due (a tacit consent waiting to happen).
func seed(t testing.TB, db *gorm.DB, count int, due time.Time) {
	t.Helper()
	db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"})
	for _, o := range []models.Organisation{
		{ProviderID: "p", ID: "acme", Kind: "company", Country: "DE", Region: "BY"},
		{ProviderID: "p", ID: "recyc", Kind: "company", Country: "NL"},
		{ProviderID: "p", ID: "de", Kind: "authority", Country: "DE", Region: "BY"},
		{ProviderID: "p", ID: "nl", Kind: "authority", Country: "NL"},
		{ProviderID: "p", ID: "be", Kind: "authority", Country: "BE"},
	} {
		db.Create(&o)
	}
	seedDue(t, db, count, due)
}

func count(t testing.TB, db *gorm.DB, sql string, args ...any) int64 {
	var k int64
	if err := db.Raw(sql, args...).Scan(&k).Error; err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSweepIsExactlyOnceAndCatchesUp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		due := time.Date(2027, 3, 10, 22, 59, 59, 0, time.UTC)
		seed(t, db, 5, due)
		s := runner(t, db)
		ctx := context.Background()

		res, err := s.Sweep(ctx, due.Add(-72*time.Hour)) // before the warning window
		if err != nil || res.DueSoon+res.Overdue != 0 {
			t.Fatalf("early sweep: %v %v", res, err)
		}
		for range 3 { // however often it runs, each change happens once
			if _, err := s.Sweep(ctx, due.Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if k := count(t, db, "SELECT COUNT(*) FROM events WHERE kind = 'DEADLINE_DUE_SOON'"); k != 5 {
			t.Fatalf("%d due-soon events, want 5", k)
		}
		// Every instance was down for a week: the next sweep catches up.
		res, err = s.Sweep(ctx, due.Add(7*24*time.Hour))
		if err != nil || res.Lapsed != 5 || res.Overdue != 0 || res.Transitions != 5 {
			t.Fatalf("catch-up sweep: %v %v", res, err)
		}
		if res, _ := s.Sweep(ctx, due.Add(8*24*time.Hour)); res.Overdue+res.Lapsed+res.Transitions != 0 {
			t.Fatalf("second sweep did work again: %v", res)
		}
		if k := count(t, db, "SELECT COUNT(*) FROM documents WHERE state = 'CONSENTED'"); k != 5 {
			t.Fatalf("%d documents consented tacitly, want 5", k)
		}
		if k := count(t, db, "SELECT COUNT(*) FROM audit_events WHERE intent = 'TACIT_CONSENT' AND actor = 'system'"); k != 5 {
			t.Fatalf("%d audited tacit consents, want 5", k)
		}
		// Tacit consent is lawful, not a missed duty: no overdue event, the
		// decision period LAPSED (closed); consent validity started.
		if k := count(t, db, "SELECT COUNT(*) FROM events WHERE kind = 'DEADLINE_OVERDUE'"); k != 0 {
			t.Fatalf("%d overdue events, want none", k)
		}
		if k := count(t, db, "SELECT COUNT(*) FROM deadlines WHERE rule = 'DECISION_DUE' AND state = 'LAPSED' AND closed_at IS NOT NULL"); k != 5 {
			t.Fatalf("%d lapsed decision periods, want 5", k)
		}
		if k := count(t, db, "SELECT COUNT(*) FROM deadlines WHERE rule = 'CONSENT_VALIDITY' AND state = 'OPEN'"); k != 5 {
			t.Fatalf("%d consent validity deadlines, want 5", k)
		}
		if breaks, _, err := audit.Verify(ctx, db); err != nil || len(breaks) != 0 {
			t.Fatalf("audit: %v %v", breaks, err)
		}
	})
}

// A deadline falls due at the end of its last local day: on the DST change
// day in Berlin and on 31 December the UTC boundary moves with the offset.
func TestSweepAtLocalDayEnds(t *testing.T) {
	for _, c := range []struct {
		name string
		due  time.Time // end of the local day, as the calendar computes it
	}{
		{"DST starts (2027-03-28, CEST)", time.Date(2027, 3, 28, 21, 59, 59, 999999999, time.UTC)},
		{"DST ends (2027-10-31, CET)", time.Date(2027, 10, 31, 22, 59, 59, 999999999, time.UTC)},
		{"31 December", time.Date(2026, 12, 31, 22, 59, 59, 999999999, time.UTC)},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := dbtest.Open(t, dbtest.SQLite(t))
			seed(t, db, 1, c.due)
			s := runner(t, db)
			if res, _ := s.Sweep(context.Background(), c.due); res.Overdue+res.Lapsed != 0 {
				t.Fatal("overdue at the last nanosecond of its day")
			}
			if res, _ := s.Sweep(context.Background(), c.due.Add(time.Nanosecond)); res.Lapsed != 1 {
				t.Fatal("not overdue at the next local midnight")
			}
		})
	}
}

// Three instances, each with its own connection pool, sweep one Postgres
// at once: 1,000 due deadlines are processed once, each tacit consent
// happens once, each notification is created once.
func TestThreeInstancesSweepOnce(t *testing.T) {
	cfg := dbtest.Postgres(t)
	db := dbtest.Open(t, cfg)
	due := time.Date(2027, 3, 10, 22, 59, 59, 0, time.UTC)
	seed(t, db, 1000, due)
	now := due.Add(time.Hour)
	var wg sync.WaitGroup
	results := make([]documents.SweepResult, 3)
	for i := range 3 {
		inst := dbtest.Open(t, cfg) // a separate pool per instance
		s := runner(t, inst)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Sweep(context.Background(), now)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	var lapsed, transitions int
	for _, r := range results {
		lapsed += r.Lapsed + r.Overdue
		transitions += r.Transitions
	}
	t.Logf("instances: %v / %v / %v", results[0], results[1], results[2])
	if lapsed != 1000 || transitions != 1000 {
		t.Fatalf("lapsed %d, transitions %d; want 1000 each", lapsed, transitions)
	}
	for sql, want := range map[string]int64{
		"SELECT COUNT(*) FROM audit_events WHERE intent = 'TACIT_CONSENT'":                    1000,
		"SELECT COUNT(DISTINCT document_id) FROM audit_events WHERE intent = 'TACIT_CONSENT'": 1000,
		"SELECT COUNT(*) FROM deadlines WHERE state = 'LAPSED'":                               1000,
		"SELECT COUNT(*) FROM events WHERE kind = 'DOCUMENT_STATE_CHANGED'":                   1000 * 5, // five party organisations
		"SELECT COUNT(*) FROM documents WHERE state = 'CONSENTED' AND version = 1":            1000,
	} {
		if got := count(t, db, sql); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
}

// BenchmarkSweep measures one sweep over 100,000 open deadlines of which
// 1,000 are due (run with WASTEFLOW_TEST_DATABASE_URL for Postgres).
func BenchmarkSweep(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			cfg := dbtest.SQLite(b)
			if name == "postgres" {
				cfg = dbtest.Postgres(b)
			}
			db := dbtest.Open(b, cfg)
			due := time.Date(2027, 3, 10, 22, 59, 59, 0, time.UTC)
			// 99,000 deadlines far in the future, written in bulk.
			far := due.AddDate(1, 0, 0)
			warnFar := far.Add(-48 * time.Hour)
			seed(b, db, 0, due)
			rows := make([]models.Deadline, 0, 99000)
			for i := range 99000 {
				rows = append(rows, models.Deadline{ID: fmt.Sprintf("far-%06d", i), DocumentID: "far-doc", ProviderID: "p", Rule: "DECISION_DUE",
					LegalBasis: "x", PartyOrg: "be", PartyRole: n.RoleAuthorityTransit, State: documents.DeadlineOpen, StartedAt: due, DueAt: far, WarnAt: &warnFar, UpdatedAt: due})
			}
			db.Create(&models.Document{ID: "far-doc", ProviderID: "p", Kind: Kind, Number: "far", State: n.Acknowledged, Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: due, UpdatedAt: due})
			if err := db.CreateInBatches(rows, 1000).Error; err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db.Exec("DELETE FROM events")
				db.Exec("DELETE FROM audit_events WHERE document_id LIKE 'doc-%'")
				db.Exec("DELETE FROM deadlines WHERE id LIKE 'dl-doc-%' OR (document_id LIKE 'doc-%' AND rule = 'CONSENT_VALIDITY')")
				db.Exec("DELETE FROM documents WHERE id LIKE 'doc-%'")
				seedDue(b, db, 1000, due)
				s := runner(b, db)
				b.StartTimer()
				res, err := s.Sweep(context.Background(), due.Add(time.Hour))
				if err != nil || res.Lapsed != 1000 {
					b.Fatalf("%v %v", res, err)
				}
			}
		})
	}
}

// seedDue adds count due documents to a seeded database.
func seedDue(t testing.TB, db *gorm.DB, count int, due time.Time) {
	data := n.Notification{Content: sampleContent(), Decisions: []n.DecisionRecord{
		{Authority: "de", Type: n.DecisionConsent}, {Authority: "nl", Type: n.DecisionConsent}}}
	raw, _ := json.Marshal(data)
	now := due.Add(-30 * 24 * time.Hour)
	docs := make([]models.Document, 0, count)
	dls := make([]models.Deadline, 0, count)
	for i := range count {
		id := fmt.Sprintf("doc-%05d", i)
		docs = append(docs, models.Document{ID: id, ProviderID: "p", Kind: Kind, Number: id, State: n.Acknowledged, Version: 0, // seeded without history: the sweep writes its first audit row
			Data: string(raw), CreatedBy: "1", CreatedAt: now, UpdatedAt: now})
		warn := due.Add(-48 * time.Hour)
		dls = append(dls, models.Deadline{ID: "dl-" + id, DocumentID: id, ProviderID: "p", Rule: "DECISION_DUE", LegalBasis: "Art. 9(1)",
			PartyOrg: "be", PartyRole: n.RoleAuthorityTransit, State: documents.DeadlineOpen, StartedAt: now, DueAt: due, WarnAt: &warn, UpdatedAt: now})
	}
	if err := db.CreateInBatches(docs, 500).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.CreateInBatches(dls, 500).Error; err != nil {
		t.Fatal(err)
	}
}

func runner(t testing.TB, db *gorm.DB) *documents.Runner {
	t.Helper()
	r, err := documents.New(db, nil, NewKind(), movements.NewKind()) // a notification offers the creation of its movements
	if err != nil {
		t.Fatal(err)
	}
	return r
}
