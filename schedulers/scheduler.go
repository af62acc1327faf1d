// Package schedulers runs wasteflow's periodic jobs with robfig/cron: in
// UTC, never overlapping themselves, recovering from panics, and stopping
// cleanly (waiting for a running job) at shutdown. Jobs call workflows.
package schedulers

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// RunLimit bounds one run of a job.
const RunLimit = 10 * time.Minute

// Job is one periodic task; now is the scheduler's clock at the run.
type Job func(ctx context.Context, now time.Time) error

// Scheduler owns a cron and its jobs.
type Scheduler struct {
	cron *cron.Cron
	log  *slog.Logger
	now  func() time.Time
	ctx  context.Context
	stop context.CancelFunc
}

// New returns a scheduler whose jobs see now (time.Now when nil); a nil
// log discards.
func New(log *slog.Logger, now func() time.Time) *Scheduler {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	logger := cronLogger{log}
	ctx, stop := context.WithCancel(context.Background())
	return &Scheduler{
		// Recover inside SkipIfStillRunning: a panic ends that run only, and
		// the next run is not skipped forever.
		cron: cron.New(cron.WithLocation(time.UTC), cron.WithLogger(logger),
			cron.WithChain(cron.SkipIfStillRunning(logger), cron.Recover(logger))),
		log: log, now: now, ctx: ctx, stop: stop,
	}
}

// Add schedules job under spec (cron syntax or @every 1m).
func (s *Scheduler) Add(name, spec string, job Job) error {
	_, err := s.cron.AddFunc(spec, func() {
		start := time.Now()
		// bounded: a run stuck on a database that swallows its packets
		// must not skip every later run (what it left, the next one does)
		ctx, cancel := context.WithTimeout(s.ctx, RunLimit)
		defer cancel()
		if err := job(ctx, s.now()); err != nil {
			s.log.Error("job failed", "job", name, "error", err)
			return
		}
		s.log.Debug("job done", "job", name, "duration_ms", time.Since(start).Milliseconds())
	})
	if err != nil {
		return fmt.Errorf("schedule %s %q: %w", name, spec, err)
	}
	return nil
}

// Start runs the jobs in the background.
func (s *Scheduler) Start() { s.cron.Start() }

// Stop stops scheduling and waits for running jobs, at most until ctx ends;
// then it cancels them (their transactions roll back).
func (s *Scheduler) Stop(ctx context.Context) {
	done := s.cron.Stop()
	select {
	case <-done.Done():
	case <-ctx.Done():
		s.stop()
		<-done.Done()
	}
	s.stop()
}

type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Debug("cron: "+msg, kv...) }

func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "error", err)...)
}
