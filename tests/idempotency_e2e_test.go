package tests

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// keyed posts body as user with an Idempotency-Key.
func (d *docEnv) keyed(t *testing.T, user, path, key string, body any) (int, string, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	h := hdr("dev-1", d.token(t, user))
	h["Idempotency-Key"] = key
	st, header, out := d.do(t, call{path: path, headers: h, body: raw})
	return st, header.Get("Idempotent-Replay"), out
}

// A retried mutation with an Idempotency-Key has one effect and the first
// answer; the key with another request is refused; keys are per
// organisation; a failed request keeps nothing.
func TestIdempotencyKeys(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		count := func(org string) int64 {
			var n int64
			d.db.Model(&models.DocumentParty{}).Where("organisation_id = ? AND role = 'NOTIFIER'", org).Count(&n)
			return n
		}
		create := map[string]any{"notification": content()}
		st, replay, first := d.keyed(t, "alice", co+"CreateSubmission", "create-1", create)
		if st != 200 || replay != "" {
			t.Fatalf("first: %d %q %.200s", st, replay, first)
		}
		st, replay, again := d.keyed(t, "alice", co+"CreateSubmission", "create-1", create)
		if st != 200 || replay != "true" || !bytes.Equal(first, again) || count("acme") != 1 {
			t.Fatalf("retry: %d replay %q, same answer %v, %d notifications", st, replay, bytes.Equal(first, again), count("acme"))
		}
		other := map[string]any{"notification": shippable(2)}
		st, _, raw := d.keyed(t, "alice", co+"CreateSubmission", "create-1", other)
		wantError(t, 409, 6, st, raw, "another request")
		// Another organisation's key of the same name is its own.
		st, _, raw = d.keyed(t, "eve", co+"CreateSubmission", "create-1", map[string]any{"notification": map[string]any{}})
		if st != 200 || count("evil") != 1 {
			t.Fatalf("eve's key: %d %.200s", st, raw)
		}
		// An intent retried: one transition.
		id := decode(t, first)["document"].(map[string]any)["id"].(string)
		submit := map[string]any{"documentId": id, "version": "1", "notification": content()}
		d.keyed(t, "alice", co+"SetSubmission", "submit-1", submit)
		st, replay, raw = d.keyed(t, "alice", co+"SetSubmission", "submit-1", submit)
		if doc, _ := d.get(t, "alice", id); st != 200 || replay != "true" || doc["version"] != "2" {
			t.Fatalf("retried submission: %d %q version %v %.200s", st, replay, doc["version"], raw)
		}
		// A request that fails keeps nothing: its retry runs again.
		bad := map[string]any{"documentId": id, "version": "1", "acknowledgement": map[string]any{}}
		st, _, raw = d.keyed(t, "noor", au+"SubmitAcknowledgement", "ack-1", bad)
		wantError(t, 409, 10, st, raw)
		var kept int64
		d.db.Model(&models.IdempotencyKey{}).Where("key LIKE ?", "%/ack-1").Count(&kept)
		if kept != 0 {
			t.Fatal("a failed request kept its key")
		}
		st, _, raw = d.keyed(t, "noor", au+"SubmitAcknowledgement", "ack-1", map[string]any{"documentId": id, "version": "2"})
		if st != 200 {
			t.Fatalf("the retry with the right version: %d %.200s", st, raw)
		}
		// A key is the session's: another login of the same account (and so
		// any other account) reusing it gets an answer of its own, never the
		// first session's tokens.
		rt1, rt2 := d.login(t, "dev-1", "alice", passwords["alice"], appUI), d.login(t, "dev-1", "alice", passwords["alice"], appUI)
		refresh := func(rt string) map[string]any {
			h := hdr("dev-1", rt)
			h["Idempotency-Key"] = "refresh-1"
			st, _, raw := d.do(t, call{path: "/svc.core.v1.api.AuthApi/RequestAccess", headers: h, body: []byte("{}")})
			if st != 200 {
				t.Fatalf("RequestAccess: %d %.200s", st, raw)
			}
			return decode(t, raw)
		}
		if a, b := refresh(rt1), refresh(rt2); a["accessToken"] == b["accessToken"] || a["refreshToken"] == b["refreshToken"] {
			t.Fatal("a second session reusing an Idempotency-Key received the first session's tokens")
		}
		// An import retried: one version.
		_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
		imp := map[string]any{"document": x, "distribute": map[string]any{"value": false}}
		d.keyed(t, "alice", docAPI+"ImportTransportDocument", "imp-1", imp)
		_, replay, raw = d.keyed(t, "alice", docAPI+"ImportTransportDocument", "imp-1", imp)
		if m := decode(t, raw); replay != "true" || m["version"] != "1" {
			t.Fatalf("retried import: %q %v", replay, m)
		}
	})
}

// Concurrent requests with one key run once (PostgreSQL).
func TestIdempotencyKeyUnderConcurrency(t *testing.T) {
	d := startDocs(t, dbtest.Postgres(t))
	d.token(t, "alice")
	var wg sync.WaitGroup
	var mu sync.Mutex
	bodies := map[string]int{}
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, raw := d.keyed(t, "alice", co+"CreateSubmission", "race-1", map[string]any{"notification": content()})
			mu.Lock()
			defer mu.Unlock()
			if st != 200 {
				t.Errorf("%d %.200s", st, raw)
			}
			bodies[string(raw)]++
		}()
	}
	wg.Wait()
	var n int64
	d.db.Model(&models.Document{}).Where("kind = 'NOTIFICATION'").Count(&n)
	if n != 1 || len(bodies) != 1 {
		t.Fatalf("%d notifications, %d different answers", n, len(bodies))
	}
}
