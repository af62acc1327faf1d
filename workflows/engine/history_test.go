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
	before := engine.HistoryLengths(d)
	if got := engine.HistoryFull(d, before); got != nil {
		t.Fatalf("nothing grew: %v", got)
	}
	d.Requests = append(d.Requests, record{})
	d.Requests[0].Replies = append(d.Requests[0].Replies, "c")
	d.Free = append(d.Free, "x")
	d.Requests[1].Notes = make([]string, 1000)
	want := []string{"HISTORY_FULL@requests", "HISTORY_FULL@requests[0].replies"}
	if got := codesAt(engine.HistoryFull(d, before)); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Over the bound before, not grown: an old document stays usable.
	if got := engine.HistoryFull(d, engine.HistoryLengths(d)); got != nil {
		t.Fatalf("nothing grew since: %v", got)
	}
}
