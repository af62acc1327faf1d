package documents_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/documents"
)

// The README's table of register columns is the register's: every column
// in order, with its headers.
func TestREADMEListsTheRegisterColumns(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	last := -1
	for _, c := range documents.RegisterColumns {
		row := "| `" + c.Key + "` | " + c.En + " | " + c.De + " | " + c.Source + " |"
		at := strings.Index(readme, row)
		if at < 0 || at < last {
			t.Errorf("the README lacks the row of column %s (or has it out of order): %s", c.Key, row)
		}
		last = at
	}
}
