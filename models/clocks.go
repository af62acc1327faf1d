package models

import (
	"context"
	"errors"
	"slices"
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
	// Mails are the pending (unsent) mails of the deleted deadlines and the
	// provider's pending digests.
	Mails int64
}

// resetChunk is how many documents one statement of a reset names (well
// below the parameters either database takes in one statement).
const resetChunk = 500

// ResetClock sets provider's test clock back to real time (it has none
// afterwards) and deletes the provider's documents (the runner's:
// notifications, Annex VII documents, movements) with all that is kept of
// them: their parties, list entries, deadlines, audit rows, events and the
// webhook deliveries of those events, inspection links and their uses, the
// pending mails of their deadlines, and the provider's Idempotency-Keys
// (whose stored answers hold the documents); it sets the provider's
// accounts' mail preferences' since (provider time) back to real time
// where it is later, and records the reset a (from the clock's time
// before to real time, a.ToTime). It runs in tx, whose caller holds the
// clock's row (LockClock).
//
// The documents are the ones there when the reset begins, selected once
// and, on PostgreSQL, locked (parents first, as every writer locks them:
// lockFamily): every step deletes by that list, so a document a writer
// commits meanwhile is not half deleted but stays whole, and a writer of
// one of the listed documents waits for the reset and then finds it gone
// (404). What hangs on a listed document and is written without its lock
// (an inspection link's use) is locked before it is deleted. SQLite runs
// one writer at a time (_txlock=immediate). Cursors stay valid: positions
// are never given twice (EventStore.LatestPosition).
func ResetClock(tx *gorm.DB, provider string, a *TestClockAdvance) (ResetCounts, error) {
	var n ResetCounts
	var ids []string
	q := tx.Model(&Document{}).Where("provider_id = ?", provider).Order("parent_id IS NOT NULL").Order("id")
	if IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	if err := q.Pluck("id", &ids).Error; err != nil {
		return n, err
	}
	if IsPostgres(tx) {
		// The events are deleted while no sequencer runs: a sequencer's
		// UPDATE and this DELETE lock the same event rows in no common
		// order, and PostgreSQL broke the deadlock by failing one (the
		// reset's, a 500). The sequencer never waits for a document's lock,
		// so taking its lock after the documents' cannot deadlock.
		if err := tx.Exec("SELECT pg_advisory_xact_lock(" + sequenceLock + ")").Error; err != nil {
			return n, err
		}
	}
	exec := func(count *int64, sql string, args ...any) error {
		res := tx.Exec(sql, args...)
		if count != nil {
			*count += res.RowsAffected
		}
		return res.Error
	}
	deadlines := map[string]bool{}
	for c := range slices.Chunk(ids, resetChunk) {
		var links, dls []string
		lq := tx.Model(&InspectionLink{}).Where("document_id IN ?", c).Order("id")
		if IsPostgres(tx) {
			lq = lq.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		if err := lq.Pluck("id", &links).Error; err != nil {
			return ResetCounts{}, err
		}
		if err := tx.Model(&Deadline{}).Where("document_id IN ?", c).Pluck("id", &dls).Error; err != nil {
			return ResetCounts{}, err
		}
		for _, id := range dls {
			deadlines[id] = true
		}
		for l := range slices.Chunk(links, resetChunk) {
			if err := exec(nil, "DELETE FROM inspection_uses WHERE link_id IN ?", l); err != nil {
				return ResetCounts{}, err
			}
			if err := exec(nil, "DELETE FROM inspection_links WHERE id IN ?", l); err != nil {
				return ResetCounts{}, err
			}
		}
		for _, s := range []struct {
			count *int64
			sql   string
			args  []any
		}{
			{nil, "DELETE FROM document_entries WHERE document_id IN ?", []any{c}},
			{nil, "DELETE FROM document_parties WHERE document_id IN ?", []any{c}},
			{&n.Deadlines, "DELETE FROM deadlines WHERE document_id IN ?", []any{c}},
			{&n.AuditRows, "DELETE FROM audit_events WHERE document_id IN ?", []any{c}},
			{nil, "DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE provider_id = ?) AND document_id IN ?", []any{provider, c}},
			{&n.Events, "DELETE FROM events WHERE provider_id = ? AND document_id IN ?", []any{provider, c}},
		} {
			if err := exec(s.count, s.sql, s.args...); err != nil {
				return ResetCounts{}, err
			}
		}
	}
	for c := range slices.Chunk(ids, resetChunk) {
		if err := exec(nil, "UPDATE documents SET parent_id = NULL WHERE id IN ? AND parent_id IS NOT NULL", c); err != nil {
			return ResetCounts{}, err
		}
	}
	for c := range slices.Chunk(ids, resetChunk) {
		if err := exec(&n.Documents, "DELETE FROM documents WHERE id IN ?", c); err != nil {
			return ResetCounts{}, err
		}
	}
	if err := resetMails(tx, provider, deadlines, a.ToTime, &n.Mails); err != nil {
		return ResetCounts{}, err
	}
	if err := exec(nil, "DELETE FROM idempotency_keys WHERE provider_id = ?", provider); err != nil {
		return ResetCounts{}, err
	}
	if err := exec(nil, "DELETE FROM test_clocks WHERE provider_id = ?", provider); err != nil {
		return ResetCounts{}, err
	}
	return n, tx.Create(a).Error
}

// resetMails is the mail part of a reset: the pending mails of the
// provider's accounts that tell of a deleted deadline (due soon, overdue,
// awaiting action) and their pending digests (which list them; the next
// scan makes a digest of what remains) are deleted (their send jobs find
// nothing to send), and the mail preferences' since, the provider's time
// when mails were switched on, is set back to real where it is later: a
// since left in the clock's future would hold back every overdue and
// awaiting-action mail of the provider's accounts until real time reached
// it. Confirmations and webhook notices stay; sent mails are history.
func resetMails(tx *gorm.DB, provider string, deadlines map[string]bool, real time.Time, count *int64) error {
	if err := tx.Exec("UPDATE mail_preferences SET since = ? WHERE provider_id = ? AND since > ?", real, provider, real).Error; err != nil {
		return err
	}
	var pending []MailOutbox
	if err := tx.Select("id", "kind", "dedup_key").Where("state = ? AND kind IN ? AND account_id IN (SELECT id FROM accounts WHERE provider_id = ?)",
		MailQueued, []string{MailOverdue, MailDueSoon, MailAwaitingAction, MailDigest}, provider).Find(&pending).Error; err != nil {
		return err
	}
	var drop []int64
	for _, m := range pending {
		if m.Kind == MailDigest || deadlines[MailKeyDeadline(m.Kind, m.DedupKey)] {
			drop = append(drop, m.ID)
		}
	}
	for c := range slices.Chunk(drop, resetChunk) {
		res := tx.Exec("DELETE FROM mail_outbox WHERE id IN ? AND state = ?", c, MailQueued)
		if res.Error != nil {
			return res.Error
		}
		*count += res.RowsAffected
	}
	return nil
}
