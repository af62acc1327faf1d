// Package clock keeps the test clocks of sandbox environments: in the
// development and test environments each provider may move its own time
// forward (Stripe's test clocks are the model), so an integrator walks a
// shipment through its dates and deadlines in one sitting. A provider's
// documents, content rules, deadlines, sweep, reports and events read
// Clocks.Now; token lifetimes, login throttling and idempotency keys stay
// on real time. Production builds no Clocks: a nil *Clocks is real time.
package clock

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/wasteflow/wasteflow/models"
)

// Sandbox reports whether an environment has test clocks: development and
// test have, production and staging have not.
func Sandbox(environment string) bool { return environment == "development" || environment == "test" }

// New keeps the test clocks of a server in environment in db: nil (real
// time, no clock ever read) outside the sandbox environments.
func New(db *models.DB, environment string) *Clocks {
	if !Sandbox(environment) {
		return nil
	}
	return &Clocks{Store: models.NewClockStore(db)}
}

// Store keeps the offsets: models.ClockStore.
type Store interface {
	// Offset is provider's offset (0 without a clock).
	Offset(ctx context.Context, provider string) (time.Duration, error)
	// Offsets lists the providers with a clock and their offsets.
	Offsets(ctx context.Context) (map[string]time.Duration, error)
}

// Tx is the transaction an advance runs in.
type Tx interface {
	// LockClock is provider's offset (0 without a clock), its row locked
	// until the transaction ends.
	LockClock(provider string) (time.Duration, error)
	// MoveClock sets provider's offset and records the advance a.
	MoveClock(provider string, offset time.Duration, a *models.TestClockAdvance) error
	// ResetClock sets provider's clock back to real time, deletes its
	// documents and records the reset a (models.ResetClock).
	ResetClock(provider string, a *models.TestClockAdvance) (models.ResetCounts, error)
}

// MaxAheadYears bounds a test clock: at most this many years ahead of
// real time, so that its offset (nanoseconds in an int64, at most 292
// years) never overflows and no sweep runs as of a year no document lives
// to see.
const MaxAheadYears = 10

// Limit is the latest time a clock may be moved to when real time is
// real.
func Limit(real time.Time) time.Time { return real.AddDate(MaxAheadYears, 0, 0).UTC() }

// Clocks reads the providers' test clocks: real time plus an offset that
// only ever grows. Offsets are remembered for TTL, so a second instance
// follows an advance made on another within that time; the instance that
// advanced follows at once.
type Clocks struct {
	Store Store
	// TTL is how long an offset is remembered (default 1 s).
	TTL time.Duration

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	offset  time.Duration
	expires time.Time
}

func (c *Clocks) ttl() time.Duration {
	if c.TTL <= 0 {
		return time.Second
	}
	return c.TTL
}

// Offset is how far provider's clock runs ahead of real time (0 for a nil
// Clocks or a provider without a clock).
func (c *Clocks) Offset(ctx context.Context, provider string) (time.Duration, error) {
	if c == nil || provider == "" {
		return 0, nil
	}
	now := time.Now()
	c.mu.Lock()
	e, ok := c.cache[provider]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.offset, nil
	}
	off, err := c.Store.Offset(ctx, provider)
	if err != nil {
		return 0, err
	}
	c.remember(provider, off)
	return off, nil
}

func (c *Clocks) remember(provider string, off time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cache == nil || len(c.cache) > 10_000 {
		c.cache = map[string]cached{}
	}
	c.cache[provider] = cached{offset: off, expires: time.Now().Add(c.ttl())}
}

// At is provider's time when real time is real: real moved forward by the
// provider's clock (real itself for a nil Clocks).
func (c *Clocks) At(ctx context.Context, provider string, real time.Time) (time.Time, error) {
	off, err := c.Offset(ctx, provider)
	if err != nil {
		return time.Time{}, err
	}
	return real.Add(off).UTC(), nil
}

// Offsets lists the providers whose clock runs ahead (nil for a nil Clocks).
func (c *Clocks) Offsets(ctx context.Context) (map[string]time.Duration, error) {
	if c == nil {
		return nil, nil
	}
	return c.Store.Offsets(ctx)
}

// Advance moves provider's clock, whose real time is real, to the time
// target gives for the clock's time before (from), in tx, recording a:
// it returns from and the new time. A time that is not after from is
// refused with *BackwardsError, one past Limit(real) with *TooFarError
// (the clock's row is locked meanwhile on PostgreSQL, so two advances
// take turns). The offset is the new time less real, within the limit: no
// duration saturates.
func (c *Clocks) Advance(tx Tx, provider string, real time.Time, target func(from time.Time) time.Time, a models.TestClockAdvance) (from, to time.Time, err error) {
	off, err := tx.LockClock(provider)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	from = real.Add(off).UTC()
	to = target(from).UTC()
	if !to.After(from) {
		return from, to, &BackwardsError{At: from}
	}
	if limit := Limit(real); to.After(limit) {
		return from, to, &TooFarError{Limit: limit}
	}
	a.ProviderID, a.FromTime, a.ToTime, a.At = provider, from, to, real.UTC()
	if err := tx.MoveClock(provider, to.Sub(real), &a); err != nil {
		return from, to, err
	}
	return from, to, nil
}

// Reset sets provider's clock, whose real time is real, back to real
// time and deletes the provider's documents, in tx, recording a as a move
// from the clock's time before to real: it returns that time and what was
// deleted. It serves a clock in any state, one moved past the limit
// before there was one included.
func (c *Clocks) Reset(tx Tx, provider string, real time.Time, a models.TestClockAdvance) (from time.Time, n models.ResetCounts, err error) {
	off, err := tx.LockClock(provider)
	if err != nil {
		return time.Time{}, n, err
	}
	from = real.Add(off).UTC()
	a.ProviderID, a.FromTime, a.ToTime, a.At = provider, from, real.UTC(), real.UTC()
	n, err = tx.ResetClock(provider, &a)
	return from, n, err
}

// Forget drops the remembered offset of provider (after an advance, once
// committed).
func (c *Clocks) Forget(provider string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cache, provider)
}

// TooFarError refuses a move past Limit.
type TooFarError struct{ Limit time.Time }

func (e *TooFarError) Error() string {
	return "the test clock runs at most " + strconv.Itoa(MaxAheadYears) + " years ahead of real time: not after " + e.Limit.UTC().Format(time.RFC3339) +
		" (a clock moved further before this limit is set back by ResetTestClock or wasteflow admin reset-test-clock)"
}

// BackwardsError refuses a move that is not forward.
type BackwardsError struct{ At time.Time }

func (e *BackwardsError) Error() string {
	return "the test clock only moves forward: it is at " + e.At.UTC().Format(time.RFC3339)
}
