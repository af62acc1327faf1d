-- What each party organisation's document lists show: one row per document
-- and organisation, written in the transaction of every change of the
-- document. Besides copies of the document's listed columns, a row holds
-- the organisation's roles, its follow-up intents as the machine offered
-- them at the last change (the work queue keeps the rows with at least
-- one) and the due time of the earliest running deadline the organisation
-- must meet. The runner fills the rows of documents written before this
-- migration when it starts (Runner.IndexEntries, once: maintenance_tasks).
CREATE TABLE document_entries (
    document_id     TEXT NOT NULL REFERENCES documents (id),
    organisation_id TEXT NOT NULL,
    provider_id     TEXT NOT NULL,
    kind            TEXT NOT NULL,
    number          TEXT NOT NULL,
    state           TEXT NOT NULL,
    version         BIGINT NOT NULL,
    parent_id       TEXT,
    roles           TEXT NOT NULL,
    intents         TEXT NOT NULL,
    actionable      {{.Bool}} NOT NULL,
    next_due_at     {{.Time}},
    created_at      {{.Time}} NOT NULL,
    updated_at      {{.Time}} NOT NULL,
    PRIMARY KEY (document_id, organisation_id)
);
-- An organisation's list, newest change first (the default order).
CREATE INDEX document_entries_list ON document_entries (provider_id, organisation_id, updated_at, document_id);
-- An organisation's work queue, nearest deadline first.
CREATE INDEX document_entries_queue ON document_entries (provider_id, organisation_id, next_due_at, document_id) WHERE actionable;

-- Work the server does once at start after a migration asks for it (the
-- runner's Go code, not SQL, computes the entries).
CREATE TABLE maintenance_tasks (
    name       TEXT PRIMARY KEY,
    created_at {{.Time}} NOT NULL
);
INSERT INTO maintenance_tasks (name, created_at) VALUES ('index-document-entries', CURRENT_TIMESTAMP);
