package handlers_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A consent's end and a revalidation lie after today, within the legal
// maximum from the consent, and inside the notified shipment period unless
// the authority extends it; a shipment period already over is refused at
// submission. Each refusal is a business error that changes nothing. The
// test clock starts on 2026-12-01; shippable's period runs to 2027-06-30.
func TestConsentDatesHoldUp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		acknowledged := func() (string, string) {
			c := shippable(3)
			id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
			d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
			doc := d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			return id, doc["version"].(string)
		}
		id, version := acknowledged()
		consent := func(validUntil string, extends bool) map[string]any {
			return map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT", "validUntil": validUntil, "extendsShipmentPeriod": extends}}
		}
		for name, body := range map[string]map[string]any{
			"in the past":               consent("2026-11-30", false),
			"today":                     consent("2026-12-01", false),
			"more than a year":          consent("2027-12-02", true),
			"after the shipment period": consent("2027-07-15", false),
			"not a date":                consent("1.7.2027", false),
		} {
			t.Run(name, func(t *testing.T) {
				d.businessError(t, "bernd", au+"SetDecision", body, "CONSENT_VALIDITY_INVALID", version)
			})
		}
		// Extended explicitly, the consent may pass the period's end.
		d.ok(t, "bernd", au+"SetDecision", consent("2027-07-15", true))
		d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		doc := d.ok(t, "bart", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		if doc["state"] != "CONSENTED" || doc["consentValidUntil"] != "2027-07-15" {
			t.Fatalf("consented until %v (%v), want 2027-07-15", doc["consentValidUntil"], doc["state"])
		}
		// Revalidation: the same limits, from the consent.
		v := doc["version"].(string)
		for name, until := range map[string]string{"in the past": "2026-11-01", "beyond a year from the consent": "2027-12-02", "after the period": "2027-08-01"} {
			t.Run("revalidation "+name, func(t *testing.T) {
				d.businessError(t, "bernd", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
					"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": until}}, "CONSENT_VALIDITY_INVALID", v)
			})
		}
		doc = d.ok(t, "bernd", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
			"notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-08-01", "extendsShipmentPeriod": true}})
		if doc["consentValidUntil"] != "2027-08-01" {
			t.Fatalf("revalidated until %v", doc["consentValidUntil"])
		}

		// Without an extension the consent ends with the shipment period.
		other, _ := acknowledged()
		for _, u := range []string{"bernd", "noor", "bart"} {
			doc = d.ok(t, u, au+"SetDecision", map[string]any{"documentId": other, "decision": map[string]any{"type": "CONSENT"}})
		}
		if doc["consentValidUntil"] != "2027-06-30" {
			t.Fatalf("default consent end %v, want the shipment period's end 2027-06-30", doc["consentValidUntil"])
		}

		// A shipment period already over is refused at submission.
		past := shippable(3)
		past["shipmentPeriod"] = map[string]any{"firstDeparture": "2026-10-01", "lastDeparture": "2026-11-15"}
		draft := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": past})
		d.businessError(t, "alice", co+"SetSubmission", map[string]any{"documentId": draft["id"], "notification": past}, "SHIPMENT_PERIOD_INVALID", "1")
	})
}
