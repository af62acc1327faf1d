package models

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// The durable job queue is River's (workflows/jobs): its tables are
// created and upgraded by River's own migrations, run here as one of ours
// (version jobQueueVersion), under goose's lock, so that several instances starting at once take turns. A River
// upgrade that brings new migrations of its own adds a migration here
// that runs them (MigrateTx applies what is pending).
const jobQueueVersion = 22

// JobDriver is River's driver for db's pool (nil: a driver for
// transactions only, as the migrations use).
func JobDriver(dialect string, pool *sql.DB) (riverdriver.Driver[*sql.Tx], error) {
	switch dialect {
	case "postgres":
		return riverdatabasesql.New(pool), nil
	case "sqlite":
		return riversqlite.New(pool), nil
	}
	return nil, fmt.Errorf("no job queue driver for %s", dialect)
}

func jobQueueMigration(types dialectTypes) (*goose.Migration, error) {
	dialect := "sqlite"
	if types.Postgres {
		dialect = "postgres"
	}
	// Outside a transaction: River's migrations each run in their own (one
	// adds an enum value that a later statement uses, which PostgreSQL
	// refuses within one transaction); goose's lock still holds.
	up := &goose.GoFunc{RunDB: func(ctx context.Context, db *sql.DB) error {
		driver, err := JobDriver(dialect, db)
		if err != nil {
			return err
		}
		m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return err
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("migration %d (the job queue's tables): %w", jobQueueVersion, err)
		}
		return nil
	}}
	return goose.NewGoMigration(jobQueueVersion, up, nil), nil
}
