package documents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// SweepResult counts what one sweep did.
type SweepResult struct {
	DueSoon     int // deadlines that entered their warning window
	Overdue     int // deadlines that passed their due time with the duty unmet
	Lapsed      int // periods that ended as the law foresees (tacit consent, end of validity)
	Transitions int // automatic transitions fired
	Skipped     int // candidates another instance was processing
}

func (r SweepResult) String() string {
	return fmt.Sprintf("%d due soon, %d overdue, %d lapsed, %d automatic transitions, %d skipped (held by another instance)",
		r.DueSoon, r.Overdue, r.Lapsed, r.Transitions, r.Skipped)
}

const sweepBatch = 200

// Sweep moves the deadlines of every kind to DUE_SOON and OVERDUE as of
// now, and fires the automatic trigger a rule names for its expiry (as
// actor system), each document's in one transaction. Each deadline is
// processed exactly once across instances: its document row is locked with
// SKIP LOCKED (the same lock order as every mutation: document, then
// deadlines), and the lock's holder processes every deadline of the
// document due at now, re-read under the lock.
// Deadlines that fell due while every instance was down are simply due now.
//
// A provider with a test clock is swept as of its own time: now moved
// forward by its clock's offset.
func (r *Runner) Sweep(ctx context.Context, now time.Time) (SweepResult, error) {
	offsets, err := r.Clocks.Offsets(ctx)
	if err != nil {
		return SweepResult{}, err
	}
	var clocked []string
	for p := range offsets {
		clocked = append(clocked, p)
	}
	slices.Sort(clocked)
	res, err := r.sweep(ctx, now, "", clocked)
	for _, p := range clocked {
		if err != nil {
			break
		}
		var one SweepResult
		one, err = r.sweep(ctx, now.Add(offsets[p]), p, nil)
		res = res.add(one)
	}
	return res, err
}

// SweepThrough sweeps provider's deadlines from its clock's time before an
// advance up to `to`, each change at its own time: a deadline that falls
// due on the way is processed as of its due time, so what it fires (a
// tacit consent, the end of a consent) happens then and starts its own
// periods from then, as if the clock had run there.
func (r *Runner) SweepThrough(ctx context.Context, provider string, to time.Time) (SweepResult, error) {
	var res SweepResult
	at := time.Time{}
	for range maxSweepSteps {
		next, err := r.Store.NextDeadlineChange(ctx, provider)
		if err != nil {
			return res, err
		}
		if next == nil || !next.Before(to) {
			break
		}
		step := next.Truncate(time.Microsecond).Add(time.Microsecond) // past due (due_at < now), in the databases' precision
		if !step.After(at) {
			break // held by another instance: the last sweep below passes it
		}
		at = step
		one, err := r.sweep(ctx, at, provider, nil)
		if err != nil {
			return res, err
		}
		res = res.add(one)
	}
	one, err := r.sweep(ctx, to, provider, nil)
	return res.add(one), err
}

// maxSweepSteps bounds the changes one advance of a test clock walks
// through one by one.
const maxSweepSteps = 10_000

// sweep sweeps as of now the deadlines of provider only (when set) and of
// no provider in except.
func (r *Runner) sweep(ctx context.Context, now time.Time, only string, except []string) (SweepResult, error) {
	var res SweepResult
	now = now.UTC()
	// Keyset paging over (due_at, id): processed rows leave the result set,
	// rows held by another instance are passed over, never re-read.
	after, afterID := time.Time{}, ""
	for {
		cands, err := r.Store.DueDeadlines(ctx, now, after, afterID, sweepBatch, only, except)
		if err != nil {
			return res, err
		}
		if len(cands) == 0 {
			return res, nil
		}
		if err := r.sweepBatch(ctx, cands, now, &res); err != nil {
			return res, err
		}
		last := cands[len(cands)-1]
		after, afterID = last.DueAt, last.ID
	}
}

// sweepBatch processes one page of candidates with SweepWorkers workers,
// a document at a time: the worker that locks a document processes every
// deadline of it due at now, whichever of them were its candidates, so a
// deadline another instance passed over (the document was locked) is
// processed by the holder of the lock, in the same sweep.
func (r *Runner) sweepBatch(ctx context.Context, cands []models.Deadline, now time.Time, res *SweepResult) error {
	var docs []string
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c.DocumentID] {
			seen[c.DocumentID] = true
			docs = append(docs, c.DocumentID)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range min(r.sweepWorkers(), len(docs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				var one SweepResult
				if err := r.sweepDocument(ctx, id, now, &one); err != nil {
					cancel(fmt.Errorf("document %s: %w", id, err))
					return
				}
				mu.Lock()
				*res = res.add(one)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, id := range docs {
		select {
		case work <- id:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}

func (r SweepResult) add(o SweepResult) SweepResult {
	return SweepResult{r.DueSoon + o.DueSoon, r.Overdue + o.Overdue, r.Lapsed + o.Lapsed, r.Transitions + o.Transitions, r.Skipped + o.Skipped}
}

func (r *Runner) sweepWorkers() int {
	if r.SweepWorkers <= 0 {
		return 4
	}
	return r.SweepWorkers
}

// maxPerDocument bounds the deadlines one document's sweep processes in
// its transaction (each automatic transition may start more).
const maxPerDocument = 1000

// sweepDocument processes, in one transaction holding document docID's
// lock, every deadline of it due at now, each once: moved to DUE_SOON or
// OVERDUE, the rule's automatic intent fired on expiry. A document locked
// by another instance is skipped: its holder processes them.
func (r *Runner) sweepDocument(ctx context.Context, docID string, now time.Time, res *SweepResult) error {
	var out SweepResult
	err := r.Store.Apart(ctx, func(ctx context.Context, tx Tx) error {
		out = SweepResult{}
		doc, err := tx.LockOrSkip(docID)
		if err != nil {
			return err
		}
		done := map[string]bool{}
		for len(done) < maxPerDocument {
			due, err := tx.DueDeadlinesOf(docID, now)
			if err != nil {
				return err
			}
			fired := out.Transitions
			for i := range due {
				if done[due[i].ID] {
					continue
				}
				done[due[i].ID] = true
				d := &due[i]
				if out.Transitions > fired { // an automatic transition of an earlier one may have closed it
					if d, err = tx.Deadline(d.ID); err != nil {
						return err
					}
				}
				if err := r.sweepOne(ctx, tx, doc, d, now, &out); err != nil {
					return fmt.Errorf("deadline %s: %w", d.ID, err)
				}
			}
			if out.Transitions == fired {
				return nil // nothing fired: nothing new can be due
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, models.ErrNotFound):
		res.Skipped++
		return nil
	case err != nil:
		return err
	}
	*res = res.add(out)
	return nil
}

// sweepOne moves one due deadline d of doc (locked in tx) as of now.
func (r *Runner) sweepOne(ctx context.Context, tx Tx, doc *models.Document, d *models.Deadline, now time.Time, res *SweepResult) error {
	before := d.State
	if !sweepMove(d, now) {
		return nil // not due (any more)
	}
	if d.State == DeadlineOverdue {
		fired, err := r.expire(ctx, tx, doc, d, now)
		if err != nil {
			return err
		}
		if fired {
			res.Transitions++
			if d, err = tx.Deadline(d.ID); err != nil {
				return err
			}
			if d.State == DeadlineLapsed {
				res.Lapsed++
				return nil
			}
			if !running(d) {
				return nil // the trigger closed it otherwise
			}
			before = d.State
			d.State = DeadlineOverdue
		}
	}
	d.UpdatedAt = now
	var out outbox // when it just became due soon or overdue: one event for the party that must act
	if err := out.deadlineEvent(d, before, doc, now); err != nil {
		return err
	}
	if err := tx.SaveDeadline(d, out); err != nil {
		return err
	}
	switch d.State {
	case DeadlineDueSoon:
		res.DueSoon++
	case DeadlineOverdue:
		res.Overdue++
	}
	return nil
}

// sweepMove is what the sweep does to deadline d at now, between acts:
// running and past due, it becomes OVERDUE; open and inside its warning
// window, DUE_SOON. It reports whether d moved (the replay moves a
// replayed deadline so too, at the time the stored row says).
func sweepMove(d *models.Deadline, now time.Time) bool {
	switch {
	case (d.State == DeadlineOpen || d.State == DeadlineDueSoon) && now.After(d.DueAt):
		d.State = DeadlineOverdue
	case d.State == DeadlineOpen && d.WarnAt != nil && !now.Before(*d.WarnAt):
		d.State = DeadlineDueSoon
	default:
		return false
	}
	return true
}

// expire fires the system intent the deadline's rule names for its expiry,
// if any, with the deadline's party as input. A refusal (the machine says
// no, e.g. the authority decided meanwhile) fires nothing.
func (r *Runner) expire(ctx context.Context, tx Tx, doc *models.Document, d *models.Deadline, now time.Time) (bool, error) {
	k, ok := r.Kinds.Kind(doc.Kind)
	if !ok {
		return false, nil
	}
	rule, ok := k.Def.Rule(d.Rule)
	if !ok || rule.OnExpiry == "" {
		return false, nil
	}
	sys := engine.Caller{Actor: engine.System, System: true}
	_, _, err := r.fireIn(ctx, tx, order{caller: sys, provider: doc.ProviderID, target: Target{ID: doc.ID}, intents: []string{rule.OnExpiry}, input: engine.Party{Org: d.PartyOrg, Role: d.PartyRole}, now: now})
	if isRefusal(err) {
		return false, nil
	}
	return err == nil, err
}
