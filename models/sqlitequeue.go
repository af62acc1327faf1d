package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
	"time"
)

// SQLite takes one writer at a time. Left to itself, every other
// transaction's BEGIN IMMEDIATE fails with SQLITE_BUSY and its busy handler
// sleeps and retries (up to 100 ms a sleep): under load the waiters wake in
// no order and the tail latency is the sleeps'. The queued connector makes
// the writers of this process wait in line instead: a transaction takes
// the gate before BEGIN and gives it back at COMMIT or ROLLBACK, so at most
// one of them asks SQLite for the write lock and the rest wait in FIFO
// order, woken the moment it is free. Reads outside transactions do not
// take the gate (WAL lets them run beside the writer). Another process on
// the same file still meets the busy handler, as before.

// gateWait bounds the wait for the gate, like busy_timeout bounds SQLite's.
const gateWait = 10 * time.Second

// errGateTimeout is what a transaction that waited too long gets: the same
// meaning as SQLite's "database is locked".
var errGateTimeout = errors.New("database is locked: another transaction held the write gate for too long")

type queuedConnector struct {
	dsn  string
	base driver.Driver
	gate chan struct{}
}

// openQueuedSQLite opens dsn with the SQLite driver behind one write gate.
func openQueuedSQLite(dsn string) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	base := probe.Driver()
	_ = probe.Close()
	return sql.OpenDB(&queuedConnector{dsn: dsn, base: base, gate: make(chan struct{}, 1)}), nil
}

func (c *queuedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.base.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &queuedConn{Conn: conn, gate: c.gate}, nil
}

func (c *queuedConnector) Driver() driver.Driver { return c.base }

type queuedConn struct {
	driver.Conn
	gate chan struct{}
}

func (c *queuedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *queuedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	timer := time.NewTimer(gateWait)
	defer timer.Stop()
	select {
	case c.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, errGateTimeout
	}
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		<-c.gate
		return nil, errors.New("the SQLite driver does not implement BeginTx")
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		<-c.gate
		return nil, err
	}
	return &queuedTx{Tx: tx, gate: c.gate}, nil
}

func (c *queuedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.Conn.Prepare(query)
}

func (c *queuedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := c.Conn.(driver.ExecerContext); ok {
		return e.ExecContext(ctx, query, args)
	}
	return nil, driver.ErrSkip
}

func (c *queuedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if q, ok := c.Conn.(driver.QueryerContext); ok {
		return q.QueryContext(ctx, query, args)
	}
	return nil, driver.ErrSkip
}

func (c *queuedConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

type queuedTx struct {
	driver.Tx
	gate chan struct{}
	once sync.Once
}

func (t *queuedTx) Commit() error {
	defer t.release()
	return t.Tx.Commit()
}

func (t *queuedTx) Rollback() error {
	defer t.release()
	return t.Tx.Rollback()
}

func (t *queuedTx) release() { t.once.Do(func() { <-t.gate }) }
