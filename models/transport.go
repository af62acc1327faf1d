package models

import (
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// OrganisationNumber is an official number an organisation holds.
type OrganisationNumber struct {
	ProviderID     string `gorm:"primaryKey"`
	Number         string `gorm:"primaryKey"`
	OrganisationID string
}

// TransportDocument is a note in an organisation's store.
type TransportDocument struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	Number         string
	DocumentType   string
	Version        int64
	TopLayer       string
	Cancelled      bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// TransportDocumentVersion is one imported version of a note.
type TransportDocumentVersion struct {
	DocumentID  string `gorm:"primaryKey"`
	Version     int64  `gorm:"primaryKey"`
	XML         []byte
	Size        int64
	TopLayer    string
	Cancelled   bool
	Distributed bool
	Reported    bool
	ImportedBy  string
	CreatedAt   time.Time
}

// InboxEntry is what reached an organisation.
type InboxEntry struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	DocumentID     string
	Version        int64
	Number         string
	DocumentType   string
	Kind           string
	SenderID       string
	Cancelled      bool
	Read           bool
	Removed        bool
	CreatedAt      time.Time
	// TakenDocumentID and TakenVersion: the document and version of the
	// recipient's store the entry was taken into (ImportTransportDocumentFromInbox).
	TakenDocumentID string
	TakenVersion    int64
	// TransferID is the transfer (SendDocument, DeliverDocument) that made
	// the entry, if one did.
	TransferID string
}

// TransportTemplate is an organisation's template with a block of numbers.
type TransportTemplate struct {
	ID                 string `gorm:"primaryKey"`
	ProviderID         string
	OrganisationID     string
	InterneBezeichnung string
	Art                string
	Format             string
	XML                []byte
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// TemplateNumber is one pre-issued note number of a template.
type TemplateNumber struct {
	TemplateID string `gorm:"primaryKey"`
	Number     string `gorm:"primaryKey"`
	UsedAt     *time.Time
}

// ErrNoNumberLeft: a template's block of numbers is used up.
var ErrNoNumberLeft = errors.New("no note number left")

// TakeTemplateNumber marks the lowest free number of a template used and
// returns it, in one statement: concurrent callers never get the same
// number (PostgreSQL locks the row it takes and skips rows others hold;
// SQLite serialises writers).
func TakeTemplateNumber(tx *gorm.DB, templateID string, now time.Time) (string, error) {
	var got []string
	pick := "SELECT number FROM template_numbers WHERE template_id = ? AND used_at IS NULL ORDER BY number LIMIT 1"
	if IsPostgres(tx) {
		pick += " FOR UPDATE SKIP LOCKED"
	}
	err := tx.Raw("UPDATE template_numbers SET used_at = ? WHERE template_id = ? AND number = ("+pick+") AND used_at IS NULL RETURNING number",
		now, templateID, templateID).Scan(&got).Error
	if err != nil {
		return "", err
	}
	if len(got) == 0 {
		return "", ErrNoNumberLeft
	}
	return got[0], nil
}

// UpsertOrganisationNumbers records the numbers an organisation holds.
func UpsertOrganisationNumbers(tx *gorm.DB, rows []OrganisationNumber) error {
	if len(rows) == 0 {
		return nil
	}
	return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "provider_id"}, {Name: "number"}},
		DoUpdates: clause.AssignmentColumns([]string{"organisation_id"})}).Create(&rows).Error
}

// SigningProcess is a document waiting for one person's signature.
type SigningProcess struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	CreatedBy      int64
	SignerID       int64
	SignerName     string
	Position       string
	Document       []byte
	Result         []byte
	State          string
	Reason         string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	OpenedAt       *time.Time
	CompletedAt    *time.Time
}
