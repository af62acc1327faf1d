-- Idempotency keys: a mutation sent with an Idempotency-Key header records
-- its answer in the transaction of its effect; a retry with the same key
-- (and body) gets that answer again instead of a second effect.
CREATE TABLE idempotency_keys (
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    operation       TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    status          INTEGER NOT NULL DEFAULT 0,
    body            {{.Bytes}},
    created_at      {{.Time}} NOT NULL,
    PRIMARY KEY (provider_id, organisation_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
