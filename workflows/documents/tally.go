package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// tallied reports whether child kind k's parent keeps k's tally.
func (r *Runner) tallied(k *Kind) bool {
	if k.Parent == nil || k.Parent.Tally == nil {
		return false
	}
	pk, ok := r.Kinds.Kind(k.Parent.Kind)
	return ok && pk.tally == k.Parent.Tally
}

// childrenTallied reports whether every child kind among kinds (any when
// empty) is tallied by its parent: a child's act of those kinds reads no
// siblings once its parent keeps a tally.
func (r *Runner) childrenTallied(kinds []string) bool {
	for _, k := range r.Kinds.kinds {
		if k.Parent != nil && (len(kinds) == 0 || slices.Contains(kinds, k.Def.Kind)) && !r.tallied(k) {
			return false
		}
	}
	return true
}

// tallyOf is the tally of doc, a document of kind pk (which keeps one):
// as its row keeps it, or counted afresh from children, its children as
// relatives read them, when the row keeps none yet (the caller read them
// for that).
func (r *Runner) tallyOf(pk *Kind, doc *models.Document, children []models.Document) (any, error) {
	if doc.Tally != "" {
		t, err := pk.tally.decode(doc.Tally)
		if err != nil {
			return nil, fmt.Errorf("document %s: stored tally: %w", doc.ID, err)
		}
		return t, nil
	}
	if int64(len(children)) != doc.Children {
		return nil, fmt.Errorf("document %s: %d children to count, %d read", doc.ID, doc.Children, len(children))
	}
	cs, err := r.children(children, nil)
	if err != nil {
		return nil, err
	}
	return pk.tally.count(relatedOf(cs)), nil
}

// encodeTally is a tally as its row and an act's facts keep it.
func encodeTally(t any) (json.RawMessage, error) {
	if t == nil {
		return nil, nil
	}
	return json.Marshal(t)
}

// withChild is the tally read (raw, JSON) with child, as relatives read
// it, added: a parent's tally after its child's act.
func (t *Tally) withChild(raw json.RawMessage, child any) (any, error) {
	v, err := t.decode(string(raw))
	if err != nil {
		return nil, err
	}
	t.add(v, child, 1)
	return v, nil
}

// parentAfter is what a child's act (or create) leaves of its parent, ev's
// Parent: the follow-up intents of the parent's entries, which its guards
// compute over its children, and, when it keeps k's tally, its new tally
// (the siblings' tally the act read, fx's, with self, the child after the
// act, added).
func (r *Runner) parentAfter(ctx context.Context, k *Kind, ev *engine.Eval, fx *facts, self *engine.Related, now time.Time) ([]models.EntryIntents, string, error) {
	if ev.SiblingsTally == nil {
		rows, err := r.parentIntents(ctx, ev.Parent, append(slices.Clip(ev.Siblings), self), nil, now)
		return rows, "", err
	}
	t, err := k.Parent.Tally.withChild(fx.SiblingsTally, self.Data)
	if err != nil {
		return nil, "", err
	}
	raw, err := encodeTally(t)
	if err != nil {
		return nil, "", err
	}
	rows, err := r.parentIntents(ctx, ev.Parent, nil, t, now)
	return rows, string(raw), err
}

// childrenListed is how many of its children the retrieval document of a
// kind that keeps their tally lists (the tally counts them all; a client
// reads the rest with ListDocuments filtered by the parent).
const childrenListed = 50

// tallyChild is the child kind whose tally kind k keeps (nil when no
// registered kind is its child); ok is false when k keeps none (its
// documents list every child).
func (r *Runner) tallyChild(k *Kind) (*Kind, bool) {
	if k.tally == nil {
		return nil, false
	}
	for _, ck := range r.Kinds.kinds {
		if ck.Parent != nil && ck.Parent.Tally == k.tally {
			return ck, true
		}
	}
	return nil, true
}

// tallyFinal are the final states of the child kind whose tally kind k
// keeps; ok is false when k keeps none (its documents list every child).
func (r *Runner) tallyFinal(k *Kind) ([]string, bool) {
	ck, ok := r.tallyChild(k)
	if ck == nil {
		return nil, ok
	}
	return ck.Def.Final, true
}

// tallyFinals are the final states of the child kinds whose tallies the
// kinds (any when empty) keep, and all their states (the pick reads each
// state apart: models.DocumentQuery.ChildrenStates); ok is false when none
// of them keeps one.
func (r *Runner) tallyFinals(kinds []string) (final, states []string, ok bool) {
	add := func(to []string, ss []string) []string {
		for _, s := range ss {
			if !slices.Contains(to, s) {
				to = append(to, s)
			}
		}
		return to
	}
	for _, k := range r.Kinds.kinds {
		if len(kinds) > 0 && !slices.Contains(kinds, k.Def.Kind) {
			continue
		}
		ck, keeps := r.tallyChild(k)
		ok = ok || keeps
		if ck != nil {
			final, states = add(final, ck.Def.Final), add(states, ck.Def.States)
		}
	}
	return final, states, ok
}

// listed is what a retrieval document lists of children (all of a
// parent's, Visible marked), as Get's bounded read picks them: the
// visible ones, those in no final state first, then the latest, at most
// childrenListed, oldest first; and how many visible ones it leaves out.
func listed(children []Child, final []string) ([]Child, int64) {
	var visible []Child
	for _, c := range children {
		if c.Visible {
			visible = append(visible, c)
		}
	}
	if len(visible) <= childrenListed {
		return visible, 0
	}
	// children come oldest first: the latest open ones, then the latest others
	picked := make([]bool, len(visible))
	n := 0
	for _, open := range []bool{true, false} {
		for i := len(visible) - 1; i >= 0 && n < childrenListed; i-- {
			if !picked[i] && slices.Contains(final, visible[i].State) != open {
				picked[i], n = true, n+1
			}
		}
	}
	out := make([]Child, 0, childrenListed)
	for i, c := range visible {
		if picked[i] {
			out = append(out, c)
		}
	}
	return out, int64(len(visible) - len(out))
}
