package events

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// A group that does not exist is the token's fault (401); a database that
// cannot be read is not (the client keeps its token and retries): List
// must not say "no longer registered" when the group's row could not be
// read at all.
func TestGroupLookupTellsAbsenceFromFailure(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLite(t))
	s := &Service{Store: models.NewEventStore(db)}
	ctx := reqctx.With(context.Background(), &reqctx.Info{Principal: &reqctx.Principal{ProviderID: "dev-1", OrganisationID: "acme", GroupID: "grp_missing"}})
	if _, _, err := s.List(ctx, "", 10, 0); status.From(err).Code != status.Unauthenticated {
		t.Fatalf("an unknown group: %v, want unauthenticated", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	_ = sqlDB.Close() // the database gone
	_, _, err = s.List(ctx, "", 10, 0)
	if err == nil || status.From(err).Code == status.Unauthenticated {
		t.Fatalf("a database that cannot be read: %v, want an error that is not unauthenticated", err)
	}
}

// counting is the real store, counting the reads a long poll's return
// should not repeat.
type counting struct {
	Store
	latest, groups int
}

func (c *counting) LatestPosition(ctx context.Context) (int64, error) {
	c.latest++
	return c.Store.LatestPosition(ctx)
}

func (c *counting) Group(ctx context.Context, id string) (*models.NotifierGroup, error) {
	c.groups++
	return c.Store.Group(ctx, id)
}

// A poll with a cursor this instance handed out, or one before it, reads
// neither the group (its token was checked) nor the latest position (a
// sequence never goes back) again; a cursor past every position given is
// still refused, however often asked.
func TestPollsReadOnlyTheirEvents(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLite(t))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := db.Create(&models.Provider{ID: "dev-1", Environment: "test", Name: "P"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&models.Organisation{ProviderID: "dev-1", ID: "acme", Kind: "company", Name: "ACME", Country: "DE"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&models.Account{ID: 1, ProviderID: "dev-1", OrganisationID: "acme", Username: "alice", CreatedAt: now, UpdatedAt: now, PasswordChangedAt: now}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&models.Document{ID: "ntf_1", ProviderID: "dev-1", Kind: "NOTIFICATION", Number: "n", State: "DRAFT", Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: now, UpdatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&models.NotifierGroup{ID: "grp_1", ProviderID: "dev-1", OrganisationID: "acme", Name: "erp", EventKinds: models.Scopes{"DOCUMENT_STATE_CHANGED"}, CreatedBy: 1, CreatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p := int64(i + 1)
		if err := db.Create(&models.Event{ProviderID: "dev-1", OrganisationID: "acme", Kind: "DOCUMENT_STATE_CHANGED", DocumentID: "ntf_1", DedupKey: fmt.Sprint(i), Payload: "{}", CreatedAt: now, Position: &p}).Error; err != nil {
			t.Fatal(err)
		}
	}
	store := &counting{Store: models.NewEventStore(db)}
	s := &Service{Store: store}
	ctx := reqctx.With(context.Background(), &reqctx.Info{Principal: &reqctx.Principal{ProviderID: "dev-1", OrganisationID: "acme", GroupID: "grp_1"}})
	list, cursor, err := s.List(ctx, "", 2, 0)
	if err != nil || len(list) != 2 || cursor != "2" {
		t.Fatalf("the first page: %d events, cursor %q, %v", len(list), cursor, err)
	}
	for _, c := range []string{cursor, "1", cursor} {
		if _, _, err := s.List(ctx, c, 2, 0); err != nil {
			t.Fatalf("after %s: %v", c, err)
		}
	}
	if store.groups != 1 || store.latest != 0 {
		t.Errorf("four polls read the group %d times and the latest position %d times, want 1 and 0", store.groups, store.latest)
	}
	for range 2 {
		if _, _, err := s.List(ctx, "4", 2, 0); status.From(err).Code != status.InvalidArgument {
			t.Fatalf("a cursor past every event: %v", err)
		}
	}
	if store.latest != 2 {
		t.Errorf("a cursor past every event known read the latest position %d times, want each time (2)", store.latest)
	}
}
