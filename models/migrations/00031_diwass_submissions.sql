-- DIWASS submissions (issue 47.3): one row per document sent to DIWASS,
-- beside the job that sends it. PENDING waits for its job; SENDING is
-- written and committed before the request leaves, so a worker that dies
-- while sending leaves a row whose next run knows the request may have
-- arrived (UNCERTAIN, never sent again by itself); SENT holds DIWASS's
-- number, REJECTED DIWASS's fault (or why it was not sent).
CREATE TABLE diwass_submissions (
    document_id     TEXT PRIMARY KEY,
    provider_id     TEXT NOT NULL,
    state           TEXT NOT NULL,
    document_number TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    last_error      TEXT NOT NULL,
    sent_at         {{.Time}},
    created_at      {{.Time}} NOT NULL,
    updated_at      {{.Time}} NOT NULL
);
CREATE INDEX diwass_submissions_state ON diwass_submissions (state, created_at);
