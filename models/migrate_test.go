package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

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

// TestMigrationSplitsTheDocumentsScope: migration 00015 replaces the former
// umbrella scope "documents" with the scopes operations check, in
// applications, accounts and sessions alike, and leaves other scopes be.
func TestMigrationSplitsTheDocumentsScope(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		ctx := context.Background()
		db, err := models.Open(ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer models.Close(db)
		m, err := models.NewMigrator(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.UpTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(db.Omit("Settings").Create(&models.Provider{ID: "p", Environment: "development", Name: "P"}).Error) // settings came with 28
		// the columns of migration 14 (the party details came with 27)
		must(db.Select("ProviderID", "ID", "Kind", "Name", "Country", "Region", "CreatedAt", "UpdatedAt").
			Create(&models.Organisation{ProviderID: "p", ID: "o", Kind: "company", Name: "O", Country: "DE"}).Error)
		app := models.Application{ProviderID: "p", Name: "ui", AppTokenHash: "h", Scopes: models.Scopes{"documents", "usermgt"}}
		must(db.Create(&app).Error)
		acc := models.Account{ProviderID: "p", OrganisationID: "o", Username: "u", PasswordHash: "x", Scopes: models.Scopes{"documents"}, PasswordChangedAt: now}
		must(db.Create(&acc).Error)
		other := models.Account{ProviderID: "p", OrganisationID: "o", Username: "v", PasswordHash: "x", Scopes: models.Scopes{"usermgt"}, PasswordChangedAt: now}
		must(db.Create(&other).Error)
		must(db.Create(&models.Session{ID: "s", ProviderID: "p", AccountID: acc.ID, ApplicationID: app.ID, CredentialType: "USERNAME_PASSWORD",
			Scopes: models.Scopes{"documents"}, CreatedAt: now, LastUsedAt: now, ExpiresAt: now.Add(time.Hour)}).Error)
		if _, err := m.Up(ctx); err != nil {
			t.Fatal(err)
		}
		split := models.Scopes{"documents:read", "documents:write", "signing", "transport"}
		var gotApp models.Application
		var gotAcc, gotOther models.Account
		var gotSess models.Session
		must(db.First(&gotApp, app.ID).Error)
		must(db.First(&gotAcc, acc.ID).Error)
		must(db.First(&gotOther, other.ID).Error)
		must(db.First(&gotSess, "id = ?", "s").Error)
		if !gotApp.Scopes.Equal(append(split, "usermgt")) || !gotAcc.Scopes.Equal(split) || !gotSess.Scopes.Equal(split) || !gotOther.Scopes.Equal(models.Scopes{"usermgt"}) {
			t.Fatalf("after 00015: app %v, account %v, session %v, other %v", gotApp.Scopes, gotAcc.Scopes, gotSess.Scopes, gotOther.Scopes)
		}
	})
}
