-- Register exports (our design of the interface's "not shown"): one row
-- per export request, worked in slices by a job of the job queue (River,
-- migration 22); each slice appends one chunk of rows and moves the
-- export's keyset in one transaction, so a kill loses at most the slice it
-- was in. An XLSX export is assembled from the row chunks at the end.
-- A register reads an organisation's documents in (created_at, id) order.
CREATE INDEX documents_created ON documents (provider_id, created_at, id);
CREATE TABLE register_exports (
    id              TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    organisation_id TEXT NOT NULL,
    requested_by    TEXT NOT NULL,
    date_from       {{.Time}} NOT NULL,
    date_to         {{.Time}} NOT NULL,
    kinds           TEXT NOT NULL,
    format          TEXT NOT NULL,
    language        TEXT NOT NULL,
    state           TEXT NOT NULL,
    phase           TEXT NOT NULL,
    after_at        {{.Time}},
    after_id        TEXT NOT NULL DEFAULT '',
    done            BIGINT NOT NULL DEFAULT 0,
    total           BIGINT NOT NULL DEFAULT 0,
    rows_written    BIGINT NOT NULL DEFAULT 0,
    chunks          BIGINT NOT NULL DEFAULT 0,
    file_chunks     BIGINT NOT NULL DEFAULT 0,
    size            BIGINT NOT NULL DEFAULT 0,
    job_id          BIGINT NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT '',
    created_at      {{.Time}} NOT NULL,
    updated_at      {{.Time}} NOT NULL,
    finished_at     {{.Time}}
);
CREATE INDEX register_exports_org ON register_exports (provider_id, organisation_id, created_at);
CREATE INDEX register_exports_created ON register_exports (created_at);
CREATE TABLE register_export_chunks (
    export_id TEXT NOT NULL,
    part      TEXT NOT NULL,
    seq       BIGINT NOT NULL,
    data      {{.Bytes}} NOT NULL,
    PRIMARY KEY (export_id, part, seq)
);
