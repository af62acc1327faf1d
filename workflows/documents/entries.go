package documents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// A document's list entries (models.DocumentEntry) are written in the
// transaction of every change: on create, on every fired intent (the
// sweep's automatic ones included), for a parent's children when the
// parent's state changes (their guards read it), and for the parent when
// a child is created or changes (its guards read the children: no
// CREATE_MOVEMENT once the shipments or the quantity are used up).
// Follow-up intents depend on nothing else: guards of intents offered to
// callers read the document, its children, the caller's roles and the
// parent's state, never the clock.

// entries computes the list entries of a document as it is after a change:
// one per party organisation, with its roles, the intents the machine
// offers it and the earliest running deadline it must meet; children are
// the documents under it.
func (r *Runner) entries(ctx context.Context, k *Kind, doc *models.Document, data any, deadlines []models.Deadline, parent *engine.Related, children []*engine.Related, tally any, now time.Time) ([]models.DocumentEntry, error) {
	var out []models.DocumentEntry
	for _, org := range partyOrgs(k.Visible(doc.State, data)) {
		if org == "" || slices.ContainsFunc(out, func(e models.DocumentEntry) bool { return e.OrganisationID == org }) {
			continue
		}
		roles := k.RolesOf(data, org)
		intents, err := r.intentsOf(ctx, k, doc, data, deadlines, parent, children, tally, org, roles, now)
		if err != nil {
			return nil, err
		}
		e := models.DocumentEntry{DocumentID: doc.ID, OrganisationID: org, ProviderID: doc.ProviderID, Kind: doc.Kind, Number: doc.Number,
			State: doc.State, Version: doc.Version, ParentID: doc.ParentID, Roles: strings.Join(roles, ","), Intents: strings.Join(intents, ","),
			Actionable: len(intents) > 0, CreatedAt: doc.CreatedAt, UpdatedAt: doc.UpdatedAt}
		if d := nextDeadline(deadlines, org); d != nil {
			due := d.DueAt
			e.NextDueAt = &due
		}
		out = append(out, e)
	}
	return out, nil
}

// intentsOf lists the intents the machine offers org (in roles) now.
func (r *Runner) intentsOf(ctx context.Context, k *Kind, doc *models.Document, data any, deadlines []models.Deadline, parent *engine.Related, children []*engine.Related, tally any, org string, roles []string, now time.Time) ([]string, error) {
	ev := &engine.Eval{DocID: doc.ID, State: doc.State, Data: data, Caller: engine.Caller{Org: org, Roles: roles}, Now: now,
		Deadlines: views(deadlines), CreatedAt: doc.CreatedAt, Parent: parent, Children: children, Tally: tally}
	ins, err := k.Machine().FollowUp(ctx, ev)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ins))
	for _, in := range ins {
		names = append(names, in.Name)
	}
	return names, nil
}

// nextDeadline is the earliest running deadline org must meet, if any.
func nextDeadline(ds []models.Deadline, org string) *models.Deadline {
	var next *models.Deadline
	for i := range ds {
		if d := &ds[i]; d.PartyOrg == org && running(d) && (next == nil || d.DueAt.Before(next.DueAt)) {
			next = d
		}
	}
	return next
}

// childIntents recomputes the follow-up intents of a parent's children
// after the parent's state changed to state.
func (r *Runner) childIntents(ctx context.Context, parent *models.Document, state string, children []Child, now time.Time) ([]models.EntryIntents, error) {
	if len(children) == 0 {
		return nil, nil
	}
	rel := &engine.Related{ID: parent.ID, Kind: parent.Kind, State: state, Number: parent.Number}
	var rows []models.EntryIntents
	for _, c := range children {
		ck, ok := r.Kinds.Kind(c.Kind)
		if !ok {
			continue
		}
		doc := &models.Document{ID: c.ID, Kind: c.Kind, State: c.State, Number: c.Number}
		for _, org := range partyOrgs(ck.Visible(c.State, c.Data)) {
			if org == "" || slices.ContainsFunc(rows, func(e models.EntryIntents) bool { return e.DocumentID == c.ID && e.OrganisationID == org }) {
				continue
			}
			intents, err := r.intentsOf(ctx, ck, doc, c.Data, nil, rel, nil, nil, org, ck.RolesOf(c.Data, org), now)
			if err != nil {
				return nil, err
			}
			rows = append(rows, models.EntryIntents{DocumentID: c.ID, OrganisationID: org, Intents: strings.Join(intents, ","), Actionable: len(intents) > 0})
		}
	}
	return rows, nil
}

// parentIntents recomputes the follow-up intents of parent (locked, with
// its data) after one of its children was created or changed: children
// are all of them as they are now, or tally their tally (a parent that
// keeps one). Guards of the parent that read deadlines are the system's,
// whose intents no entry lists.
func (r *Runner) parentIntents(ctx context.Context, parent *engine.Related, children []*engine.Related, tally any, now time.Time) ([]models.EntryIntents, error) {
	pk, ok := r.Kinds.Kind(parent.Kind)
	if !ok || parent.Data == nil {
		return nil, nil
	}
	doc := &models.Document{ID: parent.ID, Kind: parent.Kind, State: parent.State, Number: parent.Number}
	var rows []models.EntryIntents
	for _, org := range partyOrgs(parent.Parties) {
		if org == "" || slices.ContainsFunc(rows, func(e models.EntryIntents) bool { return e.OrganisationID == org }) {
			continue
		}
		intents, err := r.intentsOf(ctx, pk, doc, parent.Data, nil, nil, children, tally, org, pk.RolesOf(parent.Data, org), now)
		if err != nil {
			return nil, err
		}
		rows = append(rows, models.EntryIntents{DocumentID: parent.ID, OrganisationID: org, Intents: strings.Join(intents, ","), Actionable: len(intents) > 0})
	}
	return rows, nil
}

// relatedOf lists the children as the engine sees them.
func relatedOf(children []Child) []*engine.Related {
	out := make([]*engine.Related, 0, len(children))
	for i := range children {
		out = append(out, &children[i].Related)
	}
	return out
}

// entryBatch is how many documents IndexEntries reads at once.
const entryBatch = 500

// indexTask is the maintenance task of migration 00013: the documents
// stored before the list entries existed get theirs. visibilityTask is
// migration 00015's: every document's parties and entries are rewritten
// once (drafts became private).
const (
	indexTask      = "index-document-entries"
	visibilityTask = "reindex-document-visibility"
)

// IndexEntries writes the list entries of every document that has none
// when a migration asked for it (once), or of every document when all is
// set (wasteflow admin reindex: after an upgrade that changed what a
// machine offers), and reports how many documents it indexed. The server
// runs it at start; it is safe to run on several instances at once.
func (r *Runner) IndexEntries(ctx context.Context, all bool) (int, error) {
	if !all {
		everything, err := r.Store.TaskPending(ctx, visibilityTask)
		if err != nil {
			return 0, err
		}
		pending, err := r.Store.TaskPending(ctx, indexTask)
		if err != nil || !pending && !everything {
			return 0, err
		}
		all = everything
	}
	n, after := 0, ""
	for {
		docs, err := r.Store.DocumentsAfter(ctx, after, entryBatch, !all)
		if err != nil {
			return n, err
		}
		if len(docs) == 0 {
			if err := r.Store.TaskDone(ctx, visibilityTask); err != nil {
				return n, err
			}
			return n, r.Store.TaskDone(ctx, indexTask)
		}
		after = docs[len(docs)-1].ID
		err = r.Store.Apart(ctx, func(ctx context.Context, tx Tx) error {
			for i := range docs {
				if err := r.reindex(ctx, tx, &docs[i]); err != nil {
					return fmt.Errorf("document %s: %w", docs[i].ID, err)
				}
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += len(docs)
	}
}

// summaryTask is migration 00018's: the children stored before summaries
// existed get theirs.
const summaryTask = "summarise-children"

// SummariseChildren writes the summary of every document of a kind that
// keeps one and has none yet, when a migration asked for it (once), and
// reports how many it wrote. Until then such a child is read whole; a
// child changed meanwhile wrote its own. The server runs it at start; it
// is safe to run on several instances at once.
func (r *Runner) SummariseChildren(ctx context.Context) (int, error) {
	pending, err := r.Store.TaskPending(ctx, summaryTask)
	if err != nil || !pending {
		return 0, err
	}
	var kinds []string
	for _, k := range r.Kinds.Kinds() {
		if k.summarised() {
			kinds = append(kinds, k.Def.Kind)
		}
	}
	n, after := 0, ""
	for {
		docs, err := r.Store.Unsummarised(ctx, kinds, after, entryBatch)
		if err != nil {
			return n, err
		}
		if len(docs) == 0 {
			return n, r.Store.TaskDone(ctx, summaryTask)
		}
		after = docs[len(docs)-1].ID
		err = r.Store.Apart(ctx, func(ctx context.Context, tx Tx) error {
			for _, d := range docs {
				k, _ := r.Kinds.Kind(d.Kind)
				data, err := k.decode(d.Data)
				if err != nil {
					return fmt.Errorf("document %s: stored data: %w", d.ID, err)
				}
				summary, err := k.summary(data)
				if err != nil {
					return err
				}
				if err := tx.SetSummary(d.ID, d.Version, summary); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += len(docs)
	}
}

// reindex writes the parties and list entries of doc from its stored
// state.
func (r *Runner) reindex(ctx context.Context, tx Tx, doc *models.Document) error {
	k, ok := r.Kinds.Kind(doc.Kind)
	if !ok {
		return nil // a kind this server does not run
	}
	loaded, err := tx.Load(models.DocumentQuery{ID: doc.ID, Provider: doc.ProviderID})
	if err != nil {
		return err
	}
	doc = &loaded.Doc
	data, err := k.decode(doc.Data)
	if err != nil {
		return fmt.Errorf("stored data: %w", err)
	}
	var parent *engine.Related
	if p := loaded.Parent; p != nil {
		parent = &engine.Related{ID: p.ID, Kind: p.Kind, State: p.State, Number: p.Number}
	}
	var children []Child
	if doc.Children > 0 {
		if children, err = r.children(loaded.Children, nil); err != nil {
			return err
		}
	}
	now, err := r.now(ctx, doc.ProviderID)
	if err != nil {
		return err
	}
	var tally any
	if k.tally != nil {
		if tally, err = r.tallyOf(k, doc, loaded.Children); err != nil {
			return err
		}
	}
	es, err := r.entries(ctx, k, doc, data, loaded.Deadlines, parent, relatedOf(children), tally, now)
	if err != nil {
		return err
	}
	return tx.Index(doc.ID, partyRows(doc.ID, k.Visible(doc.State, data)), es)
}
