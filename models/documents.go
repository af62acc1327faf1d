package models

import (
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
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
	// Summary is what a child's parent and siblings read of it (JSON;
	// "" for kinds without one, or a row written before summaries).
	Summary  string
	ParentID *string
	// AuditSeq and AuditHash are the head of the document's audit chain.
	AuditSeq  int64
	AuditHash string
	// Children counts the documents under this one.
	Children int64
	// Tally is what the documents under this one add up to (JSON, the
	// child kind's documents.Tally; "" before it was first counted).
	Tally string
	// Archive and Archived are what the row keeps apart from Data, and
	// how many items of each list (see archive.go; "" none). A Document
	// read from the store has Data whole, its Archive put back.
	Archive  string
	Archived string
	// Apart: Data lacks Archive's items (read with DocumentQuery.Apart);
	// the reader puts them back itself.
	Apart     bool `gorm:"-"`
	CreatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
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
	// UpdatedAt is the act's (or the sweep's) time, never gorm's clock:
	// a test clock's acts keep theirs.
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
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
	// Detail says in words what the trigger did beyond its intent and
	// states (hashed when set).
	Detail string
	// Context is what the act consulted beyond the document (its input,
	// the directory's answers, settings, the number drawn) and digests of
	// what it left, as JSON (workflows/documents/replay.go; hashed when
	// set; "" on rows from before it existed).
	Context string
	// Pos is the order the rows were written in across documents, given
	// by the database (read only).
	Pos int64 `gorm:"->"`
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
	// Position is the event's place in its organisation's stream, given
	// after commit (nil until then; see SequenceEvents).
	Position *int64
}

// GroupCursor is how far a notifier group acknowledged its events.
type GroupCursor struct {
	GroupID string `gorm:"primaryKey"`
	AckedID int64
}

// The queries of the document repository (DocumentStore, docstore.go,
// which the document runner sees through its Store interface). A missing
// row is ErrNotFound.

// FindDocument reads document id of provider, of one of kinds (any kind
// when kinds is empty), locking its row for the transaction when lock is
// set (PostgreSQL; SQLite serialises writers instead).
func FindDocument(tx *gorm.DB, id, provider string, kinds []string, lock bool) (*Document, error) {
	q := tx.Where("id = ? AND provider_id = ?", id, provider)
	if len(kinds) > 0 {
		q = q.Where("kind IN ?", kinds)
	}
	if lock && IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var doc Document
	if err := q.Take(&doc).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &doc, nil
}

// Children lists the documents whose parent is id, oldest first, whole.
func Children(tx *gorm.DB, id string) ([]Document, error) {
	var docs []Document
	err := tx.Where("parent_id = ?", id).Order("created_at, id").Find(&docs).Error
	return docs, err
}

// LockDocumentOrSkip locks document id for the sweep: ErrNotFound when it
// is missing or, on PostgreSQL, held by another transaction (SKIP LOCKED).
func LockDocumentOrSkip(tx *gorm.DB, id string) (*Document, error) {
	q := tx.Where("id = ?", id)
	if IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
	}
	var doc Document
	if err := q.Take(&doc).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &doc, nil
}

const documentColumns = "id, provider_id, kind, number, state, version, data, summary, parent_id, audit_seq, audit_hash, children, tally, archive, archived, created_by, created_at, updated_at"

// LoadDocument reads document id of provider, of one of kinds (any when
// empty), only when org is one of its parties (org "" skips that check),
// its row locked for the transaction when lock is set (PostgreSQL; SQLite
// serialises writers instead), and its deadlines, oldest first, in one
// statement after the lock (DocumentTx.Load reads its family too).
func LoadDocument(tx *gorm.DB, id, provider string, kinds []string, org string, lock bool) (*Document, []Deadline, error) {
	return loadDocument(tx, DocumentQuery{ID: id, Provider: provider, Kinds: kinds, Party: org, Lock: lock})
}

// decodeDeadlines reads the JSON arrays Load aggregates (deadlineArray).
func decodeDeadlines(raw []byte) ([]Deadline, error) {
	var out []Deadline
	var d Deadline
	at := func(v flatValue) (*time.Time, error) {
		if v.null {
			return nil, nil
		}
		t, err := parseDBTime(v.str)
		return &t, err
	}
	p := flatJSON{b: raw}
	err := p.arrays(deadlineFields, func(i int, v flatValue) error {
		var err error
		var t *time.Time
		switch i {
		case 0:
			d.ID = v.str
		case 1:
			d.DocumentID = v.str
		case 2:
			d.ProviderID = v.str
		case 3:
			d.Rule = v.str
		case 4:
			d.LegalBasis = v.str
		case 5:
			d.PartyOrg = v.str
		case 6:
			d.PartyRole = v.str
		case 7:
			d.State = v.str
		case 12:
			d.SuspendedDays = int(v.num)
		case 10:
			d.WarnAt, err = at(v)
		case 11:
			d.SuspendedSince, err = at(v)
		case 13:
			d.ClosedAt, err = at(v)
		case 8, 9, 14:
			if t, err = at(v); err == nil && t != nil {
				switch i {
				case 8:
					d.StartedAt = *t
				case 9:
					d.DueAt = *t
				default:
					d.UpdatedAt = *t
				}
			}
		}
		return err
	}, func() { out = append(out, d); d = Deadline{} })
	return out, err
}

// deadlineFields is how many values deadlineArray has.
const deadlineFields = 15

// jsonTime is a time as Commit sends it in JSON (the deadlines Load
// reads back go through decodeDeadlines).
type jsonTime time.Time

func (t jsonTime) MarshalJSON() ([]byte, error) { return time.Time(t).MarshalJSON() }

// OrganisationsByID reads the organisations of provider among ids.
func OrganisationsByID(tx *gorm.DB, provider string, ids []string) ([]Organisation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// Scanned by hand: an act reads its parties' details anew inside the
	// document's lock (a correction records them as they are now), so
	// gorm's reflection per row would be paid while the family waits.
	rows, err := tx.Raw("SELECT "+organisationColumns+" FROM organisations WHERE provider_id = ? AND id IN ?", provider, ids).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	orgs := make([]Organisation, 0, len(ids))
	for rows.Next() {
		var o Organisation
		if err := rows.Scan(&o.ProviderID, &o.ID, &o.Kind, &o.Name, &o.Country, &o.Region, &o.RegistrationNumber, &o.Street, &o.PostalCode, &o.City,
			&o.ContactPerson, &o.Telephone, &o.Email, &o.EORI, &o.VAT, &o.CreatedAt, &o.UpdatedAt); err != nil {
			return nil, err
		}
		orgs = append(orgs, o)
	}
	return orgs, rows.Err()
}

// organisationColumns are Organisation's columns in its fields' order.
const organisationColumns = "provider_id, id, kind, name, country, region, registration_number, street, postal_code, city, contact_person, telephone, email, eori, vat, created_at, updated_at"

// InsertEvents stores events in one statement, skipping those whose dedup
// key exists.
func InsertEvents(tx *gorm.DB, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&events).Error
}

// FindDeadline reads deadline id.
func FindDeadline(tx *gorm.DB, id string) (*Deadline, error) {
	var d Deadline
	if err := tx.Where("id = ?", id).Take(&d).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &d, nil
}

// ReplaceParties makes rows the parties of document id.
func ReplaceParties(tx *gorm.DB, id string, rows []DocumentParty) error {
	if err := tx.Where("document_id = ?", id).Delete(&DocumentParty{}).Error; err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	// the same rows written by another instance's reindex meanwhile (two
	// instances starting together) are no conflict
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error
}

// NextNumber draws the next number of a provider's sequence prefix:
// "<prefix>-000001", "<prefix>-000002", ...
func NextNumber(tx *gorm.DB, provider, prefix string) (string, error) {
	var last int64
	err := tx.Raw(`INSERT INTO document_numbers (provider_id, prefix, last_value) VALUES (?, ?, 1)
ON CONFLICT (provider_id, prefix) DO UPDATE SET last_value = document_numbers.last_value + 1
RETURNING last_value`, provider, prefix).Scan(&last).Error
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%06d", prefix, last), nil
}

// DueDeadlines is one page of the deadlines due at now, entering their
// warning window or past due, in (due_at, id) order after the keyset
// (after, afterID), of provider only when only is set and of no provider
// in except. It reads two partial indexes, so its cost follows the due
// deadlines, not all of them.
func DueDeadlines(tx *gorm.DB, now, after time.Time, afterID string, limit int, only string, except []string) ([]Deadline, error) {
	var out []Deadline
	scope, args := "", []any{}
	if only != "" {
		scope, args = " AND provider_id = ?", append(args, only)
	}
	if len(except) > 0 {
		scope, args = scope+" AND provider_id NOT IN ?", append(args, except)
	}
	q := `
SELECT id, document_id, due_at FROM (
  SELECT id, document_id, due_at FROM deadlines WHERE state = 'OPEN' AND warn_at <= ?` + scope + `
  UNION
  SELECT id, document_id, due_at FROM deadlines WHERE state IN ('OPEN', 'DUE_SOON') AND due_at < ?` + scope + `
) due WHERE due_at > ? OR (due_at = ? AND id > ?)
ORDER BY due_at, id LIMIT ?`
	all := append(append(append([]any{now}, args...), now), args...)
	all = append(all, after, after, afterID, limit)
	err := tx.Raw(q, all...).Scan(&out).Error
	return out, err
}

// DueDeadlinesOf lists the deadlines of document id due at now (entering
// their warning window or past due), in (due_at, id) order: what the
// sweep processes under the document's lock.
func DueDeadlinesOf(tx *gorm.DB, id string, now time.Time) ([]Deadline, error) {
	var out []Deadline
	err := tx.Where("document_id = ? AND ((state = 'OPEN' AND warn_at <= ?) OR (state IN ('OPEN', 'DUE_SOON') AND due_at < ?))", id, now, now).
		Order("due_at, id").Find(&out).Error
	return out, err
}

// NextDeadlineChange is the earliest time at which a deadline of provider
// enters its warning window or falls due (nil: none is waiting).
func NextDeadlineChange(tx *gorm.DB, provider string) (*time.Time, error) {
	var next *time.Time
	for _, q := range []string{
		"SELECT warn_at FROM deadlines WHERE provider_id = ? AND state = 'OPEN' AND warn_at IS NOT NULL ORDER BY warn_at LIMIT 1",
		"SELECT due_at FROM deadlines WHERE provider_id = ? AND state IN ('OPEN', 'DUE_SOON') ORDER BY due_at LIMIT 1",
	} {
		var ts []time.Time
		if err := tx.Raw(q, provider).Scan(&ts).Error; err != nil {
			return nil, err
		}
		if len(ts) > 0 && (next == nil || ts[0].Before(*next)) {
			t := ts[0]
			next = &t
		}
	}
	return next, nil
}

// PartyName is the name of the organisation in a role on a document.
type PartyName struct {
	DocumentID, Role, Name string
}

// PartyNamesOf reads the names of the organisations in roles on documents
// ids of provider (their parties as listed), in one query.
func PartyNamesOf(tx *gorm.DB, provider string, ids, roles []string) ([]PartyName, error) {
	var out []PartyName
	if len(ids) == 0 || len(roles) == 0 {
		return out, nil
	}
	err := tx.Table("document_parties dp").Select("dp.document_id, dp.role, o.name").
		Joins("JOIN organisations o ON o.provider_id = ? AND o.id = dp.organisation_id", provider).
		Where("dp.document_id IN ? AND dp.role IN ?", ids, roles).Order("dp.document_id, dp.role, o.name").Scan(&out).Error
	return out, err
}
