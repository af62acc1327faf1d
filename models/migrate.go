package models

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"strconv"
	"strings"
	"text/template"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/gorm"
)

// Migrations are SQL files written once for both databases: the few types
// that differ are template placeholders, rendered per dialect. goose records
// applied versions in goose_db_version and, on PostgreSQL, holds a session
// advisory lock while migrating so concurrent instances take turns.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type dialectTypes struct {
	ID, Time, Bytes, JSON, Bool string
	// Postgres guards what only PostgreSQL has (triggers that notify).
	Postgres bool
}

var typesByDialect = map[string]dialectTypes{
	"postgres": {ID: "BIGSERIAL PRIMARY KEY", Time: "TIMESTAMPTZ", Bytes: "BYTEA", JSON: "JSONB", Bool: "BOOLEAN", Postgres: true},
	"sqlite":   {ID: "INTEGER PRIMARY KEY AUTOINCREMENT", Time: "DATETIME", Bytes: "BLOB", JSON: "TEXT", Bool: "BOOLEAN"},
}

// Migrator applies and inspects the schema version of one database.
type Migrator struct {
	provider *goose.Provider
}

// NewMigrator prepares the migrations for db's dialect.
func NewMigrator(db *gorm.DB, log *slog.Logger) (*Migrator, error) {
	dialect := Dialect(db)
	types, ok := typesByDialect[dialect]
	if !ok {
		return nil, fmt.Errorf("no migrations for dialect %q", dialect)
	}
	migrations, err := renderMigrations(types)
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{
		goose.WithDisableGlobalRegistry(true),
		goose.WithGoMigrations(migrations...),
	}
	gooseDialect := goose.DialectSQLite3
	if dialect == "postgres" {
		gooseDialect = goose.DialectPostgres
		// Instances of one deployment take turns; deployments in other
		// schemas of the same database do not wait for each other (the
		// lock is keyed by the schema). Poll the advisory lock every second
		// (goose waits 5 s by default).
		id, err := migrationLockID(db)
		if err != nil {
			return nil, err
		}
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(id), lock.WithLockTimeout(1, 300))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts = append(opts, goose.WithSlog(log))
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(gooseDialect, sqlDB, nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("prepare migrations: %w", err)
	}
	return &Migrator{provider: p}, nil
}

// schemaLock is the SQL expression of the advisory lock key named name in
// the connection's schema (the first of its search path that exists): one
// key per schema, so that several deployments, or the tests' schemas, in
// one PostgreSQL database work side by side, while a deployment's
// instances take turns. name is a constant of ours, never a request's.
func schemaLock(name string) string {
	return "hashtextextended('wasteflow." + name + ".' || coalesce(current_schema(), ''), 0)"
}

// migrationLockID is the advisory lock key of migrations in db's schema.
func migrationLockID(db *gorm.DB) (int64, error) {
	var id int64
	err := db.Raw("SELECT " + schemaLock("migrate")).Scan(&id).Error
	if err != nil {
		return 0, fmt.Errorf("migration lock: %w", err)
	}
	return id, nil
}

// Up applies every pending migration and returns the versions applied.
func (m *Migrator) Up(ctx context.Context) ([]int64, error) {
	results, err := m.provider.Up(ctx)
	var applied []int64
	for _, r := range results {
		if r.Error == nil {
			applied = append(applied, r.Source.Version)
		}
	}
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	return applied, nil
}

// UpTo applies the migrations up to version (for tests that seed a
// database as an older release left it; Up is how servers migrate).
func (m *Migrator) UpTo(ctx context.Context, version int64) error {
	if _, err := m.provider.UpTo(ctx, version); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Apply runs the one migration version (for tests that replay a data
// migration over rows they seeded; Up is how servers migrate).
func (m *Migrator) Apply(ctx context.Context, version int64) error {
	if _, err := m.provider.ApplyVersion(ctx, version, true); err != nil {
		return fmt.Errorf("migrate %d: %w", version, err)
	}
	return nil
}

// Versions returns the database's schema version and the newest known one.
func (m *Migrator) Versions(ctx context.Context) (current, target int64, err error) {
	return m.provider.GetVersions(ctx)
}

// Migrate is the common case: apply pending migrations to db.
func Migrate(ctx context.Context, db *gorm.DB, log *slog.Logger) ([]int64, error) {
	m, err := NewMigrator(db, log)
	if err != nil {
		return nil, err
	}
	return m.Up(ctx)
}

func renderMigrations(types dialectTypes) ([]*goose.Migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []*goose.Migration
	for _, name := range names {
		base := path.Base(name)
		version, err := strconv.ParseInt(strings.SplitN(base, "_", 2)[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version number", base)
		}
		raw, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		tmpl, err := template.New(base).Option("missingkey=error").Parse(string(raw))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", base, err)
		}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, types); err != nil {
			return nil, fmt.Errorf("migration %s: %w", base, err)
		}
		statements := splitStatements(buf.String())
		up := &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			for _, stmt := range statements {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migration %s: %w\n%s", base, err, stmt)
				}
			}
			return nil
		}}
		out = append(out, goose.NewGoMigration(version, up, nil))
	}
	jq, err := jobQueueMigration(types)
	if err != nil {
		return nil, err
	}
	out = append(out, jq)
	return out, nil
}

// splitStatements cuts a migration at semicolons that end a line. Our
// migrations' procedural code (a trigger's function) is written on one
// line, so that is enough.
func splitStatements(sqlText string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(sqlText, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			if s := strings.TrimSpace(cur.String()); s != ";" {
				out = append(out, s)
			}
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
