// Package models holds the gorm entities, the repositories over them and the
// versioned schema migrations, for PostgreSQL and the embedded SQLite.
package models

import (
	"context"
	"net"
	"syscall"

	"errors"
	"fmt"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/wasteflow/wasteflow/configs"
)

// ErrNotFound is returned by repositories for a missing row; workflows
// translate it.
var ErrNotFound = errors.New("not found")

// Dialect names the SQL dialect of an open database.
func Dialect(db *gorm.DB) string { return db.Dialector.Name() }

// IsPostgres reports whether db talks to PostgreSQL.
func IsPostgres(db *gorm.DB) bool { return Dialect(db) == "postgres" }

// slowStatement is how long a statement runs before it is logged.
const slowStatement = 500 * time.Millisecond

// How connections to PostgreSQL find out that the network failed: a
// connection attempt gives up after dialTimeout; an idle connection is
// probed every keepAlive; data unacknowledged for deadPeer (a probe's
// included) fails the connection (Linux), so a request on it answers 503
// instead of hanging, and the pool replaces it.
const (
	dialTimeout = 5 * time.Second
	keepAlive   = 5 * time.Second
	deadPeer    = 10 * time.Second
)

func dialDatabase(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: keepAlive, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = userTimeout(fd, int(deadPeer/time.Millisecond)) }); err != nil {
			return err
		}
		return serr
	}}
	return d.DialContext(ctx, network, addr)
}

// Open connects to the configured database. It does not migrate.
func Open(ctx context.Context, cfg configs.Database, log *slog.Logger) (*gorm.DB, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var dialector gorm.Dialector
	switch cfg.Driver {
	case "postgres":
		pc, err := pgx.ParseConfig(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("database URL: %w", err)
		}
		pc.DialFunc = dialDatabase
		// Statements run prepared: pgx's default mode keeps each one
		// prepared on its connection after its first use (its statement
		// cache; TestHotStatementsArePrepared). gorm's PrepareStmt stays
		// off: it prepares them again through database/sql, once per
		// transaction, and made transitions about 40 % slower (measured,
		// development.md "Speed").
		dialector = postgres.New(postgres.Config{Conn: newFIFOPool(stdlib.OpenDB(*pc), txSlots(cfg.MaxOpenConns))})
	case "sqlite":
		if dir := filepath.Dir(cfg.DSN); dir != "" {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
		// WAL lets readers run beside the writer; BEGIN IMMEDIATE takes the
		// write lock up front so two transactions never deadlock upgrading a
		// read lock; the writers of this process wait in line at a gate
		// (sqlitequeue.go), and busy_timeout covers other processes.
		conn, err := openQueuedSQLite(cfg.DSN + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
			"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate")
		if err != nil {
			return nil, fmt.Errorf("open sqlite database: %w", err)
		}
		dialector = sqlite.Dialector{Conn: conn}
	default:
		return nil, fmt.Errorf("unknown database driver %q", cfg.Driver)
	}
	db, err := gorm.Open(dialector, &gorm.Config{
		TranslateError: true,
		NowFunc:        func() time.Time { return time.Now().UTC() },
		Logger: quietTrace{Interface: logger.NewSlogLogger(log, logger.Config{
			SlowThreshold:             slowStatement,
			LogLevel:                  logger.Warn,
			IgnoreRecordNotFoundError: true,
			ParameterizedQueries:      true, // never log values: they may be secrets
		}), slow: slowStatement},
	})
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", cfg.Driver, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(cfg.MaxOpenConns)
	sqlDB.SetMaxIdleConns(cfg.MaxIdleConns)
	sqlDB.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	sqlDB.SetConnMaxIdleTime(cfg.ConnMaxIdleTime) // 0: as long as the lifetime
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("connect to %s database: %w", cfg.Driver, err)
	}
	return db, nil
}

// Close closes the connection pool of db.
func Close(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// errDryRun rolls back DryRun's transaction.
var errDryRun = errors.New("dry run")

// DryRun runs fn in one transaction and rolls it back whatever fn did:
// what a change would do, with nothing written.
func DryRun(db *gorm.DB, fn func(tx *gorm.DB) error) error {
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}
