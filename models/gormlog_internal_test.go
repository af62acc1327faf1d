package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

func TestQuietTraceLogsWhatGormsLoggerWould(t *testing.T) {
	var out bytes.Buffer
	q := quietTrace{Interface: logger.NewSlogLogger(slog.New(slog.NewTextHandler(&out, nil)), logger.Config{
		SlowThreshold: slowStatement, LogLevel: logger.Warn, IgnoreRecordNotFoundError: true, ParameterizedQueries: true,
	}), slow: slowStatement}
	rendered := 0
	trace := func(l logger.Interface, name string, took time.Duration, err error) {
		l.Trace(context.Background(), time.Now().Add(-took), func() (string, int64) { rendered++; return "SELECT " + name, 1 }, err)
	}
	trace(q, "fast", time.Millisecond, nil)
	trace(q, "missing", time.Millisecond, logger.ErrRecordNotFound)
	if rendered != 0 || out.Len() != 0 {
		t.Fatalf("a fast statement was rendered (%d) or logged: %s", rendered, out.String())
	}
	trace(q, "slow", 2*slowStatement, nil)
	trace(q, "failed", time.Millisecond, errors.New("boom"))
	for _, want := range []string{"SELECT slow", "SELECT failed", "boom"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("%q not logged: %s", want, out.String())
		}
	}
	out.Reset()
	trace(q.LogMode(logger.Info), "debug", time.Millisecond, nil) // db.Debug()
	if !strings.Contains(out.String(), "SELECT debug") {
		t.Fatalf("in Info mode a statement is not logged: %s", out.String())
	}
}

// Issue 44.7: gorm renders a statement's values unless the session's own
// logger says not to (gorm.ParamsFilter); the wrappers say it, and a
// database's message that quotes a value is logged without it.
func TestLoggersLeaveValuesOut(t *testing.T) {
	inner := logger.NewSlogLogger(slog.New(slog.DiscardHandler), logger.Config{LogLevel: logger.Warn}) // renders values
	for _, l := range []logger.Interface{quietTrace{Interface: inner}, duplicatesExpected{quietTrace{Interface: inner}}, quietTrace{Interface: inner}.LogMode(logger.Info)} {
		f, ok := l.(gorm.ParamsFilter)
		if !ok {
			t.Fatalf("%T does not filter the values", l)
		}
		if _, vars := f.ParamsFilter(context.Background(), "INSERT x VALUES (?)", "secret"); len(vars) != 0 {
			t.Fatalf("%T passes the values on: %v", l, vars)
		}
	}
	for err, want := range map[error]string{
		&pgconn.PgError{Severity: "ERROR", Code: "22P02", Message: `invalid input syntax for type integer: "secret"`}: "ERROR: (its message may quote a value; left out) (SQLSTATE 22P02)",
		fmt.Errorf("wrapped: %w", &pgconn.PgError{Severity: "ERROR", Code: "23505", Message: `duplicate key value violates unique constraint "u"`,
			Detail: "Key (name)=(secret) already exists.", ConstraintName: "u", TableName: "t"}): `ERROR: duplicate key value violates unique constraint "u" (SQLSTATE 23505, constraint u, table t)`,
		errors.New(`failed to encode args[3]: unable to encode "secret" into binary format for int8`): "failed to encode args[3]: (the argument is left out)",
	} {
		got := LogSafe(err)
		if got.Error() != want || strings.Contains(got.Error(), "secret") {
			t.Errorf("LogSafe(%v) = %q, want %q", err, got, want)
		}
		var pe *pgconn.PgError
		if strings.Contains(err.Error(), "SQLSTATE") && !errors.As(got, &pe) {
			t.Errorf("LogSafe(%v) hides the cause", err)
		}
	}
}
