package notifications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// SweepResult counts what one sweep did.
type SweepResult struct {
	DueSoon     int // deadlines that entered their warning window
	Overdue     int // deadlines that passed their due time
	Transitions int // automatic transitions fired (tacit consent, end of validity)
	Skipped     int // candidates another instance was processing
}

func (r SweepResult) String() string {
	return fmt.Sprintf("%d due soon, %d overdue, %d automatic transitions, %d skipped (held by another instance)",
		r.DueSoon, r.Overdue, r.Transitions, r.Skipped)
}

const sweepBatch = 200

// Sweep moves deadlines to DUE_SOON and OVERDUE as of now and fires the
// automatic triggers of overdue ones, each in its own transaction. It reads
// only the deadlines that are due (two partial indexes), so its cost follows
// them, not all deadlines. Each deadline is processed exactly once across
// instances: its document row is locked with SKIP LOCKED (the same lock
// order as every mutation: document, then deadlines) and the deadline's
// state is re-checked under the lock. Deadlines that fell due while every
// instance was down are simply due now.
func (s *Service) Sweep(ctx context.Context, now time.Time) (SweepResult, error) {
	var res SweepResult
	now = now.UTC()
	// Keyset paging over (due_at, id): processed rows leave the result set,
	// rows held by another instance are passed over, never re-read.
	after, afterID := time.Time{}, ""
	for {
		var cands []models.Deadline
		err := s.DB.WithContext(ctx).Raw(`
SELECT id, document_id, due_at FROM (
  SELECT id, document_id, due_at FROM deadlines WHERE state = 'OPEN' AND warn_at <= ?
  UNION
  SELECT id, document_id, due_at FROM deadlines WHERE state IN ('OPEN', 'DUE_SOON') AND due_at < ?
) due WHERE due_at > ? OR (due_at = ? AND id > ?)
ORDER BY due_at, id LIMIT ?`, now, now, after, after, afterID, sweepBatch).Scan(&cands).Error
		if err != nil {
			return res, err
		}
		if len(cands) == 0 {
			return res, nil
		}
		for _, c := range cands {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if err := s.sweepOne(ctx, c.ID, c.DocumentID, now, &res); err != nil {
				return res, fmt.Errorf("deadline %s: %w", c.ID, err)
			}
		}
		last := cands[len(cands)-1]
		after, afterID = last.DueAt, last.ID
	}
}

var errHeld = errors.New("held by another instance")

func (s *Service) sweepOne(ctx context.Context, id, docID string, now time.Time, res *SweepResult) error {
	var fired bool
	var newState string
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var doc models.Document
		q := tx.Where("id = ?", docID)
		if models.IsPostgres(tx) {
			q = q.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
		}
		if err := q.Take(&doc).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return errHeld
			}
			return err
		}
		var d models.Deadline
		if err := tx.Where("id = ?", id).Take(&d).Error; err != nil {
			return err
		}
		before := d.State
		switch {
		case (d.State == DeadlineOpen || d.State == DeadlineDueSoon) && now.After(d.DueAt):
			d.State = DeadlineOverdue
		case d.State == DeadlineOpen && d.WarnAt != nil && !now.Before(*d.WarnAt):
			d.State = DeadlineDueSoon
		default:
			return nil // processed meanwhile
		}
		d.UpdatedAt = now
		if err := saveDeadline(tx, &d, before, &doc, now); err != nil {
			return err
		}
		newState = d.State
		if d.State != DeadlineOverdue {
			return nil
		}
		intent, input := automatic(&d, doc.State)
		if intent == "" {
			return nil
		}
		sys := engine.Caller{Actor: engine.System, System: true}
		v, _, err := s.fireIn(ctx, tx, sys, doc.ProviderID, doc.ID, nil, intent, input, now)
		if isRefusal(err) {
			return nil // the machine says no (e.g. the authority decided meanwhile): nothing to fire
		}
		if err != nil {
			return err
		}
		fired = v != nil
		return nil
	})
	switch {
	case errors.Is(err, errHeld):
		res.Skipped++
		return nil
	case err != nil:
		return err
	}
	switch newState {
	case DeadlineDueSoon:
		res.DueSoon++
	case DeadlineOverdue:
		res.Overdue++
	}
	if fired {
		res.Transitions++
	}
	return nil
}

// automatic names the system trigger an overdue deadline fires, if any.
func automatic(d *models.Deadline, docState string) (string, any) {
	switch {
	case d.Rule == "DECISION_DUE" && d.PartyRole == n.RoleAuthorityTransit && docState == n.Acknowledged:
		return IntentTacitConsent, d.PartyOrg
	case d.Rule == "CONSENT_VALIDITY" && (docState == n.Consented || docState == n.ChangeRequested):
		return IntentConsentValidityExpiry, nil
	}
	return "", nil
}

// isRefusal: the engine or the input check declined the trigger.
func isRefusal(err error) bool {
	var se *status.Error
	return errors.As(err, &se) && (se.Code == status.FailedPrecondition || se.Code == status.InvalidArgument)
}
