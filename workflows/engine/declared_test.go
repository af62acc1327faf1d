package engine

import (
	"slices"
	"testing"
)

// A code an intent reports without declaring it is named once; a declared
// one is not.
func TestUndeclaredCodes(t *testing.T) {
	in := &Intent{Name: "TEST_INTENT", Errors: []string{"DECLARED"}}
	got := UndeclaredCodes(in, []BusinessError{{Code: "DECLARED"}, {Code: "SURPRISE"}, {Code: "SURPRISE"}})
	if !slices.Equal(got, []string{"SURPRISE"}) {
		t.Fatalf("undeclared: %v", got)
	}
	if got := UndeclaredCodes(in, nil); got != nil {
		t.Fatalf("none reported: %v", got)
	}
}
