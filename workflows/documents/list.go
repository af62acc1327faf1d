package documents

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Entry is a document as the caller's lists show it.
type Entry struct {
	models.DocumentEntry
	Roles    []string
	FollowUp []FollowUp
	// Next is the earliest running deadline the caller's organisation
	// must meet (nil: none).
	Next *models.Deadline
	// Names are the directory's names of the organisations in the roles
	// ListQuery.NameRoles asks for, by role (the first by name when a
	// role has several), of the parties the document lists.
	Names map[string]string
}

// ListQuery selects a page of the caller's documents.
type ListQuery struct {
	Qpar *qpar.QueryParameter
	// Actionable keeps the documents on which the caller has a follow-up
	// intent now: the work queue.
	Actionable bool
	// NameRoles are the roles whose organisations' names each entry
	// carries (Entry.Names), read for the whole page in one query.
	NameRoles []string
}

// ListSchema is the qpar schema of the document lists: kinds and states
// from the registered machines. The work queue's default order is the
// nearest deadline first, the other lists' the latest change first.
func (r *Registry) ListSchema(actionable bool) *qpar.Schema {
	var kinds, states []string
	for _, k := range r.kinds {
		kinds = append(kinds, k.Def.Kind)
		for _, st := range k.Def.States {
			if !slices.Contains(states, st) {
				states = append(states, st)
			}
		}
	}
	s := &qpar.Schema{Fields: []qpar.Field{
		{Path: "document_id", Column: "e.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "kind", Column: "e.kind", Kind: qpar.Enum, Values: kinds, Sortable: true},
		{Path: "state", Column: "e.state", Kind: qpar.Enum, Values: states, Sortable: true},
		{Path: "number", Column: "e.number", Kind: qpar.Text, Sortable: true},
		{Path: "version", Column: "e.version", Kind: qpar.Integer, Sortable: true},
		{Path: "notification_id", Column: "e.parent_id", Kind: qpar.Text, Sortable: true},
		{Path: "created_at", Column: "e.created_at", Kind: qpar.Time, Sortable: true},
		{Path: "updated_at", Column: "e.updated_at", Kind: qpar.Time, Sortable: true},
		{Path: "next_deadline.due_at", Column: "e.next_due_at", Kind: qpar.Time, Sortable: true},
		{Path: "actionable", Column: "e.actionable", Kind: qpar.Bool, Sortable: true},
	}, DefaultPageSize: 50, MaxPageSize: 500}
	s.DefaultSort = []qpar.Sort{{Path: "updated_at", Direction: qpar.Desc}, {Path: "document_id", Direction: qpar.Desc}}
	if actionable {
		s.DefaultSort = append([]qpar.Sort{{Path: "next_deadline.due_at", Direction: qpar.Asc}}, s.DefaultSort...)
	}
	return s
}

// List is one page of the documents the caller's organisation is a party
// to, as q filters, sorts and pages them, and their total. It reads the
// organisation's list entries and the page's deadlines: never every
// document of the provider.
func (r *Runner) List(ctx context.Context, q ListQuery) ([]Entry, int64, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, total, err := r.Store.Entries(ctx, p.ProviderID, c.Org, q.Actionable, q.Qpar, r.Kinds.ListSchema(q.Actionable))
	var qe *qpar.Error
	if errors.As(err, &qe) {
		return nil, 0, status.Invalid(qe.Field, qe.Reason)
	}
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].DocumentID
	}
	deadlines, err := r.Store.Deadlines(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	names := map[string]map[string]string{}
	if len(q.NameRoles) > 0 {
		rows, err := r.Store.PartyNames(ctx, p.ProviderID, ids, q.NameRoles)
		if err != nil {
			return nil, 0, err
		}
		for _, n := range rows {
			if names[n.DocumentID] == nil {
				names[n.DocumentID] = map[string]string{}
			}
			if _, ok := names[n.DocumentID][n.Role]; !ok {
				names[n.DocumentID][n.Role] = n.Name
			}
		}
	}
	byDoc := map[string][]models.Deadline{}
	for _, d := range deadlines {
		byDoc[d.DocumentID] = append(byDoc[d.DocumentID], d)
	}
	out := make([]Entry, 0, len(rows))
	for _, row := range rows {
		e := Entry{DocumentEntry: row, Roles: split(row.Roles), FollowUp: []FollowUp{}, Names: names[row.DocumentID]}
		ds := byDoc[row.DocumentID]
		if k, ok := r.Kinds.Kind(row.Kind); ok {
			for _, name := range split(row.Intents) {
				if in, ok := k.Machine().Intent(name); ok {
					e.FollowUp = append(e.FollowUp, followUpOf(in, ds, c.Org))
				}
			}
		}
		e.Next = nextDeadline(ds, c.Org)
		out = append(out, e)
	}
	return out, total, nil
}

func split(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}
