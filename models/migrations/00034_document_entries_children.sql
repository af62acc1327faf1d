-- A party's children of a parent, from its list entries (issue 49): a
-- retrieval document lists at most 50 of the children its caller is a
-- party to (the open ones first, then the latest) and counts them all.
-- document_entries holds one row per document and party organisation,
-- with the document's parent, state and creation, so this index answers
-- both from its own pages: the count without reading a child, the pick
-- reading only the children it lists. Before it, a notification of 1,000
-- movements read and checked all 1,000 rows for each GetDocument.
CREATE INDEX document_entries_children ON document_entries (organisation_id, parent_id, created_at, document_id, state) WHERE parent_id IS NOT NULL;
