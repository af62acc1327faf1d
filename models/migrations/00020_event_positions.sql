-- An event's position in its organisation's stream: what cursors count.
-- Event ids are drawn when a transaction inserts its events, but
-- transactions commit in their own order: a cursor past id 51 would never
-- see an id-50 event whose transaction committed later. So on PostgreSQL
-- the position is given after commit, by a sequencer (models.SequenceEvents,
-- one at a time under an advisory lock, any instance): in id order, to the
-- events of every transaction that ended before the oldest one still
-- running began (xid below the snapshot's xmin), so no event can appear
-- behind a position already given. The insert trigger wakes the sequencers
-- (channel wasteflow_events_added); the sequencer announces the positioned
-- events' organisations on wasteflow_events (the waiters' channel). SQLite
-- runs one writer at a time, so an event's id is its position (a trigger
-- copies it). Events stored before this migration keep their ids as
-- positions: cursors handed out before stay valid.
ALTER TABLE events ADD COLUMN position BIGINT;
UPDATE events SET position = id;
CREATE INDEX events_stream ON events (provider_id, organisation_id, position);
{{if .Postgres}}
ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_unsequenced ON events (id) WHERE position IS NULL;
CREATE SEQUENCE event_positions;
SELECT setval('event_positions', COALESCE((SELECT max(id) FROM events), 0) + 1, false);
CREATE OR REPLACE FUNCTION wasteflow_events_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('wasteflow_events_added', ''); RETURN NULL; END $$;
{{else}}
CREATE TRIGGER events_position AFTER INSERT ON events BEGIN UPDATE events SET position = NEW.id WHERE id = NEW.id; END;
{{end}}
