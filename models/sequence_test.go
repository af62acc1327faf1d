package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// An event that gets its id before another but commits after it is not
// passed by a cursor (PostgreSQL): positions are given after commit, in id
// order, only to events of transactions that ended before every running
// one began; so the later-numbered event waits for the earlier one, and a
// reader at any position sees both, in order.
func TestEventPositionsFollowCommits(t *testing.T) {
	cfg := dbtest.Postgres(t)
	db := dbtest.Open(t, cfg)
	ctx := context.Background()
	early := db.Begin() // draws the first id and stays open
	if err := models.InsertEvents(early, []models.Event{sequenced(1)}); err != nil {
		t.Fatal(err)
	}
	if err := models.InsertEvents(db, []models.Event{sequenced(2)}); err != nil { // draws the second, commits at once
		t.Fatal(err)
	}
	read := func() []string { return readSequenced(t, db) }
	if got := read(); len(got) != 0 {
		t.Fatalf("while the earlier event's transaction runs a reader sees %v: its cursor would pass the earlier one", got)
	}
	if keys, more, err := models.SequenceEvents(ctx, db, false); err != nil || len(keys) != 0 || !more {
		t.Fatalf("sequencing behind the running transaction: %v, more %v, %v; want none and more", keys, more, err)
	}
	if err := early.Commit().Error; err != nil {
		t.Fatal(err)
	}
	// The rounds position both and announce their organisation; the last
	// says none is left (its own statement's snapshot still reads what it
	// positions without a position). A transaction of another test on the
	// same PostgreSQL (another database: snapshots are the cluster's) that
	// began before the commit holds a round back until it ends, wholly
	// ("none, more": once seen in make test's race pass) or between the
	// two events ("[p:o], more": k1 positioned, k2 behind it; seen by CI
	// at stop 60), so rounds are tried until one says none is left.
	announced := map[string]bool{}
	var more bool
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var keys []string
		keys, more, err = models.SequenceEvents(ctx, db, false)
		for _, k := range keys {
			announced[k] = true
		}
		if err != nil || !more || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || fmt.Sprint(announced) != "map[p:o:true]" || more {
		t.Fatalf("sequencing after the commit announced %v, more %v, %v; want p:o and no more", announced, more, err)
	}
	if got := read(); fmt.Sprint(got) != "[k1 k2]" {
		t.Fatalf("after both committed: %v, want [k1 k2]", got)
	}
	if keys, more, err := models.SequenceEvents(ctx, db, false); err != nil || len(keys) != 0 || more {
		t.Fatalf("sequencing again: %v %v %v", keys, more, err)
	}
}

// A transaction that began between two events' transactions holds back
// the later one only (PostgreSQL): a round positions the event committed
// before it began, says more, and positions the other once it ends. This
// is the order a busy server makes of its own accord (another request's
// transaction open while the sequencer runs).
func TestEventBehindARunningTransactionWaitsForIt(t *testing.T) {
	cfg := dbtest.Postgres(t)
	db := dbtest.Open(t, cfg)
	ctx := context.Background()
	if err := models.InsertEvents(db, []models.Event{sequenced(1)}); err != nil {
		t.Fatal(err)
	}
	blocker := db.Begin()
	defer blocker.Rollback()
	if err := blocker.Exec("SELECT pg_current_xact_id()").Error; err != nil { // takes an id, so it counts as running
		t.Fatal(err)
	}
	if err := models.InsertEvents(db, []models.Event{sequenced(2)}); err != nil {
		t.Fatal(err)
	}
	read := func() string { return fmt.Sprint(readSequenced(t, db)) }
	keys, more, err := models.SequenceEvents(ctx, db, false)
	if err != nil || !more {
		t.Fatalf("sequencing behind the running transaction: %v, more %v, %v; want more", keys, more, err)
	}
	if got := read(); got != "[k1]" { // at most k1: another test's transaction may hold back both
		if got != "[]" || len(keys) != 0 {
			t.Fatalf("behind the running transaction a reader sees %v (announced %v): k2 passed it", got, keys)
		}
	}
	if err := blocker.Commit().Error; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); more && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, more, err = models.SequenceEvents(ctx, db, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(); more || got != "[k1 k2]" {
		t.Fatalf("after the transaction ended: %v, more %v; want [k1 k2] and no more", got, more)
	}
}

// A test clock's reset deletes events only while no sequencer runs
// (PostgreSQL): the sequencer's UPDATE of positions and the reset's DELETE
// lock the same rows in no common order, and a deadlock between them
// failed the reset with a 500 under writes (seen in
// TestTestClockResetUnderWrites). So the reset waits for a sequencer that
// holds its lock, and goes on once it ends.
func TestResetWaitsForTheSequencer(t *testing.T) {
	cfg := dbtest.Postgres(t)
	db := dbtest.Open(t, cfg)
	if err := models.InsertEvents(db, []models.Event{{ProviderID: "p", OrganisationID: "o", Kind: "DOCUMENT_STATE_CHANGED", DocumentID: "d", DedupKey: "k", Payload: "{}"}}); err != nil {
		t.Fatal(err)
	}
	sequencer := db.Begin()
	if err := sequencer.Exec("SELECT pg_advisory_xact_lock(" + models.SequenceLock + ")").Error; err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- db.Transaction(func(tx *gorm.DB) error {
			_, err := models.ResetClock(tx, "p", &models.TestClockAdvance{ProviderID: "p", AccountID: 1, RequestID: "r"})
			return err
		})
	}()
	select {
	case err := <-done:
		sequencer.Rollback()
		t.Fatalf("the reset ran while a sequencer held its lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := sequencer.Rollback().Error; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reset after the sequencer ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reset did not go on when the sequencer ended")
	}
}

// sequenced is the n-th event of the sequencing tests (dedup key kn).
func sequenced(n int) models.Event {
	return models.Event{ProviderID: "p", OrganisationID: "o", Kind: "DOCUMENT_STATE_CHANGED", DocumentID: "d",
		DedupKey: fmt.Sprint("k", n), Payload: "{}"}
}

// readSequenced is the dedup keys of the events a reader from the start
// sees, in their order.
func readSequenced(t *testing.T, db *gorm.DB) []string {
	t.Helper()
	list, err := models.NewEventStore(db).EventsAfter(context.Background(), "p", "o", 0, []string{"DOCUMENT_STATE_CHANGED"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range list {
		keys = append(keys, e.DedupKey)
	}
	return keys
}
