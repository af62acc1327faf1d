package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// DocumentEntry is a document as one party organisation's lists show it:
// copies of the listed columns, the organisation's roles and follow-up
// intents (comma-separated, as the machine offered them at the document's
// last change) and the due time of the earliest running deadline the
// organisation must meet.
type DocumentEntry struct {
	DocumentID     string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	ProviderID     string
	Kind           string
	Number         string
	State          string
	Version        int64
	ParentID       *string
	Roles          string
	Intents        string
	Actionable     bool
	NextDueAt      *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// entryRow is a DocumentEntry as JSON, named as its columns are, for
// json_populate_recordset.
type entryRow struct {
	DocumentID     string    `json:"document_id"`
	OrganisationID string    `json:"organisation_id"`
	ProviderID     string    `json:"provider_id"`
	Kind           string    `json:"kind"`
	Number         string    `json:"number"`
	State          string    `json:"state"`
	Version        int64     `json:"version"`
	ParentID       *string   `json:"parent_id"`
	Roles          string    `json:"roles"`
	Intents        string    `json:"intents"`
	Actionable     bool      `json:"actionable"`
	NextDueAt      *jsonTime `json:"next_due_at"`
	CreatedAt      jsonTime  `json:"created_at"`
	UpdatedAt      jsonTime  `json:"updated_at"`
}

func entryRows(es []DocumentEntry) []entryRow {
	out := make([]entryRow, 0, len(es))
	for _, e := range es {
		var due *jsonTime
		if e.NextDueAt != nil {
			t := jsonTime(e.NextDueAt.UTC())
			due = &t
		}
		out = append(out, entryRow{e.DocumentID, e.OrganisationID, e.ProviderID, e.Kind, e.Number, e.State, e.Version, e.ParentID,
			e.Roles, e.Intents, e.Actionable, due, jsonTime(e.CreatedAt.UTC()), jsonTime(e.UpdatedAt.UTC())})
	}
	return out
}

// entriesUpsert is the upsert of Commit's statement and of
// SaveEntries on PostgreSQL.
const entriesUpsert = `INSERT INTO document_entries SELECT * FROM json_populate_recordset(NULL::document_entries, ?::json)
    ON CONFLICT (document_id, organisation_id) DO UPDATE SET kind = EXCLUDED.kind, number = EXCLUDED.number, state = EXCLUDED.state,
        version = EXCLUDED.version, parent_id = EXCLUDED.parent_id, roles = EXCLUDED.roles, intents = EXCLUDED.intents,
        actionable = EXCLUDED.actionable, next_due_at = EXCLUDED.next_due_at, updated_at = EXCLUDED.updated_at`

// SaveEntries writes entries (new or changed) in one statement.
func SaveEntries(tx *gorm.DB, es []DocumentEntry) error {
	if len(es) == 0 {
		return nil
	}
	if IsPostgres(tx) {
		raw, err := json.Marshal(entryRows(es))
		if err != nil {
			return err
		}
		return tx.Exec(entriesUpsert, string(raw)).Error
	}
	return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "document_id"}, {Name: "organisation_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"kind", "number", "state", "version", "parent_id", "roles", "intents", "actionable", "next_due_at", "updated_at"})}).
		Create(&es).Error
}

// KeepEntries removes the entries of document id whose organisation is
// not among orgs (no longer a party).
func KeepEntries(tx *gorm.DB, id string, orgs []string) error {
	q := tx.Where("document_id = ?", id)
	if len(orgs) > 0 {
		q = q.Where("organisation_id NOT IN ?", orgs)
	}
	return q.Delete(&DocumentEntry{}).Error
}

// EntryIntents is an organisation's follow-up intents on a document.
type EntryIntents struct {
	DocumentID     string `json:"document_id"`
	OrganisationID string `json:"organisation_id"`
	Intents        string `json:"intents"`
	Actionable     bool   `json:"actionable"`
}

// entryIntentsUpdate is the update of SetEntryIntents and of Commit's
// statement on PostgreSQL.
const entryIntentsUpdate = `UPDATE document_entries e SET intents = x.intents, actionable = x.actionable
    FROM json_to_recordset(?::json) AS x(document_id TEXT, organisation_id TEXT, intents TEXT, actionable BOOLEAN)
    WHERE e.document_id = x.document_id AND e.organisation_id = x.organisation_id
      AND (e.intents <> x.intents OR e.actionable <> x.actionable)`

// SetEntryIntents rewrites the follow-up intents of existing entries (a
// parent's change changes what its children offer).
func SetEntryIntents(tx *gorm.DB, rows []EntryIntents) error {
	if len(rows) == 0 {
		return nil
	}
	if IsPostgres(tx) {
		raw, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		return tx.Exec(entryIntentsUpdate, string(raw)).Error
	}
	for _, r := range rows {
		if err := tx.Model(&DocumentEntry{}).Where("document_id = ? AND organisation_id = ?", r.DocumentID, r.OrganisationID).
			Updates(map[string]any{"intents": r.Intents, "actionable": r.Actionable}).Error; err != nil {
			return err
		}
	}
	return nil
}

// ListEntries is one page of organisation org's entries of provider (only
// those with a follow-up intent when actionable) as q filters, sorts and
// pages them over schema s (whose columns are of document_entries, alias
// e), and their total. It reads the organisation's rows only, through the
// indexes on (provider, organisation, ...). Client mistakes in q are
// *qpar.Error.
func ListEntries(tx *gorm.DB, provider, org string, actionable bool, q *qpar.QueryParameter, s *qpar.Schema) ([]DocumentEntry, int64, error) {
	base := tx.Table("document_entries e").Where("e.provider_id = ? AND e.organisation_id = ?", provider, org)
	if actionable {
		base = base.Where("e.actionable")
	}
	return listPage[DocumentEntry](base, q, s, "e.*")
}

// DeadlinesOf reads the deadlines of documents ids, oldest first.
func DeadlinesOf(tx *gorm.DB, ids []string) ([]Deadline, error) {
	var out []Deadline
	if len(ids) == 0 {
		return nil, nil
	}
	err := tx.Where("document_id IN ?", ids).Order("started_at, id").Find(&out).Error
	return out, err
}

// TaskPending reports whether maintenance task name waits to be done.
func TaskPending(tx *gorm.DB, name string) (bool, error) {
	var n int64
	err := tx.Table("maintenance_tasks").Where("name = ?", name).Count(&n).Error
	return n > 0, err
}

// TaskDone removes maintenance task name.
func TaskDone(tx *gorm.DB, name string) error {
	return tx.Exec("DELETE FROM maintenance_tasks WHERE name = ?", name).Error
}

// DocumentsAfter is up to limit documents after id, in id order; only
// those without a list entry yet (written before the entries existed) when
// withoutEntries is set.
func DocumentsAfter(tx *gorm.DB, after string, limit int, withoutEntries bool) ([]Document, error) {
	q := tx.Where("id > ?", after)
	if withoutEntries {
		q = q.Where("NOT EXISTS (SELECT 1 FROM document_entries e WHERE e.document_id = documents.id)")
	}
	var docs []Document
	err := q.Order("id").Limit(limit).Find(&docs).Error
	return docs, err
}

// Unsummarised is up to limit documents of kinds after id, in id order,
// that have no summary yet (written before summaries existed).
func Unsummarised(tx *gorm.DB, kinds []string, after string, limit int) ([]Document, error) {
	var docs []Document
	if len(kinds) == 0 {
		return docs, nil
	}
	err := tx.Where("id > ? AND kind IN ? AND summary = ''", after, kinds).Order("id").Limit(limit).Find(&docs).Error
	return docs, err
}

// Unsummarised: see the function of that name.
func (s *DocumentStore) Unsummarised(ctx context.Context, kinds []string, after string, limit int) ([]Document, error) {
	return Unsummarised(s.db.WithContext(ctx), kinds, after, limit)
}

// SetSummary writes the summary of document id, only while it is at
// version (a change since wrote its own) and has none.
func (t *DocumentTx) SetSummary(id string, version int64, summary string) error {
	return t.db.Exec("UPDATE documents SET summary = ? WHERE id = ? AND version = ? AND summary = ''", summary, id, version).Error
}

// Children lists the documents under id with their data, oldest first.
func (t *DocumentTx) Children(id string) ([]Document, error) { return Children(t.db, id) }
