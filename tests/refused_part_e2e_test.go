package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// received walks a new movement of tonnes t under notification nid to the
// facility: created, both carriers, the consignee's receipt.
func (d *docEnv) received(t *testing.T, nid, date string, tonnes int) string {
	t.Helper()
	id := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template(date, tonnes)})["id"].(string)
	d.advanceTo(t, date)
	d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": date}})
	d.ok(t, "sam", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": date}})
	d.ok(t, "rita", co+"SetConsigneeReception", map[string]any{"documentId": id, "consigneeReception": map[string]any{"receivedOn": date, "quantity": tonnesOf(tonnes)}})
	return id
}

func tonnesOf(units int) map[string]any {
	return map[string]any{"tonnes": map[string]any{"units": fmt.Sprint(units)}}
}

// A shipment refused in part (issue 46.5): the facility accepts 25 t of
// 40 and refuses 15; the accepted part goes on to its completion, the
// refused part to the authority of dispatch's arrangement and its own
// time limit (REJECTED_PART_DUE, 90 days), in either order; the
// notification counts all 40 t as shipped and shows the 15 refused.
func TestShipmentRefusedInPart(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(3))
		id := d.received(t, nid, "2026-12-07", 40)
		reception := func(rejected any, reason string) map[string]any {
			b := map[string]any{"receivedOn": "2026-12-07", "quantity": tonnesOf(40), "reason": reason}
			if rejected != nil {
				b["rejectedQuantity"] = rejected
			}
			return map[string]any{"documentId": id, "facilityReception": b}
		}
		for name, c := range map[string]struct {
			rejected    any
			reason      string
			code, field string
		}{
			"all of it":        {tonnesOf(40), "wet", "QUANTITY_INVALID", "facilityReception.rejectedQuantity"},
			"more than all":    {tonnesOf(41), "wet", "QUANTITY_INVALID", "facilityReception.rejectedQuantity"},
			"another unit":     {map[string]any{"cubicMetres": map[string]any{"units": "5"}}, "wet", "QUANTITY_INVALID", "facilityReception.rejectedQuantity"},
			"nothing":          {tonnesOf(0), "wet", "QUANTITY_INVALID", "facilityReception.rejectedQuantity"},
			"without a reason": {tonnesOf(15), " ", "REQUIRED_FIELD_MISSING", "facilityReception.reason"},
		} {
			_, m, _ := d.call(t, "rita", co+"SetFacilityReception", reception(c.rejected, c.reason))
			be, _ := m["businessErrors"].([]any)
			if len(be) != 1 || be[0].(map[string]any)["code"] != c.code || be[0].(map[string]any)["field"] != c.field {
				t.Errorf("%s: %v", name, m["businessErrors"])
			}
		}
		mv := d.ok(t, "rita", co+"SetFacilityReception", reception(tonnesOf(15), "drums leaking"))
		part := mv["rejectedPart"].(map[string]any)
		if mv["state"] != "RECEIVED_BY_FACILITY" || part["reason"] != "drums leaking" || part["rejectedOn"] != "2026-12-07" ||
			deadline(mv, "COMPLETION_CERTIFICATE_DUE", "recyc")["state"] != "OPEN" {
			t.Fatalf("refused in part: %v %v %v", mv["state"], part, mv["deadlines"])
		}
		due := deadline(mv, "REJECTED_PART_DUE", "acme")
		if due == nil || due["state"] != "OPEN" || !strings.HasPrefix(due["dueAt"].(string), "2027-03-0") {
			t.Fatalf("the refused part's time limit (90 days after 2026-12-07): %v", due)
		}
		ndoc, _ := d.get(t, "alice", nid)
		movs := ndoc["movements"].(map[string]any)
		if units(movs["quantityUsed"]) != "40" || units(movs["quantityRefused"]) != "15" || units(movs["quantityLeft"]) != "60" ||
			units(movs["entries"].([]any)[0].(map[string]any)["refusedQuantity"]) != "15" {
			t.Fatalf("the notification counts the shipment whole and shows the refused part: %v", movs)
		}

		// The accepted part's completion first: the movement waits for the
		// refused part; it is not certified twice.
		mv = d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": id, "facilityCompletion": map[string]any{"completedOn": "2026-12-07", "operationCode": "R4"}})
		if mv["state"] != "RECEIVED_BY_FACILITY" || deadline(mv, "COMPLETION_CERTIFICATE_DUE", "recyc")["state"] != "MET" {
			t.Fatalf("completion with the part open: %v %v", mv["state"], mv["deadlines"])
		}
		if _, intents := d.movement(t, "rita", id); hasIntent(intents, "FACILITY_COMPLETION") {
			t.Fatalf("completion offered again: %v", intents)
		}
		// Only the authority of dispatch arranges, and first.
		_, intents := d.movement(t, "bernd", id)
		if !hasIntent(intents, "REJECTED_PART_ARRANGEMENT") || hasIntent(intents, "REJECTED_PART_RESOLUTION") {
			t.Fatalf("dispatch's follow-ups with the part not arranged: %v", intents)
		}
		st, _, raw := d.call(t, "noor", au+"SetRejectedPartArrangement", map[string]any{"documentId": id, "rejectedPartArrangement": map[string]any{"arrangement": "TAKE_BACK"}})
		wantError(t, 403, 7, st, raw, "AUTHORITY_DISPATCH")
		st, _, raw = d.call(t, "bernd", au+"SetRejectedPartResolution", map[string]any{"documentId": id, "rejectedPartResolution": map[string]any{"resolvedOn": "2026-12-07"}})
		wantError(t, 400, 9, st, raw, "REJECTED_PART_ARRANGEMENT")
		_, m, _ := d.call(t, "bernd", au+"SetRejectedPartArrangement", map[string]any{"documentId": id,
			"rejectedPartArrangement": map[string]any{"arrangement": "ALTERNATIVE_RECOVERY", "facilityOrganisationId": "nobody"}})
		if be := m["businessErrors"].([]any); len(be) != 1 || be[0].(map[string]any)["code"] != "PARTY_UNKNOWN" {
			t.Fatalf("an unknown facility: %v", be)
		}
		mv = d.ok(t, "bernd", au+"SetRejectedPartArrangement", map[string]any{"documentId": id,
			"rejectedPartArrangement": map[string]any{"arrangement": "ALTERNATIVE_RECOVERY", "facilityOrganisationId": "truck", "dueOn": "2027-01-15"}})
		if p := mv["rejectedPart"].(map[string]any); p["arrangement"] != "ALTERNATIVE_RECOVERY" || p["arrangedBy"] != "auth-de" ||
			!strings.HasPrefix(deadline(mv, "REJECTED_PART_DUE", "acme")["dueAt"].(string), "2027-01-15") {
			t.Fatalf("arranged: %v %v", p, mv["deadlines"])
		}
		mv = d.ok(t, "bernd", au+"SetRejectedPartResolution", map[string]any{"documentId": id, "rejectedPartResolution": map[string]any{"resolvedOn": "2026-12-07"}})
		if mv["state"] != "COMPLETED" || deadline(mv, "REJECTED_PART_DUE", "acme")["state"] != "MET" || mv["rejectedPart"].(map[string]any)["resolvedBy"] != "auth-de" {
			t.Fatalf("resolved after the completion: %v %v", mv["state"], mv["deadlines"])
		}

		// The other order: the refused part dealt with first, then the
		// completion; and a whole take-back ordered over an open part ends
		// the part's time limit.
		second := d.received(t, nid, "2026-12-14", 20)
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": second, "facilityReception": map[string]any{"receivedOn": "2026-12-14",
			"quantity": tonnesOf(20), "rejectedQuantity": map[string]any{"tonnes": map[string]any{"units": "2", "nanos": 500000000}}, "reason": "foreign matter"}})
		d.ok(t, "bernd", au+"SetRejectedPartArrangement", map[string]any{"documentId": second, "rejectedPartArrangement": map[string]any{"arrangement": "TAKE_BACK"}})
		mv = d.ok(t, "bernd", au+"SetRejectedPartResolution", map[string]any{"documentId": second, "rejectedPartResolution": map[string]any{"resolvedOn": "2026-12-14"}})
		if mv["state"] != "RECEIVED_BY_FACILITY" {
			t.Fatalf("the part resolved before the completion: %v", mv["state"])
		}
		mv = d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": second, "facilityCompletion": map[string]any{"completedOn": "2026-12-14", "operationCode": "R4"}})
		if mv["state"] != "COMPLETED" {
			t.Fatalf("completed after the part: %v", mv["state"])
		}
		third := d.received(t, nid, "2026-12-21", 10)
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": third, "facilityReception": map[string]any{"receivedOn": "2026-12-21",
			"quantity": tonnesOf(10), "rejectedQuantity": tonnesOf(4), "reason": "foreign matter"}})
		mv = d.ok(t, "bernd", au+"SetMovementTakeBack", map[string]any{"documentId": third, "takeBack": map[string]any{"reason": "all of it"}})
		if mv["state"] != "TAKE_BACK_ORDERED" || deadline(mv, "REJECTED_PART_DUE", "acme") != nil {
			t.Fatalf("a whole take-back over an open part: %v %v", mv["state"], mv["deadlines"])
		}
		ndoc, _ = d.get(t, "alice", nid)
		if movs := ndoc["movements"].(map[string]any); units(movs["quantityUsed"]) != "70" || units(movs["quantityRefused"]) != "21.5" {
			t.Fatalf("the notification's counts over three movements: %v", movs)
		}
	})
}

// units is a tonnes quantity of an answer as a decimal string.
func units(q any) string {
	m, _ := q.(map[string]any)
	tn, _ := m["tonnes"].(map[string]any)
	if tn == nil {
		return ""
	}
	u, _ := tn["units"].(string)
	if n, _ := tn["nanos"].(float64); n != 0 {
		return u + "." + strings.TrimRight(fmt.Sprintf("%09d", int(n)), "0")
	}
	return u
}
