// Package jobs is the durable job queue: River (github.com/riverqueue/river)
// on the server's own database, PostgreSQL through its database/sql
// driver (riverdatabasesql) and the embedded SQLite through riversqlite.
// A job is a row inserted in the same transaction as the work it stands
// for; any instance works it; a job whose instance dies is rescued
// (RescueAfter) and worked again. The kinds of work register their
// workers before Start.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
)

// Config tunes the queue.
type Config struct {
	// Workers is how many jobs this instance works at once.
	Workers int
	// Poll is how often an idle instance looks for jobs (the database/sql
	// drivers have no LISTEN: the queue polls).
	Poll time.Duration
	// JobTimeout bounds one run of a job; RescueAfter is when a job still
	// marked running (its instance died) is worked again. RescueAfter
	// must exceed JobTimeout.
	JobTimeout, RescueAfter time.Duration
}

// Queue is the job queue of one process.
type Queue struct {
	client  *river.Client[*sql.Tx]
	driver  riverdriver.Driver[*sql.Tx]
	workers *river.Workers
	cfg     Config
	log     *slog.Logger
	started bool
	working bool // the client works the queue (else it only inserts)
}

// New prepares the queue over db (gorm's; its dialect picks the driver).
// Register workers with Add before Start.
func New(db *gorm.DB, cfg Config, log *slog.Logger) (*Queue, error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	driver, err := models.JobDriver(db.Dialector.Name(), sqlDB)
	if err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = time.Minute
	}
	if cfg.RescueAfter <= cfg.JobTimeout {
		cfg.RescueAfter = cfg.JobTimeout + time.Minute
	}
	if log == nil {
		log = slog.Default()
	}
	return &Queue{driver: driver, workers: river.NewWorkers(), cfg: cfg, log: log}, nil
}

// Add registers the worker of one job kind.
func Add[T river.JobArgs](q *Queue, w river.Worker[T]) {
	river.AddWorker(q.workers, w)
}

// ensure makes the River client: one that only inserts, or one that
// works the default queue too (its workers registered by then).
func (q *Queue) ensure(work bool) error {
	if q.client != nil && (q.working || !work) {
		return nil
	}
	cfg := &river.Config{
		Logger:               q.log.With("component", "jobs"),
		PollOnly:             true,
		FetchPollInterval:    q.cfg.Poll,
		FetchCooldown:        min(q.cfg.Poll, 100*time.Millisecond),
		JobTimeout:           q.cfg.JobTimeout,
		RescueStuckJobsAfter: q.cfg.RescueAfter,
		Workers:              q.workers,
	}
	if work {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: q.cfg.Workers}}
	}
	c, err := river.NewClient(q.driver, cfg)
	if err != nil {
		return err
	}
	q.client, q.working = c, work
	return nil
}

// Start works jobs until Stop.
func (q *Queue) Start(ctx context.Context) error {
	if err := q.ensure(true); err != nil {
		return err
	}
	q.started = true
	return q.client.Start(ctx)
}

// Stop waits for the running jobs (up to ctx), then cancels them: a
// cancelled job is worked again by the next instance.
func (q *Queue) Stop(ctx context.Context) error {
	if q.client == nil || !q.started {
		return nil
	}
	err := q.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return q.client.StopAndCancel(context.Background())
	}
	return err
}

// InsertTx enqueues a job in tx, gorm's transaction: the job exists if
// and only if tx commits.
func (q *Queue) InsertTx(ctx context.Context, tx *gorm.DB, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	if err := q.ensure(false); err != nil {
		return 0, err
	}
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return 0, fmt.Errorf("jobs: %T is not a database/sql transaction", tx.Statement.ConnPool)
	}
	res, err := q.client.InsertTx(ctx, sqlTx, args, opts)
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

// Cancel asks for job id to stop: a queued job never runs; a running one
// sees its context cancelled (on this instance; on another, at its next
// check of its own state).
func (q *Queue) Cancel(ctx context.Context, id int64) error {
	if err := q.ensure(false); err != nil {
		return err
	}
	_, err := q.client.JobCancel(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil
	}
	return err
}

// Snooze is what a worker returns to be worked again at once (a job done
// in slices: each run short, none lost to a kill but its own slice).
func Snooze() error { return river.JobSnooze(0) }
