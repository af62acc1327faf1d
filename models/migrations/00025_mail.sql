-- Reminder mails (our design): each account's choice of mails and its
-- address (confirmed by a link before any reminder goes to it), and the
-- outbox: one row per mail an account is sent, unique by what it is about
-- (dedup_key), so a second scan, a restart or a second instance never
-- makes it twice; each row is sent by a job of the job queue (migration
-- 22), retried while the mail server is down.
CREATE TABLE mail_preferences (
    account_id         BIGINT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    provider_id        TEXT NOT NULL,
    organisation_id    TEXT NOT NULL,
    email              TEXT NOT NULL DEFAULT '',
    email_confirmed_at {{.Time}},
    language           TEXT NOT NULL DEFAULT 'en',
    due_soon           {{.Bool}} NOT NULL DEFAULT FALSE,
    due_soon_days      INTEGER NOT NULL DEFAULT 3,
    overdue            {{.Bool}} NOT NULL DEFAULT FALSE,
    awaiting_action    {{.Bool}} NOT NULL DEFAULT FALSE,
    digest             {{.Bool}} NOT NULL DEFAULT FALSE,
    digest_time        TEXT NOT NULL DEFAULT '08:00',
    -- the provider's time when mails were last switched on: deadlines that
    -- opened or fell overdue before are not mailed one by one
    since              {{.Time}} NOT NULL,
    token_generation   INTEGER NOT NULL DEFAULT 0,
    updated_at         {{.Time}} NOT NULL
);
CREATE INDEX mail_preferences_org ON mail_preferences (provider_id, organisation_id);

CREATE TABLE mail_outbox (
    id              {{.ID}},
    account_id      BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    dedup_key       TEXT NOT NULL,
    kind            TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    text_body       TEXT NOT NULL,
    html_body       TEXT NOT NULL,
    unsubscribe_url TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      {{.Time}} NOT NULL,
    sent_at         {{.Time}},
    UNIQUE (account_id, dedup_key)
);
