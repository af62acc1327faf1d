package models

import (
	"context"
	"time"
)

// Gauges are counts of the work in hand that /metrics reports: the open
// deadlines, the sweep's backlog, the webhook endpoints, the job queue
// and the mail outbox. Every instance reads the same database, so every
// instance reports the same figures (alert on their maximum).
type Gauges struct {
	// Deadlines are the deadlines still running, by state (OPEN,
	// DUE_SOON, OVERDUE, SUSPENDED); closed ones are history.
	Deadlines map[string]int64
	// Unswept are OPEN or DUE_SOON deadlines due more than ten minutes
	// ago: the sweep is not running, or is behind.
	Unswept int64
	// WebhookEndpoints by state: enabled, failing (enabled, every attempt
	// failing since failing_since), disabled.
	WebhookEndpoints map[string]int64
	// Jobs of the job queue not yet finished, by queue and state
	// (available, scheduled, retryable, running).
	Jobs map[[2]string]int64
	// MailsQueued are reminder mails not yet sent; MailsStuck those queued
	// more than an hour ago.
	MailsQueued, MailsStuck int64
	// DIWASSSubmissions are the documents' exchanges with DIWASS by state
	// (PENDING, SENDING, SENT, REJECTED, UNCERTAIN); DIWASSOldestPending
	// how long the oldest PENDING one has waited (0: none waits).
	DIWASSSubmissions   map[string]int64
	DIWASSOldestPending time.Duration
}

// ReadGauges counts what Gauges holds, as of now.
func ReadGauges(ctx context.Context, db *DB, now time.Time) (*Gauges, error) {
	g := &Gauges{Deadlines: map[string]int64{}, WebhookEndpoints: map[string]int64{}, Jobs: map[[2]string]int64{}}
	tx := db.WithContext(ctx)
	var byState []struct {
		State string
		N     int64
	}
	if err := tx.Raw(`SELECT state, count(*) AS n FROM deadlines WHERE state IN ('OPEN', 'DUE_SOON', 'OVERDUE', 'SUSPENDED') GROUP BY state`).Scan(&byState).Error; err != nil {
		return nil, err
	}
	for _, s := range []string{"OPEN", "DUE_SOON", "OVERDUE", "SUSPENDED"} {
		g.Deadlines[s] = 0
	}
	for _, r := range byState {
		g.Deadlines[r.State] = r.N
	}
	if err := tx.Raw(`SELECT count(*) FROM deadlines WHERE state IN ('OPEN', 'DUE_SOON') AND due_at < ?`, now.Add(-10*time.Minute)).Scan(&g.Unswept).Error; err != nil {
		return nil, err
	}
	var hooks struct{ Enabled, Failing, Disabled int64 }
	if err := tx.Raw(`SELECT
		coalesce(sum(CASE WHEN enabled THEN 1 ELSE 0 END), 0) AS enabled,
		coalesce(sum(CASE WHEN enabled AND failing_since IS NOT NULL THEN 1 ELSE 0 END), 0) AS failing,
		coalesce(sum(CASE WHEN enabled THEN 0 ELSE 1 END), 0) AS disabled
		FROM webhook_endpoints`).Scan(&hooks).Error; err != nil {
		return nil, err
	}
	g.WebhookEndpoints["enabled"], g.WebhookEndpoints["failing"], g.WebhookEndpoints["disabled"] = hooks.Enabled, hooks.Failing, hooks.Disabled
	var jobs []struct {
		Queue, State string
		N            int64
	}
	if err := tx.Raw(`SELECT queue, state, count(*) AS n FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY queue, state`).Scan(&jobs).Error; err != nil {
		return nil, err
	}
	for _, j := range jobs {
		g.Jobs[[2]string{j.Queue, j.State}] = j.N
	}
	var mails struct{ Queued, Stuck int64 }
	if err := tx.Raw(`SELECT count(*) AS queued, coalesce(sum(CASE WHEN created_at < ? THEN 1 ELSE 0 END), 0) AS stuck
		FROM mail_outbox WHERE state = ?`, now.Add(-time.Hour), MailQueued).Scan(&mails).Error; err != nil {
		return nil, err
	}
	g.MailsQueued, g.MailsStuck = mails.Queued, mails.Stuck
	g.DIWASSSubmissions = map[string]int64{}
	for _, st := range []string{SubmissionPending, SubmissionSending, SubmissionSent, SubmissionRejected, SubmissionUncertain} {
		g.DIWASSSubmissions[st] = 0
	}
	var subs []struct {
		State string
		N     int64
	}
	if err := tx.Raw(`SELECT state, count(*) AS n FROM diwass_submissions GROUP BY state`).Scan(&subs).Error; err != nil {
		return nil, err
	}
	for _, r := range subs {
		g.DIWASSSubmissions[r.State] = r.N
	}
	var oldest []DIWASSSubmission
	if err := tx.Where("state = ?", SubmissionPending).Order("created_at").Limit(1).Find(&oldest).Error; err != nil {
		return nil, err
	}
	if len(oldest) == 1 {
		g.DIWASSOldestPending = max(now.Sub(oldest[0].CreatedAt), 0)
	}
	return g, nil
}
