package tests

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
)

// storedTally is the notification's tally as its row keeps it, and its
// movements' tally counted afresh from their rows (their summaries).
func (d *docEnv) storedTally(t *testing.T, nid string) (kept, counted string) {
	t.Helper()
	if err := d.db.Raw("SELECT tally FROM documents WHERE id = ?", nid).Scan(&kept).Error; err != nil {
		t.Fatal(err)
	}
	var rows []string
	if err := d.db.Raw("SELECT summary FROM documents WHERE parent_id = ? ORDER BY created_at, id", nid).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	var ss []m.Summary
	for _, r := range rows {
		var s m.Summary
		if err := json.Unmarshal([]byte(r), &s); err != nil {
			t.Fatalf("summary %s: %v", r, err)
		}
		ss = append(ss, s)
	}
	raw, err := json.Marshal(n.TallyOf(ss...))
	if err != nil {
		t.Fatal(err)
	}
	return kept, string(raw)
}

// The notification keeps its movements' tally (issue 49): each movement's
// act changes it by the difference it made, so no act reads the other
// movements. Whatever order the acts come in (creates with and without a
// sequence number, taken numbers refused, corrections raising and lowering
// the quantity, a create over the total refused, a rejection with a
// refused quantity, a tally lost and counted afresh, creates at once on
// PostgreSQL), after each the kept tally is the tally counted afresh from
// the movements' rows, and the notification's totals are the test's own
// sums. The replay at the end (dbtest.AtEnd) checks every act's tally too.
func TestTallyHoldsInEveryOrder(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(60)) // 100 tonnes
		type mv struct {
			id     string
			seq    int
			tonnes int
		}
		var made []mv
		used, seqs := 0, map[int]bool{}
		check := func(step string) {
			t.Helper()
			if kept, counted := d.storedTally(t, nid); kept != counted {
				t.Fatalf("%s: the notification keeps %s, its movements count %s", step, kept, counted)
			}
			doc, _ := d.get(t, "alice", nid)
			movs := doc["movements"].(map[string]any)
			if movs["count"] != float64(len(made)) || movs["quantityUsed"].(map[string]any)["tonnes"].(map[string]any)["units"] != fmt.Sprint(used) {
				t.Fatalf("%s: movements %v, want %d movements and %d tonnes", step, movs, len(made), used)
			}
		}
		r := rand.New(rand.NewPCG(49, 4))
		for step := range 30 {
			switch op := r.IntN(5); {
			case op <= 1 || len(made) == 0: // a create, with a free number, a taken one or none
				tonnes := 1 + r.IntN(5)
				tpl := template("2026-12-07", tonnes)
				seq := 0
				switch r.IntN(3) {
				case 0:
					seq = 1 + r.IntN(40)
					tpl["sequenceNumber"] = seq
				}
				st, body, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": tpl})
				if seq != 0 && seqs[seq] {
					if be, _ := body["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != m.ErrSequenceNumber {
						t.Fatalf("step %d: sequence number %d taken: %d %s", step, seq, st, raw)
					}
					break
				}
				doc, _ := body["document"].(map[string]any)
				if st != 200 || doc == nil || doc["id"] == nil {
					t.Fatalf("step %d: create: %d %s", step, st, raw)
				}
				got := int(doc["movementTemplate"].(map[string]any)["sequenceNumber"].(float64))
				if seq == 0 { // the next after the highest in use
					want := 1
					for s := range seqs {
						want = max(want, s+1)
					}
					if got != want {
						t.Fatalf("step %d: drew sequence number %d, want %d", step, got, want)
					}
				}
				made, used, seqs[got] = append(made, mv{doc["id"].(string), got, tonnes}), used+tonnes, true
			case op <= 3: // a correction, up or down
				i := r.IntN(len(made))
				tonnes := 1 + r.IntN(5)
				if tonnes == made[i].tonnes {
					tonnes++
				}
				d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": made[i].id, "movementTemplate": template("2026-12-07", tonnes)})
				used += tonnes - made[i].tonnes
				made[i].tonnes = tonnes
			default: // over the total: refused, nothing changes
				st, body, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 101-used)})
				if be, _ := body["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != n.ErrQuantityExceeded {
					t.Fatalf("step %d: over the total: %d %s", step, st, raw)
				}
			}
			check(fmt.Sprintf("step %d", step))
		}

		// A tally lost (a row from before tallies): the next act counts the
		// movements afresh and keeps the tally from then on.
		d.db.Exec("UPDATE documents SET tally = '' WHERE id = ?", nid)
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": made[0].id, "movementTemplate": template("2026-12-07", made[0].tonnes+1)})
		used++
		made[0].tonnes++
		check("after the tally was counted afresh")

		// A rejection: what the facility refused is counted as refused.
		d.advanceTo(t, "2026-12-07")
		x := made[len(made)-1]
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": x.id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": x.id, "facilityReception": map[string]any{
			"receivedOn": "2026-12-07", "rejected": true, "reason": "contaminated", "quantity": map[string]any{"tonnes": map[string]any{"units": fmt.Sprint(x.tonnes)}}}})
		check("after a rejection")
		doc, _ := d.get(t, "alice", nid)
		if refused := doc["movements"].(map[string]any)["quantityRefused"].(map[string]any)["tonnes"].(map[string]any)["units"]; refused != fmt.Sprint(x.tonnes) {
			t.Fatalf("refused %v, want %d", refused, x.tonnes)
		}

		if dbcfg.Driver != "postgres" {
			return
		}
		// At once: movements created and corrected by eight clients, each
		// act waiting for the notification's lock.
		var wg sync.WaitGroup
		var mu sync.Mutex
		for c := range 8 {
			wg.Go(func() {
				id := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-14", 1)})["id"].(string)
				d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": template("2026-12-15", 1+c%2)})
				mu.Lock()
				made, used = append(made, mv{id: id, tonnes: 1 + c%2}), used+1+c%2
				mu.Unlock()
			})
		}
		wg.Wait()
		check("after eight clients at once")
	})
}

// A notification's retrieval document lists at most 50 of its movements
// (issue 49): the ones not completed or taken back first, then the
// latest, in the order they were created; entriesOmitted counts the rest,
// which ListDocuments filtered by the notification pages through, and the
// totals count every movement. 55 movements, the 5 latest taken back: the
// 50 open ones are listed, the 5 taken back are not.
func TestNotificationListsAPartOfItsMovements(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(60))
		var ids []string
		for range 55 {
			ids = append(ids, d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 1)})["id"].(string))
		}
		d.advanceTo(t, "2026-12-07")
		for _, id := range ids[50:] {
			d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
			d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{
				"receivedOn": "2026-12-07", "rejected": true, "reason": "contaminated", "quantity": map[string]any{"tonnes": map[string]any{"units": "1"}}}})
			d.ok(t, "bernd", au+"SetMovementTakeBack", map[string]any{"documentId": id, "takeBack": map[string]any{"reason": "refused"}})
			d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "CONFIRM"}})
		}
		for _, op := range []string{co + "GetNotification", co + "GetDocument"} {
			doc, _ := d.read(t, "alice", op, nid)
			if c, ok := doc["notification"].(map[string]any); ok && doc["movements"] == nil { // GetDocument's container
				doc = c
			}
			movs := doc["movements"].(map[string]any)
			entries := movs["entries"].([]any)
			if movs["count"] != float64(55) || movs["entriesOmitted"] != float64(5) || len(entries) != 50 {
				t.Fatalf("%s: count %v, %d entries, %v omitted", op, movs["count"], len(entries), movs["entriesOmitted"])
			}
			open := map[any]bool{} // the test clock stood still: created at one instant, in id order
			for _, id := range ids[:50] {
				open[id] = true
			}
			for i, e := range entries {
				if e := e.(map[string]any); !open[e["id"]] || e["state"] != "SUBMITTED" {
					t.Fatalf("%s: entry %d is %v (%v), not one of the open movements", op, i, e["id"], e["state"])
				}
				delete(open, e.(map[string]any)["id"])
			}
		}
		got, _ := d.list(t, "alice", map[string]any{"qpar": map[string]any{"filter": []any{map[string]any{"path": "notification_id", "op": "EQUAL",
			"operands": []any{map[string]any{"s": nid}}}}, "pageSize": 100}})
		if len(got) != 55 {
			t.Fatalf("ListDocuments of the notification's movements: %d", len(got))
		}
		// The container GetNotification answered, its list cut, goes back
		// through SetByIntent: the cut list is no order to delete anything
		// (SetByIntent reads the intent's block alone), and the act's answer
		// lists the same part.
		doc, _ := d.get(t, "alice", nid)
		doc["guarantee"] = map[string]any{"kind": "INSURANCE", "amount": map[string]any{"units": "180000"}, "currency": "EUR",
			"guarantor": "Allianz Versicherungs-AG", "reference": "P-77-1203", "validFrom": "2026-12-01", "validUntil": "2027-03-31"}
		after := d.ok(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "GUARANTEE"})["notification"].(map[string]any)
		if movs := after["movements"].(map[string]any); movs["count"] != float64(55) || movs["entriesOmitted"] != float64(5) || len(movs["entries"].([]any)) != 50 {
			t.Fatalf("after SetByIntent with the cut container: count %v, %d entries, %v omitted", movs["count"], len(movs["entries"].([]any)), movs["entriesOmitted"])
		}
		if kept, counted := d.storedTally(t, nid); kept != counted {
			t.Fatalf("after SetByIntent: the notification keeps %s, its movements count %s", kept, counted)
		}
	})
}
