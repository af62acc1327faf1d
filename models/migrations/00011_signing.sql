-- Signing processes: a document waits for one person's signature through
-- the signing page.
CREATE TABLE signing_processes (
    id             TEXT PRIMARY KEY,
    provider_id    TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    created_by     BIGINT NOT NULL,
    signer_id      BIGINT NOT NULL,
    signer_name    TEXT NOT NULL,
    position       TEXT NOT NULL,
    document       {{.Bytes}} NOT NULL,
    result         {{.Bytes}},
    state          TEXT NOT NULL,
    reason         TEXT NOT NULL DEFAULT '',
    created_at     {{.Time}} NOT NULL,
    expires_at     {{.Time}} NOT NULL,
    opened_at      {{.Time}},
    completed_at   {{.Time}}
);
CREATE INDEX signing_processes_creator ON signing_processes (provider_id, organisation_id, state);
CREATE INDEX signing_processes_signer ON signing_processes (provider_id, signer_id, state);
