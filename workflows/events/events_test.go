package events

import (
	"context"
	"testing"

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
