-- A child document's summary: what its parent and its siblings read of it
-- (a movement's sequence number, date, quantity and completion date), so
-- that a notification with a thousand movements reads a thousand small
-- summaries with every movement's change, not a thousand aggregates. The
-- runner writes it with every change of the document, and fills it for
-- the documents stored before this migration when it starts
-- (Runner.SummariseChildren, once: maintenance_tasks); until then a
-- child without one is read whole.
ALTER TABLE documents ADD COLUMN summary TEXT NOT NULL DEFAULT '';
INSERT INTO maintenance_tasks (name, created_at) VALUES ('summarise-children', CURRENT_TIMESTAMP);
