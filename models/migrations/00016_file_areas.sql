-- The operations without a REST route (section 8 of the interface; our
-- design): inbox entries taken into the store, an organisation's file area
-- (case files holding documents of its store, shared by grant), and
-- transfers (a document sent or delivered, with each recipient's entry).
ALTER TABLE inbox_entries ADD COLUMN taken_document_id TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox_entries ADD COLUMN taken_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE inbox_entries ADD COLUMN transfer_id TEXT NOT NULL DEFAULT '';
CREATE TABLE files (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    name            TEXT NOT NULL,
    reference       TEXT NOT NULL,
    merged_into     TEXT NOT NULL DEFAULT '',
    created_by      TEXT NOT NULL,
    created_at      {{.Time}} NOT NULL,
    updated_at      {{.Time}} NOT NULL
);
CREATE INDEX files_org ON files (provider_id, organisation_id, updated_at, id);
CREATE TABLE file_documents (
    file_id     TEXT NOT NULL REFERENCES files (id),
    document_id TEXT NOT NULL REFERENCES transport_documents (id),
    added_by    TEXT NOT NULL,
    added_at    {{.Time}} NOT NULL,
    PRIMARY KEY (file_id, document_id)
);
CREATE INDEX file_documents_document ON file_documents (document_id);
CREATE TABLE file_grants (
    file_id         TEXT NOT NULL REFERENCES files (id),
    organisation_id TEXT NOT NULL,
    granted_by      TEXT NOT NULL,
    granted_at      {{.Time}} NOT NULL,
    PRIMARY KEY (file_id, organisation_id)
);
CREATE INDEX file_grants_org ON file_grants (organisation_id, file_id);
CREATE TABLE transfers (
    id          TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    sender_id   TEXT NOT NULL,
    document_id TEXT NOT NULL REFERENCES transport_documents (id),
    version     BIGINT NOT NULL,
    number      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    message     TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  {{.Time}} NOT NULL
);
CREATE INDEX transfers_sender ON transfers (provider_id, sender_id, created_at);
