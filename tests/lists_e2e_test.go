package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// list calls ListDocuments (the company or authority one, by the user's
// organisation) and returns the entries and the total.
func (d *docEnv) list(t *testing.T, user string, body map[string]any) ([]map[string]any, string) {
	t.Helper()
	op := co + "ListDocuments"
	if slices.Contains([]string{"noor", "bernd", "bart"}, user) {
		op = au + "ListDocuments"
	}
	st, m, raw := d.call(t, user, op, body)
	if st != 200 {
		t.Fatalf("%s ListDocuments %v: HTTP %d %s", user, body, st, raw)
	}
	var out []map[string]any
	for _, e := range m["entries"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out, m["total"].(string)
}

func ids(entries []map[string]any) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e["documentId"].(string))
	}
	return out
}

func intentNames(e map[string]any) []string {
	var out []string
	for _, f := range e["followUpIntents"].([]any) {
		out = append(out, f.(map[string]any)["intent"].(string))
	}
	return out
}

func filter(path, op string, operands ...map[string]any) map[string]any {
	ops := []any{}
	for _, o := range operands {
		ops = append(ops, o)
	}
	return map[string]any{"path": path, "op": op, "operands": ops}
}

func s(v string) map[string]any { return map[string]any{"s": v} }

// checkLists asserts that every user's list shows exactly the documents
// the user may read, each with the follow-up intents its Get operation
// offers, and that the work queue holds exactly those with an intent.
func (d *docEnv) checkLists(t *testing.T, users ...string) {
	t.Helper()
	get := map[string]string{"NOTIFICATION": co + "GetNotification", "ANNEX_VII": co + "GetAnnex7", "MOVEMENT": co + "GetMovement"}
	for _, u := range users {
		all, total := d.list(t, u, map[string]any{"qpar": map[string]any{"pageSize": 500}})
		if total != fmt.Sprint(len(all)) {
			t.Fatalf("%s: total %s for %d entries", u, total, len(all))
		}
		var queue []string
		for _, e := range all {
			_, want := d.read(t, u, get[e["kind"].(string)], e["documentId"].(string))
			if got := intentNames(e); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("%s: %s %s in state %s lists intents %v, its Get offers %v", u, e["kind"], e["number"], e["state"], got, want)
			}
			if len(want) > 0 {
				queue = append(queue, e["documentId"].(string))
			}
		}
		q, _ := d.list(t, u, map[string]any{"actionable": true, "qpar": map[string]any{"pageSize": 500}})
		got := ids(q)
		slices.Sort(got)
		slices.Sort(queue)
		if !slices.Equal(got, queue) {
			t.Fatalf("%s: work queue %v, want the documents with intents %v", u, got, queue)
		}
	}
}

func TestDocumentLists(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) { listsFlow(t, startDocs(t, dbcfg)) })
}

func listsFlow(t *testing.T, d *docEnv) {
	// A minute between the steps: the lists' default order is the latest change first.
	draft := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
	d.clock.Advance(time.Minute)
	filed := d.submitted(t)
	d.clock.Advance(time.Minute)
	acked := d.submitted(t)
	d.clock.Advance(time.Minute)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": acked})
	d.clock.Advance(time.Minute)
	a7 := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)

	// Everything alice's organisation is a party to, newest change first.
	all, total := d.list(t, "alice", map[string]any{})
	if total != "4" || strings.Join(ids(all), ",") != strings.Join([]string{a7, acked, filed, draft}, ",") {
		t.Fatalf("alice's list: total %s, %v", total, ids(all))
	}
	e := all[1]
	if e["kind"] != "NOTIFICATION" || e["state"] != "ACKNOWLEDGED" || e["version"] != "3" || e["notificationId"] != "" ||
		!strings.HasPrefix(e["number"].(string), "DE-2026-") || fmt.Sprint(e["roles"]) != "[NOTIFIER PRODUCER]" {
		t.Fatalf("entry: %v", e)
	}
	// A party that is not concerned sees nothing; no hint of the others.
	if es, total := d.list(t, "eve", map[string]any{}); total != "0" || len(es) != 0 {
		t.Fatalf("eve sees %v", es)
	}

	// The authority of destination's work queue: the filed notification
	// (acknowledge it) and the acknowledged one (decide), nearest deadline first.
	q, total := d.list(t, "noor", map[string]any{"actionable": true})
	if total != "2" || strings.Join(ids(q), ",") != filed+","+acked {
		t.Fatalf("noor's work queue: %s %v", total, ids(q))
	}
	if nd := q[0]["nextDeadline"].(map[string]any); nd["rule"] != "ACKNOWLEDGEMENT_DUE" || nd["state"] != "OPEN" || nd["dueAt"] == "" {
		t.Fatalf("next deadline: %v", nd)
	}
	if fu := q[0]["followUpIntents"].([]any)[0].(map[string]any); fu["intent"] != "ACKNOWLEDGEMENT" || fu["dueAt"] != q[0]["nextDeadline"].(map[string]any)["dueAt"] {
		t.Fatalf("follow-up: %v", fu)
	}
	if q[1]["nextDeadline"].(map[string]any)["rule"] != "DECISION_DUE" {
		t.Fatalf("next deadline of the acknowledged notification: %v", q[1]["nextDeadline"])
	}
	// The annex VII draft names noor, but a draft is the arranger's alone.
	if all, _ := d.list(t, "noor", map[string]any{}); slices.Contains(ids(all), a7) {
		t.Fatalf("noor's list shows an Annex VII draft: %v", ids(all))
	}

	// Filters in any case, sorts, paging, masks.
	es, total := d.list(t, "alice", map[string]any{"qpar": map[string]any{
		"filter": []any{filter("kind", "EQUAL", s("notification")), filter("state", "IN_LIST", s("submitted"), s("Acknowledged"))},
		"sort":   []any{map[string]any{"path": "number", "direction": "ASC"}}, "pageSize": 1, "pageStart": 1}})
	if total != "2" || strings.Join(ids(es), ",") != acked {
		t.Fatalf("filtered page 2: %s %v", total, ids(es))
	}
	es, _ = d.list(t, "alice", map[string]any{"qpar": map[string]any{"mask": "number,state",
		"filter": []any{filter("number", "EQUAL", s(all[0]["number"].(string)))}}})
	if len(es) != 1 || es[0]["number"] != all[0]["number"] || es[0]["state"] != "DRAFT" || es[0]["documentId"] != "" || es[0]["nextDeadline"] != nil {
		t.Fatalf("masked: %v", es)
	}
	es, _ = d.list(t, "noor", map[string]any{"qpar": map[string]any{"filter": []any{filter("next_deadline.due_at", "IS_NOT_NULL")},
		"sort": []any{map[string]any{"path": "next_deadline.due_at", "direction": "DESC"}}}})
	if strings.Join(ids(es), ",") != acked+","+filed {
		t.Fatalf("by due date, latest first: %v", ids(es))
	}
	for _, bad := range []map[string]any{
		{"filter": []any{filter("data.secret", "EQUAL", s("x"))}},
		{"sort": []any{map[string]any{"path": "owner"}}},
		{"filter": []any{filter("state", "EQUAL", s("FLYING"))}},
		{"mask": "numbr"},
	} {
		st, _, raw := d.call(t, "alice", co+"ListDocuments", map[string]any{"qpar": bad})
		wantError(t, 400, 3, st, raw, "qpar")
	}

	// Each face serves its own organisations.
	st, _, raw := d.call(t, "noor", co+"ListDocuments", map[string]any{})
	wantError(t, 403, 7, st, raw, "AuthorityDocumentApi/ListDocuments")
	st, _, raw = d.call(t, "alice", au+"ListDocuments", map[string]any{})
	wantError(t, 403, 7, st, raw)

	d.checkLists(t, "alice", "noor", "bernd", "rita", "tom")

	// Documents stored before the lists existed are indexed at start.
	if err := d.db.Exec("DELETE FROM document_entries").Error; err != nil {
		t.Fatal(err)
	}
	if n, err := d.notes.IndexEntries(context.Background(), false); err != nil || n != 4 {
		t.Fatalf("indexed %d documents: %v", n, err)
	}
	if n, err := d.notes.IndexEntries(context.Background(), false); err != nil || n != 0 {
		t.Fatalf("indexed %d documents once more: the migration's task runs once (%v)", n, err)
	}
	if n, err := d.notes.IndexEntries(context.Background(), true); err != nil || n != 4 { // admin reindex
		t.Fatalf("reindexed %d documents: %v", n, err)
	}
	var n int64
	d.db.Model(&models.DocumentEntry{}).Count(&n)
	if n == 0 {
		t.Fatal("no entries after indexing")
	}
	d.checkLists(t, "alice", "noor", "rita")
}

// TestWorkQueuesFollowTheLifecycle walks a notification with two
// movements through consent, transport and the notification's closure:
// after every step each party's list offers what its Get offers, and a
// movement leaves the carrier's queue once its notification's consent
// ends.
func TestWorkQueuesFollowTheLifecycle(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) { workQueueFlow(t, startDocs(t, dbcfg)) })
}

func workQueueFlow(t *testing.T, d *docEnv) {
	users := []string{"alice", "noor", "bernd", "bart", "rita", "tom", "sam"}
	nid := d.consented(t, shippable(3))
	d.checkLists(t, users...)
	m1 := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-04", 10)})["id"].(string)
	d.clock.Advance(time.Minute)
	m2 := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-04", 10)})["id"].(string)
	es, total := d.list(t, "alice", map[string]any{"qpar": map[string]any{"filter": []any{filter("notification_id", "EQUAL", s(nid))},
		"sort": []any{map[string]any{"path": "number"}}}})
	if total != "2" || strings.Join(ids(es), ",") != m1+","+m2 || es[0]["notificationId"] != nid || es[0]["kind"] != "MOVEMENT" {
		t.Fatalf("movements of the notification: %v", es)
	}
	d.checkLists(t, users...)
	d.advanceTo(t, "2026-12-04")
	d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": m1, "carrierTransport": map[string]any{
		"carrierOrganisationId": "truck", "meansOfTransport": "ROAD", "vehicleId": "M-WF 1", "takenOverOn": "2026-12-04"}})
	d.checkLists(t, users...)
	q, _ := d.list(t, "tom", map[string]any{"actionable": true, "qpar": map[string]any{"filter": []any{filter("kind", "EQUAL", s("MOVEMENT"))}}})
	if strings.Join(ids(q), ",") != m2 {
		t.Fatalf("tom's queue after taking m1 over: %v", ids(q))
	}
	// The consent is cancelled: m2 can no longer start, so it leaves
	// the carriers' queues; m1, under way, stays in the consignee's.
	d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": nid, "notificationSignal": map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "fraud"}})
	d.checkLists(t, users...)
	q, _ = d.list(t, "tom", map[string]any{"actionable": true, "qpar": map[string]any{"filter": []any{filter("kind", "EQUAL", s("MOVEMENT"))}}})
	if len(q) != 0 {
		t.Fatalf("tom's queue after the consent was cancelled: %v", ids(q))
	}
}
