package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Legal acts in orders a person would not choose (issue 46.1): what one
// act does survives the acts that come between, and nothing is left open
// behind a state the document has left.

// changeRequest files a change of the terms c in force with numberOfShipments
// and, when lastDeparture is set, a new end of the shipment period.
func (d *docEnv) changeRequest(t *testing.T, id string, c map[string]any, shipments int, lastDeparture string) map[string]any {
	t.Helper()
	p := map[string]any{}
	for k, v := range c {
		p[k] = v
	}
	p["numberOfShipments"] = shipments
	if lastDeparture != "" {
		p["shipmentPeriod"] = map[string]any{"firstDeparture": "2026-12-01", "lastDeparture": lastDeparture}
	}
	return d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": p, "reason": "more shipments"}})
}

func lastDeparture(terms any) any {
	return terms.(map[string]any)["shipmentPeriod"].(map[string]any)["lastDeparture"]
}

// auditDetail is the detail of document id's last audit row of intent.
func (d *docEnv) auditDetail(t *testing.T, id, intent string) string {
	t.Helper()
	var detail string
	if err := d.db.Raw("SELECT detail FROM audit_events WHERE document_id = ? AND intent = ? ORDER BY seq DESC LIMIT 1", id, intent).Scan(&detail).Error; err != nil {
		t.Fatal(err)
	}
	return detail
}

// The lost extension: a revalidation that extends the shipment period
// while a change request is open used to take the notification back to
// CONSENTED with the request left open behind it; a later acceptance then
// put the request's proposal, from before the extension, in force. Now the
// request is carried forward (the state stays CHANGE_REQUESTED, its reply
// deadlines run on, its proposal takes the extended period), and its
// acceptance keeps both the change and the extension.
func TestOrderAnExtensionSurvivesAnOpenChangeRequest(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(3) // the shipment period ends on 2027-06-30
		id := d.consented(t, c)
		d.changeRequest(t, id, c, 4, "")
		doc := d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
			"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-09-30", "extendsShipmentPeriod": true}})
		cr := doc["changeRequests"].([]any)[0].(map[string]any)
		if doc["state"] != "CHANGE_REQUESTED" || cr["open"] != true {
			t.Fatalf("a revalidation while a change request is open: state %v, request %v", doc["state"], cr)
		}
		if lastDeparture(doc["notification"]) != "2027-09-30" || lastDeparture(doc["proposedTerms"]) != "2027-09-30" || doc["consentValidUntil"] != "2027-09-30" {
			t.Fatalf("the extension is in force and in the proposal: in force %v, proposed %v, consent until %v",
				lastDeparture(doc["notification"]), lastDeparture(doc["proposedTerms"]), doc["consentValidUntil"])
		}
		for _, a := range []string{"auth-de", "auth-nl", "auth-be"} {
			if dl := deadline(doc, "CHANGE_REPLY_DUE", a); dl == nil || dl["state"] != "OPEN" {
				t.Fatalf("the reply deadline of %s runs on: %v", a, dl)
			}
		}
		if dl := deadline(doc, "CONSENT_VALIDITY", "acme"); dl == nil || dl["state"] != "OPEN" || !strings.HasPrefix(dl["dueAt"].(string), "2027-09-30") {
			t.Fatalf("the consent's validity runs to the revalidated end: %v", dl)
		}
		if det := d.auditDetail(t, id, "NOTIFICATION_SIGNAL"); !strings.Contains(det, "change request 1 stays open") {
			t.Fatalf("the revalidation's audit row: %q", det)
		}
		// No second request while the first is open (the one the old code lost).
		st, _, raw := d.call(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": c, "reason": "again"}})
		wantError(t, 400, 9, st, raw)

		for _, u := range []string{"bernd", "bart", "noor"} {
			doc = d.ok(t, u, au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		}
		terms := doc["notification"].(map[string]any)
		if doc["state"] != "CONSENTED" || terms["numberOfShipments"] != float64(4) || lastDeparture(terms) != "2027-09-30" {
			t.Fatalf("accepted: state %v, %v shipments until %v; want 4 until 2027-09-30 (the change and the extension)",
				doc["state"], terms["numberOfShipments"], lastDeparture(terms))
		}
		if v := doc["consentValidUntil"].(string); v > lastDeparture(terms).(string) {
			t.Fatalf("the consent (until %s) outlives the shipment period (until %s)", v, lastDeparture(terms))
		}
	})
}

// A revalidation that would extend the shipment period while the open
// change request proposes a period of its own is refused with
// CHANGE_REQUEST_OPEN and changes nothing; the request's own period is
// what its acceptance puts in force, the consent ending with it.
func TestOrderAnExtensionAgainstAProposedPeriodIsRefused(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(3)
		id := d.consented(t, c)
		version := d.changeRequest(t, id, c, 3, "2027-08-31")["version"].(string)
		d.businessError(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
			"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-09-30", "extendsShipmentPeriod": true}}, "CHANGE_REQUEST_OPEN", version)
		var doc map[string]any
		for _, u := range []string{"bernd", "bart", "noor"} {
			doc = d.ok(t, u, au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		}
		if doc["state"] != "CONSENTED" || lastDeparture(doc["notification"]) != "2027-08-31" || doc["consentValidUntil"] != "2027-08-31" {
			t.Fatalf("the proposed period accepted: %v, until %v, consent until %v", doc["state"], lastDeparture(doc["notification"]), doc["consentValidUntil"])
		}
	})
}

// Every act that takes the notification out of CHANGE_REQUESTED before
// every authority replied closes the request, unanswered, saying which
// act closed it and when; its reply deadlines end with it.
func TestOrderLeavingChangeRequestedClosesTheRequest(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		closed := func(doc map[string]any, state, by string) {
			t.Helper()
			cr := doc["changeRequests"].([]any)[0].(map[string]any)
			if doc["state"] != state || cr["open"] != false || cr["outcome"] != "UNCHANGED" || cr["closedBy"] != by || cr["closedAt"] == nil {
				t.Fatalf("after %s: state %v, request %v", by, doc["state"], cr)
			}
			for _, a := range []string{"auth-de", "auth-nl", "auth-be"} {
				if dl := deadline(doc, "CHANGE_REPLY_DUE", a); dl != nil && dl["state"] == "OPEN" {
					t.Fatalf("after %s the reply deadline of %s is still open: %v", by, a, dl)
				}
			}
			if det := d.auditDetail(t, doc["id"].(string), by); !strings.Contains(det, "change request 1 closed before every authority replied") {
				t.Fatalf("the audit row of %s: %q", by, det)
			}
		}
		c := shippable(3)

		// A cancellation of consent, with one authority's reply given.
		id := d.consented(t, c)
		d.changeRequest(t, id, c, 4, "")
		d.ok(t, "bernd", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		closed(d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
			"notificationSignal": map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "the facility lost its permit"}}), "CONSENT_CANCELLED", "NOTIFICATION_SIGNAL")

		// The consent's end passes while the request is open.
		id = d.consented(t, c)
		d.changeRequest(t, id, c, 4, "")
		d.advanceTo(t, "2027-07-02")
		if _, err := d.notes.Sweep(context.Background(), d.clock.Now()); err != nil {
			t.Fatal(err)
		}
		doc, _ := d.get(t, "alice", id)
		closed(doc, "EXPIRED", "CONSENT_VALIDITY_EXPIRY")
	})
}

// The correction order: a correction filed while information is requested
// (before any acknowledgement) waits for the acknowledgement; after the
// notifier's reply a second one filed in SUBMITTED replaces the content.
// The acknowledgement then accepts the latest (80 t), never the older one
// over it (90 t); the older one is recorded as superseded, and the audit
// row of the second says so.
func TestOrderTheLatestCorrectionIsTheOneAccepted(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		tonnes := func(units string) map[string]any {
			c := content()
			c["totalQuantity"] = map[string]any{"tonnes": map[string]any{"units": units}}
			return c
		}
		d.ok(t, "noor", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"Which drums?"}}})
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": tonnes("90")})
		doc := d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"UN 1A1"}, "complete": true}})
		if doc["state"] != "SUBMITTED" {
			t.Fatalf("after the complete reply: %v", doc["state"])
		}
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": tonnes("80")})
		if det := d.auditDetail(t, id, "CORRECTION"); !strings.Contains(det, "supersedes correction 1") {
			t.Fatalf("the second correction's audit row: %q", det)
		}
		doc = d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		q := doc["notification"].(map[string]any)["totalQuantity"].(map[string]any)["tonnes"].(map[string]any)
		first := doc["corrections"].([]any)[0].(map[string]any)
		if q["units"] != "80" || first["pending"] != false || first["acceptedAt"] != nil || first["supersededAt"] == nil {
			t.Fatalf("acknowledged: %v t in force, the first correction %v; want 80 t, the first superseded", q["units"], first)
		}
	})
}

// An act that changes nothing is refused on every kind with the same code
// (CHANGE_PROPOSES_NOTHING), as the notification's correction and change
// request are: an Annex VII document's correction equal to the
// announcement, a movement's template equal to the one in force. The
// document stays at its version.
func TestOrderNoActThatChangesNothingOnAnyKind(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		d.businessError(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()}, "CHANGE_PROPOSES_NOTHING", "2")

		nid := d.consented(t, shippable(3))
		mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})
		mid := mv["id"].(string)
		d.businessError(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-07", 10)}, "CHANGE_PROPOSES_NOTHING", mv["version"].(string))
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-07", 11)})
	})
}

// An attachment's size is never negative: 400 naming the field, nothing
// stored, on every operation that takes the metadata.
func TestOrderAttachmentSizeIsNeverNegative(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		before := d.documents(t)
		for _, size := range []any{"-1", -1, "-9223372036854775808"} {
			st, _, raw := d.call(t, "alice", co+"CreateSubmission", map[string]any{"notification": content(),
				"metadata": map[string]any{"fileAttachments": []any{map[string]any{"name": "permit.pdf", "size": size}}}})
			wantError(t, 400, 3, st, raw, "metadata.fileAttachments[0].size")
		}
		if after := d.documents(t); after != before {
			t.Fatalf("%d documents stored by refused calls", after-before)
		}
		doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content(),
			"metadata": map[string]any{"fileAttachments": []any{map[string]any{"name": "empty.txt", "size": "0"}}}})
		if a := doc["metadata"].(map[string]any)["fileAttachments"].([]any)[0].(map[string]any); a["size"] != "0" {
			t.Fatalf("an empty file: %v", a)
		}
	})
}

// A document's history is bounded: each list that records acts keeps at
// most its maxItems (100 requests for information here); the act past it
// is refused with HISTORY_FULL naming the list, and changes nothing.
func TestOrderHistoryIsBounded(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		ask := map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"Which drums?"}}}
		var doc map[string]any
		for range 100 {
			doc = d.ok(t, "noor", au+"SetRequestInformation", ask)
		}
		// the answer lists the open one and the 10 latest closed, and
		// counts the others (issue 49.4)
		recorded := func(doc map[string]any) (listed int, all float64) {
			listed = len(doc["informationRequests"].([]any))
			return listed, float64(listed) + doc["exchangesOmitted"].(map[string]any)["informationRequests"].(float64)
		}
		if listed, n := recorded(doc); listed != 11 || n != 100 {
			t.Fatalf("%v requests recorded, %d listed", n, listed)
		}
		st, m, raw := d.call(t, "noor", au+"SetRequestInformation", ask)
		be, _ := m["businessErrors"].([]any)
		if st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "HISTORY_FULL" || be[0].(map[string]any)["field"] != "informationRequests" {
			t.Fatalf("the 101st request: HTTP %d %.300s", st, raw)
		}
		if after := m["document"].(map[string]any); after["version"] != doc["version"] || fmt.Sprint(recorded(after)) != "11 100" {
			t.Fatalf("a refused act changed the document: version %v → %v", doc["version"], after["version"])
		}
		// The document goes on: the notifier answers the open request.
		d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"UN 1A1"}, "complete": true}})
	})
}

// Annex VII's prior information period is a provider's setting (issue
// 46.6): Art. 18(5)'s two working days unless the provider set another
// (`admin apply`, providers[].settings); a refusal names the setting
// beside the law. Without the setting the law's period holds.
func TestAnnex7PriorInformationPeriodIsASetting(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		announce := func(date string) (map[string]any, []any) {
			t.Helper()
			c := announcement()
			c["actualDateOfShipment"] = date
			id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": c})["id"].(string)
			_, m, raw := d.call(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": c})
			be, ok := m["businessErrors"].([]any)
			if !ok {
				t.Fatalf("SetAnnex7: %s", raw)
			}
			return m["document"].(map[string]any), be
		}
		// The clock stands on Tuesday 2026-12-01: Thursday is two working days on.
		if doc, be := announce("2026-12-03"); len(be) != 0 || doc["state"] != "ANNOUNCED" {
			t.Fatalf("the law's two working days: %v", be)
		}
		if err := d.db.Exec(`UPDATE providers SET settings = '{"annex7PriorInformationWorkingDays":3}' WHERE id = 'dev-1'`).Error; err != nil {
			t.Fatal(err)
		}
		_, be := announce("2026-12-03")
		if len(be) != 1 {
			t.Fatalf("three working days, Thursday: %v", be)
		}
		e := be[0].(map[string]any)
		if e["code"] != "PRIOR_NOTICE_TOO_LATE" || !containsAll(e["message"].(string), "at least 3 working days",
			"this provider's setting annex7PriorInformationWorkingDays: 3; Art. 18(5) Regulation (EU) 2024/1157: 2", "2026-12-04 is the earliest") {
			t.Fatalf("the refusal: %v", e)
		}
		if doc, be := announce("2026-12-04"); len(be) != 0 || doc["state"] != "ANNOUNCED" {
			t.Fatalf("three working days, Friday: %v", be)
		}
	})
}
