-- What a document keeps apart from its aggregate (issue 49.2): the oldest
-- closed items of its exchange lists (a notification's answered requests
-- for information, its acknowledgements, signals...), which no act changes
-- any more, as a JSON object of arrays, and how many of each list. The
-- data column keeps the rest, which every act rewrites; the archive is
-- written only when items move into it, a batch at a time, so an act on a
-- document with a long history no longer rewrites (and TOAST-compresses)
-- all of it. The aggregate whole is data with the archive's items put
-- back in front of each list (models/archive.go); every row written
-- before this migration keeps nothing apart ('') and reads as it did.
ALTER TABLE documents ADD COLUMN archive TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN archived TEXT NOT NULL DEFAULT '';
