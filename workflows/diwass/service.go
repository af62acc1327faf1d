package diwass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/wasteflow/wasteflow/models"
	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Service connects the documents to DIWASS: an announced Annex VII
// document gets a submission and the job that sends it, in the
// announcement's transaction; any instance works the job, and each
// outcome is an act on the document (DIWASS_EXCHANGE: audited, told to
// its parties) that settles the submission in its transaction.
type Service struct {
	Store     *models.DIWASSStore
	Jobs      *models.JobQueue
	Client    *Client
	Registrar *Registrar
	// Acts records outcomes on the documents (documents.Runner).
	Acts interface {
		FireSystem(ctx context.Context, id, intent string, input any) (*documents.View, error)
	}
	Now func() time.Time
	Log *slog.Logger
}

// SubmitArgs is the job that sends one document.
type SubmitArgs struct {
	DocumentID string `json:"documentId"`
}

// Kind of the job.
func (SubmitArgs) Kind() string { return "diwass_submit" }

// maxAttempts of a submission's job: River's backoff (attempt⁴ seconds)
// spreads them over about three weeks.
const maxAttempts = 25

// Register adds the submission worker to q.
func (s *Service) Register(q *models.JobQueue) { models.AddWorker[SubmitArgs](q, &submitWorker{s: s}) }

type submitWorker struct {
	river.WorkerDefaults[SubmitArgs]
	s *Service
}

func (w *submitWorker) Work(ctx context.Context, job *river.Job[SubmitArgs]) error {
	return w.s.submitter().Work(ctx, job.Args.DocumentID, job.Attempt >= job.MaxAttempts)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) submitter() *Submitter {
	return &Submitter{Client: s.Client, Store: s.Store, Build: s.build, Record: s.record, Now: s.Now}
}

// record makes an outcome an act on the document; OnAct settles the
// submission in its transaction. A document that refuses the act (its
// exchange is not PENDING: it cannot be, short of a hand-made row) keeps
// it as it is, and the submission alone records the outcome.
func (s *Service) record(ctx context.Context, sub *models.DIWASSSubmission) error {
	outcome := shipment.DIWASSOutcome{State: sub.State, DocumentNumber: sub.DocumentNumber, Error: sub.LastError, Attempts: sub.Attempts,
		SentAt: sub.SentAt, Corrections: sub.Corrections}
	// The outcome exists only here until it is written: a database that
	// fails for a moment is tried again (a job run that ended with it
	// unwritten would leave the submission SENDING, read as UNCERTAIN by
	// the next run, DIWASS's number lost).
	var err error
	for try, wait := 0, 200*time.Millisecond; try < 6; try, wait = try+1, wait*2 {
		if _, err = s.Acts.FireSystem(ctx, sub.DocumentID, annex7.IntentDIWASSExchange, outcome); err == nil || isRefused(err) {
			break
		}
		if s.Log != nil {
			s.Log.Warn("diwass: recording an outcome failed, trying again", "document", sub.DocumentID, "state", sub.State, "error", err)
		}
		time.Sleep(wait)
	}
	if isRefused(err) {
		if s.Log != nil {
			s.Log.Warn("diwass: the document does not record the outcome", "document", sub.DocumentID, "state", sub.State, "error", err)
		}
		return s.Store.Finish(ctx, sub)
	}
	return err
}

// OnAct is documents.Runner's AfterAct, in the act's transaction: the
// announcement of an Annex VII document the server sends starts its
// submission (a correction is not sent: DIWASS's update operation is not
// known); an outcome settles the submission; the arranger's new attempt
// or resolution does too, and a new attempt starts a job.
func (s *Service) OnAct(ctx context.Context, act documents.Act) error {
	if act.Kind != annex7.Kind {
		return nil
	}
	d, _ := act.Data.(*a.Annex7)
	if d == nil || d.DIWASS == nil {
		return nil
	}
	// The submission row is the job's: real time (a sandbox's test clock
	// moves the documents' time, not the queue's).
	x, id, now := d.DIWASS, act.Doc.ID, s.now().UTC().Truncate(time.Microsecond)
	sub := &models.DIWASSSubmission{DocumentID: id, State: x.State, DocumentNumber: x.DocumentNumber, LastError: x.LastError, SentAt: x.SentAt, UpdatedAt: now}
	switch act.Intent {
	case annex7.IntentSubmission:
		if err := s.Store.Enqueue(ctx, models.DIWASSSubmission{DocumentID: id, ProviderID: act.Doc.ProviderID, CreatedAt: now}); err != nil {
			return err
		}
	case annex7.IntentDIWASSExchange:
		return s.Store.Finish(ctx, sub)
	case annex7.IntentDIWASSResubmission, annex7.IntentDIWASSResolution:
		if err := s.Store.Settle(ctx, sub, models.SubmissionRejected, models.SubmissionUncertain); err != nil || x.State != shipment.DIWASSPending {
			return err
		}
	default:
		return nil
	}
	_, err := s.Jobs.InsertTx(ctx, SubmitArgs{DocumentID: id}, &river.InsertOpts{MaxAttempts: maxAttempts})
	return err
}

// build makes the request of Annex VII document id as filed: its parties
// as recorded, their operators (a company without one is registered on
// the way), the original's DIWASS number for a take-back.
func (s *Service) build(ctx context.Context, sub *models.DIWASSSubmission) (*CreateAnnex7Request, error) {
	id := sub.DocumentID
	doc, err := s.Store.Document(ctx, id)
	if err != nil {
		return nil, err
	}
	if doc.Kind != annex7.Kind {
		return nil, &NotSendableError{fmt.Sprintf("%s is a %s: only Annex VII documents are sent", id, doc.Kind)}
	}
	var d a.Annex7
	if err := json.Unmarshal([]byte(doc.Data), &d); err != nil {
		return nil, &NotSendableError{"the stored document does not read: " + err.Error()}
	}
	sub.Corrections = len(d.Corrections)
	in := Annex7Input{Content: d.Content, Parties: map[string]shipment.PartyDetails{}, Operators: map[string]string{}, Declarant: ""}
	if d.AnnouncedAt != nil {
		in.AnnouncedAt = *d.AnnouncedAt
	}
	for _, p := range d.PartyDetails {
		in.Parties[p.OrganisationID] = p
	}
	if p, ok := in.Parties[d.Content.Arranger.OrganisationID]; ok {
		in.Declarant = p.ContactPerson
	}
	// Every company on the document is an operator first (registered on
	// the way when a registrar is set), read in one query for its parties.
	ids := make([]string, 0, len(in.Parties))
	for id := range in.Parties {
		ids = append(ids, id)
	}
	var regs []Registration
	if s.Registrar != nil {
		if regs, err = s.Registrar.Register(ctx, doc.ProviderID, ids); err != nil {
			return nil, err
		}
	} else {
		_, links, err := s.Store.Companies(ctx, doc.ProviderID, ids)
		if err != nil {
			return nil, err
		}
		for org, l := range links {
			regs = append(regs, Registration{Organisation: org, Link: &l})
		}
	}
	for _, reg := range regs {
		var fault *Fault
		switch {
		case reg.Link != nil:
			in.Operators[reg.Organisation] = reg.Link.OperatorID
		case reg.Err == nil || errors.Is(reg.Err, ErrNoIdentifier):
		case errors.As(reg.Err, &fault) && fault.Rejection():
			return nil, &NotSendableError{fmt.Sprintf("DIWASS refused %s as an operator: %s", in.named(reg.Organisation), fault.Message)}
		default: // DIWASS out of reach, or the outcome unknown: try again later
			return nil, fmt.Errorf("registering %s: %w", in.named(reg.Organisation), reg.Err)
		}
	}
	if orig := d.Content.TakeBackOf; orig != "" {
		sub, err := s.Store.Submission(ctx, orig)
		switch {
		case errors.Is(err, models.ErrNotFound) || (err == nil && sub.DocumentNumber == ""):
			return nil, &NotSendableError{fmt.Sprintf("the document it takes back (%s) has no DIWASS number", orig)}
		case err != nil:
			return nil, err
		}
		in.TakeBackOf = sub.DocumentNumber
	}
	return BuildAnnex7(in)
}

// isRefused: the document does not permit the act (its exchange is not
// PENDING).
func isRefused(err error) bool {
	var se *status.Error
	return errors.As(err, &se) && se.Code == status.FailedPrecondition
}
