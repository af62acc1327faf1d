// Package mail sends people the reminders of their deadlines (our design):
// each account chooses which mails it gets (a deadline due within a number
// of the acting party's working days, an overdue one, a document waiting
// for its organisation's action, a daily digest at a time of the
// organisation's zone), in German or English, at an address it confirmed.
// A scan (a cron job on every instance) writes the mails due into an
// outbox, each once per account and subject (a unique key), and each is
// sent by a job of the durable job queue: a mail server that is down
// delays mails, it never fails a request.
package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	gomail "github.com/wneessen/go-mail"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// SMTP is how mails leave: a mail server and its login.
type SMTP struct {
	Host string // "": this server sends no mail
	Port int
	// Security: "starttls" (required), "tls" (implicit TLS, usually port
	// 465) or "none" (plain, for a relay on the same machine).
	Security           string
	Username, Password string
	From               string // the From header, "Name <address>"
	Timeout            time.Duration
}

// Service keeps preferences, scans for mails due and sends them.
type Service struct {
	Store   *models.MailStore
	Jobs    *models.JobQueue
	Keyring *credentials.Keyring
	Clocks  *clock.Clocks // the providers' clocks (a sandbox's test clock); nil: real time
	SMTP    SMTP
	// BaseURL is the server's public address for the links in mails.
	BaseURL string
	Log     *slog.Logger
	// Now is the real clock (time.Now when nil); Clocks moves it for a
	// sandbox provider.
	Now func() time.Time
	// Retry is the wait before the attempt-th retry of a mail (the job
	// queue's backoff when nil: attempt^4 seconds).
	Retry func(attempt int) time.Duration
}

// Enabled tells whether this server sends mail.
func (s *Service) Enabled() bool { return s.SMTP.Host != "" }

// Register adds the send worker to the job queue.
func (s *Service) Register(q *models.JobQueue) { models.AddWorker[SendArgs](q, &worker{s: s}) }

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Preferences are an account's choices as the API shows them.
type Preferences struct {
	Email              string
	EmailConfirmed     bool
	Language           string
	DueSoon            bool
	DueSoonWorkingDays int
	Overdue            bool
	AwaitingAction     bool
	Digest             bool
	DigestTime         string
	TimeZone           string // the organisation's (read only)
}

func (s *Service) account(ctx context.Context) (*reqctx.Principal, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return nil, status.New(status.PermissionDenied, "mail preferences belong to a person's account: call with its access token")
	}
	return p, nil
}

func (s *Service) now(ctx context.Context, provider string) (time.Time, error) {
	real := time.Now()
	if s.Now != nil {
		real = s.Now()
	}
	if s.Clocks == nil {
		return real, nil
	}
	return s.Clocks.At(ctx, provider, real)
}

func (s *Service) zone(ctx context.Context, provider, org string) (*time.Location, calendar.Place) {
	o, err := s.Store.Organisation(ctx, provider, org)
	if err != nil {
		return time.UTC, calendar.Place{}
	}
	place := calendar.Place{Country: o.Country, Region: o.Region}
	return calendar.Location(o.Country), place
}

// Get is the calling account's preferences (all off before it set any).
func (s *Service) Get(ctx context.Context) (*Preferences, error) {
	p, err := s.account(ctx)
	if err != nil {
		return nil, err
	}
	pref, err := s.Store.Preference(ctx, p.AccountID)
	if errors.Is(err, models.ErrNotFound) {
		pref, err = &models.MailPreference{Language: "en", DueSoonDays: 3, DigestTime: "08:00"}, nil
	}
	if err != nil {
		return nil, err
	}
	loc, _ := s.zone(ctx, p.ProviderID, p.OrganisationID)
	return view(pref, loc), nil
}

func view(p *models.MailPreference, loc *time.Location) *Preferences {
	return &Preferences{Email: p.Email, EmailConfirmed: p.Email != "" && p.EmailConfirmedAt != nil, Language: p.Language,
		DueSoon: p.DueSoon, DueSoonWorkingDays: p.DueSoonDays, Overdue: p.Overdue, AwaitingAction: p.AwaitingAction,
		Digest: p.Digest, DigestTime: p.DigestTime, TimeZone: loc.String()}
}

var hhmm = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// Set replaces the calling account's preferences. A new address is
// unconfirmed until the link of the confirmation mail sent to it is
// followed; no reminder goes to an unconfirmed address.
func (s *Service) Set(ctx context.Context, in Preferences) (*Preferences, error) {
	p, err := s.account(ctx)
	if err != nil {
		return nil, err
	}
	in.Email = strings.TrimSpace(in.Email)
	if in.Language == "" {
		in.Language = "en"
	}
	if in.DigestTime == "" {
		in.DigestTime = "08:00"
	}
	if in.DueSoonWorkingDays == 0 {
		in.DueSoonWorkingDays = 3
	}
	switch {
	case in.Email != "" && !validAddress(in.Email):
		return nil, status.Invalid("preferences.email", "not a mail address")
	case in.Language != "en" && in.Language != "de":
		return nil, status.Invalid("preferences.language", "en or de")
	case in.DueSoonWorkingDays < 1 || in.DueSoonWorkingDays > 20:
		return nil, status.Invalid("preferences.dueSoonWorkingDays", "1 to 20 working days")
	case !hhmm.MatchString(in.DigestTime):
		return nil, status.Invalid("preferences.digestTime", "a time of day as HH:MM (24 hours), in the organisation's time zone")
	case in.Email == "" && (in.DueSoon || in.Overdue || in.AwaitingAction || in.Digest):
		return nil, status.Invalid("preferences.email", "required to receive mails")
	case in.Email != "" && !s.Enabled():
		return nil, status.New(status.FailedPrecondition, "this server sends no mail (WASTEFLOW_SMTP_HOST is not set); ask its operator")
	}
	now, err := s.now(ctx, p.ProviderID)
	if err != nil {
		return nil, err
	}
	var out *models.MailPreference
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		cur, err := s.Store.Preference(ctx, p.AccountID)
		if errors.Is(err, models.ErrNotFound) {
			cur, err = &models.MailPreference{AccountID: p.AccountID, ProviderID: p.ProviderID, OrganisationID: p.OrganisationID}, nil
		}
		if err != nil {
			return err
		}
		wasOn := cur.DueSoon || cur.Overdue || cur.AwaitingAction || cur.Digest
		newAddress := !strings.EqualFold(cur.Email, in.Email)
		cur.Language, cur.DueSoon, cur.DueSoonDays, cur.Overdue, cur.AwaitingAction, cur.Digest, cur.DigestTime =
			in.Language, in.DueSoon, in.DueSoonWorkingDays, in.Overdue, in.AwaitingAction, in.Digest, in.DigestTime
		if newAddress {
			cur.Email, cur.EmailConfirmedAt = in.Email, nil
		}
		if !wasOn || cur.Since.IsZero() {
			cur.Since = now
		}
		cur.UpdatedAt = time.Now().UTC()
		if err := s.Store.SavePreference(ctx, cur); err != nil {
			return err
		}
		out = cur
		if newAddress && cur.Email != "" {
			return s.queueConfirmation(ctx, cur)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	loc, _ := s.zone(ctx, p.ProviderID, p.OrganisationID)
	return view(out, loc), nil
}

func validAddress(a string) bool {
	addr, err := mail.ParseAddress(a)
	return err == nil && addr.Address == a && len(a) <= 254
}

// Tokens of the links in mails: "<account>.<value>.<mac>", the MAC under
// the server key. An unsubscribe token names the account's token
// generation (unsubscribing moves it on, so old links stop working once
// used); a confirmation token names the address it confirms.
const (
	purposeUnsubscribe = "mail-unsubscribe"
	purposeConfirm     = "mail-confirm"
)

func (s *Service) token(purpose string, account int64, value string) string {
	body := strconv.FormatInt(account, 10) + "." + value
	return body + "." + s.Keyring.MAC(purpose, body)[:32]
}

// check parses a token of purpose: its account and value.
func (s *Service) check(purpose, token string) (int64, string, bool) {
	i, j := strings.IndexByte(token, '.'), strings.LastIndexByte(token, '.')
	if i <= 0 || j <= i {
		return 0, "", false
	}
	account, err := strconv.ParseInt(token[:i], 10, 64)
	if err != nil {
		return 0, "", false
	}
	body := token[:j]
	if !credentials.Equal(s.Keyring.MAC(purpose, body)[:32], token[j+1:]) {
		return 0, "", false
	}
	return account, token[i+1 : j], true
}

// UnsubscribeURL is the one-click link of account's mails.
func (s *Service) UnsubscribeURL(p *models.MailPreference) string {
	return s.BaseURL + "/mail/unsubscribe?t=" + url.QueryEscape(s.token(purposeUnsubscribe, p.AccountID, strconv.Itoa(p.TokenGeneration)))
}

func (s *Service) confirmURL(p *models.MailPreference) string {
	return s.BaseURL + "/mail/confirm?t=" + url.QueryEscape(s.token(purposeConfirm, p.AccountID, s.addressTag(p.Email)))
}

// Unsubscribe switches every reminder of the token's account off (RFC
// 8058's one-click unsubscribe). ok is false for a token that is not (or
// no longer) valid.
func (s *Service) Unsubscribe(ctx context.Context, token string) (bool, error) {
	account, gen, ok := s.check(purposeUnsubscribe, token)
	if !ok {
		return false, nil
	}
	done := false
	err := s.Store.Tx(ctx, func(ctx context.Context) error {
		p, err := s.Store.Preference(ctx, account)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil || strconv.Itoa(p.TokenGeneration) != gen {
			return err
		}
		p.DueSoon, p.Overdue, p.AwaitingAction, p.Digest = false, false, false, false
		p.TokenGeneration++
		p.UpdatedAt = time.Now().UTC()
		done = true
		return s.Store.SavePreference(ctx, p)
	})
	return done, err
}

// addressTag stands for an address in a confirmation token (the address
// itself stays out of the link).
func (s *Service) addressTag(address string) string {
	return s.Keyring.MAC("mail-address", strings.ToLower(address))[:16]
}

// Confirm confirms the address a confirmation token names, if it is still
// the account's.
func (s *Service) Confirm(ctx context.Context, token string) (bool, error) {
	account, addr, ok := s.check(purposeConfirm, token)
	if !ok {
		return false, nil
	}
	done := false
	err := s.Store.Tx(ctx, func(ctx context.Context) error {
		p, err := s.Store.Preference(ctx, account)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil || p.Email == "" || !credentials.Equal(s.addressTag(p.Email), addr) {
			return err
		}
		if p.EmailConfirmedAt == nil {
			now := time.Now().UTC()
			p.EmailConfirmedAt, p.UpdatedAt = &now, now
			if err := s.Store.SavePreference(ctx, p); err != nil {
				return err
			}
		}
		done = true
		return nil
	})
	return done, err
}

// SendArgs is the job that sends one outbox row.
type SendArgs struct {
	MailID int64 `json:"mail_id"`
}

// Kind implements river.JobArgs.
func (SendArgs) Kind() string { return "mail_send" }

// Queue is the job queue's queue of mails.
const Queue = "mail"

type worker struct {
	river.WorkerDefaults[SendArgs]
	s *Service
}

func (w *worker) NextRetry(job *river.Job[SendArgs]) time.Time {
	if w.s.Retry == nil {
		return time.Time{}
	}
	return time.Now().Add(w.s.Retry(job.Attempt))
}

func (w *worker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	return w.s.send(ctx, job.Args.MailID)
}

// queue stores a mail in the outbox and its send job, in the transaction
// ctx carries; nothing when the account had that mail already.
func (s *Service) queue(ctx context.Context, m *models.MailOutbox) (bool, error) {
	m.State, m.CreatedAt = models.MailQueued, time.Now().UTC()
	added, err := s.Store.AddMail(ctx, m)
	if err != nil || !added {
		return false, err
	}
	// Retried by the job queue's backoff (seconds, then minutes, then
	// hours) for about three weeks: a mail server that is down delays it.
	_, err = s.Jobs.InsertTx(ctx, SendArgs{MailID: m.ID}, &river.InsertOpts{Queue: Queue, MaxAttempts: 25})
	return err == nil, err
}

// send sends outbox row id once.
func (s *Service) send(ctx context.Context, id int64) error {
	m, err := s.Store.Mail(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil || m.State == models.MailSent {
		return err
	}
	if err := s.deliver(ctx, m); err != nil {
		s.log().Warn("mail not sent; the job queue retries it", "mail", id, "kind", m.Kind, "error", err)
		if rerr := s.Store.MailAttempted(ctx, id, nil, err.Error()); rerr != nil {
			return rerr
		}
		return err
	}
	now := time.Now().UTC()
	return s.Store.MailAttempted(ctx, id, &now, "")
}

func (s *Service) deliver(ctx context.Context, m *models.MailOutbox) error {
	if !s.Enabled() {
		return errors.New("this server sends no mail (WASTEFLOW_SMTP_HOST is not set)")
	}
	msg := gomail.NewMsg()
	if err := msg.From(s.SMTP.From); err != nil {
		return fmt.Errorf("WASTEFLOW_MAIL_FROM: %w", err)
	}
	if err := msg.To(m.Recipient); err != nil {
		return err
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	// The same Message-ID on every attempt: a mail sent twice (the server
	// died between the mail server's answer and the record) is one message.
	msg.SetMessageIDWithValue(fmt.Sprintf("wasteflow-mail-%d@%s", m.ID, messageDomain(s.SMTP.From)))
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	if m.UnsubscribeURL != "" {
		msg.SetGenHeader("List-Unsubscribe", "<"+m.UnsubscribeURL+">")
		msg.SetGenHeader("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.TextBody)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTMLBody)
	opts := []gomail.Option{gomail.WithPort(s.SMTP.Port), gomail.WithTimeout(max(s.SMTP.Timeout, time.Second))}
	switch s.SMTP.Security {
	case "tls":
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.SMTP.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(s.SMTP.Username), gomail.WithPassword(s.SMTP.Password))
	}
	c, err := gomail.NewClient(s.SMTP.Host, opts...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}

func messageDomain(from string) string {
	if a, err := mail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(a.Address, '@'); i >= 0 {
			return a.Address[i+1:]
		}
	}
	return "wasteflow.invalid"
}

// ScanResult counts the mails a scan queued.
type ScanResult struct{ Queued int }

// Scan queues the mails due now for every account with a confirmed
// address: reminders of deadlines due soon (by the account's number of the
// acting party's working days), overdue ones, deadlines just opened for the
// account's organisation (a document waiting for its action), the daily
// digest once the organisation's local time passed the account's digest
// time, and the notice of a disabled webhook endpoint. Each mail is queued
// once per account and subject, however often and wherever the scan runs.
func (s *Service) Scan(ctx context.Context) (ScanResult, error) {
	var res ScanResult
	if !s.Enabled() {
		return res, nil
	}
	list, err := s.Store.Recipients(ctx)
	if err != nil {
		return res, err
	}
	for i := range list {
		n, err := s.scanAccount(ctx, &list[i])
		if err != nil {
			return res, fmt.Errorf("mails of account %d: %w", list[i].AccountID, err)
		}
		res.Queued += n
	}
	return res, nil
}

func (s *Service) scanAccount(ctx context.Context, p *models.MailPreference) (int, error) {
	if !p.DueSoon && !p.Overdue && !p.AwaitingAction && !p.Digest { // chose none, or unsubscribed: no mail at all
		return 0, nil
	}
	now, err := s.now(ctx, p.ProviderID)
	if err != nil {
		return 0, err
	}
	loc, place := s.zone(ctx, p.ProviderID, p.OrganisationID)
	deadlines, err := s.Store.OpenDeadlines(ctx, p.ProviderID, p.OrganisationID)
	if err != nil {
		return 0, err
	}
	var mails []*models.MailOutbox
	add := func(key, kind string, r rendered) {
		mails = append(mails, &models.MailOutbox{AccountID: p.AccountID, DedupKey: key, Kind: kind, Recipient: p.Email,
			Subject: r.subject, TextBody: r.text, HTMLBody: r.html, UnsubscribeURL: s.UnsubscribeURL(p)})
	}
	t := texts(p.Language)
	for i := range deadlines {
		d := &deadlines[i]
		it := s.item(d, loc, place, now, t)
		overdue := d.State == "OVERDUE" || !now.Before(d.DueAt)
		switch {
		case p.Overdue && overdue && !d.DueAt.Before(p.Since):
			add(models.MailDeadlineKey(models.MailOverdue, d.ID, 0), models.MailOverdue, s.render(p, t, t.overdueSubject, t.overdueIntro, []item{it}))
		case p.DueSoon && !overdue && it.workingDaysLeft <= p.DueSoonDays:
			add(models.MailDeadlineKey(models.MailDueSoon, d.ID, p.DueSoonDays), models.MailDueSoon, s.render(p, t, t.dueSoonSubject, t.dueSoonIntro, []item{it}))
		}
		if p.AwaitingAction && !overdue && !d.StartedAt.Before(p.Since) {
			add(models.MailDeadlineKey(models.MailAwaitingAction, d.ID, 0), models.MailAwaitingAction, s.render(p, t, t.actionSubject, t.actionIntro, []item{it}))
		}
	}
	if p.Digest && len(deadlines) > 0 {
		local := now.In(loc)
		if local.Format("15:04") >= p.DigestTime {
			items := make([]item, 0, len(deadlines))
			for i := range deadlines {
				items = append(items, s.item(&deadlines[i], loc, place, now, t))
			}
			slices.SortStableFunc(items, func(a, b item) int { return a.due.Compare(b.due) })
			add("digest:"+local.Format(time.DateOnly), models.MailDigest, s.renderItems(p, t, t.digestSubject(local, len(items)), t.digestIntro, items))
		}
	}
	disabled, err := s.Store.EventsSince(ctx, p.ProviderID, p.OrganisationID, "WEBHOOK_ENDPOINT_DISABLED", p.Since)
	if err != nil {
		return 0, err
	}
	for _, e := range disabled {
		add(fmt.Sprintf("webhook-disabled:%d", e.ID), "WEBHOOK_DISABLED", s.renderNotice(p, t, t.webhookSubject, t.webhookBody(payloadText(e.Payload))))
	}
	if len(mails) == 0 {
		return 0, nil
	}
	queued := 0
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		for _, m := range mails {
			added, err := s.queue(ctx, m)
			if err != nil {
				return err
			}
			if added {
				queued++
			}
		}
		return nil
	})
	return queued, err
}

func (s *Service) queueConfirmation(ctx context.Context, p *models.MailPreference) error {
	t := texts(p.Language)
	r := s.renderNotice(p, t, t.confirmSubject, t.confirmBody(s.confirmURL(p)))
	_, err := s.queue(ctx, &models.MailOutbox{AccountID: p.AccountID, DedupKey: "confirm:" + strings.ToLower(p.Email) + ":" + time.Now().UTC().Format(time.RFC3339Nano),
		Kind: "CONFIRM", Recipient: p.Email, Subject: r.subject, TextBody: r.text, HTMLBody: r.html})
	return err
}
