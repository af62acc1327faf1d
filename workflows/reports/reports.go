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
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// DeadlineStates and Rules enumerate the filterable values. LAPSED is a
// period that ended as the law foresees (a transit authority's tacit
// consent, the end of a consent's validity): closed, and no miss, so it is
// never counted as OVERDUE.
var (
	DeadlineStates = []string{"OPEN", "DUE_SOON", "OVERDUE", "SUSPENDED", "MET", "MET_LATE", "LAPSED", "CANCELLED"}
	Rules          = []string{"ACKNOWLEDGEMENT_DUE", "INFORMATION_REPLY_DUE", "DECISION_DUE", "CHANGE_REPLY_DUE", "CONSENT_VALIDITY",
		"PRIOR_NOTICE", "RECEIPT_CERTIFICATE_DUE", "COMPLETION_CERTIFICATE_DUE", "TAKE_BACK_DUE"}
)

// Schema is what ListDeadlines filters and sorts on.
var Schema = &qpar.Schema{
	Fields: []qpar.Field{
		{Path: "id", Column: "deadlines.id", Kind: qpar.Text, Sortable: true},
		{Path: "document_id", Column: "deadlines.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "document_number", Column: "documents.number", Kind: qpar.Text, Sortable: true},
		{Path: "kind", Column: "documents.kind", Kind: qpar.Enum, Values: []string{"NOTIFICATION", "ANNEX_VII", "MOVEMENT"}, Sortable: true},
		{Path: "rule", Column: "deadlines.rule", Kind: qpar.Enum, Values: Rules, Sortable: true},
		{Path: "legal_basis", Column: "deadlines.legal_basis", Kind: qpar.Text, Sortable: true},
		{Path: "party", Column: "deadlines.party_org", Kind: qpar.Text, Sortable: true},
		{Path: "party_role", Column: "deadlines.party_role", Kind: qpar.Text, Sortable: true},
		{Path: "authority", Column: "deadlines.party_org", Kind: qpar.Text},
		{Path: "state", Column: "deadlines.state", Kind: qpar.Enum, Values: DeadlineStates, Sortable: true},
		{Path: "started_at", Column: "deadlines.started_at", Kind: qpar.Time, Sortable: true},
		{Path: "due_at", Column: "deadlines.due_at", Kind: qpar.Time, Sortable: true},
		// urgency puts what needs acting on first: sorted by it and then
		// by due_at, OVERDUE comes first, then DUE_SOON, then the rest,
		// each by due date (the deadline page's default order).
		{Path: "urgency", Column: urgencyColumn, Kind: qpar.Integer, Sortable: true},
	},
	DefaultSort:     []qpar.Sort{{Path: "due_at", Direction: qpar.Asc}, {Path: "id", Direction: qpar.Asc}},
	DefaultPageSize: 50,
	MaxPageSize:     1000,
}

// urgencyColumn ranks a deadline's state: 0 OVERDUE, 1 DUE_SOON, 2 any
// other (running, suspended or closed).
const urgencyColumn = "(CASE deadlines.state WHEN 'OVERDUE' THEN 0 WHEN 'DUE_SOON' THEN 1 ELSE 2 END)"

// Viewer is whose deadlines a report shows: an organisation of a provider,
// or, with All, every document (of ProviderID when set): operators at the
// command line.
type Viewer struct {
	ProviderID, OrganisationID string
	All                        bool
}

// Entry is one reported deadline.
type Entry struct {
	models.Deadline
	DocumentNumber string
	DocumentKind   string
	// PartyCountry is the country of the party that must act ("" when
	// the organisation is unknown): where the deadline falls due.
	PartyCountry string
}

// Service runs the reports.
type Service struct {
	DB  *gorm.DB
	Now func() time.Time
	// Clocks moves the time of providers with a test clock (nil: real time).
	Clocks *clock.Clocks
}

// NowFor is the viewer's provider's time.
func (s *Service) NowFor(ctx context.Context, v Viewer) (time.Time, error) {
	return s.Clocks.At(ctx, v.ProviderID, s.Now())
}

func (s *Service) base(ctx context.Context, v Viewer) *gorm.DB {
	q := s.DB.WithContext(ctx).Table("deadlines").
		Select("deadlines.*, documents.number AS document_number, documents.kind AS document_kind, COALESCE(po.country, '') AS party_country").
		Joins("JOIN documents ON documents.id = deadlines.document_id").
		Joins("LEFT JOIN organisations po ON po.provider_id = documents.provider_id AND po.id = deadlines.party_org")
	if v.All && v.ProviderID != "" {
		q = q.Where("documents.provider_id = ?", v.ProviderID)
	}
	if !v.All {
		q = q.Where("documents.provider_id = ?", v.ProviderID).
			Where("EXISTS (SELECT 1 FROM document_parties vp WHERE vp.document_id = deadlines.document_id AND vp.organisation_id = ?)", v.OrganisationID)
	}
	return q
}

// authorityFilter restricts to documents concerning the given authorities
// (the qpar path "authority", EQUAL or IN_LIST): a document concerns its
// competent authorities whether or not the deadline is theirs.
func authorityFilter(q *gorm.DB, in *qpar.QueryParameter) (*gorm.DB, *qpar.QueryParameter, error) {
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
		q = q.Where("EXISTS (SELECT 1 FROM document_parties ap WHERE ap.document_id = deadlines.document_id AND ap.role LIKE 'AUTHORITY%' AND ap.organisation_id IN ?)", orgs)
	}
	return q, &out, nil
}

// List returns a page of deadlines and how many match in all.
func (s *Service) List(ctx context.Context, v Viewer, in *qpar.QueryParameter) ([]Entry, int64, error) {
	if in == nil {
		in = &qpar.QueryParameter{}
	}
	q, rest, err := authorityFilter(s.base(ctx, v), in)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	counted, err := qpar.Where(q.Session(&gorm.Session{}), rest, Schema)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	var total int64
	if err := counted.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	paged, _, err := qpar.Apply(q, rest, Schema)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	var out []Entry
	if err := paged.Scan(&out).Error; err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Each streams every matching deadline in order (for exports), without paging.
func (s *Service) Each(ctx context.Context, v Viewer, in *qpar.QueryParameter, fn func(*Entry) error) error {
	q, rest, err := authorityFilter(s.base(ctx, v), in)
	if err != nil {
		return qparErr(err)
	}
	q, err = qpar.Where(q, rest, Schema)
	if err != nil {
		return qparErr(err)
	}
	rows, err := q.Order("deadlines.due_at, deadlines.id").Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e Entry
		if err := s.DB.ScanRows(rows, &e); err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return rows.Err()
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
	q := s.base(ctx, v).Where("deadlines.started_at <= ?", asOf)
	if !from.IsZero() {
		q = q.Where("deadlines.started_at >= ?", from)
	}
	if !to.IsZero() {
		q = q.Where("deadlines.started_at < ?", to)
	}
	var rows []Entry
	if err := q.Scan(&rows).Error; err != nil {
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
