package handlers

import (
	"context"

	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/csvsafe"
	"github.com/wasteflow/wasteflow/workflows/reports"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// DeadlineEntry is one row of a deadline report.
type DeadlineEntry struct {
	DocumentID     string     `json:"documentId" label:"Document|Dokument"`
	DocumentNumber string     `json:"documentNumber" label:"Document number|Dokumentnummer"`
	Kind           string     `json:"kind" label:"Kind of document|Dokumentart" codeList:"documentKind"`
	Rule           string     `json:"rule" label:"Time limit|Frist" codeList:"deadlineRule"`
	LegalBasis     string     `json:"legalBasis" label:"Legal basis|Rechtsgrundlage"`
	Party          string     `json:"party" doc:"organisation that must act" label:"Who must act|Wer handeln muss"`
	PartyRole      string     `json:"partyRole" label:"Role|Rolle" codeList:"role"`
	State          string     `json:"state" doc:"OPEN, DUE_SOON, OVERDUE, SUSPENDED, MET, MET_LATE, LAPSED (the period ended as the law foresees: a transit authority's tacit consent, the end of a consent's validity; not a miss), CANCELLED" label:"Status|Status" codeList:"deadlineState"`
	StartedAt      time.Time  `json:"startedAt" label:"Started|Begonnen"`
	DueAt          time.Time  `json:"dueAt" doc:"while suspended: the due date before the suspension" label:"Due by|Fällig bis"`
	SuspendedSince *time.Time `json:"suspendedSince" label:"Suspended since|Gehemmt seit"`
	Remaining      string     `json:"remaining" doc:"while suspended: the time left when it was suspended (dueAt minus suspendedSince), as a duration (e.g. 2677981s); empty otherwise" label:"Time left when suspended|Restzeit bei Hemmung"`
	ClosedAt       *time.Time `json:"closedAt" label:"Closed|Beendet"`
	TimeZone       string     `json:"timeZone" doc:"IANA time zone of the acting party's place: the deadline falls due at the end of its last day there (dueAt is that instant)" label:"Time zone|Zeitzone"`
	// What is left of a running deadline, counted at the acting party's
	// place from today by the provider's clock (the list's now), as
	// GetDocument's deadlines show it.
	DaysLeft        *int32 `json:"daysLeft" doc:"while it runs (OPEN, DUE_SOON, OVERDUE): calendar days from today (by the provider's clock, the answer's now) to the due day at the acting party's place (0 on the due day, negative when overdue); null otherwise" label:"Days left|Verbleibende Tage"`
	WorkingDaysLeft *int32 `json:"workingDaysLeft" doc:"while it runs: working days at the acting party's place after today up to the due day (its public holidays and weekends skipped; negative when overdue); null otherwise" label:"Working days left|Verbleibende Arbeitstage"`
}

// entryOf shows e, with what is left of it at now (the provider's time).
func entryOf(e *reports.Entry, now time.Time) DeadlineEntry {
	out := DeadlineEntry{DocumentID: e.DocumentID, DocumentNumber: e.DocumentNumber, Kind: e.DocumentKind, Rule: e.Rule,
		LegalBasis: e.LegalBasis, Party: e.PartyOrg, PartyRole: e.PartyRole, State: e.State, StartedAt: e.StartedAt,
		DueAt: e.DueAt, SuspendedSince: e.SuspendedSince, Remaining: reports.RemainingDuration(&e.Deadline), ClosedAt: e.ClosedAt,
		TimeZone: calendar.Location(e.PartyCountry).String()}
	if days, working, ok := reports.Left(e, now); ok {
		d, w := int32(days), int32(working)
		out.DaysLeft, out.WorkingDaysLeft = &d, &w
	}
	return out
}

type ListDeadlinesRequest struct {
	Qpar qpar.QueryParameter `json:"qpar" label:"Filter, sort and page|Filter, Sortierung und Seite"`
}

type ListDeadlinesResponse struct {
	Entries []DeadlineEntry `json:"entries" label:"Time limits|Fristen"`
	Total   int64           `json:"total" doc:"matching deadlines in all pages" label:"Total|Gesamt"`
	Now     time.Time       `json:"now" doc:"the provider's time (its test clock in a sandbox) that daysLeft and workingDaysLeft count from" label:"As of|Stand"`
}

type GetDeadlineSummaryRequest struct {
	From *time.Time `json:"from" doc:"count deadlines started at or after" label:"Started from|Begonnen ab"`
	To   *time.Time `json:"to" doc:"count deadlines started before" label:"Started before|Begonnen vor"`
	AsOf *time.Time `json:"asOf" doc:"as they stood then (default now): a deadline closed later counts as running, but a LAPSED one as LAPSED from its due time on" label:"As of|Stand"`
}

type SummaryCount struct {
	Rule      string `json:"rule" label:"Time limit|Frist" codeList:"deadlineRule"`
	Authority string `json:"authority" label:"Authority|Behörde"`
	State     string `json:"state" doc:"LAPSED (ended as foreseen) is counted apart from OVERDUE" label:"Status|Status" codeList:"deadlineState"`
	Count     int64  `json:"count" label:"Number|Anzahl"`
}

type GetDeadlineSummaryResponse struct {
	AsOf           time.Time      `json:"asOf" label:"As of|Stand"`
	ByRuleAndState []SummaryCount `json:"byRuleAndState" label:"By time limit and status|Nach Frist und Status"`
	ByAuthority    []SummaryCount `json:"byAuthority" label:"By authority|Nach Behörde"`
	Total          int64          `json:"total" label:"Total|Gesamt"`
}

type ExportDeadlinesRequest struct {
	State      []string   `json:"state" doc:"OPEN, DUE_SOON, OVERDUE, SUSPENDED, MET, MET_LATE, LAPSED or CANCELLED; repeat for several" label:"Status|Status" codeList:"deadlineState"`
	Rule       []string   `json:"rule" label:"Time limit|Frist" codeList:"deadlineRule"`
	Party      []string   `json:"party" label:"Who must act|Wer handeln muss"`
	Authority  []string   `json:"authority" label:"Authority|Behörde"`
	Kind       []string   `json:"kind" label:"Kind of document|Dokumentart" codeList:"documentKind"`
	DocumentID string     `json:"documentId" label:"Document|Dokument"`
	DueFrom    *time.Time `json:"dueFrom" label:"Due from|Fällig ab"`
	DueTo      *time.Time `json:"dueTo" label:"Due until|Fällig bis"`
}

// ExportQuery turns the export's simple filters into a query parameter.
func ExportQuery(r *ExportDeadlinesRequest) *qpar.QueryParameter {
	q, _ := exportFilters(r)
	return q
}

// exportFilters is ExportQuery, and names the request field behind each
// filter: a mistake in one is reported under the parameter's name, not as
// the filter it became ("state", not "qpar.filter[0].operands[0].s").
func exportFilters(r *ExportDeadlinesRequest) (*qpar.QueryParameter, []string) {
	q := &qpar.QueryParameter{}
	var params []string
	list := func(param, path string, vals []string) {
		if len(vals) == 0 {
			return
		}
		f := qpar.Filter{Path: path, Op: qpar.InList}
		for i := range vals {
			f.Operands = append(f.Operands, qpar.Operand{S: &vals[i]})
		}
		q.Filter = append(q.Filter, f)
		params = append(params, param)
	}
	list("state", "state", r.State)
	list("rule", "rule", r.Rule)
	list("party", "party", r.Party)
	list("authority", "authority", r.Authority)
	list("kind", "kind", r.Kind)
	if r.DocumentID != "" {
		list("documentId", "document_id", []string{r.DocumentID})
	}
	due := func(param string, op qpar.Op, t *time.Time) {
		if t != nil {
			s := t.UTC().Format(time.RFC3339Nano)
			q.Filter = append(q.Filter, qpar.Filter{Path: "due_at", Op: op, Operands: []qpar.Operand{{UTC: &s}}})
			params = append(params, param)
		}
	}
	due("dueFrom", qpar.GreaterOrEqualThan, r.DueFrom)
	due("dueTo", qpar.LesserThan, r.DueTo)
	return q, params
}

var filterIndex = regexp.MustCompile(`^qpar\.filter\[([0-9]+)\]`)

// exportParamError names the parameter behind the filter an error is about.
func exportParamError(err error, params []string) error {
	return renameViolations(err, func(field, description string) (string, string) {
		if m := filterIndex.FindStringSubmatch(field); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(params) {
				return params[i], description
			}
		}
		return field, description
	})
}

// CSVHeader is the export's header row. remaining is filled for suspended
// deadlines only, in days for people ("31 days left (suspended)").
var CSVHeader = []string{"document_id", "document_number", "kind", "rule", "legal_basis", "party", "party_role", "state", "started_at", "due_at", "closed_at", "remaining", "time_zone"}

// CSVRow renders one entry.
func CSVRow(e *reports.Entry) []string {
	closed := ""
	if e.ClosedAt != nil {
		closed = e.ClosedAt.UTC().Format(time.RFC3339)
	}
	return []string{e.DocumentID, e.DocumentNumber, e.DocumentKind, e.Rule, e.LegalBasis, e.PartyOrg, e.PartyRole, e.State,
		e.StartedAt.UTC().Format(time.RFC3339), e.DueAt.UTC().Format(time.RFC3339), closed, reports.RemainingText(&e.Deadline),
		calendar.Location(e.PartyCountry).String()}
}

func viewer(ctx context.Context) (reports.Viewer, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return reports.Viewer{}, status.New(status.PermissionDenied, "deadline reports need an account's access token")
	}
	return reports.Viewer{ProviderID: p.ProviderID, OrganisationID: p.OrganisationID}, nil
}

func (s *Server) reportOperations() []api.Operation {
	if s.reports == nil {
		return nil
	}
	op := func(method, verb, summary, desc string) api.Operation {
		return api.Operation{Package: pkgCore, Service: "DeadlineReportApi", Method: method, Verb: verb, Summary: summary, Description: desc}
	}
	return []api.Operation{
		asSent(api.Unary(op("ListDeadlines", http.MethodPost, "Deadlines of the documents your organisation is a party to",
			"Filter, sort and page with qpar. "+qpar.Describe(s.reports.Schema())+" The path authority (EQUAL or IN_LIST) keeps documents that concern those competent authorities. "+
				"The path urgency is 0 for OVERDUE, 1 for DUE_SOON and 2 for any other state: sort by urgency, then due_at, for what needs acting on first (the deadline page's default)."),
			func(ctx context.Context, r *ListDeadlinesRequest) (*ListDeadlinesResponse, error) {
				v, err := viewer(ctx)
				if err != nil {
					return nil, err
				}
				list, total, err := s.reports.List(ctx, v, &r.Qpar)
				if err != nil {
					return nil, err
				}
				now, err := s.reports.NowFor(ctx, v)
				if err != nil {
					return nil, err
				}
				out := &ListDeadlinesResponse{Entries: make([]DeadlineEntry, 0, len(list)), Total: total, Now: now.UTC()}
				for i := range list {
					out.Entries = append(out.Entries, entryOf(&list[i], now))
				}
				return out, nil
			})),
		asSent(api.Unary(op("GetDeadlineSummary", http.MethodPost, "Deadline counts by rule and state and by authority",
			"For deadlines started in [from, to) (to after from); asOf a past date shows what was running then."),
			func(ctx context.Context, r *GetDeadlineSummaryRequest) (*GetDeadlineSummaryResponse, error) {
				v, err := viewer(ctx)
				if err != nil {
					return nil, err
				}
				if r.From != nil && r.To != nil && !r.To.After(*r.From) {
					return nil, status.Invalid("to", fmt.Sprintf("%s is not after from (%s): the period [from, to) is empty",
						r.To.UTC().Format(time.RFC3339Nano), r.From.UTC().Format(time.RFC3339Nano)))
				}
				var from, to, asOf time.Time
				if r.From != nil {
					from = *r.From
				}
				if r.To != nil {
					to = *r.To
				}
				if r.AsOf != nil {
					asOf = *r.AsOf
				}
				sum, err := s.reports.Summarize(ctx, v, from, to, asOf)
				if err != nil {
					return nil, err
				}
				out := &GetDeadlineSummaryResponse{AsOf: sum.AsOf, Total: sum.Total, ByRuleAndState: []SummaryCount{}, ByAuthority: []SummaryCount{}}
				for _, c := range sum.ByRuleAndState {
					out.ByRuleAndState = append(out.ByRuleAndState, SummaryCount{Rule: c.Rule, Authority: c.Authority, State: c.State, Count: c.Count})
				}
				for _, c := range sum.ByAuthority {
					out.ByAuthority = append(out.ByAuthority, SummaryCount{Rule: c.Rule, Authority: c.Authority, State: c.State, Count: c.Count})
				}
				return out, nil
			})),
		asSent(api.Download(op("ExportDeadlines", http.MethodGet, "The deadline report as CSV",
			"A header row, then one row per deadline in due order, streamed. Takes the same filters as simple query parameters (repeat a key for several values)."),
			"text/csv; charset=utf-8",
			func(ctx context.Context, r *ExportDeadlinesRequest) (string, func(io.Writer) error, error) {
				v, err := viewer(ctx)
				if err != nil {
					return "", nil, err
				}
				for i, t := range []*time.Time{r.DueFrom, r.DueTo} {
					if t != nil && (t.UTC().Year() < 1 || t.UTC().Year() > 9999) {
						return "", nil, status.Invalid([]string{"dueFrom", "dueTo"}[i],
							fmt.Sprintf("%s is out of range: years 0001 to 9999 in UTC", t.Format(time.RFC3339Nano)))
					}
				}
				q, params := exportFilters(r)
				// Validate before the first byte, so a bad filter is a clean 400.
				if _, _, err := s.reports.List(ctx, v, &qpar.QueryParameter{Filter: q.Filter, PageSize: 1}); err != nil {
					return "", nil, exportParamError(err, params)
				}
				now, err := s.reports.NowFor(ctx, v)
				if err != nil {
					return "", nil, err
				}
				name := "deadlines-" + now.Format("20060102T150405Z") + ".csv"
				return name, func(w io.Writer) error {
					cw := csvsafe.NewWriter(w) // no cell a spreadsheet reads as a formula
					if err := cw.Write(CSVHeader); err != nil {
						return err
					}
					n := 0
					err := s.reports.Each(ctx, v, q, func(e *reports.Entry) error {
						n++
						if n%500 == 0 {
							cw.Flush()
						}
						return cw.Write(CSVRow(e))
					})
					cw.Flush()
					if err == nil {
						err = cw.Error()
					}
					return err
				}, nil
			})),
	}
}
