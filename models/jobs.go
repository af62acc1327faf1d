package models

// The durable job queue: River (github.com/riverqueue/river)
// on the server's own database, PostgreSQL through its database/sql
// driver (riverdatabasesql) and the embedded SQLite through riversqlite.
// On PostgreSQL the queue listens (JobConfig.ListenDSN: one connection of
// River's own, riverdatabasesql.NewWithPgxListener): a job inserted by any
// instance wakes the instances' queues at commit, and the queue reads the
// database only as a slow safety poll while nothing happens.
// A job is a row inserted in the same transaction as the work it stands
// for; any instance works it; a job whose instance dies is rescued
// (RescueAfter) and worked again. The kinds of work register their
// workers before Start.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
	"gorm.io/gorm"
)

// JobConfig tunes the job queue.
type JobConfig struct {
	// Workers is how many jobs this instance works at once.
	Workers int
	// Poll is how often an idle instance looks for jobs when it does not
	// listen (SQLite, or no ListenDSN); listening, it looks every
	// JobSafetyPoll (or Poll, if longer) in case a notification was lost.
	Poll time.Duration
	// ListenDSN, on PostgreSQL, is the database URL of the connection River
	// listens on: new jobs, leader changes, cancellations and pauses are
	// heard at once instead of polled for. Empty: the queue polls (as
	// behind a pooler in transaction mode, where LISTEN does not work).
	ListenDSN string
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
	// listen is the pool River takes its listening connection from (nil:
	// the queue polls).
	listen *pgxpool.Pool
}

// JobSafetyPoll is how often a listening queue looks for jobs without
// being told (a notification lost while its connection was down).
const JobSafetyPoll = 10 * time.Second

// jobListenApplicationName names River's listening connection in
// pg_stat_activity.
const jobListenApplicationName = "wasteflow-job-feed"

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
	var listen *pgxpool.Pool
	if cfg.ListenDSN != "" && db.Dialector.Name() == "postgres" {
		pc, err := pgxpool.ParseConfig(cfg.ListenDSN)
		if err != nil {
			return nil, fmt.Errorf("jobs: the listening connection: %w", LogSafe(err))
		}
		// River takes one connection for LISTEN and keeps it; the pool is
		// for nothing else.
		pc.MinConns, pc.MaxConns = 0, 1
		pc.ConnConfig.RuntimeParams["application_name"] = jobListenApplicationName
		if listen, err = pgxpool.NewWithConfig(context.Background(), pc); err != nil {
			return nil, fmt.Errorf("jobs: the listening connection: %w", LogSafe(err))
		}
		driver = riverdatabasesql.NewWithPgxListener(sqlDB, listen)
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
	return &JobQueue{db: db, driver: driver, workers: river.NewWorkers(), cfg: cfg, log: log, listen: listen}, nil
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
	// Polling, the queue looks every Poll, at most every 100 ms after a
	// fetch. Listening, a fetch follows each insert's announcement (at most
	// every 10 ms; one that comes sooner causes a fetch at the end of
	// those 10 ms), and the queue looks on its own every JobSafetyPoll.
	poll, cooldown := q.cfg.Poll, min(q.cfg.Poll, 100*time.Millisecond)
	if q.listen != nil {
		poll, cooldown = max(q.cfg.Poll, JobSafetyPoll), 10*time.Millisecond
	}
	cfg := &river.Config{
		Logger:               q.log.With("component", "jobs"),
		PollOnly:             q.listen == nil,
		FetchPollInterval:    poll,
		FetchCooldown:        cooldown,
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
	if q.listen != nil {
		defer q.listen.Close() // after the client: stopping it closes the listening connection
	}
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
	var sqlTx *sql.Tx
	switch c := tx.Statement.ConnPool.(type) {
	case *sql.Tx:
		sqlTx = c
	case interface{ SQLTx() *sql.Tx }: // in line for a slot (fifopool.go)
		sqlTx = c.SQLTx()
	}
	if sqlTx == nil {
		return 0, fmt.Errorf("jobs: %T is not a database/sql transaction", tx.Statement.ConnPool)
	}
	res, err := q.client.InsertTx(ctx, sqlTx, args, opts)
	if err != nil {
		return 0, err
	}
	if q.listen != nil && res.Job.State == rivertype.JobStateAvailable {
		// River announces at most one insert per queue in FetchCooldown, so
		// a job inserted just after another, and committed after the fetch
		// the first one's announcement caused, would wait for the safety
		// poll. Each one is announced, at its commit.
		if err := q.announce(ctx, q.driver.UnwrapExecutor(sqlTx), res.Job.Queue); err != nil {
			return 0, err
		}
	}
	return res.Job.ID, nil
}

// announce tells the listening queues, at exec's commit, that a job of
// queue is available (as River announces an insert: the same channel and
// payload, so PostgreSQL sends one of the two within a transaction).
func (q *JobQueue) announce(ctx context.Context, exec riverdriver.Executor, queue string) error {
	name, err := json.Marshal(queue)
	if err != nil {
		return err
	}
	return exec.NotifyMany(ctx, &riverdriver.NotifyManyParams{Topic: riverInsertTopic, Payload: []string{`{"queue": ` + string(name) + `}`}})
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
	row, err := q.client.JobRetry(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil || q.listen == nil || row.State != rivertype.JobStateAvailable {
		return err
	}
	// River's JobRetry announces nothing: a listening queue would see the
	// job at its next safety poll. It is announced as an insert is.
	return q.announce(ctx, q.driver.GetExecutor(), row.Queue)
}

// riverInsertTopic is the channel on which River's clients announce new
// jobs (its notifier's NotificationTopicInsert, in an internal package;
// TestWebhooksWokenByNotifications fails if it changes).
const riverInsertTopic = "river_insert"
