-- A party's children of a parent, by state (issue 49; PostgreSQL). 00034's
-- index reads the children newest first and the pick filters their state:
-- a notification whose 1,000 movements were all open read all 1,000
-- entries to find that none was closed, and one whose movements were all
-- closed read all 1,000 to find that none was open. With the state third,
-- the pick reads each state's newest entries up to the limit
-- (childrenPicked: a branch per state of the child kinds), and the count
-- reads the same index's (organisation, parent) prefix; this index
-- replaces 00034's. SQLite keeps 00034's index and its two branches: there
-- a branch costs about 35 µs even when it finds nothing (measured on 1,000
-- entries: nine branches 370-430 µs, the two branches 350 µs), so the
-- states would cost it more than they save.
{{if .Postgres}}
CREATE INDEX document_entries_children_state ON document_entries (organisation_id, parent_id, state, created_at, number, document_id) WHERE parent_id IS NOT NULL;
DROP INDEX document_entries_children;
{{end}}
