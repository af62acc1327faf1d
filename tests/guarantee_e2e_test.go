package tests

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The financial guarantee or equivalent insurance (Art. 7 Regulation (EU)
// 2024/1157, issue 46.4): the notifier submits it, the authority of
// dispatch approves it, and no movement is created for a date of shipment
// no approved guarantee covers (GUARANTEE_NOT_VALID naming the guarantee);
// one that ends before the shipment period raises a deadline for the
// notifier, met by a new one approved.
func TestGuaranteeCoversEveryMovement(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(3) // the shipment period ends on 2027-06-30
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		for _, u := range []string{"bernd", "noor", "bart"} {
			d.ok(t, u, au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		}
		refused := func(date, why string) {
			t.Helper()
			st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": id, "movementTemplate": template(date, 10)})
			be, _ := m["businessErrors"].([]any)
			if st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "GUARANTEE_NOT_VALID" ||
				!strings.Contains(be[0].(map[string]any)["message"].(string), why) {
				t.Fatalf("a movement on %s: HTTP %d %.500s", date, st, raw)
			}
		}
		refused("2026-12-07", "the notifier has submitted none")
		if _, intents := d.get(t, "bernd", id); hasIntent(intents, "GUARANTEE_APPROVAL") {
			t.Fatalf("approval offered with nothing to approve: %v", intents)
		}

		// Submitted, not yet approved: still refused, naming it.
		doc, _ := d.get(t, "alice", id)
		container := map[string]any{"notification": doc}
		doc["guarantee"] = map[string]any{"kind": "INSURANCE", "amount": map[string]any{"units": "180000"}, "currency": "EUR",
			"guarantor": "Allianz Versicherungs-AG", "reference": "P-77-1203", "validFrom": "2026-12-01", "validUntil": "2027-03-31"}
		d.ok(t, "alice", co+"SetByIntent", map[string]any{"document": container, "intent": "GUARANTEE"})
		refused("2026-12-07", "P-77-1203 of Allianz Versicherungs-AG submitted awaits the approval of the authority of dispatch")
		// Only the authority of dispatch approves it.
		if _, intents := d.get(t, "noor", id); hasIntent(intents, "GUARANTEE_APPROVAL") {
			t.Fatalf("the authority of destination is offered the approval: %v", intents)
		}
		adoc, intents := d.get(t, "bernd", id)
		if !hasIntent(intents, "GUARANTEE_APPROVAL") {
			t.Fatalf("the authority of dispatch is not offered the approval: %v", intents)
		}
		adoc["guaranteeApproval"] = map[string]any{"remarks": "approved"}
		doc = d.ok(t, "bernd", au+"SetByIntent", map[string]any{"document": map[string]any{"notification": adoc}, "intent": "GUARANTEE_APPROVAL"})["notification"].(map[string]any)

		// It ends before the shipment period: a new one is due by its end.
		dl := deadline(doc, "GUARANTEE_RENEWAL_DUE", "acme")
		if dl == nil || dl["state"] != "OPEN" || !strings.HasPrefix(dl["dueAt"].(string), "2027-03-31") {
			t.Fatalf("the renewal deadline: %v", dl)
		}
		d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": id, "movementTemplate": template("2026-12-07", 10)})
		refused("2027-04-06", "valid from 2026-12-01 to 2027-03-31")

		// A new one, approved: the deadline is met, and later dates are covered.
		doc, _ = d.get(t, "alice", id)
		doc["guarantee"].(map[string]any)["validUntil"] = "2027-12-31"
		doc["guarantee"].(map[string]any)["reference"] = "P-77-1203-2"
		d.ok(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "GUARANTEE"})
		adoc, _ = d.get(t, "bernd", id)
		adoc["guaranteeApproval"] = map[string]any{"remarks": "renewed"}
		doc = d.ok(t, "bernd", au+"SetByIntent", map[string]any{"document": map[string]any{"notification": adoc}, "intent": "GUARANTEE_APPROVAL"})["notification"].(map[string]any)
		for _, x := range doc["deadlines"].([]any) {
			if dl := x.(map[string]any); dl["rule"] == "GUARANTEE_RENEWAL_DUE" && dl["state"] != "MET" {
				t.Fatalf("the renewal deadline after the new guarantee: %v", dl)
			}
		}
		d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": id, "movementTemplate": template("2027-04-06", 10)})
		if gs := doc["guarantees"].([]any); len(gs) != 2 || gs[1].(map[string]any)["approvedBy"] != "auth-de" {
			t.Fatalf("the guarantees recorded: %v", gs)
		}

		// The same guarantee again changes nothing: refused.
		doc, _ = d.get(t, "alice", id)
		st, m, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "GUARANTEE"})
		if be, _ := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "CHANGE_PROPOSES_NOTHING" ||
			m["document"].(map[string]any)["notification"].(map[string]any)["version"] != doc["version"] {
			t.Fatalf("the same guarantee again: HTTP %d %.400s", st, raw)
		}
		// A guarantee without its guarantor or with a validity already over.
		doc["guarantee"].(map[string]any)["guarantor"] = ""
		doc["guarantee"].(map[string]any)["validUntil"] = "2026-11-30"
		st, m, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "GUARANTEE"})
		if be, _ := m["businessErrors"].([]any); st != 200 || len(be) != 2 {
			t.Fatalf("a guarantee without guarantor, over already: HTTP %d %.400s", st, raw)
		}
	})
}

// A guarantee's renewal deadline ends with the dossier: an objection
// (OBJECTED, final) cancels it, as a cancellation, closure, expiry or
// completion does (found by TestModelGeneratedOrders).
func TestGuaranteeEndsWithTheDossier(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		doc := d.guaranteed(t, id, "2026-11-01", "2027-01-31")["notification"].(map[string]any) // ends before the shipment period
		if dl := deadline(doc, "GUARANTEE_RENEWAL_DUE", "acme"); dl == nil || dl["state"] != "OPEN" {
			t.Fatalf("the renewal deadline: %v", doc["deadlines"])
		}
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		doc = d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "OBJECTION", "grounds": "no permit"}})
		if dl := deadline(doc, "GUARANTEE_RENEWAL_DUE", "acme"); doc["state"] != "OBJECTED" || dl != nil {
			t.Fatalf("objected: %v, the renewal deadline %v", doc["state"], dl)
		}
	})
}

// The renewal deadline follows the shipment period: a revalidation that
// extends the period past the guarantee's end starts it, an accepted change
// that brings the period back within the guarantee ends it (found by
// TestModelGeneratedOrders).
func TestGuaranteeFollowsTheShipmentPeriod(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(3) // until 2027-06-30
		id := d.consented(t, c)
		d.guaranteed(t, id, "2026-11-01", "2027-08-31") // a new one, to the end of August: enough for now
		doc := d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
			"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-11-30", "extendsShipmentPeriod": true}})
		if dl := deadline(doc, "GUARANTEE_RENEWAL_DUE", "acme"); dl == nil || dl["state"] != "OPEN" || !strings.HasPrefix(dl["dueAt"].(string), "2027-08-31") {
			t.Fatalf("extended past the guarantee: %v", dl)
		}
		p := map[string]any{}
		for k, v := range c {
			p[k] = v
		}
		p["shipmentPeriod"] = map[string]any{"firstDeparture": "2026-12-01", "lastDeparture": "2027-07-31"}
		d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": p, "reason": "shorter"}})
		for _, u := range []string{"bernd", "bart", "noor"} {
			doc = d.ok(t, u, au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		}
		if dl := deadline(doc, "GUARANTEE_RENEWAL_DUE", "acme"); doc["state"] != "CONSENTED" || dl != nil {
			t.Fatalf("back within the guarantee: %v, the renewal deadline %v", doc["state"], dl)
		}
	})
}
