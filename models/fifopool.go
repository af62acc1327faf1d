package models

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// database/sql hands a connection given back to a random one of the
// goroutines waiting for it (connRequestSet.TakeRandom), so under load a
// transaction can lose the draw many times over and wait many times as
// long as the others: the tail of a busy server was the draw's (at 64
// clients over 20 connections a transition waited 104 ms for the pool on
// average, and its 99th percentile was 1.8 times the floor's). The FIFO
// pool puts transactions in line instead: one takes a slot before BEGIN
// and gives it back at COMMIT or ROLLBACK, and the slots are fewer than
// the connections, so a transaction that holds a slot finds a connection
// free, and the statements outside transactions (reads, the sequencer's
// probe) still find one beside them. A channel serves its blocked senders
// in the order they came.

// fifoPool is the PostgreSQL pool as gorm sees it: db, with its
// transactions in line for slots.
type fifoPool struct {
	*sql.DB
	slots chan struct{}
	// waiting counts the transactions in line now; waits and waited
	// those that found no slot free and the time they waited, since it
	// opened (TransactionLine)
	waiting, waits, waited atomic.Int64
}

// newFIFOPool is db with transactions admitted first come, first served,
// at most size at a time.
func newFIFOPool(db *sql.DB, size int) *fifoPool {
	return &fifoPool{DB: db, slots: make(chan struct{}, size)}
}

// txSlots is how many transactions run at once on a pool of open
// connections: a quarter of them (at least one) is left to the statements
// outside transactions.
func txSlots(open int) int { return max(open-max(open/4, 1), 1) }

// Line is what a pool's transactions waited in line (TransactionLine):
// how many wait now, how many waited since the pool opened, and for how
// long in all.
type Line struct {
	Waiting, Waits int64
	Waited         time.Duration
}

// TransactionLine is the line of db's transactions; ok is false where
// they do not wait in line (SQLite: its writers wait at the write gate).
func TransactionLine(db *gorm.DB) (l Line, ok bool) {
	p, ok := db.Config.ConnPool.(*fifoPool)
	if !ok {
		return Line{}, false
	}
	return p.line(), true
}

func (p *fifoPool) line() Line {
	return Line{Waiting: p.waiting.Load(), Waits: p.waits.Load(), Waited: time.Duration(p.waited.Load())}
}

// GetDBConn is the pool itself (gorm's DB()).
func (p *fifoPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

// BeginTx waits for a slot (in the order the transactions came, or until
// ctx ends), then begins.
func (p *fifoPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	select {
	case p.slots <- struct{}{}:
	default: // in line
		start := time.Now()
		p.waiting.Add(1)
		select {
		case p.slots <- struct{}{}:
			p.waiting.Add(-1)
		case <-ctx.Done():
			p.waiting.Add(-1)
			return nil, ctx.Err()
		}
		p.waits.Add(1)
		p.waited.Add(int64(time.Since(start)))
	}
	tx, err := p.DB.BeginTx(ctx, opts)
	if err != nil {
		<-p.slots
		return nil, err
	}
	t := &fifoTx{Tx: tx, slots: p.slots}
	// database/sql rolls back a transaction whose context ends: its slot
	// goes back then too
	t.stop = context.AfterFunc(ctx, t.release)
	return t, nil
}

// fifoTx is a transaction holding its slot until it ends.
type fifoTx struct {
	*sql.Tx
	slots chan struct{}
	once  sync.Once
	stop  func() bool
}

// SQLTx is the transaction itself, for what takes a *sql.Tx (the job
// queue's inserts).
func (t *fifoTx) SQLTx() *sql.Tx { return t.Tx }

func (t *fifoTx) Commit() error {
	defer t.end()
	return t.Tx.Commit()
}

func (t *fifoTx) Rollback() error {
	defer t.end()
	return t.Tx.Rollback()
}

func (t *fifoTx) end() {
	t.stop()
	t.release()
}

// release gives the slot back once (gorm may roll back after a failed
// commit).
func (t *fifoTx) release() {
	t.once.Do(func() { <-t.slots })
}
