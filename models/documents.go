package models

import (
	"time"
)

// Document is one workflow document; Data holds its aggregate as JSON.
type Document struct {
	ID         string `gorm:"primaryKey"`
	ProviderID string
	Kind       string
	Number     string
	State      string
	Version    int64
	Data       string // JSON of the aggregate
	CreatedBy  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// DocumentParty makes a document visible to an organisation in a role.
type DocumentParty struct {
	DocumentID     string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	Role           string `gorm:"primaryKey"`
}

// Deadline is one running (or finished) regulatory deadline.
type Deadline struct {
	ID             string `gorm:"primaryKey"`
	DocumentID     string
	ProviderID     string
	Rule           string
	LegalBasis     string
	PartyOrg       string
	PartyRole      string
	State          string
	StartedAt      time.Time
	DueAt          time.Time
	WarnAt         *time.Time
	SuspendedSince *time.Time
	SuspendedDays  int
	ClosedAt       *time.Time
	UpdatedAt      time.Time
}

// AuditEvent is one fired trigger; rows are only ever inserted.
type AuditEvent struct {
	DocumentID string `gorm:"primaryKey"`
	Seq        int64  `gorm:"primaryKey"`
	FromState  string
	ToState    string
	Intent     string
	Actor      string
	ActorOrg   string
	At         time.Time
	RequestID  string
	PrevHash   string
	Hash       string
}

// Event is a notification for an organisation (and its notifier groups).
type Event struct {
	ID             int64 `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	Kind           string
	DocumentID     string
	DeadlineID     string
	DedupKey       string
	Payload        string // JSON
	CreatedAt      time.Time
}

// GroupCursor is how far a notifier group acknowledged its events.
type GroupCursor struct {
	GroupID string `gorm:"primaryKey"`
	AckedID int64
}
