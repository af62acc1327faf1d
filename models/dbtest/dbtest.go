// Package dbtest gives tests fresh, migrated databases: an SQLite file in a
// temporary directory and, when WASTEFLOW_TEST_DATABASE_URL is set, a new
// database on that PostgreSQL server (made from a migrated template,
// wftpl_<digest of the migrations>, kept between runs). Under CI the
// Postgres URL is required.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
)

// EnvURL names the variable with the PostgreSQL URL for tests.
const EnvURL = "WASTEFLOW_TEST_DATABASE_URL"

// Each runs fn as a subtest per database: "sqlite" and "postgres".
func Each(t *testing.T, fn func(t *testing.T, cfg configs.Database)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// SQLite returns the configuration of a new SQLite file.
func SQLite(t testing.TB) configs.Database {
	path := filepath.Join(t.TempDir(), "test.db")
	return configs.Database{
		URL: "sqlite://" + path, Driver: "sqlite", DSN: path,
		MaxOpenConns: 8, MaxIdleConns: 4, ConnMaxLifetime: time.Hour,
	}
}

// PostgresURL returns the test database URL, skipping the test when none is
// configured and failing it when running under CI.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set, but CI is: storage tests must run on PostgreSQL in CI", EnvURL)
		}
		t.Skipf("%s not set; PostgreSQL tests skipped (run .ci/run or set it)", EnvURL)
	}
	return u
}

// Postgres creates a new, empty database beside the test database (same
// server and user) and returns its configuration. The database is dropped
// afterwards. Open gives it the migrated schema by cloning a template.
func Postgres(t testing.TB) configs.Database {
	t.Helper()
	base := PostgresURL(t)
	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	name := "t_" + hex.EncodeToString(buf)
	admin := adminDB(t, base)
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		t.Fatalf("create database: %v", err)
	}
	fresh.Store(name, true)
	t.Cleanup(func() {
		fresh.Delete(name)
		_ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error
		_ = models.Close(admin)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return configs.Database{URL: u.String(), Driver: "postgres", DSN: u.String(), MaxOpenConns: 20, MaxIdleConns: 20, ConnMaxLifetime: time.Hour}
}

// fresh are the databases Postgres made that nothing has used yet.
var fresh sync.Map

func adminDB(t testing.TB, base string) *gorm.DB {
	t.Helper()
	admin := configs.Database{URL: base, Driver: "postgres", DSN: base, MaxOpenConns: 2, MaxIdleConns: 1, ConnMaxLifetime: time.Hour}
	db, err := models.Open(context.Background(), admin, quiet())
	if err != nil {
		t.Fatalf("connect to test PostgreSQL: %v", err)
	}
	return db
}

// cloneTemplate replaces the fresh database of cfg by a copy of the
// migrated template (a file copy in PostgreSQL: much cheaper than running
// the migrations, which took 1-2 s a database under the race detector).
// It reports false when the database is not fresh any more.
func cloneTemplate(t testing.TB, cfg configs.Database) bool {
	t.Helper()
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return false
	}
	name := strings.TrimPrefix(u.Path, "/")
	if _, ok := fresh.LoadAndDelete(name); !ok {
		return false
	}
	base := PostgresURL(t)
	tpl, err := pgTemplate(base)
	if err != nil {
		t.Fatalf("PostgreSQL template: %v", err)
	}
	admin := adminDB(t, base)
	defer models.Close(admin)
	var users int64
	if err := admin.Raw("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = ?", name).Scan(&users).Error; err != nil || users > 0 {
		return false // someone connected already: migrate it as it is
	}
	if err := admin.Exec("DROP DATABASE " + name).Error; err != nil {
		t.Fatalf("drop the fresh database: %v", err)
	}
	if err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE " + tpl).Error; err != nil {
		t.Fatalf("clone the template: %v", err)
	}
	return true
}

var pgTpl struct {
	once sync.Once
	name string
	err  error
}

// pgTemplate is the migrated template database of this build's
// migrations, made once per server (under an advisory lock, so that test
// processes running at once make it once) and kept for later runs.
func pgTemplate(base string) (string, error) {
	pgTpl.once.Do(func() {
		digest, err := models.MigrationsDigest()
		if err != nil {
			pgTpl.err = err
			return
		}
		name := "wftpl_" + digest
		admin := configs.Database{URL: base, Driver: "postgres", DSN: base, MaxOpenConns: 1, MaxIdleConns: 1, ConnMaxLifetime: time.Hour}
		db, err := models.Open(context.Background(), admin, quiet())
		if err != nil {
			pgTpl.err = err
			return
		}
		defer models.Close(db)
		pgTpl.err = db.Connection(func(c *gorm.DB) error {
			if err := c.Exec("SELECT pg_advisory_lock(7310421777)").Error; err != nil {
				return err
			}
			defer c.Exec("SELECT pg_advisory_unlock(7310421777)")
			var exists bool
			if err := c.Raw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", name).Scan(&exists).Error; err != nil || exists {
				return err
			}
			building := name + "_building"
			if err := c.Exec("DROP DATABASE IF EXISTS " + building + " WITH (FORCE)").Error; err != nil {
				return err
			}
			if err := c.Exec("CREATE DATABASE " + building).Error; err != nil {
				return err
			}
			u, err := url.Parse(base)
			if err != nil {
				return err
			}
			u.Path = "/" + building
			cfg := configs.Database{URL: u.String(), Driver: "postgres", DSN: u.String(), MaxOpenConns: 4, MaxIdleConns: 0, ConnMaxLifetime: time.Hour}
			tdb, err := models.Open(context.Background(), cfg, quiet())
			if err != nil {
				return err
			}
			_, err = models.Migrate(context.Background(), tdb, quiet())
			if cerr := models.Close(tdb); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			// renamed when complete: a template is never half made
			return c.Exec("ALTER DATABASE " + building + " RENAME TO " + name).Error
		})
		pgTpl.name = name
	})
	return pgTpl.name, pgTpl.err
}

// Open connects to cfg, migrates, and closes the pool when the test ends.
// A new SQLite file starts as a copy of one migrated once per test process
// (the same schema, made by the same migrations; the pure-Go SQLite runs
// them slowly under the race detector), then Migrate finds nothing to do.
func Open(t testing.TB, cfg configs.Database) *gorm.DB {
	t.Helper()
	switch cfg.Driver {
	case "sqlite":
		if _, err := os.Stat(cfg.DSN); os.IsNotExist(err) {
			if err := copyTemplate(cfg.DSN); err != nil {
				t.Fatalf("sqlite template: %v", err)
			}
		}
	case "postgres":
		cloneTemplate(t, cfg)
	}
	db, err := models.Open(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Driver, err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	if _, err := models.Migrate(context.Background(), db, quiet()); err != nil {
		t.Fatalf("migrate %s: %v", cfg.Driver, err)
	}
	return db
}

var template struct {
	once sync.Once
	data []byte
	err  error
}

// copyTemplate writes the migrated template database to path.
func copyTemplate(path string) error {
	template.once.Do(func() {
		dir, err := os.MkdirTemp("", "wasteflow-dbtest-")
		if err != nil {
			template.err = err
			return
		}
		defer os.RemoveAll(dir)
		file := filepath.Join(dir, "template.db")
		cfg := configs.Database{URL: "sqlite://" + file, Driver: "sqlite", DSN: file, MaxOpenConns: 2, MaxIdleConns: 2, ConnMaxLifetime: time.Hour}
		db, err := models.Open(context.Background(), cfg, quiet())
		if err != nil {
			template.err = err
			return
		}
		if _, err := models.Migrate(context.Background(), db, quiet()); err != nil {
			template.err = err
			return
		}
		if err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
			template.err = err
			return
		}
		if err := models.Close(db); err != nil {
			template.err = err
			return
		}
		template.data, template.err = os.ReadFile(file)
	})
	if template.err != nil {
		return template.err
	}
	return os.WriteFile(path, template.data, 0o600)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
