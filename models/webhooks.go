package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// WebhookEndpoint is a notifier group's receiver of its organisation's
// events (migration 24).
type WebhookEndpoint struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	GroupID        string
	URL            string `gorm:"column:url"`
	Description    string
	EventKinds     Scopes // space-separated kind names
	Enabled        bool
	Secret         string // sealed
	PreviousSecret string // sealed; signs beside Secret until PreviousUntil
	PreviousUntil  *time.Time
	Position       int64 // the last event fanned out
	FailingSince   *time.Time
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Delivery states.
const (
	DeliveryPending   = "PENDING"
	DeliveryDelivered = "DELIVERED"
	DeliveryFailed    = "FAILED"
)

// WebhookDelivery is one event (or test message) to one endpoint and its
// attempts so far.
type WebhookDelivery struct {
	ID            int64 `gorm:"primaryKey"`
	EndpointID    string
	MessageID     string // the webhook-id header
	EventID       int64
	Position      int64
	Kind          string
	DocumentID    string
	Body          string
	State         string
	JobID         *int64 // the job of the next attempt; nil: waits (behind an earlier event of its document, or a disabled endpoint)
	Attempts      int    // every attempt ever
	RoundAttempts int    // attempts since it was (re)queued: where it is in the retry schedule
	LastStatus    int
	LastError     string
	LastResponse  string
	LastAttemptAt *time.Time
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
	CreatedAt     time.Time
}

// WebhookDeliveryColumns are the deliveries' qpar paths.
var WebhookDeliveryColumns = Columns{
	"event_id": "message_id", "kind": "kind", "document_id": "document_id", "state": "state", "attempts": "attempts",
	"last_status": "last_status", "created_at": "created_at", "last_attempt_at": "last_attempt_at", "next_attempt_at": "next_attempt_at",
	"sequence": "id",
}

// WebhookStore keeps webhook endpoints and deliveries.
type WebhookStore struct{ db *gorm.DB }

// NewWebhookStore returns the store over db.
func NewWebhookStore(db *gorm.DB) *WebhookStore { return &WebhookStore{db: db} }

// Tx runs fn in one transaction (joined to the request's, if any).
func (s *WebhookStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// CreateEndpoint stores e; it receives the events stored after this (its
// position starts at the organisation's last).
func (s *WebhookStore) CreateEndpoint(ctx context.Context, e *WebhookEndpoint) error {
	db := Conn(ctx, s.db)
	if err := db.Raw("SELECT COALESCE(MAX(position), 0) FROM events WHERE provider_id = ? AND organisation_id = ?",
		e.ProviderID, e.OrganisationID).Scan(&e.Position).Error; err != nil {
		return err
	}
	return db.Create(e).Error
}

// Endpoints lists group's endpoints, oldest first.
func (s *WebhookStore) Endpoints(ctx context.Context, group string) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	err := Conn(ctx, s.db).Where("group_id = ?", group).Order("created_at, id").Find(&out).Error
	return out, err
}

// Endpoint is endpoint id of group (ErrNotFound for another group's). With
// lock, the row stays locked until the transaction ends (PostgreSQL).
func (s *WebhookStore) Endpoint(ctx context.Context, group, id string, lock bool) (*WebhookEndpoint, error) {
	q := Conn(ctx, s.db).Where("id = ?", id)
	if group != "" {
		q = q.Where("group_id = ?", group)
	}
	if lock && IsPostgres(q) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var e WebhookEndpoint
	if err := q.Take(&e).Error; err != nil {
		return nil, notFound(err)
	}
	return &e, nil
}

// LockEndpoint locks endpoint id for the transaction, or reports false
// when another transaction holds it (PostgreSQL; SQLite has one writer).
func (s *WebhookStore) LockEndpoint(ctx context.Context, id string) (*WebhookEndpoint, bool, error) {
	q := Conn(ctx, s.db).Where("id = ?", id)
	if IsPostgres(q) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
	}
	var list []WebhookEndpoint
	if err := q.Limit(1).Find(&list).Error; err != nil || len(list) == 0 {
		return nil, false, err
	}
	return &list[0], true, nil
}

// SaveEndpoint writes e.
func (s *WebhookStore) SaveEndpoint(ctx context.Context, e *WebhookEndpoint) error {
	return Conn(ctx, s.db).Select("*").Updates(e).Error
}

// DeleteEndpoint deletes endpoint id of group with its deliveries; false
// when there is none.
func (s *WebhookStore) DeleteEndpoint(ctx context.Context, group, id string) (bool, error) {
	db := Conn(ctx, s.db)
	if err := db.Where("endpoint_id IN (SELECT id FROM webhook_endpoints WHERE id = ? AND group_id = ?)", id, group).
		Delete(&WebhookDelivery{}).Error; err != nil {
		return false, err
	}
	res := db.Where("id = ? AND group_id = ?", id, group).Delete(&WebhookEndpoint{})
	return res.RowsAffected > 0, res.Error
}

// DueEndpoints lists up to limit enabled endpoints with events after
// their position.
func (s *WebhookStore) DueEndpoints(ctx context.Context, limit int) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Raw(`SELECT e.id FROM webhook_endpoints e WHERE e.enabled AND EXISTS (
    SELECT 1 FROM events v WHERE v.provider_id = e.provider_id AND v.organisation_id = e.organisation_id AND v.position > e.position)
ORDER BY e.id LIMIT ?`, limit).Scan(&ids).Error
	return ids, err
}

// AddDeliveries stores new deliveries (one an endpoint and message: a
// second of the same is ignored).
func (s *WebhookStore) AddDeliveries(ctx context.Context, list []WebhookDelivery) error {
	if len(list) == 0 {
		return nil
	}
	return Conn(ctx, s.db).Clauses(clause.OnConflict{DoNothing: true}).Create(&list).Error
}

// Heads lists the pending deliveries of endpoint without a job that no
// earlier pending delivery of their document holds back; with document
// set, only that document's.
func (s *WebhookStore) Heads(ctx context.Context, endpoint string, document *string) ([]int64, error) {
	q := Conn(ctx, s.db).Table("webhook_deliveries d").Select("d.id").
		Where("d.endpoint_id = ? AND d.state = ? AND d.job_id IS NULL", endpoint, DeliveryPending).
		Where(`NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.document_id = d.document_id
    AND p.state = ? AND p.position < d.position)`, DeliveryPending).Order("d.position, d.id")
	if document != nil {
		q = q.Where("d.document_id = ?", *document)
	}
	var ids []int64
	err := q.Scan(&ids).Error
	return ids, err
}

// Delivery is delivery id.
func (s *WebhookStore) Delivery(ctx context.Context, id int64) (*WebhookDelivery, error) {
	var d WebhookDelivery
	if err := Conn(ctx, s.db).Where("id = ?", id).Take(&d).Error; err != nil {
		return nil, notFound(err)
	}
	return &d, nil
}

// DeliveriesOf lists the deliveries of message to endpoints.
func (s *WebhookStore) DeliveriesOf(ctx context.Context, endpoints []string, message string) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	err := Conn(ctx, s.db).Where("endpoint_id IN ? AND message_id = ?", endpoints, message).Order("id").Find(&out).Error
	return out, err
}

// SaveDelivery writes d.
func (s *WebhookStore) SaveDelivery(ctx context.Context, d *WebhookDelivery) error {
	return Conn(ctx, s.db).Select("*").Updates(d).Error
}

// SetDeliveryJob records the job of d's next attempt (nil: none).
func (s *WebhookStore) SetDeliveryJob(ctx context.Context, id int64, job *int64, next *time.Time) error {
	return Conn(ctx, s.db).Model(&WebhookDelivery{}).Where("id = ?", id).
		Updates(map[string]any{"job_id": job, "next_attempt_at": next}).Error
}

// ReleaseJobs lets endpoint's pending deliveries wait without a job (the
// endpoint was disabled: its jobs end without an attempt).
func (s *WebhookStore) ReleaseJobs(ctx context.Context, endpoint string) error {
	return Conn(ctx, s.db).Model(&WebhookDelivery{}).Where("endpoint_id = ? AND state = ?", endpoint, DeliveryPending).
		Updates(map[string]any{"job_id": nil, "next_attempt_at": nil}).Error
}

// ListDeliveries lists endpoint's deliveries by q.
func (s *WebhookStore) ListDeliveries(ctx context.Context, endpoint string, q *qpar.QueryParameter, schema *qpar.Schema) ([]WebhookDelivery, int64, error) {
	base := Conn(ctx, s.db).Model(&WebhookDelivery{}).Where("endpoint_id = ?", endpoint)
	return listPage[WebhookDelivery](base, q, schema)
}

// EventsForEndpoint reads up to limit of the organisation's events after
// e's position (all kinds: the caller keeps those e asked for and moves
// past the others).
func (s *WebhookStore) EventsForEndpoint(ctx context.Context, e *WebhookEndpoint, limit int) ([]Event, error) {
	var list []Event
	err := Conn(ctx, s.db).Where("provider_id = ? AND organisation_id = ? AND position > ?", e.ProviderID, e.OrganisationID, e.Position).
		Order("position").Limit(limit).Find(&list).Error
	return list, err
}

// AddEvent stores an event (once: its dedup key).
func (s *WebhookStore) AddEvent(ctx context.Context, e *Event) error {
	return Conn(ctx, s.db).Clauses(clause.OnConflict{DoNothing: true}).Create(e).Error
}

// Sequence gives the committed events their positions first (PostgreSQL;
// see SequenceEvents), so a fan-out sees them without waiting for the
// sequencer.
func (s *WebhookStore) Sequence(ctx context.Context) error {
	if !IsPostgres(s.db) {
		return nil
	}
	_, _, err := SequenceEvents(ctx, s.db, false)
	return err
}

// Advance moves endpoint id's position to pos.
func (s *WebhookStore) Advance(ctx context.Context, id string, pos int64) error {
	return Conn(ctx, s.db).Model(&WebhookEndpoint{}).Where("id = ?", id).Update("position", pos).Error
}

// DueRetries lists up to limit pending deliveries whose next attempt is
// due by now.
func (s *WebhookStore) DueRetries(ctx context.Context, now time.Time, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	err := s.db.WithContext(ctx).Select("id", "job_id").
		Where("state = ? AND job_id IS NOT NULL AND next_attempt_at <= ?", DeliveryPending, now).
		Order("next_attempt_at").Limit(limit).Find(&out).Error
	return out, err
}

// NextRetry is when the earliest pending delivery's next attempt is due
// (zero: none is waiting).
func (s *WebhookStore) NextRetry(ctx context.Context) (time.Time, error) {
	var list []WebhookDelivery
	err := s.db.WithContext(ctx).Select("id", "next_attempt_at").
		Where("state = ? AND job_id IS NOT NULL AND next_attempt_at IS NOT NULL", DeliveryPending).
		Order("next_attempt_at").Limit(1).Find(&list).Error
	if err != nil || len(list) == 0 {
		return time.Time{}, err
	}
	return *list[0].NextAttemptAt, nil
}

// Started clears the next attempt's time of delivery id once its job job
// was made available (the attempt is now).
func (s *WebhookStore) Started(ctx context.Context, id, job int64) error {
	return s.db.WithContext(ctx).Model(&WebhookDelivery{}).Where("id = ? AND job_id = ?", id, job).Update("next_attempt_at", nil).Error
}

// AnyEnabled tells whether any webhook endpoint is enabled (the
// dispatcher's idle check: one index probe).
func (s *WebhookStore) AnyEnabled(ctx context.Context) (bool, error) {
	var any bool
	err := s.db.WithContext(ctx).Raw("SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)").Scan(&any).Error
	return any, err
}

// Stranded lists up to limit pending deliveries whose job is gone or
// finished without them (a job the queue discarded after its own retries,
// while the database was down for hours): they get a new job.
func (s *WebhookStore) Stranded(ctx context.Context, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	err := s.db.WithContext(ctx).Raw(`SELECT d.id, d.job_id FROM webhook_deliveries d LEFT JOIN river_job j ON j.id = d.job_id
WHERE d.state = ? AND d.job_id IS NOT NULL AND (j.id IS NULL OR j.state IN ('completed', 'discarded', 'cancelled'))
ORDER BY d.id LIMIT ?`, DeliveryPending, limit).Scan(&out).Error
	return out, err
}
