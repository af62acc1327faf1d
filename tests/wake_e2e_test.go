package tests

import (
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/events"
	"github.com/wasteflow/wasteflow/workflows/signer"
	"github.com/wasteflow/wasteflow/workflows/wake"
)

// Waiting costs nothing (PostgreSQL): a long poll on events and a wait on
// a signing process, held by a second instance whose waits would read the
// database only once a minute while its feed is down (and every
// wake.Safety, a minute too, while it listens), answer within three
// seconds of a change made through the first instance: the change's
// NOTIFY wakes them. Not within one: make test runs its two passes side
// by side on one cluster, and an event gets its position only once every
// older writing transaction of the cluster has ended (CI saw 1.41 s in
// the pass without the race detector, the other pass's transactions
// holding the event back). While they wait, the second instance's
// metrics count them.
func TestWaitsAreWokenAcrossInstances(t *testing.T) {
	soon := 3 * time.Second
	dbcfg := dbtest.Postgres(t)
	d := startDocs(t, dbcfg)
	evHub, signHub := &wake.Hub{}, &wake.Hub{}
	deps := d.deps
	deps.Events = &events.Service{Store: models.NewEventStore(d.db), Poll: time.Minute, Wake: evHub}
	deps.Signer = &signer.Service{Store: models.NewSignerStore(d.db), BMU: deps.BMU, Keys: d.signKeys, Now: d.clock.Now, Poll: time.Minute, Wake: signHub}
	listen(t, dbcfg, map[string]models.Feed{models.EventChannel: evHub, models.SigningChannel: signHub}, func() bool { return evHub.Live() && signHub.Live() })
	srv, err := handlers.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, srv)
	t.Cleanup(hs.Close)
	second := &authEnv{env: &env{url: hs.URL, srv: srv, t: t}, db: d.db}

	// The authority's integration waits on the second instance.
	_, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
	if g["groupId"] == nil {
		t.Fatalf("register: %s", raw)
	}
	_, lg, _ := second.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	gt := lg["groupToken"].(string)
	_, m, _ := second.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
	cursor := m["nextCursor"]
	type answer struct {
		m  map[string]any
		at time.Time
	}
	polled := make(chan answer, 1)
	go func() {
		_, m, _ := second.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"cursor": cursor, "waitSeconds": 20})
		polled <- answer{m, time.Now()}
	}()
	waiting := func(kind string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); second.metric(t, `wasteflow_waiters{kind="`+kind+`"}`) != 1; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s waiter counted on the second instance", kind)
			}
		}
	}
	waiting("events")
	d.submitted(t) // through the first instance: the authority is told of the new state
	changed := time.Now()
	select {
	case a := <-polled:
		if evs, _ := a.m["notifications"].([]any); len(evs) == 0 {
			t.Fatalf("the long poll answered without the event: %v", a.m)
		}
		if took := a.at.Sub(changed); took > soon {
			t.Fatalf("the long poll on the other instance answered %s after the change", took)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the long poll on the other instance was not woken")
	}

	// A signing process cancelled on the first instance ends the wait on
	// the second.
	x := d.carrierNote(t)
	id := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom"}))["id"].(string)
	waited := make(chan answer, 1)
	go func() {
		_, m, _ := second.post(t, signAPI+"WaitSigningProcess", hdr("dev-1", d.token(t, "alice")), map[string]any{"processId": id, "waitSeconds": 20})
		waited <- answer{m, time.Now()}
	}()
	waiting("signing")
	d.okAs(t, "alice", signAPI+"CancelSigningProcess", map[string]any{"processId": id})
	changed = time.Now()
	select {
	case a := <-waited:
		if p := process(a.m); p["state"] != "CANCELLED" {
			t.Fatalf("the wait answered %v", p)
		}
		if took := a.at.Sub(changed); took > soon {
			t.Fatalf("the wait on the other instance answered %s after the cancellation", took)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the wait on the other instance was not woken")
	}
	if n := second.metric(t, `wasteflow_waiters{kind="events"}`) + second.metric(t, `wasteflow_waiters{kind="signing"}`); n != 0 {
		t.Fatalf("%v waiters left after the waits ended", n)
	}
}
