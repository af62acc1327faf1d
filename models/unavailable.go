package models

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err is the database's failure, not the
// request's: a connection that could not be made or broke mid-statement,
// a server shutting down or out of connections, SQLite's write lock held
// too long. Such a request may succeed when retried (503, Retry-After).
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // admin shutdown, crash shutdown, cannot connect now
			pe.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, errGateTimeout) || pgconn.SafeToRetry(err) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "connection reset", "broken pipe", "unexpected EOF", "database is locked", "connection refused", "server closed the connection", "sql: database is closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
