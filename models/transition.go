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
		return true, InsertEvents(tx, t.Events)
	}
	deadlines, err := json.Marshal(deadlineRows(t.Deadlines))
	if err != nil {
		return false, err
	}
	audit, err := json.Marshal([]map[string]any{{"document_id": t.Audit.DocumentID, "seq": t.Audit.Seq, "from_state": t.Audit.FromState,
		"to_state": t.Audit.ToState, "intent": t.Audit.Intent, "actor": t.Audit.Actor, "actor_org": t.Audit.ActorOrg, "at": micro(t.Audit.At),
		"request_id": t.Audit.RequestID, "prev_hash": t.Audit.PrevHash, "hash": t.Audit.Hash}})
	if err != nil {
		return false, err
	}
	events := make([]map[string]any, 0, len(t.Events))
	for _, e := range t.Events {
		events = append(events, map[string]any{"provider_id": e.ProviderID, "organisation_id": e.OrganisationID, "kind": e.Kind,
			"document_id": e.DocumentID, "deadline_id": e.DeadlineID, "dedup_key": e.DedupKey, "payload": json.RawMessage(e.Payload), "created_at": micro(e.CreatedAt)})
	}
	eventsJSON, err := json.Marshal(events)
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
)
UPDATE documents SET state = ?, data = ?, version = version + 1, updated_at = ?, audit_seq = ?, audit_hash = ?
WHERE id = ? AND version = ?`,
		string(deadlines), string(audit), string(eventsJSON),
		t.State, t.Data, t.Now, t.Audit.Seq, t.Audit.Hash, t.Doc.ID, t.Doc.Version)
	if res.Error != nil || res.RowsAffected != 1 {
		return false, res.Error
	}
	d := t.Doc
	d.State, d.Data, d.UpdatedAt, d.AuditSeq, d.AuditHash = t.State, t.Data, t.Now, t.Audit.Seq, t.Audit.Hash
	d.Version++
	return true, nil
}

func deadlineRows(ds []Deadline) []map[string]any {
	out := make([]map[string]any, 0, len(ds))
	for _, d := range ds {
		out = append(out, map[string]any{"id": d.ID, "document_id": d.DocumentID, "provider_id": d.ProviderID, "rule": d.Rule,
			"legal_basis": d.LegalBasis, "party_org": d.PartyOrg, "party_role": d.PartyRole, "state": d.State,
			"started_at": micro(d.StartedAt), "due_at": micro(d.DueAt), "warn_at": microPtr(d.WarnAt), "suspended_since": microPtr(d.SuspendedSince),
			"suspended_days": d.SuspendedDays, "closed_at": microPtr(d.ClosedAt), "updated_at": micro(d.UpdatedAt)})
	}
	return out
}

// micro truncates t to the microseconds PostgreSQL keeps, as the driver
// does for a bound parameter (JSON text would be rounded instead: the end
// of a day, 23:59:59.999999999, must not become the next day).
func micro(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

func microPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	m := micro(*t)
	return &m
}
