package documents

import (
	"fmt"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// listed picks what a retrieval document lists of a large family as the
// store's bounded read does: the caller's children only, the open ones
// first, then the latest, oldest first, and counts what it leaves out.
func TestListedChildren(t *testing.T) {
	final := []string{"DONE"}
	var children []Child
	for i := range 70 {
		c := Child{Related: engine.Related{ID: fmt.Sprintf("c%02d", i), State: "OPEN"}, Visible: i%7 != 3}
		if i < 5 || i >= 60 { // the oldest five stay open; the ten latest are done
			c.State = "OPEN"
		} else if i%2 == 0 {
			c.State = "DONE"
		}
		if i >= 60 {
			c.State = "DONE"
		}
		children = append(children, c)
	}
	got, omitted := listed(children, final)
	var visible, open int
	for _, c := range children {
		if c.Visible {
			visible++
			if c.State != "DONE" {
				open++
			}
		}
	}
	if len(got) != childrenListed || omitted != int64(visible-childrenListed) {
		t.Fatalf("%d listed, %d omitted of %d visible", len(got), omitted, visible)
	}
	seen := map[string]bool{}
	for i, c := range got {
		if !c.Visible {
			t.Fatalf("%s is not the caller's", c.ID)
		}
		if i > 0 && got[i-1].ID >= c.ID {
			t.Fatalf("not oldest first: %s after %s", c.ID, got[i-1].ID)
		}
		seen[c.ID] = true
	}
	for _, c := range children { // every open one is listed (there are fewer than 50)
		if c.Visible && c.State != "DONE" && !seen[c.ID] {
			t.Fatalf("open %s left out (%d open)", c.ID, open)
		}
	}
	for _, c := range children { // and the latest done ones fill the rest: a listed done one is later than every unlisted done one
		if c.Visible && c.State == "DONE" && !seen[c.ID] {
			for _, g := range got {
				if g.State == "DONE" && g.ID < c.ID {
					t.Fatalf("done %s listed before the later %s", g.ID, c.ID)
				}
			}
		}
	}
	if few, omitted := listed(children[:10], final); len(few) != 9 || omitted != 0 {
		t.Fatalf("a small family: %d listed, %d omitted", len(few), omitted)
	}
}
