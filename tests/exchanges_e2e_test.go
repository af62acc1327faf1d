package tests

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A notification with a long history carries its open exchanges and the
// 10 latest closed ones of each list, and counts the rest
// (exchangesOmitted); GetDocument with fullHistory returns every list
// whole (issue 49.4). Every read and act bounds the lists the same way; a
// cut container sent back through SetByIntent deletes nothing.
func TestNotificationListsTheLatestExchanges(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": nid})
		ask := func(user, face string, i int) map[string]any {
			return d.ok(t, user, face+"SetRequestInformation", map[string]any{"documentId": nid, "requestInformation": map[string]any{"questions": []string{fmt.Sprint("question ", i)}}})
		}
		reply := func(complete bool) map[string]any {
			return d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": nid, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": complete}})
		}
		for i := 1; i <= 13; i++ {
			ask("noor", au, i)
			reply(true)
		}
		ask("noor", au, 14)
		reply(false) // the 14th stays open

		// requests lists the questions of a document's requests, and
		// omitted its count of those left out
		requests := func(doc map[string]any) (qs []string, open []bool, omitted any) {
			t.Helper()
			for _, r := range doc["informationRequests"].([]any) {
				r := r.(map[string]any)
				qs = append(qs, r["questions"].([]any)[0].(string))
				open = append(open, r["open"] == true)
			}
			o := doc["exchangesOmitted"].(map[string]any)
			for k, v := range o {
				if k != "informationRequests" && v != float64(0) {
					t.Fatalf("exchangesOmitted.%s = %v", k, v)
				}
			}
			return qs, open, o["informationRequests"]
		}
		want := func(what string, doc map[string]any, from, to int, omitted float64, lastOpen bool) {
			t.Helper()
			qs, open, om := requests(doc)
			var w []string
			for i := from; i <= to; i++ {
				w = append(w, fmt.Sprint("question ", i))
			}
			if fmt.Sprint(qs) != fmt.Sprint(w) || om != omitted || open[len(open)-1] != lastOpen {
				t.Fatalf("%s: requests %v (the last open: %v), %v omitted; want %v, %v omitted", what, qs, open[len(open)-1], om, w, omitted)
			}
		}
		for _, c := range []struct{ user, op string }{{"alice", co + "GetNotification"}, {"alice", co + "GetDocument"}, {"noor", au + "GetDocument"}} {
			doc, _ := d.read(t, c.user, c.op, nid)
			if n, ok := doc["notification"].(map[string]any); ok && doc["informationRequests"] == nil { // GetDocument's container
				doc = n
			}
			want(c.user+" "+c.op, doc, 4, 14, 3, true)
		}
		full := func(user, face string) map[string]any {
			st, m, raw := d.call(t, user, face+"GetDocument", map[string]any{"documentId": nid, "fullHistory": true})
			if st != 200 {
				t.Fatalf("GetDocument with fullHistory: %d %s", st, raw)
			}
			return m["document"].(map[string]any)["notification"].(map[string]any)
		}
		want("fullHistory", full("alice", co), 1, 14, 0, true)

		// An act's answer is bounded the same way: the 14th closes, and
		// the 10 latest closed are 5 to 14.
		want("the act's answer", reply(true), 5, 14, 4, false)

		// The cut container goes back through SetByIntent: nothing is
		// deleted, the answer lists the latest part again.
		doc, _ := d.read(t, "noor", au+"GetDocument", nid)
		doc = doc["notification"].(map[string]any)
		doc["requestInformation"] = map[string]any{"questions": []string{"question 15"}}
		st, m, raw := d.call(t, "noor", au+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "REQUEST_INFORMATION"})
		if st != 200 || len(m["businessErrors"].([]any)) != 0 {
			t.Fatalf("SetByIntent with the cut container: %d %s", st, raw)
		}
		want("SetByIntent's answer", m["document"].(map[string]any)["notification"].(map[string]any), 5, 15, 4, true)
		want("fullHistory after SetByIntent", full("noor", au), 1, 15, 0, true)

		// The time limits: those running or suspended, then the 20 that
		// ended latest; fullHistory lists all of them.
		reply(true)
		for i := 16; i <= 25; i++ {
			ask("noor", au, i)
			reply(true)
		}
		all := full("alice", co)
		var running, ended []any
		for _, x := range all["deadlines"].([]any) {
			switch x.(map[string]any)["state"] {
			case "OPEN", "DUE_SOON", "OVERDUE", "SUSPENDED":
				running = append(running, x)
			default:
				ended = append(ended, x)
			}
		}
		if all["deadlinesOmitted"] != float64(0) || len(ended) <= 20 {
			t.Fatalf("fullHistory: %d time limits ended, %v omitted", len(ended), all["deadlinesOmitted"])
		}
		doc, _ = d.read(t, "alice", co+"GetNotification", nid)
		listed := doc["deadlines"].([]any)
		if doc["deadlinesOmitted"] != float64(len(ended)-20) || len(listed) != len(running)+20 {
			t.Fatalf("GetNotification: %d time limits listed, %v omitted; of %d running and %d ended", len(listed), doc["deadlinesOmitted"], len(running), len(ended))
		}
		for _, x := range append(running, ended[len(ended)-20:]...) {
			if !slices.ContainsFunc(listed, func(y any) bool { return fmt.Sprint(x) == fmt.Sprint(y) }) {
				t.Fatalf("GetNotification leaves out %v", x)
			}
		}
	})
}

// The oldest closed exchanges are kept apart from the aggregate an act
// rewrites (issue 49.2): the row's data keeps every open item and at least
// the 10 latest closed of each list, its archive the others, moved a batch
// of 10 or more at a time. Every read answers as if the aggregate were
// whole: GetDocument lists the same part and counts the same omitted,
// fullHistory every item in order, an act's answer the same; a row
// written before the split (no archive) reads the same and is split by its
// next act. The replay at the test's end (replay_hook_test.go) rebuilds
// the whole from the trail and compares it with the row read whole.
func TestNotificationKeepsClosedExchangesApart(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": nid})
		ask := func(i int) {
			d.ok(t, "noor", au+"SetRequestInformation", map[string]any{"documentId": nid, "requestInformation": map[string]any{"questions": []string{fmt.Sprint("question ", i)}}})
		}
		reply := func() map[string]any {
			return d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": nid, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
		}
		stored := func() (kept int, first string, archived string) {
			t.Helper()
			var row struct {
				Data, Archive, Archived string
			}
			if err := d.db.Raw("SELECT CAST(data AS TEXT) AS data, archive, archived FROM documents WHERE id = ?", nid).Scan(&row).Error; err != nil {
				t.Fatal(err)
			}
			var agg struct {
				InformationRequests []struct{ Questions []string }
			}
			if err := json.Unmarshal([]byte(row.Data), &agg); err != nil {
				t.Fatal(err)
			}
			if (row.Archive == "") != (row.Archived == "") {
				t.Fatalf("archive %.40q with counts %q", row.Archive, row.Archived)
			}
			return len(agg.InformationRequests), agg.InformationRequests[0].Questions[0], row.Archived
		}
		questions := func(doc map[string]any) (qs []string) {
			for _, r := range doc["informationRequests"].([]any) {
				qs = append(qs, r.(map[string]any)["questions"].([]any)[0].(string))
			}
			return qs
		}
		span := func(from, to int) (qs []string) {
			for i := from; i <= to; i++ {
				qs = append(qs, fmt.Sprint("question ", i))
			}
			return qs
		}
		reads := func(what string, from, to int, omitted float64) {
			t.Helper()
			doc, _ := d.read(t, "alice", co+"GetNotification", nid)
			if got := questions(doc); !slices.Equal(got, span(from, to)) || doc["exchangesOmitted"].(map[string]any)["informationRequests"] != omitted {
				t.Fatalf("%s: GetNotification lists %v with %v omitted; want %d to %d with %v", what, got, doc["exchangesOmitted"], from, to, omitted)
			}
			st, m, raw := d.call(t, "noor", au+"GetDocument", map[string]any{"documentId": nid, "fullHistory": true})
			if st != 200 {
				t.Fatalf("%s: fullHistory: %d %s", what, st, raw)
			}
			full := m["document"].(map[string]any)["notification"].(map[string]any)
			if got := questions(full); !slices.Equal(got, span(1, to)) {
				t.Fatalf("%s: fullHistory lists %v", what, got)
			}
			// the follow-up intents, read of the row's data alone, are those of the whole
			_, _, bounded := d.call(t, "noor", au+"GetDocument", map[string]any{"documentId": nid})
			if got, whole := followUps(t, bounded), followUps(t, raw); got != whole {
				t.Fatalf("%s: follow-up intents %s, of the whole %s", what, got, whole)
			}
		}
		for i := 1; i <= 19; i++ {
			ask(i)
			reply()
		}
		if kept, _, archived := stored(); kept != 19 || archived != "" {
			t.Fatalf("19 closed requests: %d in the row, %q kept apart; want all in the row", kept, archived)
		}
		ask(20)
		if got := questions(reply()); !slices.Equal(got, span(11, 20)) { // the act's answer reads the whole
			t.Fatalf("the 20th reply's answer lists %v", got)
		}
		if kept, first, archived := stored(); kept != 10 || first != "question 11" || archived != `{"informationRequests":10}` {
			t.Fatalf("20 closed requests: %d in the row from %q, %s kept apart; want 10 from question 11, 10 kept apart", kept, first, archived)
		}
		reads("20 closed", 11, 20, 10)
		for i := 21; i <= 34; i++ {
			ask(i)
			reply()
		}
		if kept, first, archived := stored(); kept != 14 || first != "question 21" || archived != `{"informationRequests":20}` {
			t.Fatalf("34 closed requests: %d in the row from %q, %s kept apart; want 14 from question 21, 20 kept apart", kept, first, archived)
		}
		reads("34 closed", 25, 34, 24)

		// A row as written before the split: the aggregate whole in data.
		var row struct{ Data, Archive string }
		if err := d.db.Raw("SELECT CAST(data AS TEXT) AS data, archive FROM documents WHERE id = ?", nid).Scan(&row).Error; err != nil {
			t.Fatal(err)
		}
		whole, err := models.JoinArchive(row.Data, row.Archive)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.db.Exec("UPDATE documents SET data = ?, archive = '', archived = '' WHERE id = ?", whole, nid).Error; err != nil {
			t.Fatal(err)
		}
		if kept, _, _ := stored(); kept != 34 {
			t.Fatalf("the row written whole keeps %d requests", kept)
		}
		reads("a row written whole", 25, 34, 24)
		ask(35) // its next act splits it: the 24 oldest apart, 10 closed and the open one in the row
		if kept, first, archived := stored(); kept != 11 || first != "question 25" || archived != `{"informationRequests":24}` {
			t.Fatalf("the next act: %d in the row from %q, %s kept apart; want 11 from question 25, 24 kept apart", kept, first, archived)
		}
		reads("split again", 25, 35, 24)
	})
}

// followUps are the followUpIntents of a GetDocument answer, as JSON.
func followUps(t *testing.T, raw []byte) string {
	t.Helper()
	var m struct{ FollowUpIntents json.RawMessage }
	if err := json.Unmarshal(raw, &m); err != nil || len(m.FollowUpIntents) < 3 {
		t.Fatalf("no followUpIntents in %.200s (%v)", raw, err)
	}
	return string(m.FollowUpIntents)
}

// An act reads the row without the exchanges it keeps apart (issue 49.2),
// and still numbers an exchange by its place in the whole list: the audit
// trail's words ("change request 22 …", "supersedes correction 24 …")
// are those of a document read whole, and the replay, which reads every
// act whole, notes the same (dbtest's replay at the end checks each
// note). A list's bound counts the items kept apart too.
func TestNotificationNumbersExchangesKeptApart(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		archived := func(id string) string {
			t.Helper()
			var a string
			if err := d.db.Raw("SELECT archived FROM documents WHERE id = ?", id).Scan(&a).Error; err != nil {
				t.Fatal(err)
			}
			return a
		}
		notes := func(id, like string) (out []string) {
			t.Helper()
			if err := d.db.Raw("SELECT detail FROM audit_events WHERE document_id = ? AND detail LIKE ? ORDER BY seq", id, like).Scan(&out).Error; err != nil {
				t.Fatal(err)
			}
			return out
		}

		// Corrections after the acknowledgement: each supersedes the one
		// pending before it.
		nid := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": nid})
		c := content()
		for i := 1; i <= 25; i++ {
			c["numberOfShipments"] = i
			d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": nid, "notification": c})
		}
		if got := archived(nid); got != `{"corrections":10}` {
			t.Fatalf("25 corrections, 24 superseded: %q kept apart, want 10", got)
		}
		if got := notes(nid, "supersedes correction%"); len(got) != 24 || !strings.HasPrefix(got[23], "supersedes correction 24 of ") {
			t.Fatalf("the superseding notes: %d, the last %q", len(got), got[len(got)-1])
		}

		// Change requests, each rejected; the 22nd stays open through a
		// revalidation and is closed by a cancellation.
		cid := d.consented(t, shippable(3))
		for i := 1; i <= 22; i++ {
			d.changeRequest(t, cid, shippable(3), 3+i, "")
			if i == 22 {
				break
			}
			for _, u := range []string{"bernd", "noor", "bart"} {
				d.ok(t, u, au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": cid, "replyToRequestForChange": map[string]any{"result": "REJECTED", "grounds": "no"}})
			}
		}
		if got := archived(cid); got != `{"changeRequests":10}` {
			t.Fatalf("22 change requests, 21 closed: %q kept apart, want 10", got)
		}
		d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": cid, "notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-08-01", "extendsShipmentPeriod": true}})
		d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": cid, "notificationSignal": map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "fraud"}})
		got := notes(cid, "%change request%")
		want := []string{"change request 21 proposes new numberOfShipments", "change request 21 rejected by",
			"change request 22 proposes new numberOfShipments", "change request 22 stays open", "change request 22 closed before every authority replied"}
		var last []string
		for _, n := range got {
			for _, w := range want {
				if strings.Contains(n, w) {
					last = append(last, w)
				}
			}
		}
		if !slices.Equal(last[len(last)-len(want):], want) {
			t.Fatalf("the change requests' notes end %q, want %q", last[max(len(last)-len(want), 0):], want)
		}
		doc, _ := d.read(t, "alice", co+"GetNotification", cid)
		if om := doc["exchangesOmitted"].(map[string]any)["changeRequests"]; om != float64(12) {
			t.Fatalf("changeRequests omitted %v, want 12 (22 requests, all closed, the 10 latest listed)", om)
		}
	})
}
