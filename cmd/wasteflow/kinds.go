package main

import (
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// documentKinds are the document kinds this server runs: the one place a
// new kind is registered.
func documentKinds() []*documents.Kind {
	return []*documents.Kind{notifications.NewKind()}
}

// newRunner validates the kinds and makes the document runner.
func newRunner(db *gorm.DB, cfg *configs.Config, now func() time.Time) (*documents.Runner, error) {
	r, err := documents.New(db, now, documentKinds()...)
	if err != nil {
		return nil, err
	}
	r.WarnWorkingDays = cfg.WarnWorkingDays
	return r, nil
}
