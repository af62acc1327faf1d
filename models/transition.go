package models

import (
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// Transition is everything one fired intent writes: the document's new
// state and data (and the new head of its audit chain), the audit row, the
// new and changed deadlines and the events.
type Transition struct {
	Doc       *Document
	State     string
	Data      string
	Now       time.Time
	Audit     *AuditEvent
	Deadlines []Deadline
	Events    []Event
	// Entries are the document's list entries after the transition, one
	// per party organisation.
	Entries []DocumentEntry
}

// WriteTransition writes t in tx and reports whether the document was still
// at the version read. On PostgreSQL it is one statement (the inserts as
// data-modifying CTEs beside the update): one round trip instead of four
// on every transition. SQLite runs the same writes one by one in its
// process.
func WriteTransition(tx *gorm.DB, t *Transition) (bool, error) {
	if !IsPostgres(tx) {
		if err := SaveDeadlines(tx, t.Deadlines); err != nil {
			return false, err
		}
		ok, err := UpdateDocument(tx, t.Doc, t.State, t.Data, t.Now, t.Audit)
		if err != nil || !ok {
			return ok, err
		}
		if err := tx.Create(t.Audit).Error; err != nil {
			return false, err
		}
		if err := SaveEntries(tx, t.Entries); err != nil {
			return false, err
		}
		return true, InsertEvents(tx, t.Events)
	}
	deadlines, err := json.Marshal(deadlineRows(t.Deadlines))
	if err != nil {
		return false, err
	}
	a := t.Audit
	audit, err := json.Marshal([]auditRow{{a.DocumentID, a.Seq, a.FromState, a.ToState, a.Intent, a.Actor, a.ActorOrg, micro(a.At), a.RequestID, a.PrevHash, a.Hash, a.Detail}})
	if err != nil {
		return false, err
	}
	events := make([]eventRow, 0, len(t.Events))
	for _, e := range t.Events {
		events = append(events, eventRow{e.ProviderID, e.OrganisationID, e.Kind, e.DocumentID, e.DeadlineID, e.DedupKey, json.RawMessage(e.Payload), micro(e.CreatedAt)})
	}
	eventsJSON, err := json.Marshal(events)
	if err != nil {
		return false, err
	}
	entries, err := json.Marshal(entryRows(t.Entries))
	if err != nil {
		return false, err
	}
	res := tx.Exec(`WITH dl AS (
    INSERT INTO deadlines SELECT * FROM json_populate_recordset(NULL::deadlines, ?::json)
    ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, started_at = EXCLUDED.started_at, due_at = EXCLUDED.due_at,
        warn_at = EXCLUDED.warn_at, suspended_since = EXCLUDED.suspended_since, suspended_days = EXCLUDED.suspended_days,
        closed_at = EXCLUDED.closed_at, updated_at = EXCLUDED.updated_at
), au AS (
    INSERT INTO audit_events SELECT * FROM json_populate_recordset(NULL::audit_events, ?::json)
), ev AS (
    INSERT INTO events (provider_id, organisation_id, kind, document_id, deadline_id, dedup_key, payload, created_at)
    SELECT provider_id, organisation_id, kind, document_id, deadline_id, dedup_key, payload, created_at
    FROM json_populate_recordset(NULL::events, ?::json)
    ON CONFLICT DO NOTHING
), en AS (
    `+entriesUpsert+`
)
UPDATE documents SET state = ?, data = ?, version = version + 1, updated_at = ?, audit_seq = ?, audit_hash = ?
WHERE id = ? AND version = ?`,
		string(deadlines), string(audit), string(eventsJSON), string(entries),
		t.State, t.Data, t.Now, t.Audit.Seq, t.Audit.Hash, t.Doc.ID, t.Doc.Version)
	if res.Error != nil || res.RowsAffected != 1 {
		return false, res.Error
	}
	d := t.Doc
	d.State, d.Data, d.UpdatedAt, d.AuditSeq, d.AuditHash = t.State, t.Data, t.Now, t.Audit.Seq, t.Audit.Hash
	d.Version++
	return true, nil
}

// The rows of WriteTransition's statement, named as the columns are.

// deadlineRow is a deadline as JSON, named as its columns are: the rows
// WriteTransition writes and LoadDocument reads.
type deadlineRow struct {
	ID             string    `json:"id"`
	DocumentID     string    `json:"document_id"`
	ProviderID     string    `json:"provider_id"`
	Rule           string    `json:"rule"`
	LegalBasis     string    `json:"legal_basis"`
	PartyOrg       string    `json:"party_org"`
	PartyRole      string    `json:"party_role"`
	State          string    `json:"state"`
	StartedAt      jsonTime  `json:"started_at"`
	DueAt          jsonTime  `json:"due_at"`
	WarnAt         *jsonTime `json:"warn_at"`
	SuspendedSince *jsonTime `json:"suspended_since"`
	SuspendedDays  int       `json:"suspended_days"`
	ClosedAt       *jsonTime `json:"closed_at"`
	UpdatedAt      jsonTime  `json:"updated_at"`
}

type auditRow struct {
	DocumentID string    `json:"document_id"`
	Seq        int64     `json:"seq"`
	FromState  string    `json:"from_state"`
	ToState    string    `json:"to_state"`
	Intent     string    `json:"intent"`
	Actor      string    `json:"actor"`
	ActorOrg   string    `json:"actor_org"`
	At         time.Time `json:"at"`
	RequestID  string    `json:"request_id"`
	PrevHash   string    `json:"prev_hash"`
	Hash       string    `json:"hash"`
	Detail     string    `json:"detail"`
}

type eventRow struct {
	ProviderID     string          `json:"provider_id"`
	OrganisationID string          `json:"organisation_id"`
	Kind           string          `json:"kind"`
	DocumentID     string          `json:"document_id"`
	DeadlineID     string          `json:"deadline_id"`
	DedupKey       string          `json:"dedup_key"`
	Payload        json.RawMessage `json:"payload"`
	CreatedAt      time.Time       `json:"created_at"`
}

func deadlineRows(ds []Deadline) []deadlineRow {
	out := make([]deadlineRow, 0, len(ds))
	for _, d := range ds {
		out = append(out, deadlineRow{d.ID, d.DocumentID, d.ProviderID, d.Rule, d.LegalBasis, d.PartyOrg, d.PartyRole, d.State,
			jsonTime(micro(d.StartedAt)), jsonTime(micro(d.DueAt)), microPtr(d.WarnAt), microPtr(d.SuspendedSince), d.SuspendedDays,
			microPtr(d.ClosedAt), jsonTime(micro(d.UpdatedAt))})
	}
	return out
}

// micro truncates t to the microseconds PostgreSQL keeps, as the driver
// does for a bound parameter (JSON text would be rounded instead: the end
// of a day, 23:59:59.999999999, must not become the next day).
func micro(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

func microPtr(t *time.Time) *jsonTime {
	if t == nil {
		return nil
	}
	m := jsonTime(micro(*t))
	return &m
}
