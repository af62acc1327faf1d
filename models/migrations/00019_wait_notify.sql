-- Waiting costs nothing: every new event is announced on channel
-- wasteflow_events with "<provider>:<organisation>" (once per statement
-- and organisation), every change of a signing process's state on
-- wasteflow_signing with the process's id. Each instance's one listening
-- connection (models.Listen) wakes the long polls and waits of those keys
-- (workflows/wake); NOTIFY is delivered at commit, to every listening
-- connection, so a waiter on any instance hears a change made on any
-- other. SQLite has no such channel: servers on it poll.
{{if .Postgres}}
CREATE FUNCTION wasteflow_events_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('wasteflow_events', k) FROM (SELECT DISTINCT provider_id || ':' || organisation_id AS k FROM added) x; RETURN NULL; END $$;
CREATE TRIGGER events_added AFTER INSERT ON events REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION wasteflow_events_added();
CREATE FUNCTION wasteflow_signing_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('wasteflow_signing', NEW.id); RETURN NULL; END $$;
CREATE TRIGGER signing_changed AFTER UPDATE OF state ON signing_processes FOR EACH ROW EXECUTE FUNCTION wasteflow_signing_changed();
{{end}}
