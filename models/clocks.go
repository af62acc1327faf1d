package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TestClock is a provider's test clock: real time plus OffsetNs.
type TestClock struct {
	ProviderID string `gorm:"primaryKey"`
	OffsetNs   int64
	UpdatedAt  time.Time
}

// TestClockAdvance records who moved a test clock from when to when.
type TestClockAdvance struct {
	ID             int64 `gorm:"primaryKey"`
	ProviderID     string
	AccountID      int64
	OrganisationID string
	FromTime       time.Time
	ToTime         time.Time
	RequestID      string
	At             time.Time
}

// ClockOffset is provider's test clock offset (0 without a clock), its row
// locked for the transaction when lock is set (PostgreSQL).
func ClockOffset(tx *gorm.DB, provider string, lock bool) (time.Duration, error) {
	q := tx.Where("provider_id = ?", provider)
	if lock && IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var c TestClock
	if err := q.Take(&c).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return 0, nil
		}
		return 0, err
	}
	return time.Duration(c.OffsetNs), nil
}

// ClockOffsets lists the providers with a test clock and their offsets.
func ClockOffsets(tx *gorm.DB) (map[string]time.Duration, error) {
	var cs []TestClock
	if err := tx.Find(&cs).Error; err != nil {
		return nil, err
	}
	out := make(map[string]time.Duration, len(cs))
	for _, c := range cs {
		out[c.ProviderID] = time.Duration(c.OffsetNs)
	}
	return out, nil
}

// SetClockOffset moves provider's test clock to offset and records the
// advance a.
func SetClockOffset(tx *gorm.DB, provider string, offset time.Duration, a *TestClockAdvance) error {
	if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "provider_id"}}, DoUpdates: clause.AssignmentColumns([]string{"offset_ns", "updated_at"})}).
		Create(&TestClock{ProviderID: provider, OffsetNs: int64(offset), UpdatedAt: a.At}).Error; err != nil {
		return err
	}
	return tx.Create(a).Error
}

// ClockStore keeps the providers' test clocks (workflows/clock.Store).
type ClockStore struct{ db *gorm.DB }

// NewClockStore keeps the test clocks in db.
func NewClockStore(db *gorm.DB) *ClockStore { return &ClockStore{db: db} }

// Offset is provider's test clock offset (0 without a clock), read in the
// request's transaction when ctx carries one.
func (s *ClockStore) Offset(ctx context.Context, provider string) (time.Duration, error) {
	return ClockOffset(Conn(ctx, s.db), provider, false)
}

// Offsets lists the providers with a test clock and their offsets.
func (s *ClockStore) Offsets(ctx context.Context) (map[string]time.Duration, error) {
	return ClockOffsets(s.db.WithContext(ctx))
}

// ResetCounts says what a test clock's reset deleted.
type ResetCounts struct {
	Documents, Deadlines, Events, AuditRows int64
}

// ResetClock sets provider's test clock back to real time (it has none
// afterwards) and deletes the provider's documents (the runner's:
// notifications, Annex VII documents, movements) with all that is kept of
// them: their parties, list entries, deadlines, audit rows, events and the
// webhook deliveries of those events, inspection links and their uses, and
// the provider's Idempotency-Keys (whose stored answers hold the documents),
// then records the reset a (from the clock's time before to real time). It
// runs in tx, whose caller holds the clock's row (LockClock). Cursors stay
// valid: positions are never given twice (EventStore.LatestPosition).
func ResetClock(tx *gorm.DB, provider string, a *TestClockAdvance) (ResetCounts, error) {
	var n ResetCounts
	const docs = "(SELECT id FROM documents WHERE provider_id = ?)"
	steps := []struct {
		sql   string
		count *int64
		args  []any
	}{
		{"DELETE FROM inspection_uses WHERE link_id IN (SELECT id FROM inspection_links WHERE document_id IN " + docs + ")", nil, []any{provider}},
		{"DELETE FROM inspection_links WHERE document_id IN " + docs, nil, []any{provider}},
		{"DELETE FROM document_entries WHERE document_id IN " + docs, nil, []any{provider}},
		{"DELETE FROM document_parties WHERE document_id IN " + docs, nil, []any{provider}},
		{"DELETE FROM deadlines WHERE document_id IN " + docs, &n.Deadlines, []any{provider}},
		{"DELETE FROM audit_events WHERE document_id IN " + docs, &n.AuditRows, []any{provider}},
		{"DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE provider_id = ?) AND document_id IN " + docs, nil, []any{provider, provider}},
		{"DELETE FROM events WHERE provider_id = ? AND document_id IN " + docs, &n.Events, []any{provider, provider}},
		{"DELETE FROM idempotency_keys WHERE provider_id = ?", nil, []any{provider}},
		{"UPDATE documents SET parent_id = NULL WHERE provider_id = ? AND parent_id IS NOT NULL", nil, []any{provider}},
		{"DELETE FROM documents WHERE provider_id = ?", &n.Documents, []any{provider}},
		{"DELETE FROM test_clocks WHERE provider_id = ?", nil, []any{provider}},
	}
	for _, s := range steps {
		res := tx.Exec(s.sql, s.args...)
		if res.Error != nil {
			return ResetCounts{}, res.Error
		}
		if s.count != nil {
			*s.count = res.RowsAffected
		}
	}
	return n, tx.Create(a).Error
}
