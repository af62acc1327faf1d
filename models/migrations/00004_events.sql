-- Deadline sweeps and notification events.

-- When an open deadline becomes DUE_SOON (the warning window before due_at,
-- in the party's working days); the sweep reads it through a partial index
-- so its cost follows the due deadlines, not all of them.
ALTER TABLE deadlines ADD COLUMN warn_at {{.Time}};
UPDATE deadlines SET warn_at = due_at;
CREATE INDEX deadlines_open_warn ON deadlines (warn_at) WHERE state = 'OPEN';
CREATE INDEX deadlines_running_due ON deadlines (due_at) WHERE state IN ('OPEN', 'DUE_SOON');

-- Events for the organisation that must act (and so its notifier groups).
-- dedup_key makes each event exactly once, however often a sweep runs.
CREATE TABLE events (
    id              {{.ID}},
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    kind            TEXT NOT NULL,
    document_id     TEXT NOT NULL,
    deadline_id     TEXT NOT NULL DEFAULT '',
    dedup_key       TEXT NOT NULL UNIQUE,
    payload         {{.JSON}} NOT NULL,
    created_at      {{.Time}} NOT NULL
);
CREATE INDEX events_recipient ON events (provider_id, organisation_id, id);

-- How far each notifier group has acknowledged its events.
CREATE TABLE group_cursors (
    group_id TEXT PRIMARY KEY REFERENCES notifier_groups (id) ON DELETE CASCADE,
    acked_id BIGINT NOT NULL DEFAULT 0
);
