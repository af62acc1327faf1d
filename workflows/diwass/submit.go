package diwass

import (
	"context"
	"errors"
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
	// Build makes the request of document id (an error: it cannot be
	// sent as it is, and says why).
	Build func(ctx context.Context, id string) (*CreateAnnex7Request, error)
	Now   func() time.Time
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
// not arrive (ErrRetry); UNCERTAIN when it may have (never sent again by
// itself). A submission found SENDING was being sent by a worker that
// stopped: it becomes UNCERTAIN, and nothing is sent.
func (s *Submitter) Work(ctx context.Context, id string) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	sub, err := s.Store.Claim(ctx, id, now().UTC())
	if err != nil || sub == nil {
		return err
	}
	finish := func(state, number, why string) error {
		sub.State, sub.DocumentNumber, sub.LastError, sub.UpdatedAt = state, number, why, now().UTC()
		if state == models.SubmissionSent {
			at := sub.UpdatedAt
			sub.SentAt = &at
		}
		return s.Store.Finish(context.WithoutCancel(ctx), sub)
	}
	req, err := s.Build(ctx, id)
	var cannot *NotSendableError
	switch {
	case errors.As(err, &cannot):
		return finish(models.SubmissionRejected, "", "not sent: "+err.Error())
	case err != nil: // the database, or DIWASS while registering operators: later
		if ferr := finish(models.SubmissionPending, "", "not sent yet: "+err.Error()); ferr != nil {
			return ferr
		}
		return err
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
		if ferr := finish(models.SubmissionPending, "", err.Error()); ferr != nil {
			return ferr
		}
		return ErrRetry
	default:
		return finish(models.SubmissionUncertain, "", err.Error())
	}
}
