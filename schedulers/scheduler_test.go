package schedulers_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/schedulers"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A job that panics once keeps being scheduled; a slow job never runs twice
// at once; Stop waits for the running job; jobs see the injected clock.
func TestSchedulerRecoversSkipsOverlapAndStopsCleanly(t *testing.T) {
	fixed := time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC)
	s := schedulers.New(quiet(), func() time.Time { return fixed })
	var runs, running, maxRunning, sawClock atomic.Int32
	var finished atomic.Bool
	err := s.Add("slow", "@every 1s", func(ctx context.Context, now time.Time) error {
		n := runs.Add(1)
		if now.Equal(fixed) {
			sawClock.Add(1)
		}
		if r := running.Add(1); r > maxRunning.Load() {
			maxRunning.Store(r)
		}
		defer running.Add(-1)
		if n == 1 {
			panic("first run fails")
		}
		if n == 2 {
			return errors.New("second run reports an error")
		}
		time.Sleep(1500 * time.Millisecond) // longer than the schedule
		finished.Store(true)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add("bad", "every now and then", func(context.Context, time.Time) error { return nil }); err == nil {
		t.Fatal("a bad schedule was accepted")
	}
	s.Start()
	deadline := time.Now().Add(10 * time.Second)
	for runs.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if runs.Load() < 3 {
		t.Fatalf("only %d runs: a panic or an error stopped the schedule", runs.Load())
	}
	time.Sleep(200 * time.Millisecond) // the third run is sleeping now
	s.Stop(context.Background())
	if !finished.Load() {
		t.Fatal("Stop returned before the running job finished")
	}
	if maxRunning.Load() != 1 {
		t.Fatalf("%d runs overlapped", maxRunning.Load())
	}
	if sawClock.Load() != runs.Load() {
		t.Fatal("jobs did not see the injected clock")
	}
	after := runs.Load()
	time.Sleep(1200 * time.Millisecond)
	if runs.Load() != after {
		t.Fatal("a job ran after Stop")
	}
}

// Stop gives up waiting at its context's end and cancels the job's context.
func TestStopCancelsAJobThatOutlivesTheGrace(t *testing.T) {
	s := schedulers.New(quiet(), nil)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	_ = s.Add("stuck", "@every 1s", func(ctx context.Context, _ time.Time) error {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return ctx.Err()
	})
	s.Start()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	s.Stop(ctx)
	select {
	case <-cancelled:
	default:
		t.Fatal("the job's context was not cancelled")
	}
}
