package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

// The trail replays to the document, and where it does not the replay
// names the first act that parts (issue 46.2): a notification with a
// movement is replayed whole, then each way a document can leave its
// trail behind (a row's input changed, the stored aggregate or a deadline
// changed outside an act, the family's rows reordered) is named.
func TestTrailReplaysToTheDocument(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		dbtest.SkipAtEnd(d.db) // this test changes rows behind the server's back
		nid := d.consented(t, shippable(3))
		mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 20)})["id"].(string)
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-08", 25)})

		r, err := documents.New(d.db, nil, kinds.All()...)
		if err != nil {
			t.Fatal(err)
		}
		checked(r)
		ctx := context.Background()
		replay := func() documents.ReplayResult {
			t.Helper()
			res, err := r.ReplayFamily(ctx, nid)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		res := replay()
		var acts int
		d.db.Raw("SELECT COUNT(*) FROM audit_events WHERE document_id IN (?, ?)", nid, mid).Scan(&acts)
		if len(res.Divergences) > 0 || res.Documents != 2 || res.Acts != acts || acts < 10 {
			t.Fatalf("replay of an untouched family: %+v (%d acts stored)", res, acts)
		}

		parts := func(what, sql string, args []any, undo string, want ...string) {
			t.Helper()
			if err := d.db.Exec(sql, args...).Error; err != nil {
				t.Fatal(err)
			}
			res := replay()
			if len(res.Divergences) != 1 {
				t.Fatalf("%s: divergences %v", what, res.Divergences)
			}
			got := res.Divergences[0].String()
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s: %q does not say %q", what, got, w)
				}
			}
			if err := d.db.Exec(undo, args...).Error; err != nil {
				t.Fatal(err)
			}
			if res := replay(); len(res.Divergences) != 0 {
				t.Fatalf("%s undone: %v", what, res.Divergences)
			}
		}
		// The movement template's second act (SetMovementTemplate) was
		// given 25 t: say 26 t, and the replay parts at that act.
		parts("an act's input", "UPDATE audit_events SET context = REPLACE(context, '\"units\":25,', '\"units\":26,') WHERE document_id = ? AND seq = 2",
			[]any{mid}, "UPDATE audit_events SET context = REPLACE(context, '\"units\":26,', '\"units\":25,') WHERE document_id = ? AND seq = 2",
			"document "+mid+", act 2 (", "aggregate differs from the one the act left")
		// The consent's state written outside an act.
		parts("the stored state", "UPDATE documents SET state = 'REJECTED' WHERE id = ?", []any{nid},
			"UPDATE documents SET state = 'CONSENTED' WHERE id = ?", "document "+nid+" as stored", "state is REJECTED")
		// A deadline moved outside an act.
		parts("a deadline", "UPDATE deadlines SET suspended_days = suspended_days + 3 WHERE document_id = ? AND rule = 'CONSENT_VALIDITY'", []any{nid},
			"UPDATE deadlines SET suspended_days = suspended_days - 3 WHERE document_id = ? AND rule = 'CONSENT_VALIDITY'",
			"document "+nid+" as stored", "CONSENT_VALIDITY", "+3d")
		// The movements' tally kept wrong beside the notification (it is
		// derived, not in the trail: the replay counts it afresh).
		parts("the tally", `UPDATE documents SET tally = REPLACE(tally, '"count":1,', '"count":2,') WHERE id = ?`, []any{nid},
			`UPDATE documents SET tally = REPLACE(tally, '"count":2,', '"count":1,') WHERE id = ?`,
			"document "+nid+" as stored", "the tally of the documents under it, kept with it,", `"count":2`)
		// The movement's create written before the consent it read.
		parts("the order", "UPDATE audit_events SET pos = -pos WHERE document_id = ? AND seq = 1", []any{mid},
			"UPDATE audit_events SET pos = -pos WHERE document_id = ? AND seq = 1", "act 1 (CREATE", "parent "+nid)
		// An act that read a tally kept wrong is named: a second movement
		// created while the tally counts a movement too many.
		d.db.Exec(`UPDATE documents SET tally = REPLACE(tally, '"count":1,', '"count":2,') WHERE id = ?`, nid)
		second := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-09", 5)})["id"].(string)
		if res := replay(); len(res.Divergences) != 1 || !strings.Contains(res.Divergences[0].String(), "document "+second+", act 1 (") ||
			!strings.Contains(res.Divergences[0].String(), "the act read the tally of the other documents under its parent") {
			t.Fatalf("an act that read a tally kept wrong: %v", res.Divergences)
		}
	})
}
