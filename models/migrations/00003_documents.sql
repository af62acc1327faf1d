-- Documents (one row per document, its aggregate as JSON), who may see
-- them, their deadlines and the hash-chained audit trail.

CREATE TABLE documents (
    id          TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL REFERENCES providers (id),
    kind        TEXT NOT NULL,
    number      TEXT NOT NULL,
    state       TEXT NOT NULL,
    version     BIGINT NOT NULL,
    data        {{.JSON}} NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  {{.Time}} NOT NULL,
    updated_at  {{.Time}} NOT NULL,
    UNIQUE (provider_id, number)
);

-- Number sequences per provider, kind and prefix (e.g. DE-2026).
CREATE TABLE document_numbers (
    provider_id TEXT NOT NULL,
    prefix      TEXT NOT NULL,
    last_value  BIGINT NOT NULL,
    PRIMARY KEY (provider_id, prefix)
);

CREATE TABLE document_parties (
    document_id     TEXT NOT NULL REFERENCES documents (id),
    organisation_id TEXT NOT NULL,
    role            TEXT NOT NULL,
    PRIMARY KEY (document_id, organisation_id, role)
);
CREATE INDEX document_parties_organisation ON document_parties (organisation_id, document_id);

CREATE TABLE deadlines (
    id              TEXT PRIMARY KEY,
    document_id     TEXT NOT NULL REFERENCES documents (id),
    provider_id     TEXT NOT NULL,
    rule            TEXT NOT NULL,
    legal_basis     TEXT NOT NULL,
    party_org       TEXT NOT NULL,
    party_role      TEXT NOT NULL,
    state           TEXT NOT NULL,
    started_at      {{.Time}} NOT NULL,
    due_at          {{.Time}} NOT NULL,
    suspended_since {{.Time}},
    suspended_days  INTEGER NOT NULL DEFAULT 0,
    closed_at       {{.Time}},
    updated_at      {{.Time}} NOT NULL
);
CREATE INDEX deadlines_document ON deadlines (document_id);
-- The sweep looks only at open deadlines by due date.
CREATE INDEX deadlines_open_due ON deadlines (due_at) WHERE state IN ('OPEN', 'DUE_SOON', 'OVERDUE');

CREATE TABLE audit_events (
    document_id TEXT NOT NULL REFERENCES documents (id),
    seq         BIGINT NOT NULL,
    from_state  TEXT NOT NULL,
    to_state    TEXT NOT NULL,
    intent      TEXT NOT NULL,
    actor       TEXT NOT NULL,
    actor_org   TEXT NOT NULL,
    at          {{.Time}} NOT NULL,
    request_id  TEXT NOT NULL,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL,
    PRIMARY KEY (document_id, seq)
);
