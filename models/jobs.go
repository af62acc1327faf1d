package models

// The durable job queue: River (github.com/riverqueue/river)
// on the server's own database, PostgreSQL through its database/sql
// driver (riverdatabasesql) and the embedded SQLite through riversqlite.
// A job is a row inserted in the same transaction as the work it stands
// for; any instance works it; a job whose instance dies is rescued
// (RescueAfter) and worked again. The kinds of work register their
// workers before Start.

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
)

// JobConfig tunes the job queue.
type JobConfig struct {
	// Workers is how many jobs this instance works at once.
	Workers int
	// Poll is how often an idle instance looks for jobs (the database/sql
	// drivers have no LISTEN: the queue polls).
	Poll time.Duration
	// JobTimeout bounds one run of a job; RescueAfter is when a job still
	// marked running (its instance died) is worked again. RescueAfter
	// must exceed JobTimeout.
	JobTimeout, RescueAfter time.Duration
	// Queues are further queues by name with how many jobs of each this
	// instance works at once (beside the default queue's Workers).
	Queues map[string]int
}

// JobQueue is the job queue of one process.
type JobQueue struct {
	db      *gorm.DB
	client  *river.Client[*sql.Tx]
	driver  riverdriver.Driver[*sql.Tx]
	workers *river.Workers
	cfg     JobConfig
	log     *slog.Logger
	started bool
	working bool // the client works the queue (else it only inserts)
}

// New prepares the queue over db (gorm's; its dialect picks the driver).
// Register workers with Add before Start.
func NewJobQueue(db *gorm.DB, cfg JobConfig, log *slog.Logger) (*JobQueue, error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	driver, err := JobDriver(db.Dialector.Name(), sqlDB)
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
		log = slog.New(slog.DiscardHandler)
	}
	// River's own lines below warnings (its starts and stops, its poll
	// mode) stay out of the server's log.
	log = slog.New(warnings{log.Handler()})
	return &JobQueue{db: db, driver: driver, workers: river.NewWorkers(), cfg: cfg, log: log}, nil
}

// Add registers the worker of one job kind.
func AddWorker[T river.JobArgs](q *JobQueue, w river.Worker[T]) {
	river.AddWorker(q.workers, w)
}

// ensure makes the River client: one that only inserts, or one that
// works the default queue too (its workers registered by then).
func (q *JobQueue) ensure(work bool) error {
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
		// River logs a job's error as its text: one from the database
		// goes through LogSafe first, without the values it may quote.
		Middleware: []rivertype.Middleware{river.WorkerMiddlewareFunc(func(ctx context.Context, _ *rivertype.JobRow, work func(context.Context) error) error {
			return LogSafe(work(ctx))
		})},
	}
	if work {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: q.cfg.Workers}}
		for name, n := range q.cfg.Queues {
			cfg.Queues[name] = river.QueueConfig{MaxWorkers: max(n, 1)}
		}
	}
	c, err := river.NewClient(q.driver, cfg)
	if err != nil {
		return err
	}
	q.client, q.working = c, work
	return nil
}

// Start works jobs until Stop.
func (q *JobQueue) Start(ctx context.Context) error {
	if err := q.ensure(true); err != nil {
		return err
	}
	q.started = true
	return q.client.Start(ctx)
}

// Stop waits for the running jobs (up to ctx), then cancels them: a
// cancelled job is worked again by the next instance.
func (q *JobQueue) Stop(ctx context.Context) error {
	if q.client == nil || !q.started {
		return nil
	}
	err := q.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return q.client.StopAndCancel(context.Background())
	}
	return err
}

// InsertTx enqueues a job in the transaction ctx carries (Tx of a store,
// or a request's): the job exists if and only if it commits.
func (q *JobQueue) InsertTx(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	if err := q.ensure(false); err != nil {
		return 0, err
	}
	tx := Conn(ctx, q.db)
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
func (q *JobQueue) Cancel(ctx context.Context, id int64) error {
	if err := q.ensure(false); err != nil {
		return err
	}
	_, err := q.client.JobCancel(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil
	}
	return err
}

// JobSnooze is what a worker returns to be worked again at once (a job done
// in slices: each run short, none lost to a kill but its own slice).
func JobSnooze() error { return river.JobSnooze(0) }

// warnings passes on the records of Warn and above.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(as)} }

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }

// Retry makes job id available at once (a scheduled or retryable job, or
// a finished one run again); a running job is left alone.
func (q *JobQueue) Retry(ctx context.Context, id int64) error {
	if err := q.ensure(false); err != nil {
		return err
	}
	_, err := q.client.JobRetry(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
