package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

const clockAPI = "/svc.core.v1.api.TestClockApi/"

// clockTo moves the provider's test clock over HTTP (as alice, who holds
// usermgt) to 09:00 UTC of date, and returns the answer.
func (d *docEnv) clockTo(t *testing.T, date string) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"to": date + "T09:00:00Z"})
	if st != 200 {
		t.Fatalf("AdvanceTestClock to %s: %d %s", date, st, raw)
	}
	return m
}

// clockToday is the provider's date by its test clock, read over HTTP.
func (d *docEnv) clockToday(t *testing.T) string {
	t.Helper()
	st, m, raw := d.call(t, "alice", clockAPI+"GetTestClock", map[string]any{})
	if st != 200 {
		t.Fatalf("GetTestClock: %d %s", st, raw)
	}
	return m["now"].(string)[:10]
}

func tonnes(n string) map[string]any { return map[string]any{"tonnes": map[string]any{"units": n}} }

// TestTestClockWalksShipmentsThroughTime drives every time-bound step of
// the three kinds with the test clock only, over HTTP (the server's own
// clock stands still): a notification to consent; two movements taken
// over on their date, one received and completed, one rejected and taken
// back; an Annex VII document from its announcement to its certificate of
// completion, and another taken back; a transit authority's silence that
// becomes tacit consent when its period ends, and an acknowledgement
// overdue, both brought by one advance.
func TestTestClockWalksShipmentsThroughTime(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) { clockFlow(t, startDocs(t, dbcfg)) })
}

func clockFlow(t *testing.T, d *docEnv) {
	st, m, raw := d.call(t, "alice", clockAPI+"GetTestClock", map[string]any{})
	if st != 200 || m["now"] != "2026-12-01T09:00:00Z" || m["advancedBy"] != "0s" || m["environment"] != "development" {
		t.Fatalf("the clock before any advance: %d %s", st, raw)
	}
	st, _, raw = d.call(t, "bernd", clockAPI+"AdvanceTestClock", map[string]any{"days": 1})
	wantError(t, 403, 7, st, raw, "usermgt")
	for _, bad := range []map[string]any{{}, {"days": -1}, {"days": 1, "to": "2027-01-01T00:00:00Z"}, {"to": "2026-11-30T00:00:00Z"}, {"to": "2026-12-01T09:00:00Z"}} {
		st, _, raw = d.call(t, "alice", clockAPI+"AdvanceTestClock", bad)
		wantError(t, 400, 3, st, raw)
	}

	// A notification to consent, two movements announced for Monday.
	nid := d.consented(t, shippable(3))
	m1 := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
	m2 := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
	take := map[string]any{"carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}}
	take["documentId"] = m1
	d.businessError(t, "tom", co+"SetCarrierTransport", take, "DATE_OUT_OF_RANGE", "1") // not before the day

	// Monday: taken over, received, completed; the other rejected and taken back.
	if m := d.clockTo(t, "2026-12-07"); m["now"] != "2026-12-07T09:00:00Z" || m["advancedBy"] != "518400s" {
		t.Fatalf("advanced: %v", m)
	}
	for _, id := range []string{m1, m2} {
		take["documentId"] = id
		if mv := d.ok(t, "tom", co+"SetCarrierTransport", take); mv["state"] != "IN_TRANSIT" {
			t.Fatalf("taken over: %v", mv["state"])
		}
	}
	d.clockTo(t, "2026-12-08")
	d.ok(t, "rita", co+"SetConsigneeReception", map[string]any{"documentId": m1, "consigneeReception": map[string]any{"receivedOn": "2026-12-08", "quantity": tonnes("20")}})
	d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": m1, "facilityReception": map[string]any{"receivedOn": "2026-12-08", "quantity": tonnes("20")}})
	d.clockTo(t, "2027-01-12")
	mv := d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": m1, "facilityCompletion": map[string]any{"completedOn": "2027-01-11", "operationCode": "R4"}})
	if mv["state"] != "COMPLETED" || deadline(mv, "COMPLETION_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
		t.Fatalf("completed: %v %v", mv["state"], mv["deadlines"])
	}
	d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": m2, "facilityReception": map[string]any{
		"receivedOn": "2027-01-12", "rejected": true, "reason": "contaminated", "quantity": tonnes("20")}})
	mv = d.ok(t, "bernd", au+"SetMovementTakeBack", map[string]any{"documentId": m2, "takeBack": map[string]any{"reason": "refused by the facility"}})
	if tb := deadline(mv, "TAKE_BACK_DUE", "acme"); !strings.HasPrefix(tb["dueAt"].(string), "2027-04-12") {
		t.Fatalf("the take-back falls due 90 days after the clock's today: %v", tb)
	}
	if mv = d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": m2, "movementSignal": map[string]any{"type": "CONFIRM"}}); mv["state"] != "TAKEN_BACK" {
		t.Fatalf("taken back: %v", mv["state"])
	}

	// An Annex VII shipment from its announcement to its completion.
	a := announcement()
	a["actualDateOfShipment"] = "2027-01-15" // Friday: 3 working days ahead
	id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": a})["id"].(string)
	d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": a})
	d.clockTo(t, "2027-01-15")
	d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2027-01-15"}})
	d.clockTo(t, "2027-01-18")
	d.ok(t, "rita", co+"SetAnnex7ConsigneeCertificate", map[string]any{"documentId": id, "consigneeCertificate": map[string]any{"receivedOn": "2027-01-18", "quantity": tonnes("20")}})
	d.ok(t, "rita", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id, "facilityCertificate": map[string]any{"receivedOn": "2027-01-18", "quantity": tonnes("20")}})
	d.clockTo(t, "2027-02-01")
	doc := d.ok(t, "rita", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id, "certificateOfCompletion": map[string]any{"completedOn": "2027-01-29", "recoveryCode": "R3"}})
	if doc["state"] != "COMPLETED" {
		t.Fatalf("Annex VII completed: %v", doc["state"])
	}

	// Another one taken back by a shipment the other way.
	a["actualDateOfShipment"] = "2027-02-04"
	orig := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": a})["id"].(string)
	d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": orig, "annex7": a})
	d.clockTo(t, "2027-02-04")
	d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": orig, "carrierTransfer": map[string]any{"transferDate": "2027-02-04"}})
	d.ok(t, "alice", co+"SetAnnex7TakeBack", map[string]any{"documentId": orig, "takeBack": map[string]any{"reason": "contaminated load"}})
	back := announcement()
	back["consignee"], back["facility"] = map[string]any{"organisationId": "acme"}, map[string]any{"organisationId": "acme"}
	back["competentAuthorities"] = map[string]any{"dispatch": map[string]any{"organisationId": "auth-nl"}, "destination": map[string]any{"organisationId": "auth-de"}}
	back["actualDateOfShipment"], back["takeBackOf"] = "2027-02-09", orig
	bid := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": back})["id"].(string)
	d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": bid, "annex7": back})
	d.clockTo(t, "2027-02-09")
	d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": bid, "carrierTransfer": map[string]any{"transferDate": "2027-02-09"}})
	d.ok(t, "alice", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": bid, "facilityCertificate": map[string]any{"receivedOn": "2027-02-09"}})
	d.ok(t, "alice", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": bid, "certificateOfCompletion": map[string]any{"completedOn": "2027-02-09"}})
	if doc, _ := d.annex7(t, "alice", orig); doc["state"] != "TAKEN_BACK" {
		t.Fatalf("the original after its take-back: %v", doc["state"])
	}

	// Silence and neglect: the transit authority never decides, nobody
	// acknowledges another filing. One advance past the decision period.
	tacit := d.submitted(t)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": tacit})
	d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": tacit, "decision": map[string]any{"type": "CONSENT"}})
	d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": tacit, "decision": map[string]any{"type": "CONSENT"}})
	neglected := d.submitted(t)
	doc, _ = d.get(t, "bart", tacit)
	due := deadline(doc, "DECISION_DUE", "auth-be")["dueAt"].(string)
	st, m, raw = d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 40})
	if st != 200 || m["now"] != "2027-03-21T09:00:00Z" {
		t.Fatalf("40 days on: %d %s", st, raw)
	}
	if sw := m["swept"].(map[string]any); sw["transitions"] != float64(1) || sw["lapsed"] != float64(1) || sw["overdue"].(float64) < 1 {
		t.Fatalf("what the 40 days brought: %v", sw)
	}
	doc, _ = d.get(t, "alice", tacit)
	validity := deadline(doc, "CONSENT_VALIDITY", "acme")
	if doc["state"] != "CONSENTED" || validity == nil || deadline(doc, "DECISION_DUE", "auth-be")["state"] != "LAPSED" {
		t.Fatalf("tacit consent: %v %v", doc["state"], doc["deadlines"])
	}
	dueAt, _ := time.Parse(time.RFC3339Nano, due)
	started, _ := time.Parse(time.RFC3339Nano, validity["startedAt"].(string))
	if started.Before(dueAt) || started.After(dueAt.Add(time.Second)) {
		t.Fatalf("the consent started at %s, want when the decision period ended (%s), not when the clock stopped", started, dueAt)
	}
	if doc, _ = d.get(t, "noor", neglected); deadline(doc, "ACKNOWLEDGEMENT_DUE", "auth-nl")["state"] != "OVERDUE" {
		t.Fatalf("the unacknowledged filing: %v", doc["deadlines"])
	}
	// Reports and lists read the same time.
	st, m, raw = d.call(t, "noor", "/svc.core.v1.api.DeadlineReportApi/ListDeadlines", map[string]any{"qpar": map[string]any{
		"filter": []any{filter("state", "EQUAL", s("OVERDUE"))}}})
	if st != 200 || m["total"] != "1" {
		t.Fatalf("noor's overdue deadlines: %d %s", st, raw)
	}
	if q, _ := d.list(t, "noor", map[string]any{"actionable": true}); len(q) != 3 || q[0]["documentId"] != neglected || q[0]["nextDeadline"].(map[string]any)["state"] != "OVERDUE" {
		t.Fatalf("noor's work queue: %v", q)
	}
	if today := d.clockToday(t); today != "2027-03-21" {
		t.Fatalf("clock today %s", today)
	}
	// The scheduled sweep reads the provider's clock too: real time runs
	// on 20 days, and a filing made on the clock's today is overdue.
	late := d.submitted(t)
	d.clock.Advance(20 * 24 * time.Hour)
	if res, err := d.notes.Sweep(context.Background(), d.clock.Now()); err != nil || res.Overdue != 1 {
		t.Fatalf("the scheduled sweep 20 days on: %v %v", res, err)
	}
	if doc, _ = d.get(t, "noor", late); deadline(doc, "ACKNOWLEDGEMENT_DUE", "auth-nl")["state"] != "OVERDUE" {
		t.Fatalf("the filing of the clock's today after the sweep: %v", doc["deadlines"])
	}
	var advances int64
	d.db.Raw("SELECT COUNT(*) FROM test_clock_advances WHERE provider_id = 'dev-1' AND organisation_id = 'acme'").Scan(&advances)
	if advances != 9 {
		t.Fatalf("%d advances recorded, want 9", advances)
	}
}

// In production (and staging) there are no test clocks: both operations
// answer 403, code 7, and no clock is ever read or written.
func TestNoTestClocksInProduction(t *testing.T) {
	parallel(t)
	d := &docEnv{authEnv: startServerIn(t, dbtest.SQLite(t), "production", 1000, 100000, time.Hour), tokens: map[string]string{}}
	for op, body := range map[string]map[string]any{"GetTestClock": {}, "AdvanceTestClock": {"days": 30}, "ResetTestClock": {"deleteDocuments": true}} {
		st, _, raw := d.call(t, "alice", clockAPI+op, body)
		wantError(t, 403, 7, st, raw, "development and test")
	}
	if d.notes.Clocks != nil {
		t.Fatal("a production runner reads test clocks")
	}
	var n int64
	d.db.Raw("SELECT COUNT(*) FROM test_clocks").Scan(&n)
	if n != 0 {
		t.Fatalf("%d test clocks in production", n)
	}
	// The documents run on real time as ever.
	d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})
}
