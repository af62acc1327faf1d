-- SQLite has no NOTIFY: what 00017 and 00036 announce on PostgreSQL is
-- written here instead, one row per change, by whatever process makes it
-- (a server, the admin command, an operator's SQL): a session's validity
-- changed or its row deleted (its id), a notifier group removed or its id
-- or provider changed ('group:' and its id). Each server reads the rows
-- after the last it read every 250 ms and forgets those keys in its
-- session cache (models.PollSessionChanges); rows older than a minute are
-- removed by it. On PostgreSQL this migration does nothing.
{{if not .Postgres}}
CREATE TABLE session_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    changed_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER))
);
CREATE INDEX session_changes_changed_at ON session_changes (changed_at);
CREATE TRIGGER sessions_changed AFTER UPDATE OF revoked_at, expires_at, account_id ON sessions FOR EACH ROW
BEGIN INSERT INTO session_changes (key) VALUES (OLD.id); END;
CREATE TRIGGER sessions_deleted AFTER DELETE ON sessions FOR EACH ROW
BEGIN INSERT INTO session_changes (key) VALUES (OLD.id); END;
CREATE TRIGGER notifier_groups_changed AFTER UPDATE OF id, provider_id ON notifier_groups FOR EACH ROW
BEGIN INSERT INTO session_changes (key) VALUES ('group:' || OLD.id); END;
CREATE TRIGGER notifier_groups_deleted AFTER DELETE ON notifier_groups FOR EACH ROW
BEGIN INSERT INTO session_changes (key) VALUES ('group:' || OLD.id); END;
{{end}}
