-- A document may belong to a parent document: a movement to its
-- notification. The runner locks the parent before it creates or changes a
-- child, so invariants over all children (shipments and quantity within the
-- notified totals) hold under concurrency.
ALTER TABLE documents ADD COLUMN parent_id TEXT REFERENCES documents (id);
CREATE INDEX documents_parent ON documents (parent_id, created_at);
