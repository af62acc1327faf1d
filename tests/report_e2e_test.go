package tests

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

const rep = "/svc.core.v1.api.DeadlineReportApi/"
const ntf = "/svc.namespaced_notifier.v1.api.NotificationApi/"
const grp = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"

func TestDeadlineReportsAndGroupNotifications(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		ctx := context.Background()

		// noor's organisation registers a group for overdue deadlines first.
		st, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE", "DEADLINE_DUE_SOON"}})
		if st != 200 {
			t.Fatalf("register: %d %s", st, raw)
		}

		late := d.submitted(t)   // never acknowledged: its ACKNOWLEDGEMENT_DUE runs out
		onTime := d.submitted(t) // acknowledged at once
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": onTime})
		lateNumber, _ := d.get(t, "alice", late)
		startedAt := d.clock.Now()
		d.advance(20 * 24 * time.Hour)
		for range 3 { // however often it sweeps
			if _, err := d.notes.Sweep(ctx, d.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("list with filter, sort, paging and visibility", func(t *testing.T) {
			_, m, _ := d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
				"filter": []any{map[string]any{"path": "state", "op": "EQUAL", "operands": []any{map[string]any{"s": "OVERDUE"}}}}}})
			entries := m["entries"].([]any)
			if m["total"] != "1" || len(entries) != 1 {
				t.Fatalf("overdue: %v", m)
			}
			e := entries[0].(map[string]any)
			if e["documentNumber"] != lateNumber["number"] || e["rule"] != "ACKNOWLEDGEMENT_DUE" || e["party"] != "auth-nl" || e["legalBasis"] == "" {
				t.Fatalf("entry: %v", e)
			}
			_, m, _ = d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
				"sort": []any{map[string]any{"path": "due_at", "direction": "DESC"}}, "pageSize": 1}})
			if len(m["entries"].([]any)) != 1 || m["total"] == "1" {
				t.Fatalf("paging: %v", m)
			}
			_, m, _ = d.call(t, "eve", rep+"ListDeadlines", map[string]any{})
			if m["total"] != "0" {
				t.Fatalf("a non-party sees %v deadlines", m["total"])
			}
			st, _, raw := d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
				"filter": []any{map[string]any{"path": "secret_column", "op": "EQUAL", "operands": []any{map[string]any{"s": "x"}}}}}})
			wantError(t, 400, 3, st, raw, "qpar.filter[0].path")
		})

		t.Run("summary now and as of a past date", func(t *testing.T) {
			_, m, _ := d.call(t, "noor", rep+"GetDeadlineSummary", map[string]any{})
			found := false
			for _, c := range m["byRuleAndState"].([]any) {
				c := c.(map[string]any)
				if c["rule"] == "ACKNOWLEDGEMENT_DUE" && c["state"] == "OVERDUE" && c["count"] == "1" {
					found = true
				}
			}
			if !found {
				t.Fatalf("summary lacks the overdue acknowledgement: %v", m)
			}
			asOf := startedAt.Add(24 * time.Hour).Format(time.RFC3339)
			_, m, _ = d.call(t, "noor", rep+"GetDeadlineSummary", map[string]any{"asOf": asOf})
			for _, c := range m["byRuleAndState"].([]any) {
				if c.(map[string]any)["state"] == "OVERDUE" {
					t.Fatalf("as of the next day nothing was overdue: %v", m)
				}
			}
		})

		t.Run("CSV export", func(t *testing.T) {
			st, h, body := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=OVERDUE", headers: hdr("dev-1", d.token(t, "noor"))})
			if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
				t.Fatalf("export: %d %s", st, h.Get("Content-Type"))
			}
			rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
			if err != nil || len(rows) != 2 || rows[0][0] != "document_id" || rows[1][1] != lateNumber["number"] || rows[1][7] != "OVERDUE" {
				t.Fatalf("csv: %v %v", rows, err)
			}
			// States in any case, as the terminal report takes them.
			st, _, lower := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=overdue", headers: hdr("dev-1", d.token(t, "noor"))})
			if st != 200 || string(lower) != string(body) {
				t.Fatalf("state=overdue: %d %s, want the OVERDUE export", st, lower)
			}
			st, _, body = d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=SOMETIMES", headers: hdr("dev-1", d.token(t, "noor"))})
			wantError(t, 400, 3, st, body)
		})

		t.Run("group notifications: each change once, cursor and ack, long poll", func(t *testing.T) {
			_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
			gt := lg["groupToken"].(string)
			// Read until the overdue deadline's event is listed (once
			// sequenced: see DraftsArePrivate), then count.
			var m map[string]any
			kinds := map[string]int{}
			for deadline := time.Now().Add(15 * time.Second); kinds["DEADLINE_OVERDUE"] == 0 && time.Now().Before(deadline); {
				var raw []byte
				_, m, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"waitSeconds": 1})
				list, ok := m["notifications"].([]any)
				if !ok {
					t.Fatalf("list: %s", raw)
				}
				clear(kinds)
				for _, n := range list {
					kinds[n.(map[string]any)["kind"].(string)]++
				}
			}
			// Two acknowledgement deadlines of auth-nl: one was met, one overdue;
			// both passed through DUE_SOON on the way only if swept then.
			if kinds["DEADLINE_OVERDUE"] != 1 || kinds["DOCUMENT_STATE_CHANGED"] != 0 {
				t.Fatalf("notifications %v", kinds)
			}
			_, _, _ = d.post(t, ntf+"AckNotifications", hdr("dev-1", gt), map[string]any{"cursor": m["nextCursor"]})
			start := time.Now()
			_, m, _ = d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"waitSeconds": 1})
			if len(m["notifications"].([]any)) != 0 || time.Since(start) < 900*time.Millisecond {
				t.Fatalf("after ack: %v after %v", m, time.Since(start))
			}
			st, _, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", d.token(t, "noor")), map[string]any{})
			wantError(t, 401, 16, st, raw) // an access token is no group token
		})

		t.Run("metrics: the deadlines in hand and a sweep that stalled", func(t *testing.T) {
			if d.metric(t, "wasteflow_gauges_read") != 1 || d.metric(t, `wasteflow_deadlines{state="OVERDUE"}`) != 1 ||
				d.metric(t, "wasteflow_deadlines_unswept") != 0 || d.metric(t, `wasteflow_webhook_endpoints{state="enabled"}`) != 0 {
				t.Fatal("the gauges do not show one overdue deadline and nothing unswept")
			}
			// A running deadline that fell due an hour ago (by the real
			// clock) and was never swept: what a stopped sweep leaves.
			dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
			if err := d.db.Exec(`UPDATE deadlines SET due_at = ? WHERE document_id = ? AND rule = 'DECISION_DUE' AND party_org = 'auth-nl'`,
				time.Now().UTC().Add(-time.Hour), onTime).Error; err != nil {
				t.Fatal(err)
			}
			if got := d.metric(t, "wasteflow_deadlines_unswept"); got != 1 {
				t.Fatalf("unswept: %v, want 1", got)
			}
		})
	})
}
