package models

import (
	"context"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// MailPreference is an account's choice of reminder mails (migration 25).
type MailPreference struct {
	AccountID        int64 `gorm:"primaryKey"`
	ProviderID       string
	OrganisationID   string
	Email            string
	EmailConfirmedAt *time.Time
	Language         string
	DueSoon          bool
	DueSoonDays      int
	Overdue          bool
	AwaitingAction   bool
	Digest           bool
	DigestTime       string // HH:MM in the organisation's time zone
	Since            time.Time
	TokenGeneration  int
	UpdatedAt        time.Time
}

// Mail states.
const (
	MailQueued = "QUEUED"
	MailSent   = "SENT"
)

// Kinds of the mails that tell of deadlines.
const (
	MailDueSoon        = "DUE_SOON"
	MailOverdue        = "OVERDUE"
	MailAwaitingAction = "AWAITING_ACTION"
	MailDigest         = "DIGEST"
)

// MailDeadlineKey is the dedup key of a mail of kind (MailDueSoon,
// MailOverdue, MailAwaitingAction) about deadline: "overdue:<id>",
// "action:<id>", "due:<id>:<days>" (a due-soon reminder per number of
// working days the account asked for).
func MailDeadlineKey(kind, deadline string, days int) string {
	switch kind {
	case MailDueSoon:
		return "due:" + deadline + ":" + strconv.Itoa(days)
	case MailOverdue:
		return "overdue:" + deadline
	}
	return "action:" + deadline
}

// MailKeyDeadline is the deadline a MailDeadlineKey of kind names ("" for
// another key).
func MailKeyDeadline(kind, key string) string {
	switch kind {
	case MailOverdue, MailAwaitingAction:
		if id, ok := strings.CutPrefix(key, MailDeadlineKey(kind, "", 0)); ok {
			return id
		}
	case MailDueSoon:
		if rest, ok := strings.CutPrefix(key, "due:"); ok {
			if i := strings.LastIndexByte(rest, ':'); i >= 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// MailOutbox is one mail to one account.
type MailOutbox struct {
	ID             int64 `gorm:"primaryKey"`
	AccountID      int64
	DedupKey       string
	Kind           string
	Recipient      string
	Subject        string
	TextBody       string
	HTMLBody       string `gorm:"column:html_body"`
	UnsubscribeURL string `gorm:"column:unsubscribe_url"`
	State          string
	Attempts       int
	LastError      string
	CreatedAt      time.Time
	SentAt         *time.Time
}

// TableName keeps the outbox's name singular.
func (MailOutbox) TableName() string { return "mail_outbox" }

// MailDeadline is an open deadline of an organisation with its document.
type MailDeadline struct {
	Deadline
	Number string
	Kind   string
}

// MailStore keeps mail preferences and the outbox.
type MailStore struct{ db *gorm.DB }

// NewMailStore returns the store over db.
func NewMailStore(db *gorm.DB) *MailStore { return &MailStore{db: db} }

// Tx runs fn in one transaction.
func (s *MailStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// Preference is account's (ErrNotFound before it set any).
func (s *MailStore) Preference(ctx context.Context, account int64) (*MailPreference, error) {
	var p MailPreference
	if err := Conn(ctx, s.db).Where("account_id = ?", account).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// SavePreference writes p (inserting it the first time).
func (s *MailStore) SavePreference(ctx context.Context, p *MailPreference) error {
	return Conn(ctx, s.db).Clauses(clause.OnConflict{UpdateAll: true}).Create(p).Error
}

// Recipients lists the preferences of enabled accounts that may read
// documents (scope documents:read: the mails tell of them) with a
// confirmed address.
func (s *MailStore) Recipients(ctx context.Context) ([]MailPreference, error) {
	var out []MailPreference
	err := s.db.WithContext(ctx).Table("mail_preferences p").Select("p.*").
		Joins("JOIN accounts a ON a.id = p.account_id AND a.disabled_at IS NULL AND (' ' || a.scopes || ' ') LIKE '% documents:read %'").
		Where("p.email <> '' AND p.email_confirmed_at IS NOT NULL").Order("p.account_id").Find(&out).Error
	return out, err
}

// OpenDeadlines lists the running deadlines org must meet, with their
// documents' numbers and kinds.
func (s *MailStore) OpenDeadlines(ctx context.Context, provider, org string) ([]MailDeadline, error) {
	var out []MailDeadline
	err := s.db.WithContext(ctx).Table("deadlines dl").Select("dl.*, d.number, d.kind").
		Joins("JOIN documents d ON d.id = dl.document_id").
		Where("dl.provider_id = ? AND dl.party_org = ? AND dl.state IN ('OPEN', 'DUE_SOON', 'OVERDUE')", provider, org).
		Order("dl.due_at, dl.id").Scan(&out).Error
	return out, err
}

// EventsSince lists org's events of kind created at or after since.
func (s *MailStore) EventsSince(ctx context.Context, provider, org, kind string, since time.Time) ([]Event, error) {
	var out []Event
	err := s.db.WithContext(ctx).Where("provider_id = ? AND organisation_id = ? AND kind = ? AND created_at >= ?", provider, org, kind, since).
		Order("id").Find(&out).Error
	return out, err
}

// Organisation is organisation id of provider.
func (s *MailStore) Organisation(ctx context.Context, provider, id string) (*Organisation, error) {
	var o Organisation
	if err := s.db.WithContext(ctx).Where("provider_id = ? AND id = ?", provider, id).Take(&o).Error; err != nil {
		return nil, notFound(err)
	}
	return &o, nil
}

// AddMail stores m unless the account has a mail of its key already;
// false then.
func (s *MailStore) AddMail(ctx context.Context, m *MailOutbox) (bool, error) {
	res := Conn(ctx, s.db).Clauses(clause.OnConflict{DoNothing: true}).Create(m)
	return res.RowsAffected == 1 && res.Error == nil, res.Error
}

// Mail is outbox row id.
func (s *MailStore) Mail(ctx context.Context, id int64) (*MailOutbox, error) {
	var m MailOutbox
	if err := Conn(ctx, s.db).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}

// MailAttempted records an attempt to send mail id: sent, or why not.
func (s *MailStore) MailAttempted(ctx context.Context, id int64, sentAt *time.Time, errText string) error {
	up := map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": errText}
	if sentAt != nil {
		up["state"], up["sent_at"] = MailSent, sentAt
	}
	return Conn(ctx, s.db).Model(&MailOutbox{}).Where("id = ?", id).Updates(up).Error
}

// Mails lists account's mails, newest first (at most limit).
func (s *MailStore) Mails(ctx context.Context, account int64, limit int) ([]MailOutbox, error) {
	var out []MailOutbox
	err := Conn(ctx, s.db).Where("account_id = ?", account).Order("id DESC").Limit(limit).Find(&out).Error
	return out, err
}
