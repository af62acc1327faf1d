package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// shippable is a notification content whose shipment period starts on the
// test clock's first day (Tuesday 2026-12-01): two carriers, 100 tonnes in
// at most shipments movements.
func shippable(shipments int) map[string]any {
	c := content()
	c["carriers"] = []any{map[string]any{"organisationId": "truck"}, map[string]any{"organisationId": "barge"}}
	c["numberOfShipments"] = shipments
	c["shipmentPeriod"] = map[string]any{"firstDeparture": "2026-12-01", "lastDeparture": "2027-06-30"}
	c["packagingTypes"] = []any{"DRUM", "BULK"}
	return c
}

// consented files c and has the three authorities consent.
func (d *docEnv) consented(t *testing.T, c map[string]any) string {
	t.Helper()
	id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
	d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
	d.guaranteed(t, id, "2026-11-01", "2027-12-31")
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
	for _, u := range []string{"bernd", "noor", "bart"} {
		d.ok(t, u, au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
	}
	return id
}

func template(date string, tonnes int) map[string]any {
	return map[string]any{
		"actualDateOfShipment": date,
		"actualQuantity":       map[string]any{"tonnes": map[string]any{"units": fmt.Sprint(tonnes)}},
		"packagingTypes":       []any{"DRUM"},
		"carriers": []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"},
			map[string]any{"organisationId": "barge", "meansOfTransport": "INLAND_WATERWAYS"}},
	}
}

func (d *docEnv) movement(t *testing.T, user, id string) (map[string]any, []string) {
	t.Helper()
	return d.read(t, user, co+"GetMovement", id)
}

func hasIntent(intents []string, name string) bool {
	for _, i := range intents {
		if i == name {
			return true
		}
	}
	return false
}

func TestMovementLife(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		// Not before consent.
		pending := d.submitted(t)
		st, _, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": pending, "movementTemplate": template("2026-12-07", 10)})
		wantError(t, 400, 9, st, raw, "CREATE_MOVEMENT")
		if _, intents := d.get(t, "alice", pending); hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("CREATE_MOVEMENT offered before consent: %v", intents)
		}

		nid := d.consented(t, shippable(3))
		ndoc, intents := d.get(t, "alice", nid)
		if !hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("the notifier's follow-ups after consent: %v", intents)
		}
		if _, intents := d.get(t, "rita", nid); hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("CREATE_MOVEMENT offered to the consignee: %v", intents)
		}
		st, _, raw = d.call(t, "rita", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})
		wantError(t, 403, 7, st, raw, "NOTIFIER")
		st, _, raw = d.call(t, "eve", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": ndoc}, "intent": "CREATE_MOVEMENT"})
		wantError(t, 400, 9, st, raw, "CreateMovementTemplate")

		// Content no authority would take: nothing is created.
		for code, mutate := range map[string]func(m map[string]any){
			"QUANTITY_EXCEEDS_NOTIFIED_TOTAL": func(m map[string]any) {
				m["actualQuantity"] = map[string]any{"tonnes": map[string]any{"units": "100", "nanos": 1}}
			},
			"QUANTITY_INVALID": func(m map[string]any) {
				m["actualQuantity"] = map[string]any{"cubicMetres": map[string]any{"units": "10"}}
			},
			"CONSENT_NOT_VALID_ON_DATE": func(m map[string]any) { m["actualDateOfShipment"] = "2027-07-01" },
			"PRIOR_NOTICE_TOO_LATE":     func(m map[string]any) { m["actualDateOfShipment"] = "2026-12-02" },
			"PARTY_UNKNOWN": func(m map[string]any) {
				m["carriers"] = []any{map[string]any{"organisationId": "evil", "meansOfTransport": "ROAD"}}
			},
			"PACKAGING_TYPE_INVALID": func(m map[string]any) { m["packagingTypes"] = []any{"BAG"} },
		} {
			tmpl := template("2026-12-07", 40)
			mutate(tmpl)
			st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": tmpl})
			if be := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != code {
				t.Fatalf("%s: %d %s", code, st, raw)
			}
		}
		if ndoc, _ = d.get(t, "alice", nid); ndoc["movements"].(map[string]any)["count"] != float64(0) {
			t.Fatalf("a refused movement was counted: %v", ndoc["movements"])
		}

		mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})
		id := mv["id"].(string)
		if mv["state"] != "SUBMITTED" || mv["number"] != ndoc["number"].(string)+"-M001" || mv["movementTemplate"].(map[string]any)["sequenceNumber"] != float64(1) ||
			!strings.HasPrefix(id, "mvt_") || mv["notificationId"] != nid {
			t.Fatalf("created: %v %v %v", mv["state"], mv["number"], mv["movementTemplate"])
		}
		ndoc, _ = d.get(t, "alice", nid)
		movs := ndoc["movements"].(map[string]any)
		if movs["count"] != float64(1) || movs["shipmentsLeft"] != float64(2) || movs["quantityLeft"].(map[string]any)["tonnes"].(map[string]any)["units"] != "60" ||
			movs["entries"].([]any)[0].(map[string]any)["id"] != id {
			t.Fatalf("the notification's movements: %v", movs)
		}
		st, _, raw = d.call(t, "eve", co+"GetMovement", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.call(t, "alice", co+"GetAnnex7", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw)

		// An authority acknowledges it through the notification's operation.
		st, m, raw := d.call(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		if st != 200 || m["document"] != nil || m["movement"].(map[string]any)["state"] != "ACKNOWLEDGED" {
			t.Fatalf("acknowledge the movement: %d %s", st, raw)
		}
		// Before custody the notifier changes the template freely.
		changed := template("2026-12-07", 45)
		mv = d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": changed})
		if mv["movementTemplate"].(map[string]any)["actualQuantity"].(map[string]any)["tonnes"].(map[string]any)["units"] != "45" || len(mv["corrections"].([]any)) != 1 {
			t.Fatalf("changed before custody: %v", mv["movementTemplate"])
		}

		// The carriers in turn.
		d.businessError(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-01"}}, "DATE_OUT_OF_RANGE", "3")
		d.advanceTo(t, "2026-12-07")
		mv = d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07", "vehicleId": "M-XY 123"}})
		if mv["state"] != "IN_TRANSIT" || mv["legs"].([]any)[0].(map[string]any)["meansOfTransport"] != "ROAD" {
			t.Fatalf("first leg: %v %v", mv["state"], mv["legs"])
		}
		st, _, raw = d.call(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		wantError(t, 400, 9, st, raw, "IN_TRANSIT")

		// After custody a change needs an authority's correction request, once.
		st, _, raw = d.call(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": changed})
		wantError(t, 400, 9, st, raw, "IN_TRANSIT")
		st, _, raw = d.call(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "REQUEST_CORRECTION"}})
		wantMissing(t, st, raw, "movementSignal.reason")
		d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "REQUEST_CORRECTION", "reason": "packaging is bulk"}})
		if _, intents := d.movement(t, "alice", id); !hasIntent(intents, "MOVEMENT_TEMPLATE") {
			t.Fatalf("no MOVEMENT_TEMPLATE after the correction request: %v", intents)
		}
		changed["packagingTypes"] = []any{"BULK"}
		mv = d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": changed})
		if mv["correctionOpen"] != false || mv["movementTemplate"].(map[string]any)["packagingTypes"].([]any)[0] != "BULK" {
			t.Fatalf("corrected on request: %v %v", mv["correctionOpen"], mv["movementTemplate"])
		}
		st, _, raw = d.call(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": changed})
		wantError(t, 400, 9, st, raw)

		d.advance(24 * time.Hour) // Tuesday 2026-12-08
		d.ok(t, "sam", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-08"}})
		mv = d.ok(t, "rita", co+"SetConsigneeReception", map[string]any{"documentId": id, "consigneeReception": map[string]any{"receivedOn": "2026-12-08", "quantity": map[string]any{"tonnes": map[string]any{"units": "45"}}}})
		if mv["state"] != "RECEIVED_BY_CONSIGNEE" || len(mv["legs"].([]any)) != 2 || deadline(mv, "RECEIPT_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
			t.Fatalf("consignee reception: %v %v", mv["state"], mv["deadlines"])
		}
		mv = d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{"receivedOn": "2026-12-08", "quantity": map[string]any{"tonnes": map[string]any{"units": "45"}}}})
		var completion map[string]any
		for _, x := range mv["deadlines"].([]any) {
			if dl := x.(map[string]any); dl["rule"] == "COMPLETION_CERTIFICATE_DUE" {
				completion = dl
			}
		}
		if mv["state"] != "RECEIVED_BY_FACILITY" || completion == nil || completion["state"] != "OPEN" || !strings.HasPrefix(completion["dueAt"].(string), "2027-12-08") {
			t.Fatalf("facility reception: %v %v", mv["state"], completion)
		}
		d.businessError(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": id, "facilityCompletion": map[string]any{"completedOn": "2026-12-08", "operationCode": "D1"}},
			"RECOVERY_DISPOSAL_CODE_INVALID", mv["version"].(string))
		mv = d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": id, "facilityCompletion": map[string]any{"completedOn": "2026-12-08", "operationCode": "R4"}})
		if mv["state"] != "COMPLETED" || deadline(mv, "COMPLETION_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
			t.Fatalf("completed: %v %v", mv["state"], mv["deadlines"])
		}

		// Authorities read it in the container; SetByIntent refuses it.
		st, m, raw = d.call(t, "bart", au+"GetDocument", map[string]any{"documentId": id})
		if st != 200 || m["document"].(map[string]any)["movement"].(map[string]any)["id"] != id {
			t.Fatalf("authority GetDocument of a movement: %d %s", st, raw)
		}
		st, _, raw = d.call(t, "bart", au+"SetByIntent", map[string]any{"document": m["document"], "intent": "MOVEMENT_SIGNAL"})
		wantError(t, 400, 9, st, raw, "movement")
		// The deadline report knows the kind.
		st, m, raw = d.call(t, "rita", "/svc.core.v1.api.DeadlineReportApi/ListDeadlines", map[string]any{"qpar": map[string]any{
			"filter": []any{map[string]any{"path": "kind", "op": "EQUAL", "operands": []any{map[string]any{"s": "MOVEMENT"}}}}}})
		if st != 200 || m["total"] != "3" { // receipt (consignee, facility), completion
			t.Fatalf("ListDeadlines of MOVEMENT: %d %s", st, raw)
		}
		// The diagram.
		st, _, raw = d.do(t, call{method: http.MethodGet, path: "/workflows/movement.mmd"})
		if st != 200 || !strings.Contains(string(raw), "TAKE_BACK_ORDERED --> TAKEN_BACK : MOVEMENT_SIGNAL") {
			t.Fatalf("movement diagram: %d %s", st, raw)
		}
	})
}

func TestMovementRejectedAndTakenBack(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(3))
		id := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
		d.advanceTo(t, "2026-12-07")
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		st, _, raw := d.call(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{"receivedOn": "2026-12-07", "rejected": true}})
		wantMissing(t, st, raw, "facilityReception.reason")
		mv := d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{
			"receivedOn": "2026-12-07", "rejected": true, "reason": "contaminated", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
		if mv["state"] != "REJECTED" || mv["receptions"].(map[string]any)["facility"].(map[string]any)["reason"] != "contaminated" {
			t.Fatalf("rejected: %v %v", mv["state"], mv["receptions"])
		}
		for _, x := range mv["deadlines"].([]any) {
			if x.(map[string]any)["rule"] == "COMPLETION_CERTIFICATE_DUE" {
				t.Fatalf("a rejected shipment has no completion certificate due: %v", x)
			}
		}
		var told int64
		d.db.Raw("SELECT COUNT(*) FROM events WHERE document_id = ? AND kind = 'DOCUMENT_STATE_CHANGED' AND organisation_id = 'auth-nl' AND CAST(payload AS TEXT) LIKE '%REJECTED%'", id).Scan(&told)
		if told != 1 {
			t.Fatalf("the authority of destination was told of the rejection %d times", told)
		}

		st, _, raw = d.call(t, "noor", au+"SetMovementTakeBack", map[string]any{"documentId": id, "takeBack": map[string]any{"reason": "refused"}})
		wantError(t, 403, 7, st, raw, "AUTHORITY_DISPATCH")
		mv = d.ok(t, "bernd", au+"SetMovementTakeBack", map[string]any{"documentId": id, "takeBack": map[string]any{"reason": "refused by the facility"}})
		tb := deadline(mv, "TAKE_BACK_DUE", "acme")
		if mv["state"] != "TAKE_BACK_ORDERED" || tb == nil || tb["state"] != "OPEN" || !strings.HasPrefix(tb["dueAt"].(string), "2027-03-07") {
			t.Fatalf("take-back ordered: %v %v", mv["state"], tb)
		}
		// Another authority's confirmation is recorded; the dispatch authority's closes it.
		mv = d.ok(t, "noor", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "CONFIRM"}})
		if mv["state"] != "TAKE_BACK_ORDERED" || len(mv["signals"].([]any)) != 1 {
			t.Fatalf("destination's confirm: %v", mv["state"])
		}
		mv = d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "CONFIRM"}})
		if mv["state"] != "TAKEN_BACK" || deadline(mv, "TAKE_BACK_DUE", "acme")["state"] != "MET" || mv["takeBackOrder"].(map[string]any)["returnedAt"] == nil {
			t.Fatalf("taken back: %v %v", mv["state"], mv["deadlines"])
		}
		for _, u := range []string{"alice", "bernd", "rita", "tom"} {
			if _, intents := d.movement(t, u, id); len(intents) != 0 {
				t.Fatalf("%s's follow-ups on a taken-back movement: %v", u, intents)
			}
		}
		// A rejected movement still counts against the notified totals.
		ndoc, _ := d.get(t, "alice", nid)
		if movs := ndoc["movements"].(map[string]any); movs["count"] != float64(1) || movs["shipmentsLeft"] != float64(2) {
			t.Fatalf("movements after a take-back: %v", movs)
		}
	})
}

func TestMovementLimits(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(2))
		a := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 60)})
		st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-08", 41)})
		if be := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "QUANTITY_EXCEEDS_NOTIFIED_TOTAL" {
			t.Fatalf("over the total: %d %s", st, raw)
		}
		b := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-08", 40)})
		if b["movementTemplate"].(map[string]any)["sequenceNumber"] != float64(2) {
			t.Fatalf("second sequence number: %v", b["movementTemplate"])
		}
		// With every shipment made CREATE_MOVEMENT is not offered: the create is refused, saying why.
		st, _, raw = d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-09", 0)})
		wantError(t, 400, 9, st, raw, "all 2 notified shipments have been made", "SHIPMENT_COUNT_EXCEEDED")
		// A carrier of the notification that does not carry this shipment does not see it.
		solo := template("2026-12-08", 40)
		solo["carriers"] = []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}}
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": b["id"], "movementTemplate": solo})
		st, _, raw = d.call(t, "sam", co+"GetMovement", map[string]any{"documentId": b["id"]})
		wantError(t, 404, 5, st, raw)
		if ndoc, _ := d.get(t, "sam", nid); len(ndoc["movements"].(map[string]any)["entries"].([]any)) != 1 || ndoc["movements"].(map[string]any)["count"] != float64(2) {
			t.Fatalf("the other carrier's view of the movements: %v", ndoc["movements"])
		}
		// A correction that would exceed the total is refused too.
		d.businessError(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": a["id"], "movementTemplate": template("2026-12-07", 61)},
			"QUANTITY_EXCEEDS_NOTIFIED_TOTAL", "1")
		d.businessError(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": a["id"], "movementTemplate": map[string]any{
			"sequenceNumber": 7, "actualDateOfShipment": "2026-12-07", "actualQuantity": map[string]any{"tonnes": map[string]any{"units": "60"}},
			"carriers": []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}}}}, "SEQUENCE_NUMBER_INVALID", "1")
		// After the consent is cancelled no movement is offered.
		d.ok(t, "bernd", au+"SubmitNotificationSignal", map[string]any{"documentId": nid, "notificationSignal": map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "shipments under false declaration"}})
		st, _, raw = d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-09", 1)})
		wantError(t, 400, 9, st, raw, "CONSENT_CANCELLED")
	})
}

// Twenty notifier clients create the only shipment of a notification at
// once: exactly one movement, the others refused (400: once the shipment is
// made CREATE_MOVEMENT is not permitted; a business error or a conflict
// would do too), no 5xx.
func TestConcurrentMovementCreatesOnPostgres(t *testing.T) {
	d := startDocs(t, dbtest.Postgres(t))
	nid := d.consented(t, shippable(1))
	tok := d.token(t, "alice")
	codes := burst(t, 20, func(i int) *http.Request {
		// Distinct sequence numbers: only the notification's lock keeps them from all passing the count.
		body := fmt.Sprintf(`{"notificationId":%q,"movementTemplate":{"sequenceNumber":%d,"actualDateOfShipment":"2026-12-08","actualQuantity":{"tonnes":{"units":"10"}},"carriers":[{"organisationId":"truck","meansOfTransport":"ROAD"}]}}`, nid, i+1)
		req, _ := http.NewRequest(http.MethodPost, d.url+co+"CreateMovementTemplate", strings.NewReader(body))
		req.Header.Set("provider_id", "dev-1")
		req.Header.Set("Authorization", "Bearer "+tok)
		return req
	})
	if codes[200]+codes[400]+codes[409] != 20 {
		t.Fatalf("statuses %v: want 200 (one movement or a business error), 400 (no shipment left) or 409, nothing else", codes)
	}
	var movements int64
	d.db.Raw("SELECT COUNT(*) FROM documents WHERE parent_id = ?", nid).Scan(&movements)
	if movements != 1 {
		t.Fatalf("%d movements under a notification of 1 shipment", movements)
	}
	ndoc, _ := d.get(t, "alice", nid)
	if movs := ndoc["movements"].(map[string]any); movs["count"] != float64(1) || movs["shipmentsLeft"] != float64(0) {
		t.Fatalf("movements: %v", movs)
	}
}

// A movement is created and changed under the notification's row lock: while
// another transaction holds it, CreateMovementTemplate and SetMovementTemplate
// wait, and proceed when it ends.
func TestMovementsWaitForTheNotificationLockOnPostgres(t *testing.T) {
	d := startDocs(t, dbtest.Postgres(t))
	nid := d.consented(t, shippable(3))
	mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})["id"].(string)
	d.token(t, "alice")
	for name, call := range map[string]func() (int, map[string]any, []byte){
		"create": func() (int, map[string]any, []byte) {
			return d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-08", 10)})
		},
		"change": func() (int, map[string]any, []byte) {
			return d.call(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-07", 11)})
		},
	} {
		// NO KEY UPDATE: the movement row's foreign key alone would not wait for it.
		tx := d.db.Begin()
		if err := tx.Exec("SELECT id FROM documents WHERE id = ? FOR NO KEY UPDATE", nid).Error; err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { st, _, _ := call(); done <- st }()
		select {
		case st := <-done:
			tx.Rollback()
			t.Fatalf("%s finished (%d) while the notification was locked", name, st)
		case <-time.After(300 * time.Millisecond):
		}
		tx.Rollback()
		select {
		case st := <-done:
			if st != 200 {
				t.Fatalf("%s after the lock: %d", name, st)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waiting after the lock ended", name)
		}
	}
}

// A pre-consented facility closes the dossier once every movement under it
// completed; another facility is never offered it.
func TestFacilityCompletionUnderArticle15(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		plain := d.consented(t, shippable(2))
		if _, intents := d.get(t, "rita", plain); hasIntent(intents, "FACILITY_COMPLETION_ARTICLE15") {
			t.Fatalf("offered to a facility that is not pre-consented: %v", intents)
		}
		st, _, raw := d.call(t, "rita", co+"SetFacilityCompletionUnderArticle15", map[string]any{"documentId": plain,
			"facilityCompletionArticle15": map[string]any{"completedOn": "2026-12-01", "operationCode": "R4"}})
		wantError(t, 400, 9, st, raw)

		c := shippable(2)
		c["facility"] = map[string]any{"organisationId": "recyc", "preConsented": true}
		nid := d.consented(t, c)
		if _, intents := d.get(t, "rita", nid); !hasIntent(intents, "FACILITY_COMPLETION_ARTICLE15") {
			t.Fatalf("not offered to the pre-consented facility: %v", intents)
		}
		if _, intents := d.get(t, "alice", nid); hasIntent(intents, "FACILITY_COMPLETION_ARTICLE15") {
			t.Fatalf("offered to the notifier: %v", intents)
		}
		mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
		d.advanceTo(t, "2026-12-07")
		closure := map[string]any{"documentId": nid, "facilityCompletionArticle15": map[string]any{"completedOn": "2026-12-07", "operationCode": "R4"}}
		ndoc, _ := d.get(t, "rita", nid)
		d.businessError(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure, "MOVEMENTS_NOT_COMPLETED", ndoc["version"].(string))
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": mid, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": mid, "facilityReception": map[string]any{"receivedOn": "2026-12-07", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
		d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": mid, "facilityCompletion": map[string]any{"completedOn": "2026-12-07", "operationCode": "R4"}})
		d.businessError(t, "rita", co+"SetFacilityCompletionUnderArticle15", map[string]any{"documentId": nid,
			"facilityCompletionArticle15": map[string]any{"completedOn": "2026-12-07", "operationCode": "D10"}}, "RECOVERY_DISPOSAL_CODE_INVALID", ndoc["version"].(string))
		ndoc = d.ok(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure)
		if ndoc["state"] != "CLOSED" || ndoc["article15Completion"].(map[string]any)["operationCode"] != "R4" || deadline(ndoc, "CONSENT_VALIDITY", "acme")["state"] != "MET" {
			t.Fatalf("closed under Art. 15: %v %v %v", ndoc["state"], ndoc["article15Completion"], ndoc["deadlines"])
		}
		st, _, raw = d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-10", 1)})
		wantError(t, 400, 9, st, raw, "CLOSED")
	})
}

// An authority's rejection after the facility's receipt cancels the
// completion certificate nobody could give any more.
func TestRejectedMovementOwesNoCompletion(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	nid := d.consented(t, shippable(3))
	id := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
	d.advanceTo(t, "2026-12-07")
	d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
	d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{"receivedOn": "2026-12-07", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
	mv := d.ok(t, "noor", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "REJECT", "reason": "wrong waste"}})
	cancelled := false
	for _, x := range mv["deadlines"].([]any) {
		dl := x.(map[string]any)
		cancelled = cancelled || (dl["rule"] == "COMPLETION_CERTIFICATE_DUE" && dl["state"] == "CANCELLED")
	}
	if mv["state"] != "REJECTED" || !cancelled || deadline(mv, "COMPLETION_CERTIFICATE_DUE", "recyc") != nil {
		t.Fatalf("rejected: %v %v", mv["state"], mv["deadlines"])
	}
}

// guaranteed has the notifier submit a financial guarantee valid from
// from until until, through SetByIntent with the retrieval document, and
// the authority of dispatch (bernd) approve it (Art. 7): movements need
// one that covers their date of shipment.
func (d *docEnv) guaranteed(t *testing.T, id, from, until string) map[string]any {
	t.Helper()
	byIntent := func(user, face, intent string, fill func(block map[string]any)) map[string]any {
		t.Helper()
		st, m, raw := d.call(t, user, face+"GetDocument", map[string]any{"documentId": id})
		if st != 200 {
			t.Fatalf("GetDocument: %d %s", st, raw)
		}
		container := m["document"].(map[string]any)
		block := map[string]any{}
		fill(block)
		container["notification"].(map[string]any)[map[string]string{"GUARANTEE": "guarantee", "GUARANTEE_APPROVAL": "guaranteeApproval"}[intent]] = block
		return d.ok(t, user, face+"SetByIntent", map[string]any{"document": container, "intent": intent})
	}
	byIntent("alice", co, "GUARANTEE", func(b map[string]any) {
		b["kind"], b["amount"], b["currency"], b["guarantor"], b["reference"], b["validFrom"], b["validUntil"] =
			"FINANCIAL_GUARANTEE", map[string]any{"units": "250000"}, "EUR", "Bayerische Landesbank", "BG-2026-0815", from, until
	})
	return byIntent("bernd", au, "GUARANTEE_APPROVAL", func(b map[string]any) { b["remarks"] = "form and amount approved" })
}
