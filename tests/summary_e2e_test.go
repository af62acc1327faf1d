package tests

import (
	"context"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestRelativesReadSummaries: a notification and its movements read one
// another's summaries, not their aggregates (a notification with a
// thousand movements reads a thousand small summaries); a movement stored
// before summaries existed is read whole until the start-up task gives it
// one.
func TestRelativesReadSummaries(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(3))
		first := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})["id"].(string)
		second := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-08", 20)})["id"].(string)
		counted := func(when string) {
			t.Helper()
			ndoc, _ := d.get(t, "alice", nid)
			movs := ndoc["movements"].(map[string]any)
			if movs["count"] != float64(2) || movs["quantityUsed"].(map[string]any)["tonnes"].(map[string]any)["units"] != "30" || len(movs["entries"].([]any)) != 2 {
				t.Fatalf("%s: the notification's movements: %v", when, movs)
			}
		}
		counted("stored")
		exec := func(q string, args ...any) {
			t.Helper()
			if err := d.db.Exec(q, args...).Error; err != nil {
				t.Fatal(err)
			}
		}
		var summary, data string
		if err := d.db.Raw("SELECT summary, CAST(data AS TEXT) FROM documents WHERE id = ?", first).Row().Scan(&summary, &data); err != nil {
			t.Fatal(err)
		}
		if summary == "" {
			t.Fatal("a movement was stored without a summary")
		}

		// The first movement's aggregate made unreadable: its relatives do
		// not read it, its summary tells them what they count.
		exec(`UPDATE documents SET data = '{"movementTemplate": 5}' WHERE id = ?`, first)
		counted("aggregate unreadable")
		st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-09", 71)})
		if be, _ := m["businessErrors"].([]any); st != 200 || len(be) != 1 || be[0].(map[string]any)["code"] != "QUANTITY_EXCEEDS_NOTIFIED_TOTAL" {
			t.Fatalf("71 t beside 10 t and 20 t of the 100 t notified: %d %s", st, raw)
		}
		exec("UPDATE documents SET data = ? WHERE id = ?", data, first)

		// The migration's task finds every movement summarised.
		if n, err := d.notes.SummariseChildren(context.Background()); err != nil || n != 0 {
			t.Fatalf("summarised %d (%v) of movements that have their summaries", n, err)
		}
		// As a release before summaries left the second one: read whole.
		exec("UPDATE documents SET summary = '' WHERE id = ?", second)
		exec("INSERT INTO maintenance_tasks (name, created_at) VALUES ('summarise-children', CURRENT_TIMESTAMP)")
		counted("no summary yet")
		n, err := d.notes.SummariseChildren(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("summarised %d (%v), want the one without a summary", n, err)
		}
		var filled string
		if err := d.db.Raw("SELECT summary FROM documents WHERE id = ?", second).Row().Scan(&filled); err != nil || filled == "" {
			t.Fatalf("the second movement's summary after the task: %q (%v)", filled, err)
		}
		counted("summarised")
		if n, err := d.notes.SummariseChildren(context.Background()); err != nil || n != 0 {
			t.Fatalf("the task ran again: %d (%v)", n, err)
		}
	})
}
