// Package reports answers compliance staff's questions about deadlines:
// lists with filters, summaries (also as of a past date) and exports. A
// caller sees the deadlines of documents its organisation is a party to.
package reports

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/kinds"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// DeadlineStates enumerates the filterable states. LAPSED is a period that
// ended as the law foresees (a transit authority's tacit consent, the end
// of a consent's validity): closed, and no miss, so it is never counted as
// OVERDUE.
var DeadlineStates = []string{"OPEN", "DUE_SOON", "OVERDUE", "SUSPENDED", "MET", "MET_LATE", "LAPSED", "CANCELLED"}

// Rules are the deadline rules of the server's kinds, in declaration order.
var Rules = RulesOf(kinds.All())

// Schema is what ListDeadlines filters and sorts on, for the server's kinds.
var Schema = SchemaFor(kinds.All())

// RulesOf lists the deadline rules ks declare, each once.
func RulesOf(ks []*documents.Kind) []string {
	var out []string
	for _, k := range ks {
		for _, r := range k.Def.Rules {
			if !slices.Contains(out, r.Name) {
				out = append(out, r.Name)
			}
		}
	}
	return out
}

// SchemaFor is what ListDeadlines filters and sorts on when the documents
// are of kinds ks: their names and their rules are the values of kind and
// rule.
func SchemaFor(ks []*documents.Kind) *qpar.Schema {
	var names []string
	for _, k := range ks {
		names = append(names, k.Name())
	}
	return models.DeadlineColumns.Bind(&qpar.Schema{
		Fields: []qpar.Field{
			{Path: "id", Kind: qpar.Text, Sortable: true},
			{Path: "document_id", Kind: qpar.Text, Sortable: true},
			{Path: "document_number", Kind: qpar.Text, Sortable: true},
			{Path: "kind", Kind: qpar.Enum, Values: names, Sortable: true},
			{Path: "rule", Kind: qpar.Enum, Values: RulesOf(ks), Sortable: true},
			{Path: "legal_basis", Kind: qpar.Text, Sortable: true},
			{Path: "party", Kind: qpar.Text, Sortable: true},
			{Path: "party_role", Kind: qpar.Text, Sortable: true},
			{Path: "authority", Kind: qpar.Text},
			{Path: "state", Kind: qpar.Enum, Values: DeadlineStates, Sortable: true},
			{Path: "started_at", Kind: qpar.Time, Sortable: true},
			{Path: "due_at", Kind: qpar.Time, Sortable: true},
			// urgency puts what needs acting on first: sorted by it and then
			// by due_at, OVERDUE comes first, then DUE_SOON, then the rest,
			// each by due date (the deadline page's default order).
			{Path: "urgency", Kind: qpar.Integer, Sortable: true},
		},
		// Deadlines due together (every authority's period of one
		// document) by document, rule and party, the same on every read.
		DefaultSort: []qpar.Sort{{Path: "due_at", Direction: qpar.Asc}, {Path: "document_number", Direction: qpar.Asc},
			{Path: "rule", Direction: qpar.Asc}, {Path: "party", Direction: qpar.Asc}, {Path: "id", Direction: qpar.Asc}},
		DefaultPageSize: 50,
		MaxPageSize:     1000,
	})
}

// Viewer is whose deadlines a report shows: an organisation of a provider,
// or, with All, every document (of ProviderID when set): operators at the
// command line.
type Viewer struct {
	ProviderID, OrganisationID string
	All                        bool
}

// Entry is one reported deadline: the deadline, its document's number and
// kind, and the country of the party that must act.
type Entry = models.DeadlineEntry

// Store reads the deadlines of the documents a viewer sees;
// models.ReportStore implements it. A client's mistake in a query is a
// *qpar.Error.
type Store interface {
	// ListDeadlines returns a page of deadlines and how many match in all;
	// each set of authorities keeps the documents concerning one of them.
	ListDeadlines(ctx context.Context, v models.DeadlineScope, authorities [][]string, q *qpar.QueryParameter, schema *qpar.Schema) ([]Entry, int64, error)
	// EachDeadline streams every matching deadline by due time, unpaged.
	EachDeadline(ctx context.Context, v models.DeadlineScope, authorities [][]string, q *qpar.QueryParameter, schema *qpar.Schema, fn func(*Entry) error) error
	// DeadlinesStarted lists the deadlines that started by asOf and in
	// [from, to) (a zero bound: none).
	DeadlinesStarted(ctx context.Context, v models.DeadlineScope, asOf, from, to time.Time) ([]Entry, error)
}

// Service runs the reports.
type Service struct {
	Store Store
	Now   func() time.Time
	// Clocks moves the time of providers with a test clock (nil: real time).
	Clocks *clock.Clocks
	// Kinds are the kinds whose deadlines are reported (nil: the server's,
	// kinds.All()); the server sets its registry's.
	Kinds []*documents.Kind

	once   sync.Once
	schema *qpar.Schema
}

// Schema is what ListDeadlines filters and sorts on.
func (s *Service) Schema() *qpar.Schema {
	s.once.Do(func() {
		s.schema = Schema
		if s.Kinds != nil {
			s.schema = SchemaFor(s.Kinds)
		}
	})
	return s.schema
}

// NowFor is the viewer's provider's time.
func (s *Service) NowFor(ctx context.Context, v Viewer) (time.Time, error) {
	return s.Clocks.At(ctx, v.ProviderID, s.Now())
}

// authorityFilter takes the filters on the qpar path "authority" (EQUAL or
// IN_LIST) out of in: each is a set of authorities, and a document passes
// when it concerns one of them (a document concerns its competent
// authorities whether or not the deadline is theirs).
func authorityFilter(in *qpar.QueryParameter) ([][]string, *qpar.QueryParameter, error) {
	var sets [][]string
	out := *in
	out.Filter = nil
	for i, f := range in.Filter {
		if f.Path != "authority" {
			out.Filter = append(out.Filter, f)
			continue
		}
		if f.Op != qpar.Equal && f.Op != qpar.InList {
			return nil, nil, &qpar.Error{Field: "qpar.filter[" + strconv.Itoa(i) + "].op", Reason: "authority takes EQUAL or IN_LIST"}
		}
		var orgs []string
		for _, o := range f.Operands {
			if o.S == nil {
				return nil, nil, &qpar.Error{Field: "qpar.filter[" + strconv.Itoa(i) + "].operands", Reason: "authority operands are text (s)"}
			}
			orgs = append(orgs, *o.S)
		}
		sets = append(sets, orgs)
	}
	return sets, &out, nil
}

// List returns a page of deadlines and how many match in all.
func (s *Service) List(ctx context.Context, v Viewer, in *qpar.QueryParameter) ([]Entry, int64, error) {
	if in == nil {
		in = &qpar.QueryParameter{}
	}
	auths, rest, err := authorityFilter(in)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	out, total, err := s.Store.ListDeadlines(ctx, models.DeadlineScope(v), auths, rest, s.Schema())
	return out, total, qparErr(err)
}

// Each streams every matching deadline in order (for exports), without paging.
func (s *Service) Each(ctx context.Context, v Viewer, in *qpar.QueryParameter, fn func(*Entry) error) error {
	auths, rest, err := authorityFilter(in)
	if err != nil {
		return qparErr(err)
	}
	return qparErr(s.Store.EachDeadline(ctx, models.DeadlineScope(v), auths, rest, s.Schema(), fn))
}

func qparErr(err error) error {
	if qe, ok := err.(*qpar.Error); ok {
		return status.Invalid(qe.Field, qe.Reason)
	}
	return err
}

// Count is one cell of a summary.
type Count struct {
	Rule, State, Authority string
	Count                  int64
}

// Summary counts deadlines by rule and state and by authority.
type Summary struct {
	AsOf           time.Time
	ByRuleAndState []Count
	ByAuthority    []Count // Authority and State filled
	Total          int64
}

// Deadline states the reports treat specially.
const (
	StateOverdue   = "OVERDUE"
	StateSuspended = "SUSPENDED"
	StateLapsed    = "LAPSED"
)

// Summarize counts the deadlines that started in [from, to) (zero: no
// bound) as they stood at asOf (zero: now). For a past asOf, a deadline
// that was closed later counts as it was running then: OVERDUE when past
// due, DUE_SOON inside its warning window, OPEN otherwise; a LAPSED one
// counts as LAPSED from its due time on (its period ended then, as
// foreseen, even if the sweep closed it a little later), never as OVERDUE.
func (s *Service) Summarize(ctx context.Context, v Viewer, from, to, asOf time.Time) (*Summary, error) {
	now, err := s.NowFor(ctx, v)
	if err != nil {
		return nil, err
	}
	if asOf.IsZero() || asOf.After(now) {
		asOf = now
	}
	rows, err := s.Store.DeadlinesStarted(ctx, models.DeadlineScope(v), asOf, from, to)
	if err != nil {
		return nil, err
	}
	byRule := map[[2]string]int64{}
	byAuth := map[[2]string]int64{}
	sum := &Summary{AsOf: asOf}
	for _, e := range rows {
		state := stateAt(&e.Deadline, asOf, now)
		byRule[[2]string{e.Rule, state}]++
		if len(e.PartyRole) > 9 && e.PartyRole[:9] == "AUTHORITY" {
			byAuth[[2]string{e.PartyOrg, state}]++
		}
		sum.Total++
	}
	for k, c := range byRule {
		sum.ByRuleAndState = append(sum.ByRuleAndState, Count{Rule: k[0], State: k[1], Count: c})
	}
	for k, c := range byAuth {
		sum.ByAuthority = append(sum.ByAuthority, Count{Authority: k[0], State: k[1], Count: c})
	}
	sortCounts(sum.ByRuleAndState)
	sortCounts(sum.ByAuthority)
	return sum, nil
}

func stateAt(d *models.Deadline, asOf, now time.Time) string {
	if !asOf.Before(now) {
		return d.State
	}
	if d.ClosedAt != nil && !d.ClosedAt.After(asOf) {
		return d.State // already final then
	}
	if d.SuspendedSince != nil && !d.SuspendedSince.After(asOf) {
		return StateSuspended
	}
	switch {
	case d.State == StateLapsed && asOf.After(d.DueAt):
		return StateLapsed
	case asOf.After(d.DueAt):
		return StateOverdue
	case d.WarnAt != nil && !asOf.Before(*d.WarnAt):
		return "DUE_SOON"
	}
	return "OPEN"
}

func sortCounts(cs []Count) {
	order := func(s string) int { return slices.Index(DeadlineStates, s) }
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Rule+a.Authority != b.Rule+b.Authority {
			return a.Rule+a.Authority < b.Rule+b.Authority
		}
		return order(a.State) < order(b.State)
	})
}

// Remaining is the time a suspended deadline had left when it was
// suspended: DueAt minus SuspendedSince (DueAt stays the old due date while
// suspended; resuming moves it by the days suspended). ok is false when d is
// not suspended.
func Remaining(d *models.Deadline) (left time.Duration, ok bool) {
	if d.SuspendedSince == nil {
		return 0, false
	}
	return d.DueAt.Sub(*d.SuspendedSince), true
}

// Left is what is left of a running deadline (OPEN, DUE_SOON, OVERDUE, not
// closed, not suspended) at now, the provider's time (its test clock in a
// sandbox), counted at the acting party's place as GetDocument counts it:
// calendar days to the due day (0 on it, negative when overdue) and the
// working days after today up to it (negative when overdue). ok is false
// for any other deadline. Pages show these, never a count of the
// browser's clock.
func Left(e *Entry, now time.Time) (days, working int, ok bool) {
	d := &e.Deadline
	if d.ClosedAt != nil || d.SuspendedSince != nil || (d.State != "OPEN" && d.State != "DUE_SOON" && d.State != StateOverdue) {
		return 0, 0, false
	}
	place := calendar.Place{Country: e.PartyCountry, Region: e.PartyRegion}
	return calendar.DaysBetween(place, now, d.DueAt), calendar.WorkingDaysBetween(place, now, d.DueAt), true
}

// RemainingText says a suspended deadline's remaining time in days, for
// people: "31 days left (suspended)", "1 day left (suspended)", or, for one
// suspended after it fell due, "2 days late (suspended)". A part of a day
// counts as a day. It is "" when d is not suspended.
func RemainingText(d *models.Deadline) string {
	left, ok := Remaining(d)
	if !ok {
		return ""
	}
	word := "left"
	if left < 0 {
		left, word = -left, "late"
	}
	const day = 24 * time.Hour
	days := int64((left + day - 1) / day)
	unit := "days"
	if days == 1 {
		unit = "day"
	}
	return fmt.Sprintf("%d %s %s (suspended)", days, unit, word)
}

// RemainingDuration is the remaining time as a protobuf JSON duration
// (whole seconds, e.g. "2677981s"), for machines; "" when d is not
// suspended.
func RemainingDuration(d *models.Deadline) string {
	left, ok := Remaining(d)
	if !ok {
		return ""
	}
	return strconv.FormatInt(int64(left/time.Second), 10) + "s"
}
