-- Each document keeps the head of its audit chain (the last row's sequence
-- number and hash), so a transition appends its audit row without reading
-- the previous one: one statement less per transition. Rows written before
-- this migration are the chain; the head is taken from them.
ALTER TABLE documents ADD COLUMN audit_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN audit_hash TEXT NOT NULL DEFAULT '';
UPDATE documents SET
    audit_seq = COALESCE((SELECT MAX(a.seq) FROM audit_events a WHERE a.document_id = documents.id), 0),
    audit_hash = COALESCE((SELECT a.hash FROM audit_events a WHERE a.document_id = documents.id ORDER BY a.seq DESC LIMIT 1), '');
