package tests

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Legal acts with their grounds (issue 22, points 5 to 9): an act is
// accepted only when what it states is true and it does something, and a
// follow-up intent is offered only when it can succeed.

// A pre-consented facility's completion under Art. 15 follows the
// operations: at least one movement completed, none under way, dated not
// before the last movement's completion.
func TestLegalActsArticle15ClosureOnlyWhenTrue(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(2)
		c["facility"] = map[string]any{"organisationId": "recyc", "preConsented": true}
		nid := d.consented(t, c)
		closure := func(on string) map[string]any {
			return map[string]any{"documentId": nid, "facilityCompletionArticle15": map[string]any{"completedOn": on, "operationCode": "R4"}}
		}
		// Consented a moment ago, nothing shipped: no completion to state.
		ndoc, _ := d.get(t, "rita", nid)
		d.businessError(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure("2026-12-01"), "NO_MOVEMENT_COMPLETED", ndoc["version"].(string))
		if ndoc, intents := d.get(t, "alice", nid); ndoc["state"] != "CONSENTED" || !hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("the consent must stand: %v %v", ndoc["state"], intents)
		}

		mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
		d.advanceTo(t, "2026-12-09")
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": mid, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": mid, "facilityReception": map[string]any{"receivedOn": "2026-12-08", "quantity": tonnes("20")}})
		d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": mid, "facilityCompletion": map[string]any{"completedOn": "2026-12-09", "operationCode": "R4"}})

		ndoc, _ = d.get(t, "rita", nid)
		d.businessError(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure("2026-12-08"), "DATE_OUT_OF_RANGE", ndoc["version"].(string))
		d.businessError(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure("2026-12-10"), "DATE_OUT_OF_RANGE", ndoc["version"].(string))
		ndoc = d.ok(t, "rita", co+"SetFacilityCompletionUnderArticle15", closure("2026-12-09"))
		if ndoc["state"] != "CLOSED" || ndoc["article15Completion"].(map[string]any)["completedOn"] != "2026-12-09" {
			t.Fatalf("closed under Art. 15: %v %v", ndoc["state"], ndoc["article15Completion"])
		}
	})
}

// A cancellation of consent states its grounds; a revalidation extends the
// consent and never shortens it.
func TestLegalActsCancellationNeedsGrounds(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(2)) // the consent ends with the shipment period, 2027-06-30
		signal := func(s map[string]any) map[string]any {
			return map[string]any{"documentId": nid, "notificationSignal": s}
		}

		st, _, raw := d.call(t, "bart", au+"SubmitNotificationSignal", signal(map[string]any{"type": "CANCELLATION_OF_CONSENT"}))
		wantMissing(t, st, raw, "notificationSignal.reason")
		st, _, raw = d.call(t, "bart", au+"SubmitNotificationSignal", signal(map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": " "}))
		wantMissing(t, st, raw, "notificationSignal.reason")

		ndoc, _ := d.get(t, "alice", nid)
		v := ndoc["version"].(string)
		for _, until := range []string{"2027-03-31", "2027-06-30"} { // sooner, or the same end
			st, m, raw := d.call(t, "noor", au+"SubmitNotificationSignal", signal(map[string]any{"type": "REVALIDATION", "validUntil": until}))
			be, _ := m["businessErrors"].([]any)
			if st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "CONSENT_VALIDITY_INVALID" ||
				!containsAll(be[0].(map[string]any)["message"].(string), "2027-06-30", "CANCELLATION_OF_CONSENT") {
				t.Fatalf("revalidation to %s of a consent until 2027-06-30: %d %s", until, st, raw)
			}
			if m["document"].(map[string]any)["version"] != v {
				t.Fatalf("the refused revalidation changed the document")
			}
		}

		ndoc = d.ok(t, "bart", au+"SubmitNotificationSignal", signal(map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "Art. 13(1): the facility lost its permit"}))
		sig := ndoc["signals"].([]any)[0].(map[string]any)
		if ndoc["state"] != "CONSENT_CANCELLED" || sig["authority"] != "auth-be" || sig["reason"] != "Art. 13(1): the facility lost its permit" {
			t.Fatalf("cancelled: %v %v", ndoc["state"], sig)
		}
	})
}

// No act that does nothing: a correction equal to what it would replace is
// refused like a change request that proposes nothing; while a correction
// waits for its acknowledgement, the decisions wait too.
func TestLegalActsNoActThatDoesNothing(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		same := map[string]any{"documentId": id, "notification": content()}
		d.businessError(t, "alice", co+"SetSubmission", same, "CHANGE_PROPOSES_NOTHING", "2")
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		d.businessError(t, "alice", co+"SetSubmission", same, "CHANGE_PROPOSES_NOTHING", "3")
		if ndoc, intents := d.get(t, "noor", id); len(ndoc["corrections"].([]any)) != 0 || hasIntent(intents, "ACKNOWLEDGEMENT") {
			t.Fatalf("no correction, nothing to acknowledge: %v %v", ndoc["corrections"], intents)
		}
		st, _, raw := d.call(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		wantError(t, 400, 9, st, raw, "no correction awaits acknowledgement")

		// A real correction waits for the acknowledgement, and so do the decisions.
		c := content()
		c["numberOfShipments"] = 7
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		d.businessError(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c}, "CHANGE_PROPOSES_NOTHING", "4")
		if _, intents := d.get(t, "bernd", id); hasIntent(intents, "DECISION") {
			t.Fatalf("DECISION offered while a correction waits: %v", intents)
		}
		if _, intents := d.get(t, "noor", id); !hasIntent(intents, "ACKNOWLEDGEMENT") || hasIntent(intents, "DECISION") {
			t.Fatalf("the authority of destination acknowledges first: %v", intents)
		}
		st, _, raw = d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		wantError(t, 400, 9, st, raw, "awaits the acknowledgement")
		d.checkLists(t, "bernd", "noor")

		ndoc := d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "correction accepted"}})
		if ndoc["notification"].(map[string]any)["numberOfShipments"] != float64(7) {
			t.Fatalf("the correction was not accepted: %v", ndoc["notification"])
		}
		if _, intents := d.get(t, "bernd", id); !hasIntent(intents, "DECISION") {
			t.Fatalf("DECISION after the acknowledgement: %v", intents)
		}
		d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
	})
}

// A decision once per authority: the refusal of a second one says what
// the authority decided (400, code 9, with the guard and the reason in
// the details).
func TestLegalActsRepeatedDecisionSaysSo(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		st, _, raw := d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "OBJECTION", "grounds": "second thoughts"}})
		e := wantError(t, 400, 9, st, raw, "auth-de has decided already: CONSENT on 2026-12-01")
		info := e["details"].([]any)[0].(map[string]any)["metadata"].(map[string]any)
		if info["guard"] != "callerMayDecide" || !containsAll(info["reason"].(string), "decided already") {
			t.Fatalf("the refusal's details: %v", info)
		}
	})
}

// Follow-up intents that can succeed: CREATE_MOVEMENT only while a
// shipment and some quantity are left, in the answers and the lists alike.
func TestLegalActsCreateMovementOnlyWithAShipmentLeft(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)

		// Every shipment made.
		two := d.consented(t, shippable(2))
		for _, day := range []string{"2026-12-07", "2026-12-08"} {
			if _, intents := d.get(t, "alice", two); !hasIntent(intents, "CREATE_MOVEMENT") {
				t.Fatalf("CREATE_MOVEMENT with a shipment left: %v", intents)
			}
			d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": two, "movementTemplate": template(day, 10)})
		}
		if _, intents := d.get(t, "alice", two); hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("CREATE_MOVEMENT offered with every shipment made: %v", intents)
		}
		st, _, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": two, "movementTemplate": template("2026-12-09", 10)})
		wantError(t, 400, 9, st, raw, "all 2 notified shipments have been made")

		// The whole quantity used; a corrected template frees some again.
		three := d.consented(t, shippable(3))
		mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": three, "movementTemplate": template("2026-12-07", 100)})["id"].(string)
		if _, intents := d.get(t, "alice", three); hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("CREATE_MOVEMENT offered with the quantity used up: %v", intents)
		}
		d.checkLists(t, "alice")
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-07", 60)})
		if _, intents := d.get(t, "alice", three); !hasIntent(intents, "CREATE_MOVEMENT") {
			t.Fatalf("CREATE_MOVEMENT with 40 tonnes left: %v", intents)
		}
		d.checkLists(t, "alice")
	})
}

// The completion of an Annex VII document names the announced recovery
// operation.
func TestLegalActsAnnex7CompletionIsTheAnnouncedOperation(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		d.advanceTo(t, "2026-12-04")
		d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
		doc := d.ok(t, "rita", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id, "facilityCertificate": map[string]any{"receivedOn": "2026-12-04", "quantity": tonnes("20")}})
		d.businessError(t, "rita", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id,
			"certificateOfCompletion": map[string]any{"completedOn": "2026-12-04", "recoveryCode": "R4"}}, "RECOVERY_DISPOSAL_CODE_INVALID", doc["version"].(string))
		doc = d.ok(t, "rita", co+"SetAnnex7CertificateOfCompletion", map[string]any{"documentId": id,
			"certificateOfCompletion": map[string]any{"completedOn": "2026-12-04", "recoveryCode": "R3"}})
		if doc["state"] != "COMPLETED" {
			t.Fatalf("completed: %v", doc["state"])
		}
	})
}

// extendsShipmentPeriod extends the shipment period with the consent (or
// the revalidation): a movement after the notified period's end, within
// the consent, is accepted.
func TestLegalActsConsentExtendsTheShipmentPeriod(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := shippable(3) // the shipment period ends on 2027-06-30
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		d.guaranteed(t, id, "2026-11-01", "2027-12-31")
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT", "validUntil": "2027-09-30", "extendsShipmentPeriod": true}})
		d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		ndoc := d.ok(t, "bart", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		period := ndoc["notification"].(map[string]any)["shipmentPeriod"].(map[string]any)
		if ndoc["consentValidUntil"] != "2027-09-30" || period["lastDeparture"] != "2027-09-30" {
			t.Fatalf("consent until %v, shipment period until %v", ndoc["consentValidUntil"], period["lastDeparture"])
		}
		d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": id, "movementTemplate": template("2027-08-02", 10)})

		// A revalidation extends it the same way.
		other := d.consented(t, shippable(3))
		st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": other, "movementTemplate": template("2027-08-02", 10)})
		if be, _ := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "CONSENT_NOT_VALID_ON_DATE" {
			t.Fatalf("after the shipment period, unextended: %d %s", st, raw)
		}
		ndoc = d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": other,
			"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-09-30", "extendsShipmentPeriod": true}})
		if period := ndoc["notification"].(map[string]any)["shipmentPeriod"].(map[string]any); period["lastDeparture"] != "2027-09-30" {
			t.Fatalf("revalidated: shipment period until %v", period["lastDeparture"])
		}
		d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": other, "movementTemplate": template("2027-08-02", 10)})
	})
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
