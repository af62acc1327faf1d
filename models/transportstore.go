package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// TransportStore keeps the organisations' stores of transport documents,
// their inboxes and their transport templates: the storage of
// workflows/transport (transport.Store).
type TransportStore struct{ db *gorm.DB }

// NewTransportStore returns the transport store over db.
func NewTransportStore(db *gorm.DB) *TransportStore { return &TransportStore{db: db} }

// Tx runs fn in one transaction; see inTx.
func (s *TransportStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// LockDocumentByNumber reads the note number of org's store and, on
// PostgreSQL, locks its row until the transaction ends (SQLite has one
// writer anyway).
func (s *TransportStore) LockDocumentByNumber(ctx context.Context, provider, org, number string) (*TransportDocument, error) {
	tx := Conn(ctx, s.db)
	q := tx.Where("provider_id = ? AND organisation_id = ? AND number = ?", provider, org, number)
	if IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var doc TransportDocument
	if err := q.Take(&doc).Error; err != nil {
		return nil, notFound(err)
	}
	return &doc, nil
}

// SaveDocument writes doc, new or changed.
func (s *TransportStore) SaveDocument(ctx context.Context, doc *TransportDocument) error {
	return Conn(ctx, s.db).Save(doc).Error
}

// CreateVersion stores a version of a document.
func (s *TransportStore) CreateVersion(ctx context.Context, v *TransportDocumentVersion) error {
	return Conn(ctx, s.db).Create(v).Error
}

// NumberHolders lists who of provider holds which of the official numbers.
func (s *TransportStore) NumberHolders(ctx context.Context, provider string, numbers []string) ([]OrganisationNumber, error) {
	var holders []OrganisationNumber
	err := Conn(ctx, s.db).Where("provider_id = ? AND number IN ?", provider, numbers).Find(&holders).Error
	return holders, err
}

// Organisation is organisation id of provider.
func (s *TransportStore) Organisation(ctx context.Context, provider, id string) (*Organisation, error) {
	var org Organisation
	if err := Conn(ctx, s.db).Where("provider_id = ? AND id = ?", provider, id).Take(&org).Error; err != nil {
		return nil, notFound(err)
	}
	return &org, nil
}

// AuthoritiesAt lists the ids of provider's authorities of a place
// (country and region), ordered.
func (s *TransportStore) AuthoritiesAt(ctx context.Context, provider, country, region string) ([]string, error) {
	var auths []string
	err := Conn(ctx, s.db).Model(&Organisation{}).Where("provider_id = ? AND kind = 'authority' AND country = ? AND region = ?", provider, country, region).
		Order("id").Pluck("id", &auths).Error
	return auths, err
}

// AddInboxEntries stores the entries and the events announcing them
// (events whose dedup key exists are skipped).
func (s *TransportStore) AddInboxEntries(ctx context.Context, entries []InboxEntry, events []Event) error {
	tx := Conn(ctx, s.db)
	if err := tx.Create(&entries).Error; err != nil {
		return err
	}
	return InsertEvents(tx, events)
}

// Document is document id of org's store.
func (s *TransportStore) Document(ctx context.Context, provider, org, id string) (*TransportDocument, error) {
	var doc TransportDocument
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, provider, org).Take(&doc).Error; err != nil {
		return nil, notFound(err)
	}
	return &doc, nil
}

// InboxEntry is entry id of org's inbox.
func (s *TransportStore) InboxEntry(ctx context.Context, provider, org, id string) (*InboxEntry, error) {
	var e InboxEntry
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, provider, org).Take(&e).Error; err != nil {
		return nil, notFound(err)
	}
	return &e, nil
}

// Version is version of document doc.
func (s *TransportStore) Version(ctx context.Context, doc string, version int64) (*TransportDocumentVersion, error) {
	var v TransportDocumentVersion
	if err := Conn(ctx, s.db).Where("document_id = ? AND version = ?", doc, version).Take(&v).Error; err != nil {
		return nil, notFound(err)
	}
	return &v, nil
}

// InboxEntryIDs are those of ids that are entries of org's inbox.
func (s *TransportStore) InboxEntryIDs(ctx context.Context, provider, org string, ids []string) ([]string, error) {
	var found []string
	err := Conn(ctx, s.db).Model(&InboxEntry{}).Where("provider_id = ? AND organisation_id = ? AND id IN ?", provider, org, ids).
		Pluck("id", &found).Error
	return found, err
}

// Inbox entry flags MarkInboxEntries sets.
const (
	InboxRead    = "read"
	InboxRemoved = "removed"
)

// MarkInboxEntries sets the flag (InboxRead or InboxRemoved) of the
// entries ids to value and returns how many it changed.
func (s *TransportStore) MarkInboxEntries(ctx context.Context, ids []string, flag string, value bool) (int64, error) {
	if flag != InboxRead && flag != InboxRemoved {
		return 0, fmt.Errorf("models: no inbox flag %q", flag)
	}
	r := Conn(ctx, s.db).Model(&InboxEntry{}).Where("id IN ? AND "+flag+" <> ?", ids, value).Update(flag, value)
	return r.RowsAffected, r.Error
}

// Template is template id of org.
func (s *TransportStore) Template(ctx context.Context, provider, org, id string) (*TransportTemplate, error) {
	var t TransportTemplate
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, provider, org).Take(&t).Error; err != nil {
		return nil, notFound(err)
	}
	return &t, nil
}

// TakeNumber takes the lowest free number of a template, in its own
// transaction (see TakeTemplateNumber); ErrNoNumberLeft when none is left.
func (s *TransportStore) TakeNumber(ctx context.Context, template string, now time.Time) (string, error) {
	var number string
	err := Conn(ctx, s.db).Transaction(func(tx *gorm.DB) error {
		var err error
		number, err = TakeTemplateNumber(tx, template, now)
		return err
	})
	return number, err
}

// StoreRow is one row of an organisation's store list.
type StoreRow struct {
	ID, DocumentType, Number, TopLayer string
	Version                            int64
	Cancelled                          bool
	CreatedAt, UpdatedAt               time.Time
}

// InboxRow is one row of an inbox list: the entry, and the version it
// delivered (its number, top layer and import time) of the sender's
// document (created at DocCreatedAt).
type InboxRow struct {
	ID, DocumentID, DocumentType, Number, Kind, SenderID, TopLayer string
	Version                                                        int64
	Cancelled, Read, Removed                                       bool
	CreatedAt                                                      time.Time
	DocCreatedAt, VersionCreatedAt                                 *time.Time // nil when the sender's rows are gone
}

// TemplateRow is one row of a template list; Anzahl is how many of its
// numbers are left.
type TemplateRow struct {
	ID, InterneBezeichnung, Art, Format string
	Anzahl                              int64
	CreatedAt                           time.Time
}

// Where the paths of the lists are (bind the workflow's schemas with them).
var (
	StoreColumns = Columns{
		"doc.document_id": "td.id", "doc.document_type": "td.document_type", "doc.number": "td.number", "doc.version": "td.version",
		"doc.top_layer": "td.top_layer", "doc.created_at": "td.created_at", "doc.updated_at": "td.updated_at", "cancelled": "td.cancelled",
	}
	InboxColumns = Columns{
		"id": "ib.id", "doc.document_id": "ib.document_id", "doc.document_type": "ib.document_type", "doc.number": "ib.number",
		"doc.version": "ib.version", "doc.top_layer": "v.top_layer", "kind": "ib.kind", "sender": "ib.sender_id",
		"cancelled": "ib.cancelled", "read": "ib.read", "removed": "ib.removed", "received_at": "ib.created_at",
	}
	TemplateColumns = Columns{
		"template_id": "tt.id", "interne_bezeichnung": "tt.interne_bezeichnung", "art": "tt.art", "format": "tt.format",
		"anzahl": anzahlSQL, "created_at": "tt.created_at",
	}
)

const anzahlSQL = "(SELECT COUNT(*) FROM template_numbers tn WHERE tn.template_id = tt.id AND tn.used_at IS NULL)"

// ListStore lists org's stored notes as q selects them (schema bound with
// StoreColumns); a mistake in q is a *qpar.Error.
func (s *TransportStore) ListStore(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]StoreRow, int64, error) {
	base := Conn(ctx, s.db).Table("transport_documents td").
		Select("td.id, td.document_type, td.number, td.top_layer, td.version, td.cancelled, td.created_at, td.updated_at").
		Where("td.provider_id = ? AND td.organisation_id = ?", provider, org)
	return listPage[StoreRow](base, q, schema)
}

// ListInbox lists org's inbox as q selects it (schema bound with
// InboxColumns), without the removed entries unless withRemoved.
func (s *TransportStore) ListInbox(ctx context.Context, provider, org string, withRemoved bool, q *qpar.QueryParameter, schema *qpar.Schema) ([]InboxRow, int64, error) {
	base := Conn(ctx, s.db).Table("inbox_entries ib").
		Select("ib.id, ib.document_id, ib.document_type, ib.number, ib.kind, ib.sender_id, ib.version, ib.cancelled, ib.read, ib.removed, ib.created_at, "+
			"COALESCE(v.top_layer, '') AS top_layer, td.created_at AS doc_created_at, v.created_at AS version_created_at").
		Joins("LEFT JOIN transport_document_versions v ON v.document_id = ib.document_id AND v.version = ib.version").
		Joins("LEFT JOIN transport_documents td ON td.id = ib.document_id").
		Where("ib.provider_id = ? AND ib.organisation_id = ?", provider, org)
	if !withRemoved {
		base = base.Where("ib.removed = ?", false)
	}
	return listPage[InboxRow](base, q, schema)
}

// ListTemplates lists org's transport templates as q selects them (schema
// bound with TemplateColumns).
func (s *TransportStore) ListTemplates(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]TemplateRow, int64, error) {
	base := Conn(ctx, s.db).Table("transport_templates tt").
		Select("tt.id, tt.interne_bezeichnung, tt.art, tt.format, "+anzahlSQL+" AS anzahl, tt.created_at").
		Where("tt.provider_id = ? AND tt.organisation_id = ?", provider, org)
	return listPage[TemplateRow](base, q, schema)
}
