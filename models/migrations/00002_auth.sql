-- Sessions (refresh-token families), their refresh tokens, client ids,
-- login throttling and notifier groups.

CREATE TABLE client_ids (
    id           TEXT PRIMARY KEY,
    provider_id  TEXT NOT NULL REFERENCES providers (id),
    account_id   BIGINT NOT NULL REFERENCES accounts (id),
    description  TEXT NOT NULL DEFAULT '',
    secret_hash  TEXT NOT NULL,
    created_at   {{.Time}} NOT NULL,
    last_used_at {{.Time}},
    revoked_at   {{.Time}}
);
CREATE INDEX client_ids_account ON client_ids (account_id);

-- A session is a refresh-token family. Revoking it (reuse detected, logout,
-- password change, client id revoked) is one flag on this row.
CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    provider_id      TEXT NOT NULL REFERENCES providers (id),
    account_id       BIGINT NOT NULL REFERENCES accounts (id),
    client_id        TEXT REFERENCES client_ids (id),
    application_id   BIGINT NOT NULL REFERENCES applications (id),
    credential_type  TEXT NOT NULL CHECK (credential_type IN ('USERNAME_PASSWORD', 'CLIENT_ID')),
    scopes           TEXT NOT NULL DEFAULT '',
    user_agent       TEXT NOT NULL DEFAULT '',
    client_ip        TEXT NOT NULL DEFAULT '',
    created_at       {{.Time}} NOT NULL,
    last_used_at     {{.Time}} NOT NULL,
    expires_at       {{.Time}} NOT NULL,
    revoked_at       {{.Time}},
    revoked_reason   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_client_id ON sessions (client_id);

-- Every refresh token ever issued; consumed_at is set by exactly one
-- conditional UPDATE, which is what makes rotation single-use.
CREATE TABLE refresh_tokens (
    jti         TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions (id),
    generation  INTEGER NOT NULL,
    issued_at   {{.Time}} NOT NULL,
    expires_at  {{.Time}} NOT NULL,
    consumed_at {{.Time}},
    UNIQUE (session_id, generation)
);

-- Credential failures per key (account, client id, group, client address)
-- in a fixed window; times are Unix seconds so both databases compare them
-- as numbers.
CREATE TABLE auth_throttle (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    window_start BIGINT NOT NULL
);

CREATE TABLE notifier_groups (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL REFERENCES providers (id),
    organisation_id TEXT NOT NULL,
    name            TEXT NOT NULL,
    event_kinds     TEXT NOT NULL DEFAULT '',
    secret_hash     TEXT NOT NULL,
    created_by      BIGINT NOT NULL REFERENCES accounts (id),
    created_at      {{.Time}} NOT NULL,
    last_login_at   {{.Time}},
    FOREIGN KEY (provider_id, organisation_id) REFERENCES organisations (provider_id, id),
    UNIQUE (provider_id, organisation_id, name)
);
