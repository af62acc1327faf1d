package models

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// ReportStore reads deadlines with their documents for the reports: the
// storage of workflows/reports (reports.Store). It reads outside any
// request's transaction.
type ReportStore struct{ db *gorm.DB }

// NewReportStore returns the report store over db.
func NewReportStore(db *gorm.DB) *ReportStore { return &ReportStore{db: db} }

// DeadlineScope is whose deadlines are read: those of documents an
// organisation of a provider is a party to, or, with All, every document
// (of ProviderID when set).
type DeadlineScope struct {
	ProviderID, OrganisationID string
	All                        bool
}

// DeadlineEntry is a deadline with its document's number and kind.
type DeadlineEntry struct {
	Deadline
	DocumentNumber string
	DocumentKind   string
	// PartyCountry is the country of the party that must act ("" when
	// the organisation is unknown): where the deadline falls due.
	PartyCountry string
	// PartyRegion is its region ("" when none is given): whose public
	// holidays count besides the country's.
	PartyRegion string
}

// DeadlineColumns say where the paths of a deadline list are (bind the
// workflow's schema with them).
var DeadlineColumns = Columns{
	"id": "deadlines.id", "document_id": "deadlines.document_id", "document_number": "documents.number", "kind": "documents.kind",
	"rule": "deadlines.rule", "legal_basis": "deadlines.legal_basis", "party": "deadlines.party_org", "party_role": "deadlines.party_role",
	"authority": "deadlines.party_org", "state": "deadlines.state", "started_at": "deadlines.started_at", "due_at": "deadlines.due_at",
	// urgency ranks a deadline's state: 0 OVERDUE, 1 DUE_SOON, 2 any other
	// (running, suspended or closed).
	"urgency": "(CASE deadlines.state WHEN 'OVERDUE' THEN 0 WHEN 'DUE_SOON' THEN 1 ELSE 2 END)",
}

// base selects the deadlines of scope; each set of authorities keeps the
// documents concerning one of them (a document concerns its competent
// authorities whether or not the deadline is theirs).
func (s *ReportStore) base(ctx context.Context, v DeadlineScope, authorities [][]string) *gorm.DB {
	q := s.db.WithContext(ctx).Table("deadlines").
		Select("deadlines.*, documents.number AS document_number, documents.kind AS document_kind, COALESCE(po.country, '') AS party_country, COALESCE(po.region, '') AS party_region").
		Joins("JOIN documents ON documents.id = deadlines.document_id").
		Joins("LEFT JOIN organisations po ON po.provider_id = documents.provider_id AND po.id = deadlines.party_org")
	if v.All && v.ProviderID != "" {
		q = q.Where("documents.provider_id = ?", v.ProviderID)
	}
	if !v.All {
		q = q.Where("documents.provider_id = ?", v.ProviderID).
			Where("EXISTS (SELECT 1 FROM document_parties vp WHERE vp.document_id = deadlines.document_id AND vp.organisation_id = ?)", v.OrganisationID)
	}
	for _, orgs := range authorities {
		q = q.Where("EXISTS (SELECT 1 FROM document_parties ap WHERE ap.document_id = deadlines.document_id AND ap.role LIKE 'AUTHORITY%' AND ap.organisation_id IN ?)", orgs)
	}
	return q
}

// ListDeadlines returns a page of the deadlines of scope concerning the
// authorities as q selects them (schema bound with DeadlineColumns), and
// how many match in all; a mistake in q is a *qpar.Error.
func (s *ReportStore) ListDeadlines(ctx context.Context, v DeadlineScope, authorities [][]string, q *qpar.QueryParameter, schema *qpar.Schema) ([]DeadlineEntry, int64, error) {
	return listPage[DeadlineEntry](s.base(ctx, v, authorities), q, schema)
}

// EachDeadline streams every deadline q selects, by due time and id,
// without paging.
func (s *ReportStore) EachDeadline(ctx context.Context, v DeadlineScope, authorities [][]string, q *qpar.QueryParameter, schema *qpar.Schema, fn func(*DeadlineEntry) error) error {
	db, err := qpar.Where(s.base(ctx, v, authorities), q, schema)
	if err != nil {
		return err
	}
	// The lists' default order (workflows/reports.SchemaFor): deadlines due
	// together by document, rule and party, the same on every run.
	rows, err := db.Order("deadlines.due_at, documents.number, deadlines.rule, deadlines.party_org, deadlines.id").Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e DeadlineEntry
		if err := s.db.ScanRows(rows, &e); err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DeadlinesStarted lists the deadlines of scope that started by asOf, and
// in [from, to) (a zero bound: none).
func (s *ReportStore) DeadlinesStarted(ctx context.Context, v DeadlineScope, asOf, from, to time.Time) ([]DeadlineEntry, error) {
	q := s.base(ctx, v, nil).Where("deadlines.started_at <= ?", asOf)
	if !from.IsZero() {
		q = q.Where("deadlines.started_at >= ?", from)
	}
	if !to.IsZero() {
		q = q.Where("deadlines.started_at < ?", to)
	}
	var rows []DeadlineEntry
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	return rows, nil
}
