package models

import (
	"strings"
	"testing"
)

func TestSplitAndJoinArchive(t *testing.T) {
	whole := `{"a":[{"x":1},{"x":"[,]"},{"x":3}],"b":[1,2],"c":"[",` + `"d":[]}`
	for _, tc := range []struct {
		cuts               []ArchiveCut
		hot, archive, cnts string
	}{
		{nil, whole, "", ""},
		{[]ArchiveCut{{"a", 0}}, whole, "", ""},
		{[]ArchiveCut{{"a", 1}}, `{"a":[{"x":"[,]"},{"x":3}],"b":[1,2],"c":"[","d":[]}`, `{"a":[{"x":1}]}`, `{"a":1}`},
		{[]ArchiveCut{{"b", 2}, {"a", 2}}, `{"a":[{"x":3}],"b":[],"c":"[","d":[]}`, `{"a":[{"x":1},{"x":"[,]"}],"b":[1,2]}`, `{"a":2,"b":2}`},
	} {
		hot, archive, cnts, err := SplitArchive([]byte(whole), tc.cuts)
		if err != nil {
			t.Fatalf("%v: %v", tc.cuts, err)
		}
		if string(hot) != tc.hot || archive != tc.archive || cnts != tc.cnts {
			t.Errorf("%v: split into %s | %s | %s, want %s | %s | %s", tc.cuts, hot, archive, cnts, tc.hot, tc.archive, tc.cnts)
		}
		back, err := JoinArchive(string(hot), archive)
		if err != nil || back != whole {
			t.Errorf("%v: joined back to %s (%v), want %s", tc.cuts, back, err, whole)
		}
		// PostgreSQL's jsonb text: other spacing and member order.
		spaced := strings.NewReplacer(`,"`, `, "`, `":`, `": `).Replace(string(hot))
		if back, err := JoinArchive(spaced, archive); err != nil || !sameValue(t, back, whole) {
			t.Errorf("%v: joined %s back to %s (%v)", tc.cuts, spaced, back, err)
		}
	}
	if _, _, _, err := SplitArchive([]byte(whole), []ArchiveCut{{"b", 3}}); err == nil {
		t.Error("cutting more items than a list has: no error")
	}
	if _, _, _, err := SplitArchive([]byte(whole), []ArchiveCut{{"c", 1}}); err == nil {
		t.Error("cutting a string: no error")
	}
	if got, err := JoinArchive(`{"a":null}`, `{"a":[1,2]}`); err != nil || got != `{"a":[1,2]}` {
		t.Errorf("a null list joined to %s (%v)", got, err)
	}
	if _, err := JoinArchive(`{"b":[]}`, `{"a":[1]}`); err == nil {
		t.Error("an archive of a list the aggregate lacks: no error")
	}
	if n, err := ArchivedCounts(`{"a":2,"b":40}`); err != nil || n["a"] != 2 || n["b"] != 40 || len(n) != 2 {
		t.Errorf("counts %v (%v)", n, err)
	}
	if n, err := ArchivedCounts(""); err != nil || n != nil {
		t.Errorf("no counts: %v (%v)", n, err)
	}
}

func sameValue(t *testing.T, a, b string) bool {
	t.Helper()
	return strings.ReplaceAll(a, " ", "") == strings.ReplaceAll(b, " ", "")
}
