-- Tenancy and identities: providers, their organisations, applications and accounts.
-- Placeholders ({{"{{"}}.Time}} etc.) are rendered per dialect by models/migrate.go.

CREATE TABLE providers (
    id          TEXT PRIMARY KEY,
    environment TEXT NOT NULL CHECK (environment IN ('production', 'staging', 'test', 'development')),
    name        TEXT NOT NULL,
    created_at  {{.Time}} NOT NULL,
    updated_at  {{.Time}} NOT NULL
);

CREATE TABLE organisations (
    provider_id TEXT NOT NULL REFERENCES providers (id),
    id          TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('company', 'authority')),
    name        TEXT NOT NULL,
    country     TEXT NOT NULL,
    region      TEXT NOT NULL DEFAULT '',
    created_at  {{.Time}} NOT NULL,
    updated_at  {{.Time}} NOT NULL,
    PRIMARY KEY (provider_id, id)
);

CREATE TABLE applications (
    id             {{.ID}},
    provider_id    TEXT NOT NULL REFERENCES providers (id),
    name           TEXT NOT NULL,
    app_token_hash TEXT NOT NULL,
    scopes         TEXT NOT NULL DEFAULT '',
    revoked_at     {{.Time}},
    created_at     {{.Time}} NOT NULL,
    updated_at     {{.Time}} NOT NULL,
    UNIQUE (provider_id, name)
);
CREATE UNIQUE INDEX applications_app_token_hash ON applications (app_token_hash);

CREATE TABLE accounts (
    id                  {{.ID}},
    provider_id         TEXT NOT NULL REFERENCES providers (id),
    organisation_id     TEXT NOT NULL,
    username            TEXT NOT NULL,
    password_hash       TEXT NOT NULL,
    scopes              TEXT NOT NULL DEFAULT '',
    password_changed_at {{.Time}} NOT NULL,
    disabled_at         {{.Time}},
    created_at          {{.Time}} NOT NULL,
    updated_at          {{.Time}} NOT NULL,
    UNIQUE (provider_id, username),
    FOREIGN KEY (provider_id, organisation_id) REFERENCES organisations (provider_id, id)
);
