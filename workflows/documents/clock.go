package documents

import (
	"context"
	"errors"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// ClockState is a provider's test clock.
type ClockState struct {
	Now        time.Time
	AdvancedBy time.Duration
	// Swept is what the advance's sweep did (zero for a read).
	Swept SweepResult
}

// ErrNoClocks: this server runs no test clocks (production, staging).
var ErrNoClocks = errors.New("no test clocks")

// TestClock reads the caller's provider's test clock.
func (r *Runner) TestClock(ctx context.Context) (*ClockState, error) {
	if r.Clocks == nil {
		return nil, ErrNoClocks
	}
	_, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	real := r.Now().UTC()
	now, err := r.Clocks.At(ctx, p.ProviderID, real)
	if err != nil {
		return nil, err
	}
	return &ClockState{Now: now, AdvancedBy: now.Sub(real)}, nil
}

// AdvanceTestClock moves the caller's provider's test clock forward to
// the time target gives for the clock's time before, records who moved
// it from when to when, and sweeps the provider's deadlines up to the new
// time, each change at its own time, before it returns: what the passing
// time brings (due soon, overdue, tacit consents, ends of consents) is
// there when the call answers. Backwards or standing still, or past
// clock.Limit (ten years ahead of real time), is 400, code 3, naming field
// (the request's field that gave the time).
func (r *Runner) AdvanceTestClock(ctx context.Context, field string, target func(from time.Time) time.Time) (*ClockState, error) {
	if r.Clocks == nil {
		return nil, ErrNoClocks
	}
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	real := r.Now().UTC()
	var from, to time.Time
	err = r.Store.Update(ctx, func(ctx context.Context, tx Tx) error {
		var err error
		from, to, err = r.Clocks.Advance(tx, p.ProviderID, real, target, models.TestClockAdvance{
			AccountID: p.AccountID, OrganisationID: c.Org, RequestID: reqctx.From(ctx).RequestID})
		return err
	})
	var back *clock.BackwardsError
	if errors.As(err, &back) {
		return nil, status.Invalid(field, back.Error()+"; it cannot be set to "+to.Format(time.RFC3339Nano))
	}
	var far *clock.TooFarError
	if errors.As(err, &far) {
		return nil, status.Invalid(field, far.Error())
	}
	if err != nil {
		return nil, err
	}
	r.Clocks.Forget(p.ProviderID)
	reqctx.Logger(ctx).Info("test clock advanced", "provider", p.ProviderID, "account", p.AccountID, "from", from, "to", to)
	res, err := r.SweepThrough(ctx, p.ProviderID, to)
	if err != nil {
		return nil, err
	}
	return &ClockState{Now: to, AdvancedBy: to.Sub(real), Swept: res}, nil
}

// ResetState is a test clock after its reset and what the reset deleted.
type ResetState struct {
	ClockState
	From    time.Time
	Deleted models.ResetCounts
}

// ResetTestClock sets the caller's provider's test clock back to real
// time and deletes the provider's documents with all that is kept of them
// (clock.Clocks.Reset), in one transaction, recording who reset it from
// when: a sandbox's way back, from a clock moved too far included.
func (r *Runner) ResetTestClock(ctx context.Context) (*ResetState, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	return r.ResetTestClockOf(ctx, p.ProviderID, models.TestClockAdvance{AccountID: p.AccountID, OrganisationID: c.Org, RequestID: reqctx.From(ctx).RequestID})
}

// ResetTestClockOf is ResetTestClock for provider, recorded as a (who,
// which request): the admin command's.
func (r *Runner) ResetTestClockOf(ctx context.Context, provider string, a models.TestClockAdvance) (*ResetState, error) {
	if r.Clocks == nil {
		return nil, ErrNoClocks
	}
	real := r.Now().UTC()
	var from time.Time
	var n models.ResetCounts
	err := r.Store.Update(ctx, func(ctx context.Context, tx Tx) error {
		var err error
		from, n, err = r.Clocks.Reset(tx, provider, real, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.Clocks.Forget(provider)
	reqctx.Logger(ctx).Info("test clock reset", "provider", provider, "account", a.AccountID, "from", from, "to", real,
		"documents", n.Documents, "deadlines", n.Deadlines, "events", n.Events, "audit_rows", n.AuditRows, "pending_mails", n.Mails)
	return &ResetState{ClockState: ClockState{Now: real}, From: from, Deleted: n}, nil
}
