package models_test

import (
	"context"
	"sync"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

func TestMigrateIsRecordedAndIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		ctx := context.Background()
		db := dbtest.Open(t, cfg) // migrates once
		m, err := models.NewMigrator(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		current, target, err := m.Versions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if current != target || target < 1 {
			t.Fatalf("after migrate: current %d, target %d", current, target)
		}
		applied, err := m.Up(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) != 0 {
			t.Fatalf("second migrate applied %v, want nothing", applied)
		}
		var rows int64
		if err := db.Table("goose_db_version").Where("version_id > 0").Count(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if rows != target {
			t.Fatalf("goose_db_version has %d applied rows, want %d", rows, target)
		}
		// The schema is real: a provider round-trips.
		if err := db.Create(&models.Provider{ID: "p1", Environment: "test", Name: "P"}).Error; err != nil {
			t.Fatal(err)
		}
		got, err := models.GetProvider(ctx, db, "p1")
		if err != nil || got.Environment != "test" || got.CreatedAt.IsZero() {
			t.Fatalf("GetProvider = %+v, %v", got, err)
		}
		if _, err := models.GetProvider(ctx, db, "nope"); err != models.ErrNotFound {
			t.Fatalf("missing provider: err = %v, want ErrNotFound", err)
		}
		// The CHECK constraint guards the environment column.
		if err := db.Create(&models.Provider{ID: "p2", Environment: "moon", Name: "P"}).Error; err == nil {
			t.Fatal("provider with environment moon was stored")
		}
	})
}

// Several instances starting at once against one PostgreSQL database must
// all come up, with every migration applied exactly once.
func TestConcurrentMigrationsOnPostgres(t *testing.T) {
	cfg := dbtest.Postgres(t)
	const instances = 6
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	for range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := models.Open(context.Background(), cfg, nil)
			if err != nil {
				errs <- err
				return
			}
			defer models.Close(db)
			_, err = models.Migrate(context.Background(), db, nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent migrate: %v", err)
		}
	}
	db := dbtest.Open(t, cfg)
	m, _ := models.NewMigrator(db, nil)
	_, target, _ := m.Versions(context.Background())
	var rows int64
	db.Table("goose_db_version").Where("version_id > 0").Count(&rows)
	if rows != target {
		t.Fatalf("goose_db_version has %d applied rows, want %d", rows, target)
	}
}

func TestScopesNormalise(t *testing.T) {
	s := models.NewScopes("usermgt", " documents", "usermgt", "")
	if len(s) != 2 || s[0] != "documents" || s[1] != "usermgt" {
		t.Fatalf("NewScopes = %v", s)
	}
	if !s.Equal(models.Scopes{"usermgt", "documents"}) || s.Equal(models.Scopes{"usermgt"}) {
		t.Fatal("Equal is wrong")
	}
}
