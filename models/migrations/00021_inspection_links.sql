-- Inspection links (our design): the QR code of a printed document leads an
-- inspector, without login, to the document's current state. A link is a
-- random token bound to one document, stored only as its SHA-256; it
-- expires, and the document's parties revoke it. Every use is kept (time,
-- client address) for the parties to see.
CREATE TABLE inspection_links (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    document_id     TEXT NOT NULL REFERENCES documents (id),
    token_hash      TEXT NOT NULL UNIQUE,
    organisation_id TEXT NOT NULL,
    created_by      TEXT NOT NULL,
    created_at      {{.Time}} NOT NULL,
    expires_at      {{.Time}} NOT NULL,
    revoked_at      {{.Time}},
    revoked_by      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX inspection_links_document ON inspection_links (document_id, created_at);
CREATE TABLE inspection_uses (
    id             {{.ID}},
    link_id        TEXT NOT NULL REFERENCES inspection_links (id),
    document_id    TEXT NOT NULL,
    used_at        {{.Time}} NOT NULL,
    client_address TEXT NOT NULL,
    user_agent     TEXT NOT NULL DEFAULT '',
    format         TEXT NOT NULL
);
CREATE INDEX inspection_uses_link ON inspection_uses (link_id, used_at);
