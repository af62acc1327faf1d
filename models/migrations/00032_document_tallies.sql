-- A parent document's tally: what its children add up to (for a
-- notification: how many movements, what they carry and what was refused,
-- the sequence numbers in use), as JSON. Each act of a child changes it by
-- the difference the act made, in the transaction that holds the parent's
-- lock, so a child's act no longer reads its siblings (issue 49). Derived
-- state, not in the audit chain: '' means not counted yet (every row
-- written before this migration); the runner counts such a parent's
-- children afresh on its next act and writes the tally then, so nothing
-- needs to be computed here.
ALTER TABLE documents ADD COLUMN tally TEXT NOT NULL DEFAULT '';
