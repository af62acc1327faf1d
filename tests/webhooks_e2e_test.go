package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/wake"
	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

const hooksAPI = "/svc.namespaced_notifier.v1.api.WebhookApi/"

// receiver is an integrator's webhook endpoint: it verifies every message
// with the Standard Webhooks reference library and answers 204 while up,
// 503 (with a long body) while down.
type receiver struct {
	t       *testing.T
	srv     *httptest.Server
	up      atomic.Bool
	mu      sync.Mutex
	secrets []string
	got     []message
}

// message is one request the receiver got.
type message struct {
	id, sig  string
	body     []byte
	verified []bool // by each secret the receiver had then
	accepted bool   // answered 2xx
	at       time.Time
	doc      string
	kind     string
	cursor   int64
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.up.Store(true)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		m := message{id: req.Header.Get("webhook-id"), sig: req.Header.Get("webhook-signature"), body: body, at: time.Now()}
		r.mu.Lock()
		secrets := slices.Clone(r.secrets)
		r.mu.Unlock()
		ok := false
		for _, s := range secrets {
			wh, err := standardwebhooks.NewWebhook(s)
			if err != nil {
				t.Errorf("receiver: secret %q: %v", s, err)
				continue
			}
			v := wh.Verify(body, req.Header) == nil
			m.verified = append(m.verified, v)
			ok = ok || v
		}
		if !ok {
			t.Errorf("receiver: message %s verifies with none of %d secrets: %s %s", m.id, len(secrets), req.Header, body)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var env struct {
			Type string `json:"type"`
			Data struct {
				DocumentID string `json:"documentId"`
				Cursor     string `json:"cursor"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			t.Errorf("receiver: %s: %v", body, err)
		}
		m.kind, m.doc = env.Type, env.Data.DocumentID
		m.cursor, _ = strconv.ParseInt(env.Data.Cursor, 10, 64)
		m.accepted = r.up.Load()
		r.mu.Lock()
		r.got = append(r.got, m)
		r.mu.Unlock()
		if !m.accepted {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write(bytes.Repeat([]byte("down for maintenance. "), 200))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setSecrets(s ...string) {
	r.mu.Lock()
	r.secrets = s
	r.mu.Unlock()
}

func (r *receiver) messages() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// accepted are the messages answered 2xx, by id.
func (r *receiver) accepted() map[string][]message {
	out := map[string][]message{}
	for _, m := range r.messages() {
		if m.accepted {
			out[m.id] = append(out[m.id], m)
		}
	}
	return out
}

func (r *receiver) waitFor(t *testing.T, what string, cond func([]message) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond(r.messages()) {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver did not get %s within 20 s; it got %d messages", what, len(r.messages()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var hookGroups atomic.Int32

// hookGroup registers a notifier group of user's organisation for kinds
// and returns its token.
func (d *docEnv) hookGroup(t *testing.T, user string, kinds ...string) string {
	t.Helper()
	_, g, raw := d.call(t, user, grp+"RegisterGroup", map[string]any{"name": "integration-" + strconv.Itoa(int(hookGroups.Add(1))), "eventKinds": kinds})
	if g["groupId"] == nil {
		t.Fatalf("RegisterGroup: %s", raw)
	}
	_, lg, raw := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	if lg["groupToken"] == nil {
		t.Fatalf("group Login: %s", raw)
	}
	return lg["groupToken"].(string)
}

// hook calls a WebhookApi method with a group token and requires 200.
func (d *docEnv) hook(t *testing.T, gt, method string, body any) map[string]any {
	t.Helper()
	st, m, raw := d.post(t, hooksAPI+method, hdr("dev-1", gt), body)
	if st != 200 {
		t.Fatalf("%s: HTTP %d %s", method, st, raw)
	}
	return m
}

func (d *docEnv) deliveries(t *testing.T, gt, endpoint string) []map[string]any {
	t.Helper()
	m := d.hook(t, gt, "ListWebhookDeliveries", map[string]any{"endpointId": endpoint, "qpar": map[string]any{"pageSize": 500}})
	var out []map[string]any
	for _, x := range m["deliveries"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// groupEvents are the group's DOCUMENT_STATE_CHANGED notifications by
// webhook id ("evt_" and the event's id is not shown: matched by cursor).
func (d *docEnv) groupEvents(t *testing.T, gt string) map[string]map[string]any {
	t.Helper()
	st, m, raw := d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"limit": 500})
	if st != 200 {
		t.Fatalf("ListNotifications: %s", raw)
	}
	out := map[string]map[string]any{}
	for _, n := range m["notifications"].([]any) {
		out[n.(map[string]any)["cursor"].(string)] = n.(map[string]any)
	}
	return out
}

// TestWebhooks: a notification's filing reaches a receiver that verifies
// it with the specification's library, its data exactly as
// ListNotifications shows the event; a receiver down for a while gets
// every event once it is up, each accepted once, each document's in order,
// none attempted before the one before it arrived; a rotated secret
// signs beside the new one; a test message and a redelivery; a group sees
// only its own endpoints; bad URLs and kinds are refused.
func TestWebhooks(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.runWebhooks(t)
		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		rcv := newReceiver(t)

		created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL + "/hooks", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}, "description": "ERP"})
		secret := created["secret"].(string)
		ep := created["endpoint"].(map[string]any)
		endpoint := ep["endpointId"].(string)
		if !strings.HasPrefix(secret, "whsec_") || ep["enabled"] != true || ep["url"] != rcv.srv.URL+"/hooks" || ep["description"] != "ERP" ||
			!slices.Equal(anyStrings(ep["eventKinds"]), []string{"DOCUMENT_STATE_CHANGED"}) {
			t.Fatalf("CreateWebhookEndpoint: %v", created)
		}
		rcv.setSecrets(secret)
		if l := d.hook(t, gt, "ListWebhookEndpoints", map[string]any{}); len(l["endpoints"].([]any)) != 1 || bytes.Contains(mustJSON(l), []byte(secret)) {
			t.Fatalf("ListWebhookEndpoints (the secret is shown only once): %v", l)
		}

		// A filing reaches the receiver, signed, its data the notification.
		first := d.submitted(t)
		rcv.waitFor(t, "the filing", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool { return m.doc == first && m.accepted })
		})
		events := d.groupEvents(t, gt)
		for _, m := range rcv.messages() {
			var env map[string]any
			_ = json.Unmarshal(m.body, &env)
			data := env["data"].(map[string]any)
			want, ok := events[data["cursor"].(string)]
			if !ok || !bytes.Equal(mustJSON(want), mustJSON(data)) || env["type"] != "DOCUMENT_STATE_CHANGED" || !strings.HasPrefix(m.id, "evt_") {
				t.Fatalf("the message's data differs from ListNotifications:\n%s\n%s", mustJSON(data), mustJSON(want))
			}
			if _, err := time.Parse(time.RFC3339, env["timestamp"].(string)); err != nil {
				t.Fatalf("timestamp: %v", env)
			}
		}

		// Down for a while: the events of three documents wait and retry.
		rcv.up.Store(false)
		var docs []string
		for range 3 {
			id := d.submitted(t)
			docs = append(docs, id)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "received"}})
		}
		rcv.waitFor(t, "retries while down", func(ms []message) bool {
			n := 0
			for _, m := range ms {
				if !m.accepted && m.doc == docs[0] {
					n++
				}
			}
			return n >= 2
		})
		var pending map[string]any
		for _, x := range d.deliveries(t, gt, endpoint) {
			if x["documentId"] == docs[0] && x["state"] == "PENDING" && x["attempts"].(float64) >= 1 {
				pending = x
			}
		}
		if pending == nil || pending["lastStatusCode"] != 503.0 || pending["lastError"] != "HTTP 503" || len(pending["lastResponse"].(string)) != 1024 {
			t.Fatalf("a pending delivery while down: %v", pending)
		}
		rcv.up.Store(true)
		// Every document's two events listed first: an event is listed
		// once the sequencer has positioned it, and under load (another
		// test's transaction holding PostgreSQL's snapshot back) that
		// can come after its transaction committed.
		want := 0
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			per := map[string]int{}
			want = 0
			for _, e := range d.groupEvents(t, gt) {
				if doc := e["documentId"].(string); slices.Contains(append(docs, first), doc) {
					per[doc]++
					want++
				}
			}
			if !slices.ContainsFunc(docs, func(doc string) bool { return per[doc] < 2 }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the events listed per document: %v", per)
			}
		}
		rcv.waitFor(t, "every event once up", func([]message) bool { return len(rcv.accepted()) >= want })
		time.Sleep(300 * time.Millisecond) // nothing more may come
		acc := rcv.accepted()
		if len(acc) != want {
			t.Fatalf("accepted %d distinct events, want %d", len(acc), want)
		}
		for id, ms := range acc {
			if len(ms) != 1 {
				t.Errorf("event %s accepted %d times", id, len(ms))
			}
		}
		// In order per document, and none tried before its predecessor arrived.
		for _, doc := range docs {
			var seen []message
			for _, m := range rcv.messages() {
				if m.doc == doc {
					seen = append(seen, m)
				}
			}
			for i := 1; i < len(seen); i++ {
				if seen[i].cursor < seen[i-1].cursor {
					t.Fatalf("document %s: event %d sent after %d", doc, seen[i].cursor, seen[i-1].cursor)
				}
				if seen[i].cursor != seen[i-1].cursor && !seen[i-1].accepted {
					t.Fatalf("document %s: event %d tried before %d was delivered", doc, seen[i].cursor, seen[i-1].cursor)
				}
			}
			if len(seen) < 2 {
				t.Fatalf("document %s: %d messages", doc, len(seen))
			}
		}
		// Each attempt is recorded after the receiver's answer: soon all DELIVERED.
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			var pending []map[string]any
			for _, x := range d.deliveries(t, gt, endpoint) {
				if x["state"] != "DELIVERED" || x["deliveredAt"] == nil || x["nextAttemptAt"] != nil {
					pending = append(pending, x)
				}
			}
			if len(pending) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the receiver came back: %v", pending)
			}
		}

		// Rotation: during the overlap every message verifies with both.
		rot := d.hook(t, gt, "RotateWebhookSecret", map[string]any{"endpointId": endpoint})
		newSecret := rot["secret"].(string)
		if newSecret == secret || rot["endpoint"].(map[string]any)["previousSecretUntil"] == nil {
			t.Fatalf("RotateWebhookSecret: %v", rot)
		}
		rcv.setSecrets(secret, newSecret)
		rotated := d.submitted(t)
		rcv.waitFor(t, "a message after the rotation", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool { return m.doc == rotated })
		})
		for _, m := range rcv.messages() {
			if m.doc == rotated && (!slices.Equal(m.verified, []bool{true, true}) || strings.Count(m.sig, "v1,") != 2) {
				t.Fatalf("after the rotation a message verifies %v with (old, new): %s", m.verified, m.sig)
			}
		}

		// A test message, and a redelivery under the same id.
		test := d.hook(t, gt, "SendTestWebhook", map[string]any{"endpointId": endpoint})["delivery"].(map[string]any)
		if test["state"] != "DELIVERED" || test["kind"] != "WEBHOOK_TEST" || test["lastStatusCode"] != 204.0 {
			t.Fatalf("SendTestWebhook: %v", test)
		}
		firstID := ""
		for id, ms := range rcv.accepted() {
			if ms[0].doc == first {
				firstID = id
			}
		}
		before := len(rcv.accepted()[firstID])
		re := d.hook(t, gt, "RedeliverWebhook", map[string]any{"eventId": firstID})
		if len(re["deliveries"].([]any)) != 1 {
			t.Fatalf("RedeliverWebhook: %v", re)
		}
		rcv.waitFor(t, "the redelivery", func([]message) bool { return len(rcv.accepted()[firstID]) == before+1 })

		// Another group of the same organisation sees none of it.
		other := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		if l := d.hook(t, other, "ListWebhookEndpoints", map[string]any{}); len(l["endpoints"].([]any)) != 0 {
			t.Fatalf("another group lists %v", l)
		}
		for _, m := range []string{"UpdateWebhookEndpoint", "DeleteWebhookEndpoint", "RotateWebhookSecret", "ListWebhookDeliveries", "SendTestWebhook"} {
			st, _, raw := d.post(t, hooksAPI+m, hdr("dev-1", other), map[string]any{"endpointId": endpoint, "enabled": false})
			wantError(t, 404, 5, st, raw, "no webhook endpoint")
		}
		st, _, raw := d.post(t, hooksAPI+"RedeliverWebhook", hdr("dev-1", other), map[string]any{"eventId": firstID})
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.call(t, "alice", hooksAPI+"ListWebhookEndpoints", map[string]any{}) // a person's token is not a group's
		wantError(t, 401, 16, st, raw)

		// Bad input changes nothing.
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"url": "ftp://example.com/x", "eventKinds": []string{"DEADLINE_OVERDUE"}}, "must be an http or https URL"},
			{map[string]any{"url": "http://10.1.2.3/hook", "eventKinds": []string{"DEADLINE_OVERDUE"}}, "a private address"},
			{map[string]any{"url": "http://169.254.169.254/latest/meta-data", "eventKinds": []string{"DEADLINE_OVERDUE"}}, "link-local"},
			{map[string]any{"url": "https://user:pw@example.com/x", "eventKinds": []string{"DEADLINE_OVERDUE"}}, "user name"},
			{map[string]any{"url": rcv.srv.URL, "eventKinds": []string{}}, "eventKinds"},
			{map[string]any{"eventKinds": []string{"DEADLINE_OVERDUE"}}, "url"},
		} {
			st, _, raw := d.post(t, hooksAPI+"CreateWebhookEndpoint", hdr("dev-1", gt), c.body)
			wantError(t, 400, 3, st, raw, c.field)
		}
		if l := d.hook(t, gt, "ListWebhookEndpoints", map[string]any{}); len(l["endpoints"].([]any)) != 1 {
			t.Fatalf("a refused endpoint was stored: %v", l)
		}

		// Delete: nothing more is sent.
		d.hook(t, gt, "DeleteWebhookEndpoint", map[string]any{"endpointId": endpoint})
		n := len(rcv.messages())
		d.submitted(t)
		time.Sleep(500 * time.Millisecond)
		if len(rcv.messages()) != n {
			t.Fatalf("a deleted endpoint still receives")
		}
	})
}

// TestWebhookEndpointDisabled: an endpoint whose every attempt fails is
// disabled once that has lasted WASTEFLOW_WEBHOOK_DISABLE_AFTER; the
// organisation gets WEBHOOK_ENDPOINT_DISABLED; a delivery whose retries run
// out is FAILED and the next event of its document goes; enabling the
// endpoint again sends what waited.
func TestWebhookEndpointDisabled(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.hooks.Config.DisableAfter = 1500 * time.Millisecond
		d.hooks.Config.Retries = slices.Repeat([]time.Duration{100 * time.Millisecond}, 30)
		mp := newMailpit(t)
		mp.start(t)
		d.useMailpit(t, mp) // alice is mailed when an endpoint is disabled
		d.runWebhooks(t)
		d.confirmed(t, mp, "alice", "alice@acme.test", map[string]any{"overdue": true})
		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED", "WEBHOOK_ENDPOINT_DISABLED")
		rcv := newReceiver(t)
		rcv.up.Store(false)
		created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		rcv.setSecrets(created["secret"].(string))
		endpoint := created["endpoint"].(map[string]any)["endpointId"].(string)

		// Retries every 100 ms (for 3 s): failing 1.5 s disables the
		// endpoint before they run out, and the organisation is told.
		id := d.submitted(t)
		var ep map[string]any
		for deadline := time.Now().Add(20 * time.Second); ; {
			ep = d.hook(t, gt, "ListWebhookEndpoints", map[string]any{})["endpoints"].([]any)[0].(map[string]any)
			if ep["enabled"] == false {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the endpoint was not disabled: %v", ep)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(ep["disabledReason"].(string), "every attempt failed since") || ep["failingSince"] == nil {
			t.Fatalf("disabled: %v", ep)
		}
		// The event commits with the disabling; on PostgreSQL the feed
		// shows it once the sequencer gave it its position, a moment later.
		var told bool
		for deadline := time.Now().Add(10 * time.Second); !told; time.Sleep(50 * time.Millisecond) {
			for _, e := range d.groupEvents(t, gt) {
				if e["kind"] == "WEBHOOK_ENDPOINT_DISABLED" && bytes.Contains(mustJSON(e["payload"]), []byte(endpoint)) {
					told = true
				}
			}
			if !told && time.Now().After(deadline) {
				t.Fatalf("no WEBHOOK_ENDPOINT_DISABLED event: %v", d.groupEvents(t, gt))
			}
		}
		n := len(rcv.messages())
		time.Sleep(300 * time.Millisecond)
		if len(rcv.messages()) != n {
			t.Fatalf("a disabled endpoint is still tried")
		}
		if m := mp.waitMail(t, "alice@acme.test", "webhook endpoint of your organisation was disabled"); !strings.Contains(m.Text, endpoint) {
			t.Fatalf("the mail does not name the endpoint: %s", m.Text)
		}
		st, _, raw := d.post(t, hooksAPI+"SendTestWebhook", hdr("dev-1", gt), map[string]any{"endpointId": endpoint})
		if st != 200 || !bytes.Contains(raw, []byte(`"state":"FAILED"`)) {
			t.Fatalf("SendTestWebhook to a failing receiver: %d %s", st, raw)
		}

		// Enabled again with the receiver up: what waited goes, and what
		// happened meanwhile.
		later := d.submitted(t)
		rcv.up.Store(true)
		d.hook(t, gt, "UpdateWebhookEndpoint", map[string]any{"endpointId": endpoint, "enabled": true})
		rcv.waitFor(t, "the held events after enabling", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool { return m.accepted && m.doc == later }) &&
				slices.ContainsFunc(ms, func(m message) bool { return m.accepted && m.doc == id })
		})
	})
}

// TestWebhookRetriesRunOut: a delivery whose every retry fails is FAILED,
// and the next event of its document goes then.
func TestWebhookRetriesRunOut(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.runWebhooks(t)
		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		rcv := newReceiver(t)
		rcv.up.Store(false)
		created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		rcv.setSecrets(created["secret"].(string))
		endpoint := created["endpoint"].(map[string]any)["endpointId"].(string)
		id := d.submitted(t)
		// The five retries (1.15 s in all) run out: FAILED after six attempts.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			ds := d.deliveries(t, gt, endpoint)
			if slices.ContainsFunc(ds, func(x map[string]any) bool { return x["state"] == "FAILED" && x["attempts"] == 6.0 }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no delivery FAILED after its retries: %v", ds)
			}
		}
		rcv.up.Store(true)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "received"}})
		rcv.waitFor(t, "the document's next event", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool { return m.accepted && m.doc == id })
		})
	})
}

// TestWebhookStrandedDelivery: a pending delivery whose job the queue
// ended without it (discarded after its own retries, while the database
// was down) gets a new job and arrives, not after its hour-long wait.
func TestWebhookStrandedDelivery(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.hooks.Config.Retries = []time.Duration{time.Hour}
		d.hooks.Config.Repair = 100 * time.Millisecond
		d.runWebhooks(t)
		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		rcv := newReceiver(t)
		rcv.up.Store(false)
		created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		rcv.setSecrets(created["secret"].(string))
		id := d.submitted(t)
		rcv.waitFor(t, "a failed attempt", func(ms []message) bool { return len(ms) > 0 })
		var job int64
		for deadline := time.Now().Add(10 * time.Second); job == 0; time.Sleep(20 * time.Millisecond) {
			d.db.Raw("SELECT COALESCE(MAX(job_id), 0) FROM webhook_deliveries WHERE state = 'PENDING' AND attempts = 1").Scan(&job)
			if time.Now().After(deadline) {
				t.Fatal("no retry scheduled")
			}
		}
		rcv.up.Store(true)
		if err := d.db.Exec("UPDATE river_job SET state = 'discarded', finalized_at = ? WHERE id = ?", time.Now().UTC(), job).Error; err != nil {
			t.Fatal(err)
		}
		rcv.waitFor(t, "the stranded delivery", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool { return m.accepted && m.doc == id })
		})
	})
}

// TestWebhooksOnceAcrossInstances: two instances on one PostgreSQL, each
// fanning out events and working the job queue, deliver every event of 12
// filings exactly once (one attempt each: the receiver is up).
func TestWebhooksOnceAcrossInstances(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.Postgres(t))
	d.runWebhooks(t)
	d.dispatcher(t, models.JobConfig{Poll: 50 * time.Millisecond}, d.hooks.Config)

	gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
	rcv := newReceiver(t)
	created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	rcv.setSecrets(created["secret"].(string))
	for range 12 {
		d.submitted(t)
	}
	want := len(d.groupEvents(t, gt))
	rcv.waitFor(t, "every event", func(ms []message) bool { return len(ms) >= want })
	time.Sleep(500 * time.Millisecond)
	ms := rcv.messages()
	ids := map[string]int{}
	for _, m := range ms {
		ids[m.id]++
	}
	if len(ms) != want || len(ids) != want {
		t.Fatalf("%d events: %d messages of %d ids", want, len(ms), len(ids))
	}
}

// TestWebhooksWokenByNotifications: on PostgreSQL an instance that
// listens (as `wasteflow serve` does) delivers without polling. Its
// dispatcher and job queue are set to poll once an hour; the sequencer's
// notification wakes the dispatcher, and River's insert notification
// wakes the queue. The first
// attempt fails (the receiver is down); the retry, due 50 ms later, comes
// from the dispatcher's timer for the next due retry, not from a poll: both
// arrive within 15 s (here within 100 ms; in make test, whose two passes
// share one cluster, an event waits for every older writing transaction of
// the cluster, and one pass saw more than 5 s), where a poll would take an
// hour (or the safety poll's 30 s).
func TestWebhooksWokenByNotifications(t *testing.T) {
	parallel(t)
	dbcfg := dbtest.Postgres(t)
	d := startDocs(t, dbcfg)
	cfg := d.hooks.Config
	cfg.Poll = time.Hour
	hooks := d.dispatcher(t, models.JobConfig{Poll: time.Hour, ListenDSN: dbcfg.DSN}, cfg)
	// startDocs's sequencer (PostgreSQL) positions the events and announces
	// them; this instance's listening connection hears it.
	live := &wake.Hub{}
	listen(t, dbcfg, map[string]models.Feed{models.EventChannel: models.Feeds{live, hooks}}, live.Live)

	gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
	rcv := newReceiver(t)
	rcv.up.Store(false)
	created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	rcv.setSecrets(created["secret"].(string))
	began := time.Now()
	id := d.submitted(t)
	const within = 15 * time.Second
	for !slices.ContainsFunc(rcv.messages(), func(m message) bool { return m.doc == id }) {
		if time.Since(began) > within {
			t.Fatalf("no attempt within %s of the filing: the dispatcher or the queue was not woken", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
	first := time.Since(began)
	rcv.up.Store(true)
	for !slices.ContainsFunc(rcv.messages(), func(m message) bool { return m.doc == id && m.accepted }) {
		if time.Since(began) > 2*within {
			t.Fatalf("the retry did not come within %s of the first attempt", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("first attempt %s after the filing, the retry %s after it", first.Round(time.Millisecond), (time.Since(began) - first).Round(time.Millisecond))
}

// dispatcher starts a second instance's webhook side on d's database
// until the test ends: a job queue (jc's Poll and ListenDSN; two workers,
// four for webhooks) working attempts, and a dispatcher with cfg.
func (d *docEnv) dispatcher(t *testing.T, jc models.JobConfig, cfg webhooks.Config) *webhooks.Service {
	t.Helper()
	jc.Workers, jc.JobTimeout, jc.RescueAfter, jc.Queues = 2, 20*time.Second, 30*time.Second, map[string]int{webhooks.Queue: 4}
	queue, err := models.NewJobQueue(d.db, jc, testLog())
	if err != nil {
		t.Fatal(err)
	}
	hooks := &webhooks.Service{Store: models.NewWebhookStore(d.db), Groups: models.NewEventStore(d.db), Jobs: queue, Keyring: d.hooks.Keyring,
		Guard: d.hooks.Guard, Kinds: d.hooks.Kinds, Config: cfg, Log: testLog()}
	hooks.Init()
	hooks.Register(queue)
	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hooks.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		_ = queue.Stop(sctx)
	})
	return hooks
}

// TestWebhookProductionRefusesLoopback: in production only https URLs of
// public addresses are accepted.
func TestWebhookProductionRefusesLoopback(t *testing.T) {
	parallel(t)
	a := startServerIn(t, dbtest.SQLite(t), "production", 1000, 100000, time.Hour)
	d := &docEnv{authEnv: a, tokens: map[string]string{}}
	gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
	for url, why := range map[string]string{
		"https://127.0.0.1:8443/hook": "a loopback address",
		"https://[::1]/hook":          "a loopback address",
		"http://example.com/hook":     "must be an https URL",
		"https://192.168.1.10/hook":   "a private address",
	} {
		st, _, raw := d.post(t, hooksAPI+"CreateWebhookEndpoint", hdr("dev-1", gt), map[string]any{"url": url, "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		wantError(t, 400, 3, st, raw, why)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestWebhookGuardRefusesZones (issue 44.1): in production a URL naming
// an IPv6 zone ("[::1%25lo]", "[::%25lo]": the server's own loopback) is
// refused when it is saved, by CreateWebhookEndpoint and
// UpdateWebhookEndpoint alike (400 naming url), and an endpoint that holds
// one already (saved before the guard knew zones) is refused when it
// connects, its lastError the same for an open and a closed port.
func TestWebhookGuardRefusesZones(t *testing.T) {
	parallel(t)
	reached := atomic.Bool{}
	open := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Store(true) }))
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	open.Listener = ln
	open.StartTLS()
	t.Cleanup(open.Close)
	gone, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := gone.Addr().(*net.TCPAddr).Port
	gone.Close()
	ports := []int{ln.Addr().(*net.TCPAddr).Port, closedPort}

	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startServerIn(t, dbcfg, "production", 1000, 100000, time.Hour)
		d := &docEnv{authEnv: a, tokens: map[string]string{}}
		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		kinds := []string{"DOCUMENT_STATE_CHANGED"}
		ep := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": "https://93.184.216.34/hook", "eventKinds": kinds})["endpoint"].(map[string]any)
		id := ep["endpointId"].(string)
		var zoned []string
		for _, port := range ports {
			for _, host := range []string{"[::1%25lo]", "[::%25lo]", "[::1%25eth0]", "[fe80::1%25lo]"} {
				zoned = append(zoned, fmt.Sprintf("https://%s:%d/hook", host, port))
			}
		}
		for _, u := range zoned {
			st, _, raw := d.post(t, hooksAPI+"CreateWebhookEndpoint", hdr("dev-1", gt), map[string]any{"url": u, "eventKinds": kinds})
			wantError(t, 400, 3, st, raw, `"url"`, "zone")
			st, _, raw = d.post(t, hooksAPI+"UpdateWebhookEndpoint", hdr("dev-1", gt), map[string]any{"endpointId": id, "url": u})
			wantError(t, 400, 3, st, raw, `"url"`, "zone")
		}
		list := d.hook(t, gt, "ListWebhookEndpoints", map[string]any{})["endpoints"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["url"] != "https://93.184.216.34/hook" {
			t.Fatalf("a refused URL changed the endpoints: %v", list)
		}

		// An endpoint saved with such a URL before: each delivery is
		// refused by the guard, with one error for an open and a closed port.
		errs := map[string][]string{}
		for _, u := range zoned {
			ctx := context.Background()
			e, err := a.hooks.Store.Endpoint(ctx, "", id, false)
			if err != nil {
				t.Fatal(err)
			}
			e.URL = u
			if err := a.hooks.Store.SaveEndpoint(ctx, e); err != nil {
				t.Fatal(err)
			}
			got := d.hook(t, gt, "SendTestWebhook", map[string]any{"endpointId": id})["delivery"].(map[string]any)
			le, _ := got["lastError"].(string)
			if got["state"] != "FAILED" || !strings.HasPrefix(le, "refused by the address guard") {
				t.Fatalf("a delivery to %s: %v", u, got)
			}
			host := u[:strings.LastIndex(u, ":")]
			errs[host] = append(errs[host], le)
		}
		for host, es := range errs {
			if len(es) != 2 || es[0] != es[1] {
				t.Errorf("%s: an open and a closed port give different errors: %q", host, es)
			}
		}
		if reached.Load() {
			t.Fatal("the loopback receiver was reached")
		}
	})
}
