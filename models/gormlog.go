package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm/logger"
)

// quietTrace is gorm's logger at level Warn without its cost on every
// statement: gorm's own Trace renders the statement (its SQL, with the
// parameters' placeholders) before it decides whether to log it, about 3 %
// of a request's CPU; this one asks first, and passes only the statements
// it logs (errors other than a missing row, the slow ones) on.
//
// It never logs a statement's values (they may be a document's contents,
// a secret's hash, a password's): gorm asks the session's logger itself
// whether to render them (gorm.ParamsFilter), so the wrapper answers
// "no" whatever the logger inside it says, and the error it passes on is
// LogSafe's, without the values a database's message may quote.
type quietTrace struct {
	logger.Interface
	slow  time.Duration
	level logger.LogLevel // 0: Warn; Info (db.Debug()) passes every statement on
}

func (q quietTrace) LogMode(level logger.LogLevel) logger.Interface {
	return quietTrace{Interface: q.Interface.LogMode(level), slow: q.slow, level: level}
}

func (q quietTrace) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	failed := err != nil && !errors.Is(err, logger.ErrRecordNotFound)
	if q.level < logger.Info && !failed && (q.slow == 0 || time.Since(begin) <= q.slow) {
		return
	}
	if err != nil && !errors.Is(err, logger.ErrRecordNotFound) {
		err = LogSafe(err)
	}
	q.Interface.Trace(ctx, begin, fc, err)
}

// ParamsFilter leaves every statement's values out of the log: the SQL is
// logged with its placeholders.
func (quietTrace) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}

// safeError is an error as a log line may show it.
type safeError struct {
	msg   string
	cause error
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.cause }

// LogSafe is err as a log line may carry it: without the values of a
// statement. PostgreSQL quotes a value in the message of a data exception
// (class 22: "invalid input syntax for type json: ..."), and of an
// internal error or a raised exception (XX, P0); pgx quotes the argument
// it cannot encode. Those messages are replaced by their SQLSTATE and the
// names of the constraint, table and column; a message that names only
// these (a unique or foreign-key violation, a serialisation failure) is
// kept; the detail and the hint, which quote the row, never are.
// errors.Is and errors.As still reach err.
func LogSafe(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*safeError); ok {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		var b strings.Builder
		switch class := pe.Code[:min(2, len(pe.Code))]; class {
		case "22", "XX", "P0":
			fmt.Fprintf(&b, "%s: (its message may quote a value; left out)", pe.Severity)
		default:
			fmt.Fprintf(&b, "%s: %s", pe.Severity, pe.Message)
		}
		fmt.Fprintf(&b, " (SQLSTATE %s", pe.Code)
		for _, n := range [][2]string{{"constraint", pe.ConstraintName}, {"table", pe.TableName}, {"column", pe.ColumnName}} {
			if n[1] != "" {
				fmt.Fprintf(&b, ", %s %s", n[0], n[1])
			}
		}
		b.WriteString(")")
		return &safeError{msg: b.String(), cause: err}
	}
	msg := err.Error()
	if i := strings.Index(msg, "failed to encode args["); i >= 0 { // pgx: "...: unable to encode <value> into ..."
		end := strings.Index(msg[i:], "]")
		return &safeError{msg: msg[:i+end+1] + ": (the argument is left out)", cause: err}
	}
	return err
}
