-- Webhooks (our design, signed to the Standard Webhooks specification):
-- a notifier group registers endpoints; a dispatcher on any instance fans
-- the organisation's events of the endpoint's kinds out into deliveries
-- (position: the last event fanned out, as a group's cursor); each attempt
-- of a delivery is one job of the job queue (River, migration 22). Only the
-- first pending delivery of a document per endpoint has a job (job_id): the
-- others wait behind it, so a document's events arrive in order.
CREATE TABLE webhook_endpoints (
    id               TEXT PRIMARY KEY,
    provider_id      TEXT NOT NULL,
    organisation_id  TEXT NOT NULL,
    group_id         TEXT NOT NULL REFERENCES notifier_groups (id) ON DELETE CASCADE,
    url              TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    event_kinds      TEXT NOT NULL,
    enabled          {{.Bool}} NOT NULL,
    -- the signing secrets, sealed under the server key (AES-GCM); the
    -- previous one signs beside the current until previous_until
    secret           TEXT NOT NULL,
    previous_secret  TEXT NOT NULL DEFAULT '',
    previous_until   {{.Time}},
    position         BIGINT NOT NULL,
    failing_since    {{.Time}},
    disabled_reason  TEXT NOT NULL DEFAULT '',
    created_at       {{.Time}} NOT NULL,
    updated_at       {{.Time}} NOT NULL
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (provider_id, organisation_id);
CREATE INDEX webhook_endpoints_group ON webhook_endpoints (group_id);

CREATE TABLE webhook_deliveries (
    id              {{.ID}},
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL,
    event_id        BIGINT NOT NULL DEFAULT 0,
    position        BIGINT NOT NULL DEFAULT 0,
    kind            TEXT NOT NULL,
    document_id     TEXT NOT NULL DEFAULT '',
    body            TEXT NOT NULL,
    state           TEXT NOT NULL,
    job_id          BIGINT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    round_attempts  INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    last_response   TEXT NOT NULL DEFAULT '',
    last_attempt_at {{.Time}},
    next_attempt_at {{.Time}},
    delivered_at    {{.Time}},
    created_at      {{.Time}} NOT NULL,
    UNIQUE (endpoint_id, message_id)
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_chain ON webhook_deliveries (endpoint_id, document_id, position) WHERE state = 'PENDING';
CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
-- Retries falling due: the dispatcher makes their jobs available on time
-- (the job queue's own scheduler looks only every few seconds).
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'PENDING' AND job_id IS NOT NULL;
