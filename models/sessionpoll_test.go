package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestSessionChangesArePolledOnSQLite: on SQLite, a session revoked or
// deleted and a group removed by another connection to the file (another
// process: the admin command) reach the feed as evictions within the
// poll, sessions by id and groups as "group:" and id; rows removed before
// the poller read them (a poller that stalled past a minute) empty the
// cache; old rows are removed, and a poller started after that takes no
// gap for one; the end of ctx leaves the feed stopped.
func TestSessionChangesArePolledOnSQLite(t *testing.T) {
	dbcfg := dbtest.SQLite(t)
	db := dbtest.Open(t, dbcfg)
	other := dbtest.Open(t, dbcfg) // a pool of its own: as another process
	ctx := context.Background()
	store := models.NewAuthStore(other)
	now := time.Now().UTC()
	// rows without their account, application or organisation: this
	// test is about the triggers, not the keys
	if err := other.Connection(func(c *gorm.DB) error {
		if err := c.Exec("PRAGMA foreign_keys = OFF").Error; err != nil {
			return err
		}
		defer c.Exec("PRAGMA foreign_keys = ON")
		cs := models.NewAuthStore(c)
		for _, id := range []string{"ses_a", "ses_b", "ses_c"} {
			if err := cs.CreateSession(ctx, &models.Session{ID: id, ProviderID: "dev-1", AccountID: 1, CredentialType: "USERNAME_PASSWORD",
				CreatedAt: now, LastUsedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
				return err
			}
		}
		return cs.CreateGroup(ctx, &models.NotifierGroup{ID: "grp_1", ProviderID: "dev-1", OrganisationID: "acme", Name: "erp"})
	}); err != nil {
		t.Fatal(err)
	}

	f := &feedLog{}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); models.PollSessionChanges(pctx, db, f, 10*time.Millisecond, nil) }()
	f.waitFor(t, "live", func() bool { return len(f.states) == 1 && f.states[0] })
	if len(f.evicted) != 0 {
		t.Fatalf("evicted before any change: %v", f.evicted)
	}

	if err := store.RevokeSession(ctx, "ses_a", now, "test"); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "ses_a evicted", func() bool { return slices.Contains(f.evicted, "ses_a") })
	if err := other.Exec("DELETE FROM sessions WHERE id = 'ses_b'").Error; err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "ses_b evicted", func() bool { return slices.Contains(f.evicted, "ses_b") })
	if found, err := store.DeleteGroup(ctx, "dev-1", "acme", "grp_1"); err != nil || !found {
		t.Fatalf("DeleteGroup: %v %v", found, err)
	}
	f.waitFor(t, "group:grp_1 evicted", func() bool { return slices.Contains(f.evicted, "group:grp_1") })
	// a change that ends nothing (a session used) is not announced
	if err := other.Exec("UPDATE sessions SET last_used_at = ? WHERE id = 'ses_c'", now.Add(time.Minute)).Error; err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	f.mu.Lock()
	if slices.Contains(f.evicted, "ses_c") {
		t.Error("a session's use was announced as a change")
	}
	f.mu.Unlock()

	// Rows removed unread: two changes in one transaction, removed in
	// another before the poll could read them (the poller is stopped for
	// it), then one more: the cache starts over.
	cancel()
	<-done
	if n := len(f.states); f.states[n-1] {
		t.Fatal("the feed ended live")
	}
	f = &feedLog{}
	pctx, cancel = context.WithCancel(ctx)
	defer cancel()
	done = make(chan struct{})
	go func() { defer close(done); models.PollSessionChanges(pctx, db, f, 300*time.Millisecond, nil) }()
	f.waitFor(t, "live", func() bool { return len(f.states) == 1 && f.states[0] })
	if err := other.Exec("UPDATE sessions SET revoked_at = ? WHERE id = 'ses_c'", now).Error; err != nil {
		t.Fatal(err)
	}
	if err := other.Exec("DELETE FROM session_changes").Error; err != nil {
		t.Fatal(err)
	}
	if err := other.Exec("DELETE FROM sessions WHERE id = 'ses_c'").Error; err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "started over after the gap", func() bool { return len(f.states) >= 2 && f.states[len(f.states)-1] })
	f.waitFor(t, "ses_c evicted", func() bool { return slices.Contains(f.evicted, "ses_c") })

	// Old rows go: one a minute old is removed at the poller's next start.
	if err := other.Exec("UPDATE session_changes SET changed_at = changed_at - 120").Error; err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	pctx, cancel = context.WithCancel(ctx)
	defer cancel()
	done = make(chan struct{})
	go func() { defer close(done); models.PollSessionChanges(pctx, db, &feedLog{}, 10*time.Millisecond, nil) }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int64
		if err := other.Raw("SELECT count(*) FROM session_changes").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d old rows of session_changes left", n)
		}
	}
	cancel()
	<-done

	// A poller that starts on the emptied table counts from the numbers'
	// high-water mark: the next change is no gap, and the cache is not
	// emptied for it.
	f = &feedLog{}
	pctx, cancel = context.WithCancel(ctx)
	defer cancel()
	done = make(chan struct{})
	go func() { defer close(done); models.PollSessionChanges(pctx, db, f, 10*time.Millisecond, nil) }()
	f.waitFor(t, "live", func() bool { return len(f.states) == 1 && f.states[0] })
	if err := other.Exec("UPDATE sessions SET revoked_at = ? WHERE id = 'ses_a'", now).Error; err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "ses_a evicted", func() bool { return slices.Contains(f.evicted, "ses_a") })
	f.mu.Lock()
	if len(f.states) != 1 {
		t.Errorf("the feed was told %v: a change after the removed rows was taken for a gap", f.states)
	}
	f.mu.Unlock()
	cancel()
	<-done
}

// TestNoSessionChangesTableOnPostgres: PostgreSQL announces changes
// (00017, 00036); 00037's table is SQLite's alone.
func TestNoSessionChangesTableOnPostgres(t *testing.T) {
	db := dbtest.Open(t, dbtest.Postgres(t))
	var n int64
	if err := db.Raw("SELECT count(*) FROM information_schema.tables WHERE table_name = 'session_changes' AND table_schema = current_schema()").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("session_changes exists on PostgreSQL")
	}
}
