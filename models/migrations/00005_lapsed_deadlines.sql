-- Deadlines whose period ended as the law foresees get their own state.

-- A transit authority's silence that became tacit consent (DECISION_DUE)
-- and a consent that reached the end of its validity (CONSENT_VALIDITY)
-- were closed as OVERDUE; they are LAPSED now, apart from real misses. Only
-- such rows are closed while OVERDUE (a missed deadline that is met later
-- becomes MET_LATE), so closed_at tells them apart.
UPDATE deadlines SET state = 'LAPSED' WHERE state = 'OVERDUE' AND closed_at IS NOT NULL;

-- The partial indexes stay as they are: LAPSED rows are final, never due,
-- and none of deadlines_open_due (OPEN, DUE_SOON, OVERDUE),
-- deadlines_open_warn (OPEN) or deadlines_running_due (OPEN, DUE_SOON)
-- covers them; the rows updated above simply leave deadlines_open_due.
