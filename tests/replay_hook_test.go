package tests

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

// Every database a test of this package leaves behind is replayed from
// its audit trail before it is closed: each document must come back byte
// for byte (issue 46.2). The end-to-end suites so check every act they
// make, on both databases.
func init() { dbtest.AtEnd = replayEverything }

func replayEverything(t testing.TB, db *gorm.DB) {
	t.Helper()
	r, err := documents.New(db, nil, kinds.All()...)
	if err != nil {
		t.Errorf("replay: %v", err)
		return
	}
	checked(r)
	res, err := r.Replay(context.Background())
	if err != nil {
		t.Errorf("replay: %v", err)
		return
	}
	for _, d := range res.Divergences {
		t.Errorf("the trail does not replay to the document: %s", d)
	}
}
