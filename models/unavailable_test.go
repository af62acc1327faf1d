package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestIsUnavailable(t *testing.T) {
	for _, err := range []error{
		&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		&pgconn.PgError{Code: "08006"},
		&pgconn.PgError{Code: "53300"},
		fmt.Errorf("begin: %w", driver.ErrBadConn),
		fmt.Errorf("read: %w", io.ErrUnexpectedEOF),
		&net.OpError{Op: "dial", Err: errors.New("connection refused")},
		errors.New("conn closed"),
		fmt.Errorf("tx: %w", errGateTimeout),
	} {
		if !IsUnavailable(err) {
			t.Errorf("%v: not unavailable", err)
		}
	}
	for _, err := range []error{
		&pgconn.PgError{Code: "23505"}, // unique violation: the request's
		errors.New("record not found"),
		context.Canceled,
		nil,
	} {
		if IsUnavailable(err) {
			t.Errorf("%v: unavailable", err)
		}
	}
}
