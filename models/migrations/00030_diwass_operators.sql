-- DIWASS operators (issue 47.1): each company organisation registered in
-- DIWASS's operator directory, or found there and linked, with the
-- OperatorInternalID DIWASS gave it and its activity status as last read.
-- Kept apart from organisations: the directory is ours, the link DIWASS's.
CREATE TABLE diwass_operators (
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    operator_id     TEXT NOT NULL,
    status          TEXT NOT NULL,
    identifier      TEXT NOT NULL,
    linked          {{.Bool}} NOT NULL,
    registered_at   {{.Time}} NOT NULL,
    PRIMARY KEY (provider_id, organisation_id)
);
