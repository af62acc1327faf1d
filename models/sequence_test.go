package models_test

import (
	"context"
	"fmt"
	"testing"

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
	event := func(n int) *models.Event {
		return &models.Event{ProviderID: "p", OrganisationID: "o", Kind: "DOCUMENT_STATE_CHANGED", DocumentID: "d",
			DedupKey: fmt.Sprint("k", n), Payload: "{}"}
	}
	early := db.Begin() // draws the first id and stays open
	if err := models.InsertEvents(early, []models.Event{*event(1)}); err != nil {
		t.Fatal(err)
	}
	if err := models.InsertEvents(db, []models.Event{*event(2)}); err != nil { // draws the second, commits at once
		t.Fatal(err)
	}
	store := models.NewEventStore(db)
	read := func() []string {
		list, err := store.EventsAfter(ctx, "p", "o", 0, []string{"DOCUMENT_STATE_CHANGED"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range list {
			keys = append(keys, e.DedupKey)
		}
		return keys
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("while the earlier event's transaction runs a reader sees %v: its cursor would pass the earlier one", got)
	}
	if err := early.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if got := read(); fmt.Sprint(got) != "[k1 k2]" {
		t.Fatalf("after both committed: %v, want [k1 k2]", got)
	}
	if keys, more, err := models.SequenceEvents(ctx, db, false); err != nil || len(keys) != 0 || more {
		t.Fatalf("sequencing again: %v %v %v", keys, more, err)
	}
}
