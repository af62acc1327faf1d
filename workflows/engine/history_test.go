package engine_test

import (
	"slices"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

type record struct {
	Replies []string `json:"replies" maxItems:"2"`
	Notes   []string `json:"notes"`
}

type aggregate struct {
	Requests []record `json:"requests" maxItems:"3"`
	Free     []string `json:"free"`
}

func codesAt(berrs []engine.BusinessError) []string {
	var out []string
	for _, b := range berrs {
		out = append(out, b.Code+"@"+b.Field)
	}
	return out
}

// An act that grows a bounded list past its maxItems is refused, at the
// list's path, one level inside the elements too; unbounded lists, lists
// within their bound and lists an older release left over it (not grown)
// are left alone.
func TestHistoryFull(t *testing.T) {
	d := &aggregate{Requests: []record{{Replies: []string{"a", "b"}}, {}, {}}, Free: make([]string, 500)}
	before := engine.HistoryLengths(d, nil)
	if got := engine.HistoryFull(d, nil, before); got != nil {
		t.Fatalf("nothing grew: %v", got)
	}
	d.Requests = append(d.Requests, record{})
	d.Requests[0].Replies = append(d.Requests[0].Replies, "c")
	d.Free = append(d.Free, "x")
	d.Requests[1].Notes = make([]string, 1000)
	want := []string{"HISTORY_FULL@requests", "HISTORY_FULL@requests[0].replies"}
	if got := codesAt(engine.HistoryFull(d, nil, before)); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Over the bound before, not grown: an old document stays usable.
	if got := engine.HistoryFull(d, nil, engine.HistoryLengths(d, nil)); got != nil {
		t.Fatalf("nothing grew since: %v", got)
	}
}

// A list read without its first items (kept apart by the stored form,
// Eval.KeptApart) is bounded as the whole list, and its items' paths are
// their places in the whole list.
func TestHistoryFullCountsWhatIsKeptApart(t *testing.T) {
	d := &aggregate{Requests: []record{{Replies: []string{"a", "b"}}}}
	kept := map[string]int{"requests": 2} // the whole list: two closed, then d's one
	before := engine.HistoryLengths(d, kept)
	if before["requests"] != 3 || before["requests[2].replies"] != 2 {
		t.Fatalf("lengths %v, want the whole list's", before)
	}
	if got := engine.HistoryFull(d, kept, before); got != nil {
		t.Fatalf("nothing grew: %v", got)
	}
	d.Requests = append(d.Requests, record{})
	d.Requests[0].Replies = append(d.Requests[0].Replies, "c")
	want := []string{"HISTORY_FULL@requests", "HISTORY_FULL@requests[2].replies"}
	if got := codesAt(engine.HistoryFull(d, kept, before)); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := codesAt(engine.HistoryFull(d, nil, engine.HistoryLengths(d, nil))); got != nil {
		t.Fatalf("read whole, the same list is within its bound: %v", got)
	}
	ev := &engine.Eval{KeptApart: kept}
	if got := ev.Numbered("requests", 0); got != 3 {
		t.Fatalf("the first item read is request %d, want 3", got)
	}
	if got := (&engine.Eval{}).Numbered("requests", 0); got != 1 {
		t.Fatalf("read whole, the first item is request %d, want 1", got)
	}
}
