package tests

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
	wclock "github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

// The sweep exactly once (PostgreSQL): three instances, each with its own
// connections, sweep the same due deadlines at the same time, twice over;
// every deadline changes once, every event exists once, every automatic
// transition (tacit consent) is fired once, and the instances' counts add
// up to what changed.
func TestSweepOnceAcrossInstances(t *testing.T) {
	dbcfg := dbtest.Postgres(t)
	d := startDocs(t, dbcfg)
	const docs = 90
	for i := range docs {
		id := d.submitted(t)
		if i%2 == 0 { // acknowledged: the decision periods run and lapse into tacit consent
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		}
	}
	d.advance(45 * 24 * time.Hour)
	instances := make([]*documents.Runner, 3)
	for i := range instances {
		db := dbtest.Open(t, dbcfg)
		r, err := documents.New(db, d.clock.Now, kinds.All()...)
		if err != nil {
			t.Fatal(err)
		}
		checked(r)
		r.Clocks = wclock.New(db, "development")
		instances[i] = r
	}
	sweepAll := func() documents.SweepResult {
		var mu sync.Mutex
		var sum documents.SweepResult
		var wg sync.WaitGroup
		for _, r := range instances {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := r.Sweep(context.Background(), d.clock.Now())
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				sum.DueSoon, sum.Overdue, sum.Lapsed = sum.DueSoon+res.DueSoon, sum.Overdue+res.Overdue, sum.Lapsed+res.Lapsed
				sum.Transitions, sum.Skipped = sum.Transitions+res.Transitions, sum.Skipped+res.Skipped
				mu.Unlock()
			}()
		}
		wg.Wait()
		return sum
	}
	first := sweepAll()
	count := func(q string) int64 {
		t.Helper()
		var n int64
		if err := d.db.Raw(q).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	overdue, lapsed := count("SELECT COUNT(*) FROM deadlines WHERE state = 'OVERDUE'"), count("SELECT COUNT(*) FROM deadlines WHERE state = 'LAPSED'")
	tacit := count("SELECT COUNT(*) FROM audit_events WHERE intent = 'TACIT_CONSENT'")
	t.Logf("three sweeps at once: %+v; stored: %d overdue, %d lapsed, %d tacit consents", first, overdue, lapsed, tacit)
	if overdue == 0 || lapsed == 0 || tacit == 0 {
		t.Fatalf("the scenario made nothing due: %d overdue, %d lapsed, %d tacit consents", overdue, lapsed, tacit)
	}
	if int64(first.Overdue) != overdue || int64(first.Lapsed) != lapsed || int64(first.Transitions) != tacit {
		t.Fatalf("the instances counted %+v, the database holds %d overdue, %d lapsed, %d tacit consents", first, overdue, lapsed, tacit)
	}
	if n := count("SELECT COUNT(*) FROM (SELECT deadline_id, kind FROM events WHERE deadline_id <> '' GROUP BY deadline_id, kind, organisation_id HAVING COUNT(*) > 1) x"); n != 0 {
		t.Fatalf("%d deadline events exist twice", n)
	}
	if n := count("SELECT COUNT(*) FROM (SELECT document_id, party FROM (SELECT document_id, detail AS party FROM audit_events WHERE intent = 'TACIT_CONSENT') y GROUP BY document_id, party HAVING COUNT(*) > 1) x"); n != 0 {
		t.Fatalf("%d tacit consents fired twice", n)
	}
	if n := count("SELECT COUNT(*) FROM events WHERE kind = 'DEADLINE_OVERDUE'"); n != overdue {
		t.Fatalf("%d overdue events for %d overdue deadlines", n, overdue)
	}
	var left []struct {
		Rule, State, PartyOrg string
		StartedAt, DueAt      time.Time
	}
	d.db.Raw("SELECT rule, state, party_org, started_at, due_at FROM deadlines WHERE state IN ('OPEN','DUE_SOON') AND due_at < ?", d.clock.Now()).Scan(&left)
	if len(left) > 0 { // a deadline passed over because its document was locked is processed by the lock's holder
		t.Fatalf("due deadlines left after the first round: %+v", left)
	}
	if again := sweepAll(); again.DueSoon+again.Overdue+again.Lapsed+again.Transitions != 0 {
		t.Fatalf("a second round changed something: %+v", again)
	}
}

// Instances starting together (PostgreSQL) run the start-up tasks at the
// same time: each rewrites every document's parties and list entries, and
// neither fails on the rows the other wrote (an instance that did would
// not start).
func TestStartUpTasksOnSeveralInstances(t *testing.T) {
	dbcfg := dbtest.Postgres(t)
	d := startDocs(t, dbcfg)
	for range 40 {
		d.submitted(t)
	}
	if err := d.db.Exec("INSERT INTO maintenance_tasks (name, created_at) VALUES ('reindex-document-visibility', CURRENT_TIMESTAMP) ON CONFLICT DO NOTHING").Error; err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		db := dbtest.Open(t, dbcfg)
		r, err := documents.New(db, d.clock.Now, kinds.All()...)
		if err != nil {
			t.Fatal(err)
		}
		checked(r)
		r.Clocks = wclock.New(db, "development")
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.IndexEntries(context.Background(), false)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d could not run its start-up task beside the others: %v", i, err)
		}
	}
	var parties int64
	d.db.Raw("SELECT COUNT(*) FROM document_parties").Scan(&parties)
	if parties == 0 {
		t.Fatal("no parties after the reindex")
	}
}
