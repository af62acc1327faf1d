-- How many documents a document has under it (a notification's movements):
-- a parent without children skips reading them on every request.
ALTER TABLE documents ADD COLUMN children BIGINT NOT NULL DEFAULT 0;
UPDATE documents SET children = (SELECT COUNT(*) FROM documents c WHERE c.parent_id = documents.id);
