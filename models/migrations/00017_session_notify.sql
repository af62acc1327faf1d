-- Every change to a session's validity (revoked, ended, extended, deleted)
-- is announced on channel wasteflow_sessions with the session's id, by
-- whatever process makes it (a server, the admin command, an operator's
-- SQL): each instance's session cache listens and forgets the session
-- (models.ListenSessionChanges). NOTIFY is delivered at commit, to every
-- listening connection. SQLite has no such channel: there a table takes its
-- place (00037).
{{if .Postgres}}
CREATE FUNCTION wasteflow_session_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('wasteflow_sessions', OLD.id); RETURN NULL; END $$;
CREATE TRIGGER sessions_changed AFTER UPDATE OF revoked_at, expires_at, account_id OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION wasteflow_session_changed();
{{end}}
