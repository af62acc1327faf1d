// Package kinds lists the document kinds the server runs: the one place a
// new kind is registered.
package kinds

import (
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/movements"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// All returns a fresh registration of every kind.
func All() []*documents.Kind {
	return []*documents.Kind{notifications.NewKind(), annex7.NewKind(), movements.NewKind()}
}
