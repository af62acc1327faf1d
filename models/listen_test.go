package models_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// feedLog records what a session feed was told.
type feedLog struct {
	mu      sync.Mutex
	evicted []string
	states  []bool
}

func (f *feedLog) Evict(id string) { f.mu.Lock(); f.evicted = append(f.evicted, id); f.mu.Unlock() }
func (f *feedLog) SetLive(l bool)  { f.mu.Lock(); f.states = append(f.states, l); f.mu.Unlock() }

func (f *feedLog) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		done := ok()
		f.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the feed was not told: %s", what)
		}
	}
}

// TestSessionChangesAreHeard: what is announced on the session channel
// (by the sessions trigger, see handlers' TestSessionCacheHearsChangesMadeElsewhere)
// reaches the feed as an eviction; a cut connection stops the feed and a
// new one starts it; the end of ctx leaves it stopped.
func TestSessionChangesAreHeard(t *testing.T) {
	dbcfg := dbtest.Postgres(t)
	db := dbtest.Open(t, dbcfg)
	f := &feedLog{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); models.ListenSessionChanges(ctx, dbcfg.DSN, f, nil) }()
	f.waitFor(t, "live", func() bool { return len(f.states) == 1 && f.states[0] })

	notify := func(id string) error {
		return db.Exec(`SELECT pg_notify(?, ?)`, models.SessionChannel, id).Error
	}
	if err := notify("s-direct"); err != nil {
		t.Fatal(err)
	}
	// The channel is the database's, not the schema's: tests of other
	// packages running at the same time on the same database announce their
	// own sessions on it, so the feed hears those too.
	f.waitFor(t, "s-direct evicted", func() bool { return slices.Contains(f.evicted, "s-direct") })

	if err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?`, models.FeedApplicationNameOf(dbcfg.DSN)).Error; err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "stopped, then live again", func() bool {
		n := len(f.states)
		return n >= 3 && !f.states[n-2] && f.states[n-1]
	})
	if err := notify("s-after"); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "s-after evicted", func() bool { return slices.Contains(f.evicted, "s-after") })

	cancel()
	<-done
	if n := len(f.states); f.states[n-1] {
		t.Fatal("the feed ended live")
	}
}
