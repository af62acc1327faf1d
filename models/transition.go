package models

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Change is everything one change of a document writes, gathered by the
// runner so that Commit alone decides the statements: the document (new,
// or its new state, data, version and head of its audit chain), its audit
// row, its parties when they changed, its new and changed deadlines, its
// events, its list entries and the follow-up intents of the other
// documents' entries the change changed (its parent's, its children's).
type Change struct {
	// Doc is the document after the change. Created: it is new (inserted,
	// and its parent, if any, counts one more child); else it is updated
	// from version Doc.Version-1, and Commit reports false when the row is
	// no longer at that version.
	Doc     *Document
	Created bool
	// Audit is the change's row (Doc.AuditSeq and Doc.AuditHash are its
	// sequence number and hash).
	Audit *AuditEvent
	// Parties, when PartiesChanged (always so on create), are the
	// document's parties from now on: the others are removed, with their
	// list entries.
	Parties        []DocumentParty
	PartiesChanged bool
	Deadlines      []Deadline
	Events         []Event
	// Entries are the document's list entries after the change, one per
	// party organisation.
	Entries []DocumentEntry
	// Related are other documents' entries whose follow-up intents the
	// change changed.
	Related []EntryIntents
	// ParentTally, when set, is the tally of Doc's parent after the change
	// (the parent's row is locked by the transaction).
	ParentTally string
	// Hot, when set, is what the data column keeps of Doc.Data (the
	// aggregate whole): Doc.Data without the items Doc.Archive keeps
	// apart (archive.go). ArchiveChanged: Doc.Archive and Doc.Archived
	// are new and written too (else the columns keep what they hold).
	Hot            string
	ArchiveChanged bool
}

// data is what the data column keeps.
func (c *Change) data() string {
	if c.Hot != "" {
		return c.Hot
	}
	return c.Doc.Data
}

// Commit writes c in tx and reports whether the document was still at the
// version read. On PostgreSQL it is one statement (the writes beside the
// document's as data-modifying CTEs, each a multi-row statement over a
// JSON array): one round trip whatever the change. SQLite runs the same
// writes one by one in its process.
func (t *DocumentTx) Commit(c *Change) (bool, error) {
	if IsPostgres(t.db) {
		return commitPostgres(t.db, c)
	}
	tx, d := t.db, c.Doc
	if c.Created {
		if err := tx.Create(d).Error; err != nil {
			return false, err
		}
		if d.ParentID != nil {
			set := map[string]any{"children": gorm.Expr("children + 1")}
			if c.ParentTally != "" {
				set["tally"] = c.ParentTally
			}
			if err := tx.Model(&Document{}).Where("id = ?", *d.ParentID).UpdateColumns(set).Error; err != nil {
				return false, err
			}
		}
	} else {
		if c.ParentTally != "" && d.ParentID != nil {
			if err := tx.Model(&Document{}).Where("id = ?", *d.ParentID).UpdateColumn("tally", c.ParentTally).Error; err != nil {
				return false, err
			}
		}
		set := map[string]any{"state": d.State, "data": c.data(), "summary": d.Summary, "tally": d.Tally, "version": d.Version, "updated_at": d.UpdatedAt,
			"audit_seq": d.AuditSeq, "audit_hash": d.AuditHash}
		if c.ArchiveChanged {
			set["archive"], set["archived"] = d.Archive, d.Archived
		}
		res := tx.Model(&Document{}).Where("id = ? AND version = ?", d.ID, d.Version-1).Updates(set)
		if res.Error != nil || res.RowsAffected != 1 {
			return false, res.Error
		}
	}
	if len(c.Deadlines) > 0 {
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, UpdateAll: true}).Create(&c.Deadlines).Error; err != nil {
			return false, err
		}
	}
	if err := tx.Create(c.Audit).Error; err != nil {
		return false, err
	}
	if c.PartiesChanged {
		if err := ReplaceParties(tx, d.ID, c.Parties); err != nil {
			return false, err
		}
	}
	if err := SaveEntries(tx, c.Entries); err != nil {
		return false, err
	}
	if c.PartiesChanged && !c.Created {
		if err := KeepEntries(tx, d.ID, partyOrgs(c.Parties)); err != nil {
			return false, err
		}
	}
	if err := InsertEvents(tx, c.Events); err != nil {
		return false, err
	}
	return true, SetEntryIntents(tx, c.Related)
}

func partyOrgs(ps []DocumentParty) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p.OrganisationID) {
			out = append(out, p.OrganisationID)
		}
	}
	return out
}

// commitPostgres is Commit's one statement: the CTEs of the writes c has,
// then the document's insert or versioned update.
func commitPostgres(tx *gorm.DB, c *Change) (bool, error) {
	data := c.data()
	var ctes []string
	var args []any
	// add is a CTE with its arguments: lead, then rows as a JSON array.
	add := func(name, sql string, rows any, lead ...any) error {
		raw, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		ctes = append(ctes, name+" AS (\n    "+sql+"\n)")
		args = append(append(args, lead...), string(raw))
		return nil
	}
	d := c.Doc
	if len(c.Deadlines) > 0 {
		if err := add("dl", `INSERT INTO deadlines SELECT * FROM json_populate_recordset(NULL::deadlines, ?::json)
    ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, started_at = EXCLUDED.started_at, due_at = EXCLUDED.due_at,
        warn_at = EXCLUDED.warn_at, suspended_since = EXCLUDED.suspended_since, suspended_days = EXCLUDED.suspended_days,
        closed_at = EXCLUDED.closed_at, updated_at = EXCLUDED.updated_at`, deadlineRows(c.Deadlines)); err != nil {
			return false, err
		}
	}
	a := c.Audit
	if err := add("au", "INSERT INTO audit_events ("+auditColumns+") SELECT "+auditColumns+" FROM json_populate_recordset(NULL::audit_events, ?::json)",
		[]auditRow{{a.DocumentID, a.Seq, a.FromState, a.ToState, a.Intent, a.Actor, a.ActorOrg, micro(a.At), a.RequestID, a.PrevHash, a.Hash, a.Detail, a.Context}}); err != nil {
		return false, err
	}
	if len(c.Events) > 0 {
		events := make([]eventRow, 0, len(c.Events))
		for _, e := range c.Events {
			events = append(events, eventRow{e.ProviderID, e.OrganisationID, e.Kind, e.DocumentID, e.DeadlineID, e.DedupKey, json.RawMessage(e.Payload), micro(e.CreatedAt)})
		}
		if err := add("ev", `INSERT INTO events (provider_id, organisation_id, kind, document_id, deadline_id, dedup_key, payload, created_at)
    SELECT provider_id, organisation_id, kind, document_id, deadline_id, dedup_key, payload, created_at
    FROM json_populate_recordset(NULL::events, ?::json)
    ON CONFLICT DO NOTHING`, events); err != nil {
			return false, err
		}
	}
	if c.PartiesChanged {
		parties := make([]partyRow, 0, len(c.Parties))
		for _, p := range c.Parties {
			parties = append(parties, partyRow(p))
		}
		if !c.Created { // the rows that stay are left alone: no statement deletes and inserts one row
			if err := add("pd", `DELETE FROM document_parties WHERE document_id = ? AND (organisation_id, role) NOT IN (
        SELECT organisation_id, role FROM json_populate_recordset(NULL::document_parties, ?::json))`, parties, d.ID); err != nil {
				return false, err
			}
			if err := add("ed", `DELETE FROM document_entries WHERE document_id = ? AND organisation_id NOT IN (
        SELECT organisation_id FROM json_populate_recordset(NULL::document_parties, ?::json))`, parties, d.ID); err != nil {
				return false, err
			}
		}
		if len(parties) > 0 {
			if err := add("pi", `INSERT INTO document_parties SELECT * FROM json_populate_recordset(NULL::document_parties, ?::json)
    ON CONFLICT DO NOTHING`, parties); err != nil {
				return false, err
			}
		}
	}
	if len(c.Entries) > 0 {
		if err := add("en", entriesUpsert, entryRows(c.Entries)); err != nil {
			return false, err
		}
	}
	if len(c.Related) > 0 {
		if err := add("ri", entryIntentsUpdate, c.Related); err != nil {
			return false, err
		}
	}
	switch {
	case c.Created && d.ParentID != nil && c.ParentTally != "":
		ctes = append(ctes, "pc AS (\n    UPDATE documents SET children = children + 1, tally = ? WHERE id = ?\n)")
		args = append(args, c.ParentTally, *d.ParentID)
	case c.Created && d.ParentID != nil:
		ctes = append(ctes, "pc AS (\n    UPDATE documents SET children = children + 1 WHERE id = ?\n)")
		args = append(args, *d.ParentID)
	case c.ParentTally != "" && d.ParentID != nil:
		ctes = append(ctes, "pt AS (\n    UPDATE documents SET tally = ? WHERE id = ?\n)")
		args = append(args, c.ParentTally, *d.ParentID)
	}
	var q string
	if c.Created {
		q = "INSERT INTO documents (" + documentColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
		args = append(args, d.ID, d.ProviderID, d.Kind, d.Number, d.State, d.Version, data, d.Summary, d.ParentID, d.AuditSeq, d.AuditHash, d.Children,
			d.Tally, d.Archive, d.Archived, d.CreatedBy, d.CreatedAt, d.UpdatedAt)
	} else {
		set := ""
		if c.ArchiveChanged {
			set = ", archive = ?, archived = ?"
		}
		q = "UPDATE documents SET state = ?, data = ?, summary = ?, tally = ?, version = ?, updated_at = ?, audit_seq = ?, audit_hash = ?" + set + "\nWHERE id = ? AND version = ?"
		args = append(args, d.State, data, d.Summary, d.Tally, d.Version, d.UpdatedAt, d.AuditSeq, d.AuditHash)
		if c.ArchiveChanged {
			args = append(args, d.Archive, d.Archived)
		}
		args = append(args, d.ID, d.Version-1)
	}
	res := tx.Exec("WITH "+strings.Join(ctes, ", ")+"\n"+q, args...)
	if res.Error != nil || res.RowsAffected != 1 {
		return false, res.Error
	}
	return true, nil
}

// The rows of Commit's statement, named as the columns are.

// deadlineRow is a deadline as JSON, named as its columns are: the rows
// Commit writes and Load reads.
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

type partyRow struct {
	DocumentID     string `json:"document_id"`
	OrganisationID string `json:"organisation_id"`
	Role           string `json:"role"`
}

// auditColumns are the columns an insert gives (pos is the database's).
const auditColumns = "document_id, seq, from_state, to_state, intent, actor, actor_org, at, request_id, prev_hash, hash, detail, context"

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
	Context    string    `json:"context"`
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
