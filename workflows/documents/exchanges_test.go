package documents_test

import (
	"fmt"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/documents"
)

func TestLatest(t *testing.T) {
	type item struct {
		n    int
		open bool
	}
	open := func(i *item) bool { return i.open }
	list := func(spec string) []item { // "o" open, "c" closed, numbered in order
		var out []item
		for i, c := range spec {
			out = append(out, item{i, c == 'o'})
		}
		return out
	}
	numbers := func(l []item) string {
		s := ""
		for _, i := range l {
			s += fmt.Sprint(i.n, " ")
		}
		return s
	}
	for _, c := range []struct {
		spec    string
		keep    int
		want    string
		omitted int32
	}{
		{"", 2, "", 0},
		{"cc", 2, "0 1 ", 0},
		{"ccc", 2, "1 2 ", 1},
		{"ococcoc", 2, "0 2 4 5 6 ", 2}, // every open one, the last 2 closed
		{"ooo", 0, "0 1 2 ", 0},         // open ones are never cut
		{"ccccco", 0, "5 ", 5},          // no closed one kept
		{"oooocccc", 3, "0 1 2 3 5 6 7 ", 1},
	} {
		got, omitted := documents.Latest(list(c.spec), open, c.keep)
		if numbers(got) != c.want || omitted != c.omitted {
			t.Errorf("Latest(%s, %d) = %s(%d omitted), want %s(%d)", c.spec, c.keep, numbers(got), omitted, c.want, c.omitted)
		}
	}
	// a list within the bound comes back as it is
	l := list("occ")
	if got, _ := documents.Latest(l, open, 2); &got[0] != &l[0] {
		t.Error("a list within the bound was copied")
	}
	if got, _ := documents.Latest(list("cc"), documents.AllClosed, 1); numbers(got) != "1 " {
		t.Errorf("AllClosed: %s", numbers(got))
	}
}
