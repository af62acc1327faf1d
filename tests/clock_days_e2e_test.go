package tests

import (
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

const opListDeadlines = "/svc.core.v1.api.DeadlineReportApi/ListDeadlines"

// listDeadlines is ListDeadlines as user, default order, one page.
func (d *docEnv) listDeadlines(t *testing.T, user string) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, user, opListDeadlines, map[string]any{"qpar": map[string]any{"pageSize": 200}})
	if st != 200 {
		t.Fatalf("ListDeadlines as %s: %d %s", user, st, raw)
	}
	return m
}

// A deadline list counts days on the provider's clock: after the test
// clock moved past a deadline, ListDeadlines answers the provider's now and,
// for every running deadline, the calendar and working days GetDocument
// shows for it (at the acting party's place, a Land's holidays too); an
// overdue one's are negative; a closed one has none.
func TestDeadlineListCountsDaysOnTheProviderClock(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		late := d.submitted(t) // acknowledgement due from auth-nl in 10 working days
		running := d.submitted(t)
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": running}) // decisions due, auth-de in Bavaria among them
		if st, _, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 20}); st != 200 {
			t.Fatalf("AdvanceTestClock: %d %s", st, raw)
		}
		_, clk, _ := d.call(t, "alice", clockAPI+"GetTestClock", map[string]any{})
		list := d.listDeadlines(t, "alice")
		now, err := time.Parse(time.RFC3339Nano, str(list["now"]))
		clockNow, _ := time.Parse(time.RFC3339Nano, str(clk["now"]))
		if err != nil || now.Before(clockNow) || now.Sub(clockNow) > time.Minute {
			t.Fatalf("the list's now %v, want the provider's test clock's %v (20 days ahead of the server's %v)", list["now"], clk["now"], d.clock.Now())
		}
		docs := map[string]map[string]any{}
		checked, overdue := 0, 0
		for _, x := range list["entries"].([]any) {
			e := x.(map[string]any)
			id := str(e["documentId"])
			if docs[id] == nil {
				docs[id], _ = d.get(t, "alice", id)
			}
			want := deadline(docs[id], str(e["rule"]), str(e["party"]))
			if want == nil || want["state"] != e["state"] {
				t.Fatalf("list entry %v; GetDocument shows %v", e, want)
			}
			if e["daysLeft"] != want["daysLeft"] || e["workingDaysLeft"] != want["workingDaysLeft"] {
				t.Errorf("%s %s of %s: the list counts %v days (%v working), GetDocument %v (%v working)",
					e["rule"], e["party"], e["documentNumber"], e["daysLeft"], e["workingDaysLeft"], want["daysLeft"], want["workingDaysLeft"])
			}
			switch e["state"] {
			case "OPEN", "DUE_SOON", "OVERDUE":
				if e["daysLeft"] == nil || e["workingDaysLeft"] == nil {
					t.Errorf("running deadline without its days: %v", e)
				}
				checked++
			default:
				if e["daysLeft"] != nil || e["workingDaysLeft"] != nil {
					t.Errorf("%s deadline with days left: %v", e["state"], e)
				}
			}
			if id == late && e["rule"] == "ACKNOWLEDGEMENT_DUE" {
				overdue++
				if e["state"] != "OVERDUE" || !(num(e["daysLeft"]) < 0) || !(num(e["workingDaysLeft"]) < 0) {
					t.Errorf("the acknowledgement 20 days on: %v, want OVERDUE with negative days", e)
				}
			}
		}
		if overdue != 1 || checked < 4 {
			t.Fatalf("%d overdue acknowledgements and %d running deadlines in %v", overdue, checked, list)
		}
	})
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) float64 {
	f, ok := v.(float64)
	if !ok {
		return 0
	}
	return f
}
