package engine

import (
	"slices"
	"testing"
)

// A code an intent reports without declaring it is recorded once; a
// declared one is not.
func TestNoteUndeclared(t *testing.T) {
	in := &Intent{Name: "TEST_INTENT", Errors: []string{"DECLARED"}}
	NoteUndeclared("TEST_KIND", in, []BusinessError{{Code: "DECLARED"}, {Code: "SURPRISE"}, {Code: "SURPRISE"}})
	got := slices.DeleteFunc(Undeclared(), func(s string) bool { return s[:9] != "TEST_KIND" })
	if !slices.Equal(got, []string{"TEST_KIND TEST_INTENT SURPRISE"}) {
		t.Fatalf("undeclared: %v", got)
	}
}
