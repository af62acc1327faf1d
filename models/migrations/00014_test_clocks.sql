-- Test clocks (development and test environments only): a provider's
-- documents, deadlines, sweep and reports run on real time moved forward
-- by offset_ns; every advance is recorded (who, from, to).
CREATE TABLE test_clocks (
    provider_id TEXT PRIMARY KEY REFERENCES providers (id),
    offset_ns   BIGINT NOT NULL,
    updated_at  {{.Time}} NOT NULL
);
CREATE TABLE test_clock_advances (
    id              {{.ID}},
    provider_id     TEXT NOT NULL,
    account_id      BIGINT NOT NULL,
    organisation_id TEXT NOT NULL,
    from_time       {{.Time}} NOT NULL,
    to_time         {{.Time}} NOT NULL,
    request_id      TEXT NOT NULL,
    at              {{.Time}} NOT NULL
);
CREATE INDEX test_clock_advances_provider ON test_clock_advances (provider_id, id);
