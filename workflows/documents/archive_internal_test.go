package documents

import (
	"strings"
	"testing"
)

// archiveCut keeps apart a prefix of closed items that leaves at least
// ClosedListed closed after it, grown ArchiveBatch or more at a time; what
// Latest lists of the rest is what it lists of the whole.
func TestArchiveCut(t *testing.T) {
	open := func(b *byte) bool { return *b == 'o' }
	for _, c := range []struct {
		items  string // "o" open, "c" closed
		before int
		want   int
	}{
		{"", 0, 0},
		{strings.Repeat("c", 19), 0, 0},  // 9 could go: fewer than a batch
		{strings.Repeat("c", 20), 0, 10}, // a batch
		{strings.Repeat("c", 29), 10, 10},
		{strings.Repeat("c", 30), 10, 20},
		{strings.Repeat("c", 34), 20, 20},
		{strings.Repeat("c", 34), 0, 24},      // a row written whole: all that can go at once
		{"o" + strings.Repeat("c", 40), 0, 0}, // an open item stops the prefix
		{strings.Repeat("c", 12) + "o" + strings.Repeat("c", 20), 0, 12},
		{strings.Repeat("c", 15) + strings.Repeat("o", 20), 10, 5}, // fewer than 10 closed after the cut: it shrinks
		{strings.Repeat("c", 25), 18, 15},                          // a count that no longer holds
	} {
		items := []byte(c.items)
		got := archiveCut(items, open, c.before, 0)
		if got != c.want {
			t.Errorf("%q, %d kept apart before: %d, want %d", c.items, c.before, got, c.want)
			continue
		}
		whole, _ := Latest(items, open, ClosedListed)
		rest, _ := Latest(items[got:], open, ClosedListed)
		if string(whole) != string(rest) {
			t.Errorf("%q cut at %d: Latest lists %q, of the whole %q", c.items, got, rest, whole)
		}
		// An act reads the list without the items kept apart before (when
		// they still are what a cut keeps apart): the same cut.
		if c.before <= got {
			if hot := archiveCut(items[c.before:], open, c.before, c.before); hot != got {
				t.Errorf("%q, %d kept apart and not read: %d, want %d", c.items, c.before, hot, got)
			}
		}
	}
}
