package tests

import (
	"slices"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A cursor past the latest event was never handed out: acknowledging it
// would pass over every event to come (issue 44.14), and reading or
// streaming after it would never see one. AckNotifications,
// ListNotifications and StreamNotifications (gRPC) refuse it with 400,
// code 3, naming cursor; the group's position stays where it was, and the
// events stored afterwards are listed. A position acknowledged past the
// end before the refusal existed is taken back to the end, so those
// events are listed too.
func TestFutureCursorLosesNoEvent(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		st, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED", "INBOX_ENTRY_ADDED"}})
		if st != 200 {
			t.Fatalf("register: %d %s", st, raw)
		}
		_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
		gt := lg["groupToken"].(string)
		docsListed := func(body map[string]any) []string {
			t.Helper()
			var ids []string
			list, _ := body["notifications"].([]any) // an empty list is left out
			for _, n := range list {
				ids = append(ids, n.(map[string]any)["documentId"].(string))
			}
			return ids
		}
		// list reads the group's events until want is among them (on
		// PostgreSQL an event is listed once the sequencer has given it
		// its position, a moment after its transaction) or 10 s passed.
		list := func(want string) (int, map[string]any, []byte) {
			t.Helper()
			for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				st, m, raw := d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
				if st != 200 || slices.Contains(docsListed(m), want) || time.Now().After(end) {
					return st, m, raw
				}
			}
		}

		first := d.submitted(t)
		st, m, raw := list(first)
		if st != 200 || !slices.Contains(docsListed(m), first) {
			t.Fatalf("the first document's events: %d %s", st, raw)
		}
		next := m["nextCursor"].(string)

		for _, future := range []string{"999999999999", "9223372036854775807"} {
			st, _, raw = d.post(t, ntf+"AckNotifications", hdr("dev-1", gt), map[string]any{"cursor": future})
			wantError(t, 400, 3, st, raw, "cursor")
			st, _, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"cursor": future})
			wantError(t, 400, 3, st, raw, "cursor")
			if overGRPC(t) { // the stream's first message, or its error
				st, _, raw = d.post(t, ntf+"StreamNotifications", hdr("dev-1", gt), map[string]any{"cursor": future})
				wantError(t, 400, 3, st, raw, "cursor")
			}
		}
		var acked int64
		d.db.Raw("SELECT COALESCE(MAX(acked_id), 0) FROM group_cursors").Scan(&acked)
		if acked != 0 {
			t.Fatalf("a refused acknowledgement moved the group to %d", acked)
		}
		// The latest cursor itself is no cursor from the future.
		st, _, raw = d.post(t, ntf+"AckNotifications", hdr("dev-1", gt), map[string]any{"cursor": next})
		if st != 200 {
			t.Fatalf("ack the latest cursor: %d %s", st, raw)
		}

		second := d.submitted(t)
		st, m, raw = list(second)
		if got := docsListed(m); st != 200 || !slices.Contains(got, second) || slices.Contains(got, first) {
			t.Fatalf("after the refused cursors, the second document's events (and not the first's, acknowledged): %d %s", st, raw)
		}
		if overGRPC(t) {
			st, m, raw = d.post(t, ntf+"StreamNotifications", hdr("dev-1", gt), map[string]any{"cursor": next})
			if st != 200 || m["documentId"] != second {
				t.Fatalf("the stream after the latest cursor: %d %s", st, raw)
			}
		}

		// A group that acknowledged a cursor from the future before it was
		// refused: it had acknowledged every event there was, not those to come.
		if err := d.db.Exec("UPDATE group_cursors SET acked_id = 999999999999").Error; err != nil {
			t.Fatal(err)
		}
		st, m, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
		if st != 200 || len(docsListed(m)) != 0 {
			t.Fatalf("after the end: %d %s", st, raw)
		}
		third := d.submitted(t)
		st, m, raw = list(third)
		if got := docsListed(m); st != 200 || !slices.Contains(got, third) || slices.Contains(got, second) {
			t.Fatalf("events after a position acknowledged past the end: %d %s", st, raw)
		}
	})
}
