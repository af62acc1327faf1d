package diwass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/wasteflow/wasteflow/models"
	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// Service connects the documents to DIWASS: an announced Annex VII
// document gets a submission and the job that sends it, in the
// announcement's transaction; any instance works the job.
type Service struct {
	Store     *models.DIWASSStore
	Jobs      *models.JobQueue
	Client    *Client
	Registrar *Registrar
	Now       func() time.Time
}

// SubmitArgs is the job that sends one document.
type SubmitArgs struct {
	DocumentID string `json:"documentId"`
}

// Kind of the job.
func (SubmitArgs) Kind() string { return "diwass_submit" }

// Register adds the submission worker to q.
func (s *Service) Register(q *models.JobQueue) { models.AddWorker[SubmitArgs](q, &submitWorker{s: s}) }

type submitWorker struct {
	river.WorkerDefaults[SubmitArgs]
	s *Service
}

func (w *submitWorker) Work(ctx context.Context, job *river.Job[SubmitArgs]) error {
	return w.s.submitter().Work(ctx, job.Args.DocumentID)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) submitter() *Submitter {
	return &Submitter{Client: s.Client, Store: s.Store, Build: s.build, Now: s.Now}
}

// OnAct is documents.Runner's AfterAct: the announcement of an Annex VII
// document starts its submission (a correction is not sent: DIWASS's
// update operation is not known).
func (s *Service) OnAct(ctx context.Context, act documents.Act) error {
	if act.Kind != annex7.Kind || act.Intent != annex7.IntentSubmission {
		return nil
	}
	if err := s.Store.Enqueue(ctx, models.DIWASSSubmission{DocumentID: act.Doc.ID, ProviderID: act.Doc.ProviderID, CreatedAt: s.now().UTC()}); err != nil {
		return err
	}
	_, err := s.Jobs.InsertTx(ctx, SubmitArgs{DocumentID: act.Doc.ID}, &river.InsertOpts{MaxAttempts: 25})
	return err
}

// build makes the request of Annex VII document id as filed: its parties
// as recorded, their operators (a company without one is registered on
// the way), the original's DIWASS number for a take-back.
func (s *Service) build(ctx context.Context, id string) (*CreateAnnex7Request, error) {
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
			return nil, &NotSendableError{fmt.Sprintf("DIWASS refused %s as an operator: %s", reg.Organisation, fault.Message)}
		default: // DIWASS out of reach, or the outcome unknown: try again later
			return nil, fmt.Errorf("registering %s: %w", reg.Organisation, reg.Err)
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
