-- The trail replays to the document (issue 46.2).
--
-- context: what an act consulted beyond the document itself, as JSON (its
-- input, the directory's answers, the provider's settings, the documents
-- it referred to, the number a create drew) and digests of what it left
-- (workflows/documents/replay.go). Part of the row's hash when set, so rows
-- written before this migration keep their hashes; they cannot be replayed.
ALTER TABLE audit_events ADD COLUMN context TEXT NOT NULL DEFAULT '';

-- pos: the order rows were written in, across documents. The acts of one
-- family (a notification and its movements) hold the root's row lock, so
-- within a family pos is the order they committed in: the replay walks a
-- family's rows by it. Not hashed (it is given by the database).
{{if .Postgres}}
CREATE SEQUENCE audit_events_pos_seq;
ALTER TABLE audit_events ADD COLUMN pos BIGINT NOT NULL DEFAULT nextval('audit_events_pos_seq');
ALTER SEQUENCE audit_events_pos_seq OWNED BY audit_events.pos;
{{else}}
ALTER TABLE audit_events ADD COLUMN pos BIGINT;
UPDATE audit_events SET pos = rowid;
-- SQLite has one writer at a time: the next position is the largest plus one.
CREATE TRIGGER audit_events_pos AFTER INSERT ON audit_events WHEN NEW.pos IS NULL BEGIN UPDATE audit_events SET pos = (SELECT COALESCE(MAX(pos), 0) + 1 FROM audit_events) WHERE rowid = NEW.rowid; END;
{{end}}
CREATE INDEX audit_events_by_pos ON audit_events (pos);
