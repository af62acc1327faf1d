// Package webhooks delivers an organisation's events to the HTTP endpoints
// its notifier groups register, signed to the Standard Webhooks
// specification (https://www.standardwebhooks.com): header webhook-id (the
// event's id, the same on every retry), webhook-timestamp (the attempt's
// time) and webhook-signature ("v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body" under the endpoint's secret; during a rotation one
// such signature for each secret, separated by a space).
//
// Delivery is at least once and in order per document: a dispatcher on
// every instance fans the events out into deliveries (one transaction an
// endpoint, under the endpoint's row lock), each attempt is a job of the
// durable job queue, and only the first pending delivery of a document
// has a job. A failed attempt schedules the next by the retry schedule; an
// endpoint that has failed every attempt for DisableAfter is disabled and
// its organisation told (event WEBHOOK_ENDPOINT_DISABLED).
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// EventDisabled is the event an organisation gets when one of its
// endpoints is disabled.
const EventDisabled = eventkinds.WebhookDisabled

// TestType is the type of SendTestWebhook's message.
const TestType = "WEBHOOK_TEST"

// Queue is the job queue's queue of attempts.
const Queue = "webhooks"

// sealPurpose labels the sealed signing secrets.
const sealPurpose = "webhook-secret"

// MaxEndpoints bounds a group's endpoints.
const MaxEndpoints = 10

// responseKept bounds what is kept of a failed attempt's answer.
const responseKept = 1024

// DefaultRetries is the retry schedule after a failed attempt: about
// three days in all (each wait varies by up to a tenth either way).
var DefaultRetries = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Config tunes deliveries.
type Config struct {
	// Retries are the waits before each retry of a failed delivery; after
	// the last retry fails the delivery is FAILED.
	Retries []time.Duration
	// DisableAfter: an endpoint whose every attempt failed for this long
	// is disabled.
	DisableAfter time.Duration
	// Overlap is how long a rotated-out secret keeps signing.
	Overlap time.Duration
	// Timeout bounds an attempt: a 2xx answer within it is a delivery.
	Timeout time.Duration
	// Poll is how often the dispatcher looks for new events while it is not
	// told of them (Service.SetLive); told, it looks when woken, when a
	// retry is due, and every Safety (or Poll, if longer). Repair is how
	// often it looks for pending deliveries whose job ended without them.
	Poll, Repair time.Duration
}

// Safety is how often a dispatcher told of new events (models.EventChannel
// through the instance's listening connection) looks on its own, in case
// a notification was lost.
const Safety = 30 * time.Second

// minRound is the least time between two rounds of a dispatcher told of
// new events: under load the sequencer announces many times a second, and
// a round each time would read the endpoints each time.
const minRound = 100 * time.Millisecond

// Service manages a group's endpoints and delivers their events.
type Service struct {
	Store   *models.WebhookStore
	Groups  *models.EventStore
	Jobs    *models.JobQueue
	Keyring *credentials.Keyring
	Guard   *Guard
	Config  Config
	// Kinds are the event kinds an endpoint may ask for.
	Kinds []string
	Log   *slog.Logger
	// Clocks and Now give the provider's time of the events the service
	// stores (a sandbox's test clock; Now is time.Now when nil), as the
	// engine's events have it.
	Clocks *clock.Clocks
	Now    func() time.Time

	client *http.Client
	kick   chan struct{} // wakes Run
	live   atomic.Bool   // new events are announced (SetLive)
}

// Notify implements models.Feed for models.EventChannel: events got
// their positions, so the dispatcher looks at once.
func (s *Service) Notify(string) { s.wake() }

// SetLive implements models.Feed: while the listener is live the
// dispatcher waits to be told; while it is not, it polls every Poll. Either
// way it looks at once (what happened meanwhile was not announced).
func (s *Service) SetLive(live bool) {
	s.live.Store(live)
	s.wake()
}

func (s *Service) wake() {
	if s.kick == nil {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default: // woken already
	}
}

// providerNow is provider's time for an event.
func (s *Service) providerNow(ctx context.Context, provider string) time.Time {
	real := time.Now()
	if s.Now != nil {
		real = s.Now()
	}
	if s.Clocks != nil {
		if t, err := s.Clocks.At(ctx, provider, real); err == nil {
			return t.UTC()
		}
	}
	return real.UTC()
}

// Init fills the defaults and makes the delivery client.
func (s *Service) Init() {
	c := &s.Config
	if len(c.Retries) == 0 {
		c.Retries = DefaultRetries
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = 72 * time.Hour
	}
	if c.Overlap <= 0 {
		c.Overlap = 24 * time.Hour
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Repair <= 0 {
		c.Repair = time.Minute
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Guard == nil {
		s.Guard = &Guard{}
	}
	s.client = s.Guard.Client(c.Timeout)
	s.kick = make(chan struct{}, 1)
}

// Register adds the attempt worker to the job queue.
func (s *Service) Register(q *models.JobQueue) { models.AddWorker[AttemptArgs](q, &worker{s: s}) }

func (s *Service) group(ctx context.Context) (*models.NotifierGroup, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.GroupID == "" {
		return nil, status.New(status.PermissionDenied, "webhooks are managed with a group token")
	}
	g, err := s.Groups.Group(ctx, p.GroupID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, status.New(status.Unauthenticated, "invalid token: the group is no longer registered")
	case err != nil:
		return nil, err
	}
	return g, nil
}

func randomID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// newSecret is a signing secret in the specification's form: "whsec_" and
// 32 random bytes, base64.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func (s *Service) checkKinds(kinds []string) ([]string, error) {
	if len(kinds) == 0 {
		return nil, status.Invalid("eventKinds", "name at least one event kind: "+strings.Join(s.Kinds, ", "))
	}
	out := models.NewScopes(kinds...)
	for _, k := range out {
		if !slices.Contains(s.Kinds, k) {
			return nil, status.Invalidf("eventKinds", "%q is not an event kind: %s", k, strings.Join(s.Kinds, ", "))
		}
	}
	return out, nil
}

func (s *Service) checkURL(ctx context.Context, raw string) (string, error) {
	u := strings.TrimSpace(raw)
	if u == "" {
		return "", status.Invalid("url", "required")
	}
	why, err := s.Guard.CheckURL(ctx, u)
	if err != nil {
		return "", status.Wrap(err, status.Unavailable, "the URL's host could not be looked up; retry")
	}
	if why != "" {
		return "", status.Invalid("url", why)
	}
	return u, nil
}

// Create registers an endpoint for the calling group; the secret is
// returned here only.
func (s *Service) Create(ctx context.Context, rawURL string, kinds []string, description string) (*models.WebhookEndpoint, string, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, "", err
	}
	u, err := s.checkURL(ctx, rawURL)
	if err != nil {
		return nil, "", err
	}
	ks, err := s.checkKinds(kinds)
	if err != nil {
		return nil, "", err
	}
	if len(description) > 500 {
		return nil, "", status.Invalid("description", "at most 500 characters")
	}
	secret := newSecret()
	sealed, err := s.Keyring.Seal(sealPurpose, secret)
	if err != nil {
		return nil, "", err
	}
	now := time.Now().UTC()
	e := &models.WebhookEndpoint{ID: randomID("we_", 12), ProviderID: g.ProviderID, OrganisationID: g.OrganisationID, GroupID: g.ID,
		URL: u, Description: description, EventKinds: ks, Enabled: true, Secret: sealed, CreatedAt: now, UpdatedAt: now}
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		list, err := s.Store.Endpoints(ctx, g.ID)
		if err != nil {
			return err
		}
		if len(list) >= MaxEndpoints {
			return status.New(status.ResourceExhausted, "a group has at most %d endpoints; delete one first", MaxEndpoints)
		}
		return s.Store.CreateEndpoint(ctx, e)
	})
	if err != nil {
		return nil, "", err
	}
	return e, secret, nil
}

// List is the calling group's endpoints.
func (s *Service) List(ctx context.Context) ([]models.WebhookEndpoint, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store.Endpoints(ctx, g.ID)
}

func (s *Service) endpoint(ctx context.Context, g *models.NotifierGroup, id string, lock bool) (*models.WebhookEndpoint, error) {
	if id == "" {
		return nil, status.Invalid("endpointId", "required")
	}
	e, err := s.Store.Endpoint(ctx, g.ID, id, lock)
	if errors.Is(err, models.ErrNotFound) { // another group's too: it sees only its own
		return nil, status.New(status.NotFound, "no webhook endpoint %q of this group", id)
	}
	return e, err
}

// Update is what UpdateWebhookEndpoint may change (nil: unchanged).
type Update struct {
	URL         *string
	EventKinds  []string
	Enabled     *bool
	Description *string
}

// Update changes an endpoint of the calling group. Enabling a disabled
// endpoint resumes its deliveries where they stopped (the events meanwhile
// included); disabling one holds its pending deliveries.
func (s *Service) Update(ctx context.Context, id string, u Update) (*models.WebhookEndpoint, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, err
	}
	var newURL string
	if u.URL != nil {
		if newURL, err = s.checkURL(ctx, *u.URL); err != nil {
			return nil, err
		}
	}
	var kinds []string
	if u.EventKinds != nil {
		if kinds, err = s.checkKinds(u.EventKinds); err != nil {
			return nil, err
		}
	}
	if u.Description != nil && len(*u.Description) > 500 {
		return nil, status.Invalid("description", "at most 500 characters")
	}
	var out *models.WebhookEndpoint
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, g, id, true)
		if err != nil {
			return err
		}
		if u.URL != nil {
			e.URL = newURL
		}
		if kinds != nil {
			e.EventKinds = kinds
		}
		if u.Description != nil {
			e.Description = *u.Description
		}
		enable := u.Enabled != nil && *u.Enabled && !e.Enabled
		if u.Enabled != nil && !*u.Enabled && e.Enabled {
			e.Enabled, e.DisabledReason = false, "disabled by the group"
			if err := s.Store.ReleaseJobs(ctx, e.ID); err != nil {
				return err
			}
		}
		if enable {
			e.Enabled, e.DisabledReason, e.FailingSince = true, "", nil
		}
		e.UpdatedAt = time.Now().UTC()
		if err := s.Store.SaveEndpoint(ctx, e); err != nil {
			return err
		}
		if enable {
			if err := s.queueHeads(ctx, e.ID, nil); err != nil {
				return err
			}
		}
		out = e
		return nil
	})
	return out, err
}

// Delete removes an endpoint of the calling group with its deliveries.
func (s *Service) Delete(ctx context.Context, id string) error {
	g, err := s.group(ctx)
	if err != nil {
		return err
	}
	if id == "" {
		return status.Invalid("endpointId", "required")
	}
	found, err := s.Store.DeleteEndpoint(ctx, g.ID, id)
	if err != nil {
		return err
	}
	if !found {
		return status.New(status.NotFound, "no webhook endpoint %q of this group", id)
	}
	return nil
}

// Rotate gives an endpoint a new secret; the old one keeps signing beside
// it for Overlap (a second rotation within it drops the oldest).
func (s *Service) Rotate(ctx context.Context, id string) (*models.WebhookEndpoint, string, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, "", err
	}
	secret := newSecret()
	sealed, err := s.Keyring.Seal(sealPurpose, secret)
	if err != nil {
		return nil, "", err
	}
	var out *models.WebhookEndpoint
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		e, err := s.endpoint(ctx, g, id, true)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		until := now.Add(s.Config.Overlap)
		e.PreviousSecret, e.PreviousUntil, e.Secret, e.UpdatedAt = e.Secret, &until, sealed, now
		out = e
		return s.Store.SaveEndpoint(ctx, e)
	})
	return out, secret, err
}

// DeliverySchema are the paths ListWebhookDeliveries filters and sorts on.
var DeliverySchema = models.WebhookDeliveryColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
	{Path: "event_id", Kind: qpar.Text, Sortable: true},
	{Path: "kind", Kind: qpar.Text, Sortable: true},
	{Path: "document_id", Kind: qpar.Text, Sortable: true},
	{Path: "state", Kind: qpar.Enum, Values: []string{models.DeliveryPending, models.DeliveryDelivered, models.DeliveryFailed}, Sortable: true},
	{Path: "attempts", Kind: qpar.Integer, Sortable: true},
	{Path: "last_status", Kind: qpar.Integer, Sortable: true},
	{Path: "created_at", Kind: qpar.Time, Sortable: true},
	{Path: "last_attempt_at", Kind: qpar.Time, Sortable: true},
	{Path: "next_attempt_at", Kind: qpar.Time, Sortable: true},
	{Path: "sequence", Kind: qpar.Integer, Sortable: true},
}, DefaultSort: []qpar.Sort{{Path: "sequence", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500})

// Deliveries lists an endpoint's deliveries, newest first by default.
func (s *Service) Deliveries(ctx context.Context, endpoint string, q *qpar.QueryParameter) ([]models.WebhookDelivery, int64, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, 0, err
	}
	if _, err := s.endpoint(ctx, g, endpoint, false); err != nil {
		return nil, 0, err
	}
	list, total, err := s.Store.ListDeliveries(ctx, endpoint, q, DeliverySchema)
	var qe *qpar.Error
	if errors.As(err, &qe) {
		return nil, 0, status.Invalid(qe.Field, qe.Reason)
	}
	return list, total, err
}

// Redeliver sends an event again to the calling group's endpoints that
// had it (or to endpoint only): a delivery waiting for its next retry is
// tried at once; a delivered or failed one starts a new round of retries
// under the same webhook-id. It returns the deliveries.
func (s *Service) Redeliver(ctx context.Context, eventID, endpoint string) ([]models.WebhookDelivery, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, err
	}
	if eventID == "" {
		return nil, status.Invalid("eventId", "required")
	}
	var ids []string
	if endpoint != "" {
		if _, err := s.endpoint(ctx, g, endpoint, false); err != nil {
			return nil, err
		}
		ids = []string{endpoint}
	} else {
		list, err := s.Store.Endpoints(ctx, g.ID)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			ids = append(ids, e.ID)
		}
	}
	found, err := s.Store.DeliveriesOf(ctx, ids, eventID)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, status.New(status.NotFound, "no delivery of event %q to this group's endpoints", eventID)
	}
	var retry []int64
	out := make([]models.WebhookDelivery, 0, len(found))
	for _, f := range found {
		var d *models.WebhookDelivery
		err := s.Store.Tx(ctx, func(ctx context.Context) error {
			e, err := s.Store.Endpoint(ctx, "", f.EndpointID, true)
			if err != nil {
				return err
			}
			if d, err = s.Store.Delivery(ctx, f.ID); err != nil {
				return err
			}
			switch {
			case !e.Enabled:
				return status.New(status.FailedPrecondition, "endpoint %s is disabled (%s); enable it with UpdateWebhookEndpoint first", e.ID, e.DisabledReason)
			case d.Kind == TestType:
				return status.New(status.FailedPrecondition, "a test message is not redelivered; send another with SendTestWebhook")
			case d.State == models.DeliveryPending && d.JobID != nil:
				retry = append(retry, *d.JobID) // outside this transaction (the job queue's own statement)
				return nil
			case d.State == models.DeliveryPending:
				return status.New(status.FailedPrecondition, "event %s waits for an earlier event of document %s to endpoint %s; redeliver that one", eventID, d.DocumentID, e.ID)
			}
			d.State, d.RoundAttempts, d.DeliveredAt = models.DeliveryPending, 0, nil
			if err := s.Store.SaveDelivery(ctx, d); err != nil {
				return err
			}
			return s.queue(ctx, d.ID, time.Time{})
		})
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	for _, id := range retry {
		if err := s.Jobs.Retry(ctx, id); err != nil && !errors.Is(err, models.ErrNotFound) {
			return nil, err
		}
	}
	return out, nil
}

// SendTest sends a WEBHOOK_TEST message to an endpoint now, once, and
// records it with its outcome (it neither retries nor counts towards
// disabling the endpoint).
func (s *Service) SendTest(ctx context.Context, id string) (*models.WebhookDelivery, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.endpoint(ctx, g, id, false)
	if err != nil {
		return nil, err
	}
	msg := randomID("msg_test_", 12)
	now := time.Now().UTC()
	data, _ := json.Marshal(map[string]any{"endpointId": e.ID, "message": "a test message from wasteflow; no document changed"})
	body, err := json.Marshal(envelope{Type: TestType, Timestamp: now, Data: data})
	if err != nil {
		return nil, err
	}
	d := &models.WebhookDelivery{EndpointID: e.ID, MessageID: msg, Kind: TestType, Body: string(body), State: models.DeliveryPending, CreatedAt: now}
	res := s.send(ctx, e, d)
	res.apply(d, time.Now().UTC())
	if res.ok {
		d.State = models.DeliveryDelivered
	} else {
		d.State = models.DeliveryFailed
	}
	if err := s.Store.AddDeliveries(ctx, []models.WebhookDelivery{*d}); err != nil {
		return nil, err
	}
	got, err := s.Store.DeliveriesOf(ctx, []string{e.ID}, msg)
	if err != nil || len(got) == 0 {
		return d, err
	}
	return &got[0], nil
}

// envelope is a message's body: {"type", "timestamp", "data"}.
type envelope struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Notification is an event as ListNotifications shows it: a message's data.
type Notification struct {
	Cursor     string          `json:"cursor"`
	Kind       string          `json:"kind"`
	DocumentID string          `json:"documentId"`
	DeadlineID string          `json:"deadlineId"`
	Payload    json.RawMessage `json:"payload"`
	CreatedAt  time.Time       `json:"createdAt"`
}

// MessageID is the webhook-id of event id.
func MessageID(id int64) string { return "evt_" + strconv.FormatInt(id, 10) }

func body(e *models.Event) (string, error) {
	pos := e.ID
	if e.Position != nil {
		pos = *e.Position
	}
	payload := json.RawMessage(e.Payload)
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	data, err := json.Marshal(Notification{Cursor: strconv.FormatInt(pos, 10), Kind: e.Kind, DocumentID: e.DocumentID, DeadlineID: e.DeadlineID,
		Payload: payload, CreatedAt: e.CreatedAt.UTC()})
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(envelope{Type: e.Kind, Timestamp: e.CreatedAt.UTC(), Data: data})
	return string(raw), err
}

// AttemptArgs is the job of one attempt of a delivery.
type AttemptArgs struct {
	DeliveryID int64 `json:"delivery_id"`
}

// Kind implements river.JobArgs.
func (AttemptArgs) Kind() string { return "webhook_attempt" }

type worker struct {
	river.WorkerDefaults[AttemptArgs]
	s *Service
}

func (w *worker) Timeout(*river.Job[AttemptArgs]) time.Duration {
	return w.s.Config.Timeout + 30*time.Second
}

func (w *worker) Work(ctx context.Context, job *river.Job[AttemptArgs]) error {
	return w.s.attempt(ctx, job.Args.DeliveryID, job.ID)
}

// queue inserts the job of d's next attempt, at at (zero: now), in the
// transaction ctx carries.
func (s *Service) queue(ctx context.Context, delivery int64, at time.Time) error {
	opts := &river.InsertOpts{MaxAttempts: 10, Queue: Queue}
	var next *time.Time
	if !at.IsZero() {
		opts.ScheduledAt, next = at, &at
	}
	job, err := s.Jobs.InsertTx(ctx, AttemptArgs{DeliveryID: delivery}, opts)
	if err != nil {
		return err
	}
	return s.Store.SetDeliveryJob(ctx, delivery, &job, next)
}

// queueHeads queues the deliveries of endpoint (of one document when
// document is set) that nothing holds back; the caller holds the
// endpoint's lock.
func (s *Service) queueHeads(ctx context.Context, endpoint string, document *string) error {
	ids, err := s.Store.Heads(ctx, endpoint, document)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.queue(ctx, id, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// outcome is what an attempt got.
type outcome struct {
	ok       bool
	status   int
	err      string
	response string
}

func (o *outcome) apply(d *models.WebhookDelivery, now time.Time) {
	d.Attempts++
	d.RoundAttempts++
	d.LastStatus, d.LastError, d.LastAttemptAt = o.status, o.err, &now
	d.LastResponse = ""
	if !o.ok {
		d.LastResponse = o.response
	} else {
		d.DeliveredAt = &now
	}
}

// secrets are the endpoint's signing secrets in force now.
func (s *Service) secrets(e *models.WebhookEndpoint, now time.Time) ([]string, error) {
	cur, err := s.Keyring.Open(sealPurpose, e.Secret)
	if err != nil {
		return nil, err
	}
	out := []string{cur}
	if e.PreviousSecret != "" && e.PreviousUntil != nil && now.Before(*e.PreviousUntil) {
		prev, err := s.Keyring.Open(sealPurpose, e.PreviousSecret)
		if err != nil {
			return nil, err
		}
		out = append(out, prev)
	}
	return out, nil
}

// Sign is the webhook-signature header of a message: one "v1,<base64>"
// per secret, separated by spaces.
func Sign(secrets []string, id string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, sec := range secrets {
		wh, err := standardwebhooks.NewWebhook(sec)
		if err != nil {
			return "", err
		}
		sig, err := wh.Sign(id, at, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// send makes one attempt.
func (s *Service) send(ctx context.Context, e *models.WebhookEndpoint, d *models.WebhookDelivery) outcome {
	now := time.Now()
	secrets, err := s.secrets(e, now)
	if err != nil {
		return outcome{err: "the endpoint's secret cannot be read: " + err.Error()}
	}
	sig, err := Sign(secrets, d.MessageID, now, []byte(d.Body))
	if err != nil {
		return outcome{err: err.Error()}
	}
	actx, cancel := context.WithTimeout(ctx, s.Config.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, e.URL, strings.NewReader(d.Body))
	if err != nil {
		return outcome{err: "the endpoint's URL: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "wasteflow-webhooks/1")
	req.Header.Set("webhook-id", d.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			return outcome{err: refused.Error()}
		case actx.Err() != nil && ctx.Err() == nil:
			return outcome{err: fmt.Sprintf("no answer within %s", s.Config.Timeout)}
		}
		return outcome{err: err.Error()}
	}
	defer resp.Body.Close()
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, responseKept))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	o := outcome{status: resp.StatusCode, ok: resp.StatusCode >= 200 && resp.StatusCode < 300}
	if !o.ok {
		o.response = strings.ToValidUTF8(string(kept), "\uFFFD")
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			o.err = fmt.Sprintf("HTTP %d: redirects are not followed (to %s); register the final URL", resp.StatusCode, resp.Header.Get("Location"))
		default:
			o.err = fmt.Sprintf("HTTP %d", resp.StatusCode)
		}
	}
	return o
}

// jitter varies wait by up to a tenth either way, the same for the same
// delivery and round (a retried job recomputes the same time).
func jitter(wait time.Duration, delivery int64, round int) time.Duration {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%d", delivery, round)
	f := float64(h.Sum64()%2001)/10000 - 0.1 // -0.1 .. +0.1
	return wait + time.Duration(float64(wait)*f)
}

// attempt is the job of one attempt of delivery id.
func (s *Service) attempt(ctx context.Context, id, job int64) error {
	d, err := s.Store.Delivery(ctx, id)
	if errors.Is(err, models.ErrNotFound) { // its endpoint was deleted
		return nil
	}
	if err != nil {
		return err
	}
	if d.State != models.DeliveryPending || d.JobID == nil || *d.JobID != job { // done, or redelivered by another job
		return nil
	}
	e, err := s.Store.Endpoint(ctx, "", d.EndpointID, false)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !e.Enabled { // held until the endpoint is enabled again
		return s.Store.SetDeliveryJob(ctx, d.ID, nil, nil)
	}
	res := s.send(ctx, e, d)
	if ctx.Err() != nil { // the instance stops: the job runs again elsewhere
		return ctx.Err()
	}
	retried := false
	defer func() {
		if retried { // committed: the dispatcher makes it available when due
			s.wake()
		}
	}()
	return s.Store.Tx(ctx, func(ctx context.Context) error {
		e, err := s.Store.Endpoint(ctx, "", d.EndpointID, true) // serialised with the dispatcher and other attempts
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		d, err := s.Store.Delivery(ctx, id)
		if err != nil {
			return err
		}
		if d.State != models.DeliveryPending || d.JobID == nil || *d.JobID != job {
			return nil
		}
		now := time.Now().UTC()
		res.apply(d, now)
		d.JobID, d.NextAttemptAt = nil, nil
		if res.ok {
			d.State = models.DeliveryDelivered
			if e.FailingSince != nil {
				e.FailingSince = nil
				if err := s.Store.SaveEndpoint(ctx, e); err != nil {
					return err
				}
			}
		} else {
			if e.FailingSince == nil {
				e.FailingSince = &now
			}
			if d.RoundAttempts > len(s.Config.Retries) {
				d.State = models.DeliveryFailed
			}
		}
		if err := s.Store.SaveDelivery(ctx, d); err != nil {
			return err
		}
		if !res.ok {
			if d.State == models.DeliveryPending { // retried later
				at := now.Add(jitter(s.Config.Retries[d.RoundAttempts-1], d.ID, d.RoundAttempts))
				if err := s.queue(ctx, d.ID, at); err != nil {
					return err
				}
				retried = true
			}
			if now.Sub(*e.FailingSince) >= s.Config.DisableAfter {
				return s.disable(ctx, e, now)
			}
			if err := s.Store.SaveEndpoint(ctx, e); err != nil {
				return err
			}
		}
		if d.State != models.DeliveryPending { // the next event of its document may go
			return s.queueHeads(ctx, e.ID, &d.DocumentID)
		}
		return nil
	})
}

// disable turns endpoint e off after it failed for DisableAfter, holds its
// deliveries and tells its organisation.
func (s *Service) disable(ctx context.Context, e *models.WebhookEndpoint, now time.Time) error {
	e.Enabled = false
	e.DisabledReason = fmt.Sprintf("every attempt failed since %s (%s)", e.FailingSince.Format(time.RFC3339), s.Config.DisableAfter)
	e.UpdatedAt = now
	if err := s.Store.SaveEndpoint(ctx, e); err != nil {
		return err
	}
	if err := s.Store.ReleaseJobs(ctx, e.ID); err != nil {
		return err
	}
	payload, _ := json.Marshal(eventkinds.EndpointDisabled{EndpointID: e.ID, URL: e.URL, Reason: e.DisabledReason, FailingSince: e.FailingSince.Format(time.RFC3339)})
	s.Log.Warn("webhook endpoint disabled", "endpoint", e.ID, "organisation", e.OrganisationID, "reason", e.DisabledReason)
	return s.Store.AddEvent(ctx, &models.Event{ProviderID: e.ProviderID, OrganisationID: e.OrganisationID, Kind: EventDisabled,
		DedupKey: fmt.Sprintf("webhook:%s:disabled:%d", e.ID, now.UnixNano()), Payload: string(payload), CreatedAt: s.providerNow(ctx, e.ProviderID)})
}

// Run fans new events out into deliveries until ctx ends; every instance
// runs one (each endpoint is fanned out under its row's lock). It looks
// when woken (new events, SetLive, a retry this instance scheduled), when
// the next retry is due, and otherwise every Poll (not told of events) or
// Safety (told).
func (s *Service) Run(ctx context.Context) {
	var repaired, last time.Time
	for {
		if gap := time.Until(last.Add(minRound)); gap > 0 && s.live.Load() {
			// Woken again within minRound (events announced one after
			// another under load): the events of that time go in one round.
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
		last = time.Now()
		next := s.round(ctx, &repaired)
		wait := s.Config.Poll
		if s.live.Load() {
			wait = max(wait, Safety)
			if !next.IsZero() {
				wait = max(min(wait, time.Until(next)), 0)
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.kick:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// round fans out, makes the due retries available and now and then
// repairs; next is when the next retry is due (zero: none, or not asked
// because the dispatcher polls anyway).
func (s *Service) round(ctx context.Context, repaired *time.Time) (next time.Time) {
	any, err := s.Store.AnyEnabled(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.Log.Warn("webhooks: reading the endpoints failed; retrying", "error", err)
		}
		return time.Time{}
	}
	if !any {
		return time.Time{}
	}
	if _, err := s.FanOut(ctx); err != nil && ctx.Err() == nil {
		s.Log.Warn("webhook fan-out failed; retrying", "error", err)
	}
	if err := s.wakeDue(ctx); err != nil && ctx.Err() == nil {
		s.Log.Warn("webhook retries: making due attempts available failed", "error", err)
	}
	if time.Since(*repaired) > s.Config.Repair {
		*repaired = time.Now()
		if err := s.repair(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn("webhooks: requeueing stranded deliveries failed", "error", err)
		}
	}
	if s.live.Load() {
		at, err := s.Store.NextRetry(ctx)
		if err != nil && ctx.Err() == nil {
			s.Log.Warn("webhook retries: reading the next one failed", "error", err)
		}
		return at
	}
	return time.Time{}
}

func (s *Service) wakeDue(ctx context.Context) error {
	due, err := s.Store.DueRetries(ctx, time.Now(), 100)
	if err != nil {
		return err
	}
	for _, d := range due {
		err := s.Jobs.Retry(ctx, *d.JobID)
		if errors.Is(err, models.ErrNotFound) { // its job is gone: a new one
			err = s.requeue(ctx, d.ID, *d.JobID)
		}
		if err != nil {
			return err
		}
		if err := s.Store.Started(ctx, d.ID, *d.JobID); err != nil {
			return err
		}
	}
	return nil
}

// repair gives a new job to each pending delivery whose job is gone or
// ended without it.
func (s *Service) repair(ctx context.Context) error {
	list, err := s.Store.Stranded(ctx, 100)
	if err != nil {
		return err
	}
	for _, d := range list {
		if err := s.requeue(ctx, d.ID, *d.JobID); err != nil {
			return err
		}
	}
	if len(list) > 0 {
		s.Log.Warn("webhook deliveries whose job had ended got a new one", "deliveries", len(list))
	}
	return nil
}

// requeue replaces job old of delivery id by a new one, if it is still
// the delivery's job and the delivery still pending.
func (s *Service) requeue(ctx context.Context, id, old int64) error {
	return s.Store.Tx(ctx, func(ctx context.Context) error {
		d, err := s.Store.Delivery(ctx, id)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil || d.State != models.DeliveryPending || d.JobID == nil || *d.JobID != old {
			return err
		}
		if _, err := s.Store.Endpoint(ctx, "", d.EndpointID, true); err != nil {
			return err
		}
		return s.queue(ctx, id, time.Time{})
	})
}

// fanBatch bounds the events one endpoint's fan-out reads.
const fanBatch = 500

// FanOut turns the events after each enabled endpoint's position into
// deliveries and queues those that may go; it reports how many it made.
func (s *Service) FanOut(ctx context.Context) (int, error) {
	if err := s.Store.Sequence(ctx); err != nil {
		return 0, err
	}
	ids, err := s.Store.DueEndpoints(ctx, 100)
	if err != nil {
		return 0, err
	}
	made := 0
	for _, id := range ids {
		err := s.Store.Tx(ctx, func(ctx context.Context) error {
			e, ok, err := s.Store.LockEndpoint(ctx, id)
			if err != nil || !ok || !e.Enabled { // another instance has it
				return err
			}
			evs, err := s.Store.EventsForEndpoint(ctx, e, fanBatch)
			if err != nil || len(evs) == 0 {
				return err
			}
			var list []models.WebhookDelivery
			for i := range evs {
				ev := &evs[i]
				if !slices.Contains(e.EventKinds, ev.Kind) {
					continue
				}
				b, err := body(ev)
				if err != nil {
					return err
				}
				list = append(list, models.WebhookDelivery{EndpointID: e.ID, MessageID: MessageID(ev.ID), EventID: ev.ID, Position: *ev.Position,
					Kind: ev.Kind, DocumentID: ev.DocumentID, Body: b, State: models.DeliveryPending, CreatedAt: time.Now().UTC()})
			}
			if err := s.Store.AddDeliveries(ctx, list); err != nil {
				return err
			}
			if err := s.Store.Advance(ctx, e.ID, *evs[len(evs)-1].Position); err != nil {
				return err
			}
			made += len(list)
			if len(list) == 0 {
				return nil
			}
			return s.queueHeads(ctx, e.ID, nil)
		})
		if err != nil {
			return made, err
		}
	}
	return made, nil
}
