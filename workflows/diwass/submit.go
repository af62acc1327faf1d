package diwass

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wasteflow/wasteflow/models"
)

// Submissions keeps documents' exchanges with DIWASS
// (models.DIWASSStore).
type Submissions interface {
	Claim(ctx context.Context, id string, now time.Time) (*models.DIWASSSubmission, error)
	Finish(ctx context.Context, sub *models.DIWASSSubmission) error
}

// Submitter sends documents to DIWASS, each at most once.
type Submitter struct {
	Client *Client
	Store  Submissions
	// Build makes the request of sub's document (an error: it cannot be
	// sent as it is, and says why) and sets sub.Corrections.
	Build func(ctx context.Context, sub *models.DIWASSSubmission) (*CreateAnnex7Request, error)
	// Record writes an outcome (sub, still SENDING in the store, holds
	// it): Store.Finish when nil; the Service records it as an act on
	// the document, which finishes the submission in its transaction.
	Record func(ctx context.Context, sub *models.DIWASSSubmission) error
	Now    func() time.Time
}

// NotSendableError: the document cannot be sent as it is (a party
// without a DIWASS operator, a country without a code); it says why.
type NotSendableError struct{ Reason string }

func (e *NotSendableError) Error() string { return e.Reason }

// ErrRetry: the request surely did not arrive; the job runs again later
// (its queue's backoff).
var ErrRetry = errors.New("DIWASS did not receive the request: sent again later")

// Work sends document id if its submission is PENDING. The submission is
// claimed (SENDING, committed) before the request leaves, and its outcome
// recorded after: SENT with DIWASS's number; REJECTED with DIWASS's fault
// or why it could not be built; PENDING again when the request surely did
// not arrive (ErrRetry), unless last (the queue will not run it again: it
// is REJECTED, so that the arranger sends it again); UNCERTAIN when it may
// have arrived (never sent again by itself). A submission found SENDING
// was being sent by a worker that stopped: it becomes UNCERTAIN, and
// nothing is sent.
func (s *Submitter) Work(ctx context.Context, id string, last bool) error {
	clock := time.Now
	if s.Now != nil {
		clock = s.Now
	}
	now := func() time.Time { return clock().Truncate(time.Microsecond) } // what the stores keep
	sub, err := s.Store.Claim(ctx, id, now().UTC())
	if err != nil || sub == nil {
		return err
	}
	record := s.Record
	if record == nil {
		record = s.Store.Finish
	}
	finish := func(state, number, why string) error {
		sub.State, sub.DocumentNumber, sub.LastError, sub.UpdatedAt = state, number, why, now().UTC()
		if state == models.SubmissionSent {
			at := sub.UpdatedAt
			sub.SentAt = &at
		}
		return record(context.WithoutCancel(ctx), sub)
	}
	later := func(err error, retry error) error {
		if last {
			return finish(models.SubmissionRejected, "", fmt.Sprintf("not sent: DIWASS could not be reached (attempts: %d; the last: %v): send it again", sub.Attempts, err))
		}
		if ferr := finish(models.SubmissionPending, "", err.Error()); ferr != nil {
			return ferr
		}
		return retry
	}
	if sub.Stale {
		return finish(models.SubmissionUncertain, "", "the worker sending it stopped before it recorded DIWASS's answer: the request may have arrived")
	}
	req, err := s.Build(ctx, sub)
	var cannot *NotSendableError
	switch {
	case errors.As(err, &cannot):
		return finish(models.SubmissionRejected, "", "not sent: "+err.Error())
	case err != nil: // the database, or DIWASS while registering operators: later
		return later(err, err)
	}
	number, err := s.Client.CreateAnnex7(ctx, req)
	var fault *Fault
	var notSent *NotSentError
	switch {
	case err == nil:
		return finish(models.SubmissionSent, number, "")
	case errors.As(err, &fault) && fault.Rejection():
		return finish(models.SubmissionRejected, "", fault.Error())
	case errors.As(err, &notSent):
		return later(err, ErrRetry)
	default:
		return finish(models.SubmissionUncertain, "", err.Error())
	}
}
