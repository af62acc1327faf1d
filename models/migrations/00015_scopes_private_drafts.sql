-- Scopes that mean something: the former umbrella scope "documents" is
-- split into the scopes that operations check (documents:read,
-- documents:write, transport, signing). Scopes are stored sorted and
-- space-separated; the new names are put where "documents" stood and the
-- application re-sorts them when it writes the row again.
UPDATE applications SET scopes = TRIM(REPLACE(' ' || scopes || ' ', ' documents ', ' documents:read documents:write signing transport '))
    WHERE ' ' || scopes || ' ' LIKE '% documents %';
UPDATE accounts SET scopes = TRIM(REPLACE(' ' || scopes || ' ', ' documents ', ' documents:read documents:write signing transport '))
    WHERE ' ' || scopes || ' ' LIKE '% documents %';
UPDATE sessions SET scopes = TRIM(REPLACE(' ' || scopes || ' ', ' documents ', ' documents:read documents:write signing transport '))
    WHERE ' ' || scopes || ' ' LIKE '% documents %';

-- A document in a private state (a DRAFT) is visible only to its author's
-- organisation: the server rewrites every document's parties and list
-- entries once at start (Runner.IndexEntries).
INSERT INTO maintenance_tasks (name, created_at) VALUES ('reindex-document-visibility', CURRENT_TIMESTAMP);
