package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DIWASSOperator links an organisation to its DIWASS operator.
type DIWASSOperator struct {
	ProviderID     string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	OperatorID     string
	Status         string
	// Identifier is the one DIWASS keys the operator by ("eori:DE…").
	Identifier string
	// Linked: found in DIWASS (it knew the identifier), not created by us.
	Linked       bool
	RegisteredAt time.Time
}

// TableName of DIWASSOperator.
func (DIWASSOperator) TableName() string { return "diwass_operators" }

// DIWASSStore keeps the links of organisations to DIWASS operators
// (workflows/diwass.Store).
type DIWASSStore struct{ db *gorm.DB }

// NewDIWASSStore keeps them in db.
func NewDIWASSStore(db *gorm.DB) *DIWASSStore { return &DIWASSStore{db: db} }

// Companies are provider's company organisations among ids (all of them
// when ids is nil), by id, each with its link when it has one.
func (s *DIWASSStore) Companies(ctx context.Context, provider string, ids []string) ([]Organisation, map[string]DIWASSOperator, error) {
	orgQ := s.db.WithContext(ctx).Where("provider_id = ? AND kind = ?", provider, "company")
	linkQ := s.db.WithContext(ctx).Where("provider_id = ?", provider)
	if ids != nil {
		orgQ, linkQ = orgQ.Where("id IN ?", ids), linkQ.Where("organisation_id IN ?", ids)
	}
	var orgs []Organisation
	if err := orgQ.Order("id").Find(&orgs).Error; err != nil {
		return nil, nil, err
	}
	var links []DIWASSOperator
	if err := linkQ.Find(&links).Error; err != nil {
		return nil, nil, err
	}
	byOrg := make(map[string]DIWASSOperator, len(links))
	for _, l := range links {
		byOrg[l.OrganisationID] = l
	}
	return orgs, byOrg, nil
}

// DIWASSOperatorsOf are the links of provider's organisations among ids,
// by organisation (one query).
func DIWASSOperatorsOf(ctx context.Context, db *gorm.DB, provider string, ids []string) (map[string]DIWASSOperator, error) {
	out := map[string]DIWASSOperator{}
	if len(ids) == 0 {
		return out, nil
	}
	var links []DIWASSOperator
	if err := db.WithContext(ctx).Where("provider_id = ? AND organisation_id IN ?", provider, ids).Find(&links).Error; err != nil {
		return nil, err
	}
	for _, l := range links {
		out[l.OrganisationID] = l
	}
	return out, nil
}

// Link records (or replaces) the link of an organisation.
func (s *DIWASSStore) Link(ctx context.Context, l DIWASSOperator) error {
	return s.db.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&l).Error
}

// DIWASSSubmission is a document's exchange with DIWASS.
type DIWASSSubmission struct {
	DocumentID     string `gorm:"primaryKey"`
	ProviderID     string
	State          string
	DocumentNumber string
	Attempts       int
	LastError      string
	SentAt         *time.Time
	CreatedAt      time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt      time.Time `gorm:"autoUpdateTime:false"`

	// Stale: Claim found it SENDING (a worker stopped while sending).
	Stale bool `gorm:"-"`
	// Corrections the document had when its request was built (-1:
	// unknown).
	Corrections int `gorm:"-"`
}

// TableName of DIWASSSubmission.
func (DIWASSSubmission) TableName() string { return "diwass_submissions" }

// Submission states.
const (
	SubmissionPending   = "PENDING"
	SubmissionSending   = "SENDING"
	SubmissionSent      = "SENT"
	SubmissionRejected  = "REJECTED"
	SubmissionUncertain = "UNCERTAIN"
)

// Enqueue records a new PENDING submission of a document, in the
// transaction ctx carries (with the job that will send it).
func (s *DIWASSStore) Enqueue(ctx context.Context, sub DIWASSSubmission) error {
	sub.State, sub.UpdatedAt = SubmissionPending, sub.CreatedAt
	return Conn(ctx, s.db).Create(&sub).Error
}

// Submission reads the submission of document id.
func (s *DIWASSStore) Submission(ctx context.Context, id string) (*DIWASSSubmission, error) {
	var sub DIWASSSubmission
	err := Conn(ctx, s.db).Where("document_id = ?", id).Take(&sub).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &sub, err
}

// Claim takes a PENDING submission for sending: in a transaction of its
// own, under the row's lock, PENDING becomes SENDING with one more attempt
// and is returned. A row found SENDING was claimed by a worker that
// stopped before it recorded the outcome: it is returned as it is, Stale
// (the request may have arrived: its outcome is UNCERTAIN). Any other
// state: nil.
func (s *DIWASSStore) Claim(ctx context.Context, id string, now time.Time) (*DIWASSSubmission, error) {
	var claimed *DIWASSSubmission
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		q := tx.Where("document_id = ?", id)
		if IsPostgres(tx) {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		var sub DIWASSSubmission
		if err := q.Take(&sub).Error; err != nil {
			return err
		}
		switch sub.State {
		case SubmissionPending:
			sub.State, sub.Attempts, sub.UpdatedAt = SubmissionSending, sub.Attempts+1, now
			claimed = &sub
			return tx.Save(&sub).Error
		case SubmissionSending:
			sub.Stale, sub.Corrections = true, -1
			claimed = &sub
		}
		return nil
	})
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return claimed, err
}

// Finish records the outcome of a claimed submission (SENDING), in the
// transaction ctx carries if any.
func (s *DIWASSStore) Finish(ctx context.Context, sub *DIWASSSubmission) error {
	return s.Settle(ctx, sub, SubmissionSending)
}

// Settle sets a submission in one of the states from to sub's state,
// number, error and time of sending, in the transaction ctx carries if
// any: the outcome of a claim (from SENDING), the arranger's new attempt
// (REJECTED or UNCERTAIN to PENDING), a resolution (UNCERTAIN to SENT).
func (s *DIWASSStore) Settle(ctx context.Context, sub *DIWASSSubmission, from ...string) error {
	res := Conn(ctx, s.db).Model(&DIWASSSubmission{}).Where("document_id = ? AND state IN ?", sub.DocumentID, from).
		Updates(map[string]any{"state": sub.State, "document_number": sub.DocumentNumber, "last_error": sub.LastError, "sent_at": sub.SentAt, "updated_at": sub.UpdatedAt})
	if res.Error == nil && res.RowsAffected != 1 {
		return fmt.Errorf("the submission of %s was not %v when it was to become %s", sub.DocumentID, from, sub.State)
	}
	return res.Error
}

// Document reads document id as stored (its kind, provider and data).
func (s *DIWASSStore) Document(ctx context.Context, id string) (*Document, error) {
	var d Document
	err := s.db.WithContext(ctx).Select("id", "provider_id", "kind", "number", "state", "data", "archive").Where("id = ?", id).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &d, err
}
