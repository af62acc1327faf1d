-- Transport documents (BMU consignment and acceptance notes): each
-- organisation's store, inboxes, and transport templates with their blocks
-- of note numbers.

-- The official numbers an organisation holds (producer, carrier, disposer
-- numbers with their check digit): how a note finds its parties.
CREATE TABLE organisation_numbers (
    provider_id     TEXT NOT NULL,
    number          TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    PRIMARY KEY (provider_id, number),
    FOREIGN KEY (provider_id, organisation_id) REFERENCES organisations (provider_id, id)
);

-- An organisation's stored notes: the note number is the transport
-- identifier, so importing the same number again adds a version.
CREATE TABLE transport_documents (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    number          TEXT NOT NULL,
    document_type   TEXT NOT NULL,
    version         BIGINT NOT NULL,
    top_layer       TEXT NOT NULL,
    cancelled       {{.Bool}} NOT NULL DEFAULT FALSE,
    created_at      {{.Time}} NOT NULL,
    updated_at      {{.Time}} NOT NULL,
    UNIQUE (provider_id, organisation_id, number)
);
CREATE INDEX transport_documents_org_updated ON transport_documents (provider_id, organisation_id, updated_at, id);

CREATE TABLE transport_document_versions (
    document_id    TEXT NOT NULL REFERENCES transport_documents (id),
    version        BIGINT NOT NULL,
    xml            {{.Bytes}} NOT NULL,
    size           BIGINT NOT NULL,
    top_layer      TEXT NOT NULL,
    cancelled      {{.Bool}} NOT NULL,
    distributed    {{.Bool}} NOT NULL,
    reported       {{.Bool}} NOT NULL,
    imported_by    TEXT NOT NULL,
    created_at     {{.Time}} NOT NULL,
    PRIMARY KEY (document_id, version)
);

-- What reaches an organisation: a version of another party's note
-- (DELIVERY) or, for an authority, a ten-day report (DEKADENMELDUNG).
CREATE TABLE inbox_entries (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    document_id     TEXT NOT NULL REFERENCES transport_documents (id),
    version         BIGINT NOT NULL,
    number          TEXT NOT NULL,
    document_type   TEXT NOT NULL,
    kind            TEXT NOT NULL,
    sender_id       TEXT NOT NULL,
    cancelled       {{.Bool}} NOT NULL,
    read            {{.Bool}} NOT NULL DEFAULT FALSE,
    removed         {{.Bool}} NOT NULL DEFAULT FALSE,
    created_at      {{.Time}} NOT NULL
);
CREATE INDEX inbox_entries_org_created ON inbox_entries (provider_id, organisation_id, created_at, id);

-- Transport templates and their blocks of pre-issued note numbers.
CREATE TABLE transport_templates (
    id                  TEXT PRIMARY KEY,
    provider_id         TEXT NOT NULL,
    organisation_id     TEXT NOT NULL,
    interne_bezeichnung TEXT NOT NULL,
    art                 TEXT NOT NULL,
    format              TEXT NOT NULL,
    xml                 {{.Bytes}} NOT NULL,
    created_at          {{.Time}} NOT NULL,
    updated_at          {{.Time}} NOT NULL
);
CREATE INDEX transport_templates_org ON transport_templates (provider_id, organisation_id);

CREATE TABLE template_numbers (
    template_id TEXT NOT NULL REFERENCES transport_templates (id),
    number      TEXT NOT NULL,
    used_at     {{.Time}},
    PRIMARY KEY (template_id, number)
);
CREATE INDEX template_numbers_free ON template_numbers (template_id, number) WHERE used_at IS NULL;
