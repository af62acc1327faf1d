// Package dbtest gives tests fresh, migrated databases: an SQLite file in a
// temporary directory and, when WASTEFLOW_TEST_DATABASE_URL is set, a new
// schema in that PostgreSQL database. Under CI the Postgres URL is required.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
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

// Postgres creates a fresh schema in the test database and returns a
// configuration whose connections use it. The schema is dropped afterwards.
func Postgres(t testing.TB) configs.Database {
	t.Helper()
	schema, u := fresh(t, "t_", "CREATE SCHEMA %s", "DROP SCHEMA %s CASCADE")
	q := u.Query()
	q.Set("search_path", schema)
	// A test's commits need not wait for the disk: a crash loses a test
	// database anyway. (pgx sends an unknown parameter of the URL to the
	// server as a run-time setting.) The crash tests of make stress run
	// their servers on the configured URL, as production does.
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return configs.Database{URL: u.String(), Driver: "postgres", DSN: u.String(), MaxOpenConns: 20, MaxIdleConns: 20, ConnMaxLifetime: time.Hour}
}

// PostgresDatabase creates a database of its own on the test server (a
// measure of a whole database, as pg_stat_database's, sees no other
// test's work) and returns its configuration. It is dropped afterwards.
func PostgresDatabase(t testing.TB) configs.Database {
	t.Helper()
	name, u := fresh(t, "d_", "CREATE DATABASE %s", "DROP DATABASE %s WITH (FORCE)")
	u.Path = "/" + name
	return configs.Database{URL: u.String(), Driver: "postgres", DSN: u.String(), MaxOpenConns: 20, MaxIdleConns: 20, ConnMaxLifetime: time.Hour}
}

// fresh makes a new object named prefix and 12 random hex digits on the
// test server with create (its name for %s), drops it with drop when the
// test ends, and returns the name and the server's URL.
func fresh(t testing.TB, prefix, create, drop string) (string, *url.URL) {
	t.Helper()
	base := PostgresURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	buf := make([]byte, 6)
	_, _ = rand.Read(buf)
	name := prefix + hex.EncodeToString(buf)
	admin := configs.Database{URL: base, Driver: "postgres", DSN: base, MaxOpenConns: 2, MaxIdleConns: 1, ConnMaxLifetime: time.Hour}
	db, err := models.Open(context.Background(), admin, quiet())
	if err != nil {
		t.Fatalf("connect to test PostgreSQL: %v", err)
	}
	if err := db.Exec(fmt.Sprintf(create, name)).Error; err != nil {
		t.Fatalf("%s: %v", create, err)
	}
	t.Cleanup(func() {
		_ = db.Exec(fmt.Sprintf(drop, name)).Error
		_ = models.Close(db)
	})
	return name, u
}

// Open connects to cfg, migrates, and closes the pool when the test ends.
// A new SQLite file starts as a copy of one migrated once per test process
// (the same schema, made by the same migrations; the pure-Go SQLite runs
// them slowly under the race detector), then Migrate finds nothing to do.
func Open(t testing.TB, cfg configs.Database) *gorm.DB {
	t.Helper()
	if cfg.Driver == "sqlite" {
		if _, err := os.Stat(cfg.DSN); os.IsNotExist(err) {
			if err := copyTemplate(cfg.DSN); err != nil {
				t.Fatalf("sqlite template: %v", err)
			}
		}
	}
	db, err := models.Open(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Driver, err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	if _, err := models.Migrate(context.Background(), db, quiet()); err != nil {
		t.Fatalf("migrate %s: %v", cfg.Driver, err)
	}
	t.Cleanup(func() {
		if AtEnd != nil && !t.Failed() && !skipped(db) {
			AtEnd(t, db)
		}
	})
	return db
}

// AtEnd, when a test package sets it, checks every database Open gave
// out when its test ends, before it is closed (the end-to-end suite, tests/,
// replays every document's trail: issue 46.2). A test that changes stored
// rows behind the server's back on purpose says so with SkipAtEnd.
var AtEnd func(t testing.TB, db *gorm.DB)

var skip sync.Map

// SkipAtEnd exempts db from AtEnd.
func SkipAtEnd(db *gorm.DB) { skip.Store(db, true) }

func skipped(db *gorm.DB) bool {
	_, ok := skip.Load(db)
	return ok
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
