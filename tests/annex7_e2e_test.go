package tests

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/movements"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// announcement is a valid Annex VII content; the test clock starts on
// Tuesday 2026-12-01, so a shipment on Friday 2026-12-04 is announced 2
// working days ahead (Germany, the arranger's country).
func announcement() map[string]any {
	return map[string]any{
		"arranger":  map[string]any{"organisationId": "acme"},
		"consignee": map[string]any{"organisationId": "recyc"},
		"facility":  map[string]any{"organisationId": "recyc"},
		"producers": []any{map[string]any{"organisationId": "acme"}},
		"carriers":  []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}},
		"competentAuthorities": map[string]any{
			"dispatch":    map[string]any{"organisationId": "auth-de"},
			"destination": map[string]any{"organisationId": "auth-nl"},
		},
		"wasteClassifications": []any{map[string]any{"list": "BASEL_ANNEX_IX", "code": "B3011"}},
		"usualDescription":     "PET bottle flakes",
		"recoveryCode":         "R3",
		"actualQuantity":       map[string]any{"tonnes": map[string]any{"units": "20", "nanos": 0}},
		"actualDateOfShipment": "2026-12-04",
	}
}

func (d *docEnv) annex7(t *testing.T, user, id string) (map[string]any, []string) {
	t.Helper()
	return d.read(t, user, co+"GetAnnex7", id)
}

// businessError calls and requires HTTP 200 with exactly one business error
// of code and the document unchanged at version.
func (d *docEnv) businessError(t *testing.T, user, path string, body any, code, version string) {
	t.Helper()
	st, m, raw := d.call(t, user, path, body)
	if st != 200 {
		t.Fatalf("%s: HTTP %d %s", code, st, raw)
	}
	be := m["businessErrors"].([]any)
	if len(be) != 1 || be[0].(map[string]any)["code"] != code {
		t.Fatalf("want %s, got business errors %v", code, be)
	}
	if doc := m["document"].(map[string]any); doc["version"] != version {
		t.Fatalf("%s: the document changed to version %v", code, doc["version"])
	}
}

// wantMissing requires HTTP 200 with one business error
// REQUIRED_FIELD_MISSING at field: a block that lacks what its rule needs
// is content, not transport.
func wantMissing(t *testing.T, st int, raw []byte, field string) {
	t.Helper()
	var m struct {
		BusinessErrors []struct{ Code, Field string } `json:"businessErrors"`
	}
	_ = json.Unmarshal(raw, &m)
	if st != 200 || len(m.BusinessErrors) != 1 || m.BusinessErrors[0].Code != "REQUIRED_FIELD_MISSING" || m.BusinessErrors[0].Field != field {
		t.Fatalf("want REQUIRED_FIELD_MISSING at %s: HTTP %d %.400s", field, st, raw)
	}
}

// advanceTo moves the test clock to 09:00 UTC on date.
func (d *docEnv) advanceTo(t *testing.T, date string) {
	t.Helper()
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		t.Fatal(err)
	}
	if by := day.Add(9 * time.Hour).Sub(d.clock.Now()); by > 0 {
		d.advance(by)
	}
}

func TestAnnex7Life(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		doc := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
		id := doc["id"].(string)
		if doc["state"] != "DRAFT" || doc["kind"] != "ANNEX_VII" || !strings.HasPrefix(doc["number"].(string), "DE-A7-2026-") || !strings.HasPrefix(id, "a7_") {
			t.Fatalf("created: %v %v %v %v", id, doc["state"], doc["kind"], doc["number"])
		}
		st, _, raw := d.call(t, "noor", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
		wantError(t, 403, 7, st, raw, "companies")

		// Content no authority would take: nothing changes.
		for code, mutate := range map[string]func(c map[string]any){
			"WASTE_NOT_GREEN_LISTED": func(c map[string]any) {
				c["wasteClassifications"] = []any{map[string]any{"list": "BASEL_ANNEX_VIII", "code": "A1010"}}
			},
			"WASTE_CLASSIFICATION_INVALID_CODE": func(c map[string]any) { // deleted from Annex IX on 2021-01-01
				c["wasteClassifications"] = []any{map[string]any{"list": "BASEL_ANNEX_IX", "code": "B3010"}}
			},
			"RECOVERY_DISPOSAL_CODE_INVALID": func(c map[string]any) { c["recoveryCode"] = "D1" },
			"PRIOR_NOTICE_TOO_LATE":          func(c map[string]any) { c["actualDateOfShipment"] = "2026-12-02" },
			"TAKE_BACK_REFERENCE_INVALID":    func(c map[string]any) { c["takeBackOf"] = "a7_nope" },
		} {
			c := announcement()
			mutate(c)
			d.businessError(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": c}, code, "1")
		}
		st, _, raw = d.call(t, "rita", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		wantError(t, 404, 5, st, raw) // a draft is the arranger's alone
		st, _, raw = d.call(t, "eve", co+"GetAnnex7", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.call(t, "alice", co+"GetNotification", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw) // an Annex VII document is no notification

		doc = d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "version": "1", "annex7": announcement()})
		if doc["state"] != "ANNOUNCED" || doc["announcedAt"] == nil {
			t.Fatalf("announced: %v", doc["state"])
		}
		for user, want := range map[string]string{"alice": "CORRECTION", "tom": "CARRIER_TRANSFER", "rita": "", "bernd": ""} {
			if _, intents := d.annex7(t, user, id); strings.Join(intents, ",") != want {
				t.Fatalf("%s's follow-ups in ANNOUNCED: %v, want %q", user, intents, want)
			}
		}
		// Authorities read it in the container and see its deadlines.
		st, m, raw := d.call(t, "bernd", au+"GetDocument", map[string]any{"documentId": id})
		if c := m["document"].(map[string]any); st != 200 || c["notification"] != nil || c["annex7"].(map[string]any)["id"] != id {
			t.Fatalf("authority GetDocument: %d %s", st, raw)
		}

		// A transfer dated tomorrow is refused, and so is one before the announced date.
		d.businessError(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-02"}}, "DATE_OUT_OF_RANGE", "2")
		d.advance(2 * 24 * time.Hour) // Thursday 2026-12-03
		d.businessError(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-03"}}, "DATE_OUT_OF_RANGE", "2")
		d.advance(24 * time.Hour) // Friday 2026-12-04
		doc = d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
		if doc["state"] != "IN_TRANSIT" || doc["carrierTransfers"].([]any)[0].(map[string]any)["meansOfTransport"] != "ROAD" {
			t.Fatalf("in transit: %v %v", doc["state"], doc["carrierTransfers"])
		}
		st, _, raw = d.call(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
		wantError(t, 400, 9, st, raw, "IN_TRANSIT")

		// The consignee certifies on time; the facility a week after its receipt: accepted, MET_LATE.
		d.advance(3 * 24 * time.Hour) // Monday 2026-12-07
		doc = d.ok(t, "rita", co+"SetAnnex7ConsigneeCertificate", map[string]any{"documentId": id,
			"consigneeCertificate": map[string]any{"receivedOn": "2026-12-07", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
		if doc["state"] != "RECEIVED_BY_CONSIGNEE" || deadline(doc, "RECEIPT_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
			t.Fatalf("consignee certificate: %v %v", doc["state"], doc["deadlines"])
		}
		d.advance(9 * 24 * time.Hour) // Wednesday 2026-12-16
		doc = d.ok(t, "rita", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id,
			"facilityCertificate": map[string]any{"receivedOn": "2026-12-08", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
		var late, completion map[string]any
		for _, x := range doc["deadlines"].([]any) {
			dl := x.(map[string]any)
			switch {
			case dl["rule"] == "RECEIPT_CERTIFICATE_DUE" && dl["state"] == "MET_LATE":
				late = dl
			case dl["rule"] == "COMPLETION_CERTIFICATE_DUE":
				completion = dl
			}
		}
		if doc["state"] != "RECEIVED_BY_FACILITY" || late == nil || completion == nil || completion["state"] != "OPEN" ||
			!strings.HasPrefix(completion["dueAt"].(string), "2027-12-08T22:59:59") {
			t.Fatalf("facility certificate: %v late=%v completion=%v", doc["state"], late, completion)
		}
		st, _, raw = d.call(t, "alice", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id, "certificateOfCompletion": map[string]any{"completedOn": "2026-12-15"}})
		wantError(t, 403, 7, st, raw, "FACILITY")
		d.businessError(t, "rita", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id,
			"certificateOfCompletion": map[string]any{"completedOn": "2026-12-07"}}, "DATE_OUT_OF_RANGE", doc["version"].(string)) // before the receipt

		// Completion through SetByIntent with the container GetDocument returned.
		st, m, raw = d.call(t, "rita", co+"GetDocument", map[string]any{"documentId": id})
		if st != 200 {
			t.Fatalf("GetDocument: %d %s", st, raw)
		}
		container := m["document"].(map[string]any)
		block := container["annex7"].(map[string]any)["certificateOfCompletion"].(map[string]any)
		if block["recoveryCode"] != "R3" {
			t.Fatalf("pre-filled completion block: %v", block)
		}
		block["completedOn"] = "2026-12-15"
		doc = d.ok(t, "rita", co+"SetByIntent", map[string]any{"document": container, "intent": "CERTIFICATE_OF_COMPLETION"})["annex7"].(map[string]any)
		if doc["state"] != "COMPLETED" || deadline(doc, "COMPLETION_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
			t.Fatalf("completed: %v %v", doc["state"], doc["deadlines"])
		}
		for _, u := range []string{"alice", "rita", "tom"} {
			if _, intents := d.annex7(t, u, id); len(intents) != 0 {
				t.Fatalf("%s's follow-ups after completion: %v", u, intents)
			}
		}

		// Every party heard of every state change.
		var events int64
		d.db.Raw("SELECT COUNT(*) FROM events WHERE document_id = ? AND kind = 'DOCUMENT_STATE_CHANGED' AND organisation_id = 'auth-nl'", id).Scan(&events)
		if events != 5 { // announced, in transit, received by consignee, by facility, completed
			t.Fatalf("%d state-change events for auth-nl, want 5", events)
		}
		breaks, _, err := audit.Verify(context.Background(), d.db)
		if err != nil || len(breaks) != 0 {
			t.Fatalf("audit: %v %v", breaks, err)
		}
		// The deadline report knows the kind.
		st, m, raw = d.call(t, "rita", "/svc.core.v1.api.DeadlineReportApi/ListDeadlines", map[string]any{"qpar": map[string]any{
			"filter": []any{map[string]any{"path": "kind", "op": "EQUAL", "operands": []any{map[string]any{"s": "ANNEX_VII"}}}}}})
		if st != 200 || m["total"] != "3" {
			t.Fatalf("ListDeadlines of ANNEX_VII: %d %s", st, raw)
		}
	})
}

func TestAnnex7TakeBack(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		shipped := func(c map[string]any) string { // announced, and handed over on the announced date
			id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": c})["id"].(string)
			d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": c})
			d.advanceTo(t, c["actualDateOfShipment"].(string))
			d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": c["actualDateOfShipment"]}})
			return id
		}
		orig := shipped(announcement())
		st, _, raw := d.call(t, "alice", co+"SetAnnex7TakeBack", map[string]any{"documentId": orig, "takeBack": map[string]any{}})
		wantMissing(t, st, raw, "takeBack.reason")
		doc := d.ok(t, "alice", co+"SetAnnex7TakeBack", map[string]any{"documentId": orig, "takeBack": map[string]any{"reason": "contaminated load"}})
		tb := deadline(doc, "TAKE_BACK_DUE", "acme")
		if doc["state"] != "TAKE_BACK_INITIATED" || tb == nil || tb["state"] != "OPEN" {
			t.Fatalf("take-back initiated: %v %v", doc["state"], doc["deadlines"])
		}

		// The take-back shipment names the original; it completes, the original is TAKEN_BACK.
		d.advance(4 * 24 * time.Hour)
		back := announcement()
		back["consignee"], back["facility"] = map[string]any{"organisationId": "acme"}, map[string]any{"organisationId": "acme"}
		back["competentAuthorities"] = map[string]any{ // the way back: from the Netherlands to Germany
			"dispatch": map[string]any{"organisationId": "auth-nl"}, "destination": map[string]any{"organisationId": "auth-de"}}
		back["actualDateOfShipment"] = d.clock.Now().AddDate(0, 0, 7).Format(time.DateOnly)
		back["takeBackOf"] = orig
		id := shipped(back)
		doc, _ = d.annex7(t, "alice", orig)
		if doc["state"] != "TAKE_BACK_INITIATED" {
			t.Fatalf("original before the take-back completed: %v", doc["state"])
		}
		today := map[string]any{"receivedOn": d.clock.Now().Format(time.DateOnly)}
		d.ok(t, "alice", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id, "facilityCertificate": today})
		d.ok(t, "alice", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id, "certificateOfCompletion": map[string]any{"completedOn": today["receivedOn"]}})
		doc, intents := d.annex7(t, "alice", orig)
		tbs := doc["takeBacks"].([]any)
		if doc["state"] != "TAKEN_BACK" || deadline(doc, "TAKE_BACK_DUE", "acme")["state"] != "MET" || len(intents) != 0 ||
			tbs[0].(map[string]any)["completedBy"] != id {
			t.Fatalf("original after the take-back: %v %v %v", doc["state"], doc["deadlines"], tbs)
		}
		var actor string
		d.db.Raw("SELECT actor FROM audit_events WHERE document_id = ? AND intent = 'TAKE_BACK_COMPLETED'", orig).Scan(&actor)
		if actor != "system" {
			t.Fatalf("TAKE_BACK_COMPLETED actor %q, want system", actor)
		}
		// A second take-back of a taken-back shipment is refused.
		again := back
		again["actualDateOfShipment"] = d.clock.Now().AddDate(0, 0, 7).Format(time.DateOnly)
		st, m, raw := d.call(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": again})
		if be := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "TAKE_BACK_REFERENCE_INVALID" {
			t.Fatalf("take-back of a taken-back shipment: %d %s", st, raw)
		}
	})
}

// Each Annex VII intent through SetByIntent gives what its own operation
// gives, with the document as the kind's Get or GetDocument returned it.
func TestAnnex7SetByIntentMatchesOperations(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		today := announcement()["actualDateOfShipment"].(string) // every date below happens on the shipment's day
		corrected := announcement()
		corrected["usualDescription"] = "PET flakes, washed"
		receipt := map[string]any{"receivedOn": today, "quantity": map[string]any{"tonnes": map[string]any{"units": "19"}}}
		steps := []intentStep{
			{"alice", "SUBMISSION", co + "SetAnnex7", "annex7", announcement(), "ANNOUNCED"},
			{"alice", "CORRECTION", co + "SetAnnex7", "annex7", corrected, "ANNOUNCED"},
			{"tom", "CARRIER_TRANSFER", co + "SetAnnex7CarrierTransfer", "carrierTransfer", map[string]any{"transferDate": today}, "IN_TRANSIT"},
			{"rita", "CONSIGNEE_CERTIFICATE", co + "SetAnnex7ConsigneeCertificate", "consigneeCertificate", receipt, "RECEIVED_BY_CONSIGNEE"},
			{"rita", "FACILITY_CERTIFICATE", co + "SetAnnex7FacilityCertificate", "facilityCertificate", receipt, "RECEIVED_BY_FACILITY"},
			{"alice", "TAKE_BACK", co + "SetAnnex7TakeBack", "takeBack", map[string]any{"reason": "refused by the facility"}, "TAKE_BACK_INITIATED"},
		}
		created := func() string {
			return d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		}
		direct, byIntent := created(), created()
		completing, completingByIntent := created(), created()
		d.roundTrip(t, "annex7", co+"GetAnnex7", steps[:2], direct, byIntent, "annex7", "corrections")
		d.roundTrip(t, "annex7", co+"GetAnnex7", steps[:1], completing, completingByIntent)
		d.advanceTo(t, today)
		d.roundTrip(t, "annex7", co+"GetAnnex7", steps[2:], direct, byIntent, "annex7", "carrierTransfers", "certificates", "corrections", "takeBacks")
		// CERTIFICATE_OF_COMPLETION on the second pair, up to the facility's receipt.
		direct, byIntent = completing, completingByIntent
		d.roundTrip(t, "annex7", co+"GetAnnex7", steps[2:3], direct, byIntent)
		d.roundTrip(t, "annex7", co+"GetAnnex7", steps[4:5], direct, byIntent)
		d.roundTrip(t, "annex7", co+"GetAnnex7", []intentStep{{"rita", "CERTIFICATE_OF_COMPLETION", co + "SetAnnex7CertificateOfCompletion", "certificateOfCompletion",
			map[string]any{"completedOn": today, "recoveryCode": "R3"}, "COMPLETED"}}, direct, byIntent, "certificates")
	})
}

func TestAnnex7Diagram(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	st, _, raw := d.do(t, call{method: http.MethodGet, path: "/workflows/annex_vii.mmd"})
	if st != 200 || !strings.Contains(string(raw), "DRAFT --> ANNOUNCED : SUBMISSION") || !strings.Contains(string(raw), "TAKE_BACK_INITIATED --> TAKEN_BACK : TAKE_BACK_COMPLETED") {
		t.Fatalf("mermaid: %d %s", st, raw)
	}
}

// The sweep and the reports serve Annex VII like any kind: a certificate of
// completion not given within a year of the facility's receipt goes
// OVERDUE (an event for the facility, a row in the CSV export), and when it
// comes it is accepted and the deadline is MET_LATE. A take-back not carried
// out within 90 days goes OVERDUE too.
func TestAnnex7DeadlinesOverdueInReports(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		ship := func() (string, string) {
			doc := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
			id := doc["id"].(string)
			d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
			return id, doc["number"].(string)
		}
		id, number := ship()
		stuck, _ := ship()
		d.advanceTo(t, "2026-12-04")
		for _, x := range []string{id, stuck} {
			d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": x, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
		}
		d.ok(t, "rita", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id,
			"facilityCertificate": map[string]any{"receivedOn": "2026-12-04", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
		d.ok(t, "alice", co+"SetAnnex7TakeBack", map[string]any{"documentId": stuck, "takeBack": map[string]any{"reason": "refused at the border"}})

		sweep := func() {
			t.Helper()
			if _, err := d.notes.Sweep(context.Background(), d.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		d.advanceTo(t, "2027-03-05") // 91 days after the take-back
		sweep()
		doc, _ := d.annex7(t, "alice", stuck)
		if dl := deadline(doc, "TAKE_BACK_DUE", "acme"); dl["state"] != "OVERDUE" || doc["state"] != "TAKE_BACK_INITIATED" {
			t.Fatalf("take-back after 91 days: %v %v", doc["state"], dl)
		}
		d.advanceTo(t, "2027-12-06") // a year and two days after the receipt
		sweep()
		sweep() // a second sweep changes nothing
		doc, _ = d.annex7(t, "rita", id)
		if dl := deadline(doc, "COMPLETION_CERTIFICATE_DUE", "recyc"); dl["state"] != "OVERDUE" {
			t.Fatalf("completion certificate after a year: %v", dl)
		}
		var events int64
		d.db.Raw("SELECT COUNT(*) FROM events WHERE document_id = ? AND kind = 'DEADLINE_OVERDUE' AND organisation_id = 'recyc'", id).Scan(&events)
		if events != 1 {
			t.Fatalf("%d DEADLINE_OVERDUE events for the facility, want 1", events)
		}
		st, _, body := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=OVERDUE", headers: hdr("dev-1", d.token(t, "rita"))})
		rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		if st != 200 || err != nil || len(rows) != 3 { // rita's facility is a party to both
			t.Fatalf("export: %d %s %v", st, body, err)
		}
		var row []string
		for _, r := range rows[1:] {
			if r[1] == number {
				row = r
			}
		}
		if row == nil || row[2] != "ANNEX_VII" || row[3] != "COMPLETION_CERTIFICATE_DUE" || row[5] != "recyc" || !strings.Contains(row[4], "Art. 15(4)") ||
			row[9] != "2027-12-04T22:59:59Z" {
			t.Fatalf("csv: %s", body)
		}

		doc = d.ok(t, "rita", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id, "certificateOfCompletion": map[string]any{"completedOn": "2027-12-01"}})
		if dl := deadline(doc, "COMPLETION_CERTIFICATE_DUE", "recyc"); doc["state"] != "COMPLETED" || dl["state"] != "MET_LATE" {
			t.Fatalf("late completion certificate: %v %v", doc["state"], dl)
		}
	})
}

// An intent whose operation is not served stops the server at start-up.
func TestIntentWithoutRouteStopsTheServer(t *testing.T) {
	db, err := models.Open(context.Background(), dbtest.SQLite(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	k := annex7.NewKind()
	def := *k.Def
	def.Intents = slices.Clone(def.Intents)
	def.Intents[2].Operation = co + "SetAnnex7Handover"
	k.Def = &def
	runner, err := documents.New(db, nil, notifications.NewKind(), k, movements.NewKind())
	if err != nil {
		t.Fatal(err)
	}
	checked(runner)
	cfg, _ := configs.Load(func(string) (string, bool) { return "", false })
	_, err = handlers.New(handlers.Deps{Config: cfg, DB: db, Documents: runner})
	if err == nil || !strings.Contains(err.Error(), "ANNEX_VII intent CARRIER_TRANSFER: operation "+co+"SetAnnex7Handover is not served") {
		t.Fatalf("start-up with an unserved intent: %v", err)
	}
}
