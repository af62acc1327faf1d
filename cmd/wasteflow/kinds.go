package main

import (
	"time"

	"github.com/wasteflow/wasteflow/models"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

func documentKinds() []*documents.Kind { return kinds.All() }

// newRunner validates the kinds and makes the document runner.
func newRunner(db *models.DB, cfg *configs.Config, now func() time.Time) (*documents.Runner, error) {
	r, err := documents.New(db, now, documentKinds()...)
	if err != nil {
		return nil, err
	}
	r.WarnWorkingDays = cfg.WarnWorkingDays
	r.SweepWorkers = cfg.SweepWorkers
	r.Clocks = clock.New(db, cfg.Environment)
	return r, nil
}
