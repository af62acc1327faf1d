package models_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Transactions on PostgreSQL wait in line (models/fifopool.go): with one
// slot, those that came while another ran begin in the order they came,
// each once the one before it ended; one whose context ends while it
// waits gives up without a slot, and one whose context ends while it runs
// gives its slot back (database/sql rolls it back). The server's own pool
// is in line too: a job inserted in a request's transaction still finds
// the *sql.Tx beneath.
func TestTransactionsWaitInLine(t *testing.T) {
	db := dbtest.Open(t, dbtest.Postgres(t))
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(models.TxSlots(20), models.TxSlots(4), models.TxSlots(2)); got != "15 3 1" {
		t.Fatalf("slots of 20, 4 and 2 connections: %s", got)
	}
	pool := models.NewFIFOPool(sqlDB, 1)
	ctx := context.Background()
	begin := func(ctx context.Context) (gorm.TxCommitter, error) {
		tx, err := pool.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return tx.(gorm.TxCommitter), nil
	}
	first, err := begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, err := begin(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			if err := tx.Commit(); err != nil {
				t.Error(err)
			}
		}()
		for deadline := time.Now().Add(10 * time.Second); pool.Line().Waiting != int64(i+1); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) { // each in line before the next comes
				t.Fatalf("transaction %d not in line: %+v", i, pool.Line())
			}
		}
		time.Sleep(2 * time.Millisecond) // counted a moment before it blocks on the line's channel
	}
	// A waiter whose context ends gives up and takes no slot.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := begin(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiter whose context ended: %v", err)
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if fmt.Sprint(order) != "[0 1 2 3 4 5 6 7]" {
		t.Fatalf("the waiting transactions began in the order %v, not the order they came", order)
	}
	if l := pool.Line(); l.Waits != 8 || l.Waiting != 0 || l.Waited <= 0 { // the one that gave up is not counted
		t.Fatalf("after the line: %+v, want 8 waits, none waiting", l)
	}
	if _, ok := models.TransactionLine(db); !ok {
		t.Fatal("the server's pool does not count its transactions' waits")
	}
	// A transaction whose context ends gives its slot back.
	running, stop := context.WithCancel(ctx)
	if _, err := begin(running); err != nil {
		t.Fatal(err)
	}
	stop()
	again, cancelAgain := context.WithTimeout(ctx, 5*time.Second)
	defer cancelAgain()
	tx, err := begin(again)
	if err != nil {
		t.Fatalf("the slot of a transaction whose context ended was not given back: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// gorm's own transactions take the *sql.Tx the job queue needs.
	if err := db.Transaction(func(tx *gorm.DB) error {
		if _, ok := tx.Statement.ConnPool.(interface{ SQLTx() *sql.Tx }); !ok {
			return fmt.Errorf("the server's transaction is a %T, not one in line", tx.Statement.ConnPool)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
