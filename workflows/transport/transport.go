// Package transport keeps transport documents (BMU consignment and
// acceptance notes): each organisation's store of imported notes and their
// versions, the inboxes that distribution fills (the parties named by
// their official numbers; the authorities for the ten-day report), and
// transport templates with their blocks of note numbers.
package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Inbox entry kinds.
const (
	KindDelivery       = "DELIVERY"       // a version of another party's note
	KindDekadenmeldung = "DEKADENMELDUNG" // a ten-day report to an authority
)

// EventInbox is the notifier groups' event kind for a new inbox entry.
const EventInbox = "INBOX_ENTRY_ADDED"

// Service is the store, the inboxes and the templates.
type Service struct {
	DB      *gorm.DB
	Mapping bmu.Mapping
	Now     func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// caller is the organisation an access token speaks for.
func caller(ctx context.Context) (*reqctx.Principal, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return nil, status.New(status.PermissionDenied, "transport documents need an account's access token")
	}
	return p, nil
}

// ImportOptions are ImportTransportDocument's flags, resolved.
type ImportOptions struct {
	Distribute, Dekadenmeldung, Cancel bool
}

// ImportResult says what an import did.
type ImportResult struct {
	Document       models.TransportDocument
	DeliveredTo    []string // organisations whose inbox got the version
	UnknownNumbers []string // official numbers in the note nobody here holds
	Reported       bool     // marked for the ten-day report
	ReportedTo     []string // authorities whose inbox got the report
	ReportNote     string   // why it was not reported, when asked for
}

// partyNumbers are the official numbers a note names, in the order of the
// chain.
func partyNumbers(n *rbmu.Note) []string {
	var out []string
	for _, p := range rbmu.PartyNumberPaths(n) {
		if v, _ := n.Value(p); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Import stores a note's XML in the caller's store (a new version when the
// store holds its number already), and distributes and reports it as
// asked, in one transaction.
func (s *Service) Import(ctx context.Context, xml []byte, o ImportOptions) (*ImportResult, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.Mapping.Parse(xml)
	if err != nil {
		var pe *bmu.ParseError
		if errors.As(err, &pe) {
			return nil, status.Invalid("document", pe.Error())
		}
		return nil, status.Invalid("document", err.Error())
	}
	n := d.Note()
	number, _ := n.Value("nummer")
	if strings.TrimSpace(number) == "" {
		return nil, status.Invalid("document", "the note has no number (nummer): it is the transport identifier")
	}
	top := n.Top()
	now := s.now()
	res := &ImportResult{}
	// Ten-day report: consignment notes only, effective once the disposer's
	// or a supplement layer is on top; a cancellation is never reported.
	if o.Dekadenmeldung && !o.Cancel {
		switch {
		case n.Type != rbmu.TypeBGS:
			res.ReportNote = "only consignment notes are reported"
		case top.Type != rbmu.LayerEntsorger && top.Type != rbmu.LayerErgaenzung:
			res.ReportNote = fmt.Sprintf("the top layer is %s: the report takes effect once the disposer's (ENTSORGER) or a supplement (ERGAENZUNG) layer is on top", top.Type)
		default:
			res.Reported = true
		}
	}
	err = models.Conn(ctx, s.DB).Transaction(func(tx *gorm.DB) error {
		var doc models.TransportDocument
		q := tx.Where("provider_id = ? AND organisation_id = ? AND number = ?", p.ProviderID, p.OrganisationID, number)
		if models.IsPostgres(tx) {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		err := q.Take(&doc).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			doc = models.TransportDocument{ID: newID("td_"), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Number: number,
				DocumentType: n.Type, Version: 1, CreatedAt: now}
		case err != nil:
			return err
		case doc.DocumentType != n.Type:
			return status.New(status.FailedPrecondition, "number %s is a %s in your store, not a %s", number, doc.DocumentType, n.Type)
		default:
			doc.Version++
		}
		doc.TopLayer, doc.Cancelled, doc.UpdatedAt = top.Type.String(), o.Cancel, now
		if err := tx.Save(&doc).Error; err != nil {
			return err
		}
		v := models.TransportDocumentVersion{DocumentID: doc.ID, Version: doc.Version, XML: xml, Size: int64(len(xml)), TopLayer: doc.TopLayer,
			Cancelled: o.Cancel, Distributed: o.Distribute, Reported: res.Reported, ImportedBy: fmt.Sprint(p.AccountID), CreatedAt: now}
		if err := tx.Create(&v).Error; err != nil {
			return err
		}
		res.Document = doc
		var entries []models.InboxEntry
		entry := func(org, kind string) models.InboxEntry {
			return models.InboxEntry{ID: newID("ib_"), ProviderID: p.ProviderID, OrganisationID: org, DocumentID: doc.ID, Version: doc.Version,
				Number: number, DocumentType: n.Type, Kind: kind, SenderID: p.OrganisationID, Cancelled: o.Cancel, CreatedAt: now}
		}
		numbers := partyNumbers(n)
		var holders []models.OrganisationNumber
		if len(numbers) > 0 {
			if err := tx.Where("provider_id = ? AND number IN ?", p.ProviderID, numbers).Find(&holders).Error; err != nil {
				return err
			}
		}
		holderOf := map[string]string{}
		for _, h := range holders {
			holderOf[h.Number] = h.OrganisationID
		}
		if o.Distribute {
			for _, num := range numbers {
				org, ok := holderOf[num]
				switch {
				case !ok:
					res.UnknownNumbers = append(res.UnknownNumbers, num)
				case org != p.OrganisationID && !slices.Contains(res.DeliveredTo, org):
					res.DeliveredTo = append(res.DeliveredTo, org)
					entries = append(entries, entry(org, KindDelivery))
				}
			}
		}
		if res.Reported {
			auths, note, err := s.reportAuthorities(tx, p.ProviderID, n, holderOf)
			if err != nil {
				return err
			}
			res.ReportNote = note
			for _, a := range auths {
				res.ReportedTo = append(res.ReportedTo, a)
				entries = append(entries, entry(a, KindDekadenmeldung))
			}
		}
		if len(entries) == 0 {
			return nil
		}
		if err := tx.Create(&entries).Error; err != nil {
			return err
		}
		events := make([]models.Event, 0, len(entries))
		for _, e := range entries {
			payload, _ := json.Marshal(map[string]any{"inboxEntryId": e.ID, "number": e.Number, "documentType": e.DocumentType,
				"version": e.Version, "kind": e.Kind, "sender": e.SenderID, "cancelled": e.Cancelled})
			events = append(events, models.Event{ProviderID: e.ProviderID, OrganisationID: e.OrganisationID, Kind: EventInbox,
				DocumentID: e.DocumentID, DedupKey: "inbox:" + e.ID, Payload: string(payload), CreatedAt: now})
		}
		return models.InsertEvents(tx, events)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// reportAuthorities are the authorities a ten-day report goes to: those of
// the disposer's place (same country and region), our design.
func (s *Service) reportAuthorities(tx *gorm.DB, provider string, n *rbmu.Note, holderOf map[string]string) ([]string, string, error) {
	num, _ := n.Value("entsorger.nummer")
	disposer, ok := holderOf[num]
	if !ok {
		return nil, fmt.Sprintf("the disposer's number %q is held by no organisation here: no authority found for the report", num), nil
	}
	var org models.Organisation
	if err := tx.Where("provider_id = ? AND id = ?", provider, disposer).Take(&org).Error; err != nil {
		return nil, "", err
	}
	var auths []string
	if err := tx.Model(&models.Organisation{}).Where("provider_id = ? AND kind = 'authority' AND country = ? AND region = ?", provider, org.Country, org.Region).
		Order("id").Pluck("id", &auths).Error; err != nil {
		return nil, "", err
	}
	if len(auths) == 0 {
		return nil, fmt.Sprintf("no authority here for the disposer's place (%s %s)", org.Country, org.Region), nil
	}
	return auths, "", nil
}

// Export is the XML of a document of the caller's store (its newest
// version) or of an entry of the caller's inbox (the version it
// delivered). Anything else is not found.
func (s *Service) Export(ctx context.Context, id string) ([]byte, string, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, "", err
	}
	db := models.Conn(ctx, s.DB)
	var docID string
	var version int64
	var number string
	var doc models.TransportDocument
	if err := db.Where("id = ? AND provider_id = ? AND organisation_id = ?", id, p.ProviderID, p.OrganisationID).Take(&doc).Error; err == nil {
		docID, version, number = doc.ID, doc.Version, doc.Number
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, "", err
	} else {
		var e models.InboxEntry
		if err := db.Where("id = ? AND provider_id = ? AND organisation_id = ?", id, p.ProviderID, p.OrganisationID).Take(&e).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return nil, "", status.New(status.NotFound, "no transport document %q in your store or inbox", id)
			}
			return nil, "", err
		}
		docID, version, number = e.DocumentID, e.Version, e.Number
	}
	var v models.TransportDocumentVersion
	if err := db.Where("document_id = ? AND version = ?", docID, version).Take(&v).Error; err != nil {
		return nil, "", err
	}
	return v.XML, number, nil
}

// StoreRow is one row of ListTransportDocuments.
type StoreRow struct {
	ID, DocumentType, Number, TopLayer string
	Version                            int64
	Cancelled                          bool
	CreatedAt, UpdatedAt               time.Time
}

// InboxRow is one row of an inbox list: the entry, and the version it
// delivered (its number, top layer and import time) of the sender's
// document (created at DocCreatedAt).
type InboxRow struct {
	ID, DocumentID, DocumentType, Number, Kind, SenderID, TopLayer string
	Version                                                        int64
	Cancelled, Read, Removed                                       bool
	CreatedAt                                                      time.Time
	DocCreatedAt, VersionCreatedAt                                 *time.Time // nil when the sender's rows are gone
}

// TemplateRow is one row of ListTransportTemplates.
type TemplateRow struct {
	ID, InterneBezeichnung, Art, Format string
	Anzahl                              int64
	CreatedAt                           time.Time
}

// Schemas of the lists (the valid qpar paths).
var (
	StoreSchema = &qpar.Schema{Fields: []qpar.Field{
		{Path: "doc.document_id", Column: "td.id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_type", Column: "td.document_type", Kind: qpar.Enum, Values: []string{"BGS", "RGB", "UNS"}, Sortable: true},
		{Path: "doc.number", Column: "td.number", Kind: qpar.Text, Sortable: true},
		{Path: "doc.version", Column: "td.version", Kind: qpar.Integer, Sortable: true},
		{Path: "doc.top_layer", Column: "td.top_layer", Kind: qpar.Enum, Values: layerNames(), Sortable: true},
		{Path: "doc.created_at", Column: "td.created_at", Kind: qpar.Time, Sortable: true},
		{Path: "doc.updated_at", Column: "td.updated_at", Kind: qpar.Time, Sortable: true},
		{Path: "cancelled", Column: "td.cancelled", Kind: qpar.Bool, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "doc.updated_at", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500}
	InboxSchema = &qpar.Schema{Fields: []qpar.Field{
		{Path: "id", Column: "ib.id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_id", Column: "ib.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_type", Column: "ib.document_type", Kind: qpar.Enum, Values: []string{"BGS", "RGB", "UNS"}, Sortable: true},
		{Path: "doc.number", Column: "ib.number", Kind: qpar.Text, Sortable: true},
		{Path: "doc.version", Column: "ib.version", Kind: qpar.Integer, Sortable: true},
		{Path: "doc.top_layer", Column: "v.top_layer", Kind: qpar.Enum, Values: layerNames(), Sortable: true},
		{Path: "kind", Column: "ib.kind", Kind: qpar.Enum, Values: []string{KindDelivery, KindDekadenmeldung}, Sortable: true},
		{Path: "sender", Column: "ib.sender_id", Kind: qpar.Text, Sortable: true},
		{Path: "cancelled", Column: "ib.cancelled", Kind: qpar.Bool, Sortable: true},
		{Path: "read", Column: "ib.read", Kind: qpar.Bool, Sortable: true},
		{Path: "removed", Column: "ib.removed", Kind: qpar.Bool, Sortable: true},
		{Path: "received_at", Column: "ib.created_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "received_at", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500}
	TemplateSchema = &qpar.Schema{Fields: []qpar.Field{
		{Path: "template_id", Column: "tt.id", Kind: qpar.Text, Sortable: true},
		{Path: "interne_bezeichnung", Column: "tt.interne_bezeichnung", Kind: qpar.Text, Sortable: true},
		{Path: "art", Column: "tt.art", Kind: qpar.Enum, Values: []string{"N", "S", "L"}, Sortable: true},
		{Path: "format", Column: "tt.format", Kind: qpar.Enum, Values: []string{"BMU"}, Sortable: true},
		{Path: "anzahl", Column: anzahlSQL, Kind: qpar.Integer, Sortable: true},
		{Path: "created_at", Column: "tt.created_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "interne_bezeichnung", Direction: qpar.Asc}}, DefaultPageSize: 50, MaxPageSize: 500}
)

const anzahlSQL = "(SELECT COUNT(*) FROM template_numbers tn WHERE tn.template_id = tt.id AND tn.used_at IS NULL)"

func layerNames() []string { return rbmu.LayerType(0).EnumNames()[1:] }

func qparErr(err error) error {
	var qe *qpar.Error
	if errors.As(err, &qe) {
		return status.Invalid(qe.Field, qe.Reason)
	}
	return err
}

// list runs a qpar query over base: the page and the total.
func list[T any](base *gorm.DB, q *qpar.QueryParameter, s *qpar.Schema) ([]T, int64, error) {
	counted, err := qpar.Where(base.Session(&gorm.Session{}), q, s)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	var total int64
	if err := counted.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	paged, _, err := qpar.Apply(base, q, s)
	if err != nil {
		return nil, 0, qparErr(err)
	}
	var out []T
	if err := paged.Scan(&out).Error; err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// ListStore lists the caller's stored notes.
func (s *Service) ListStore(ctx context.Context, q *qpar.QueryParameter) ([]StoreRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	base := models.Conn(ctx, s.DB).Table("transport_documents td").
		Select("td.id, td.document_type, td.number, td.top_layer, td.version, td.cancelled, td.created_at, td.updated_at").
		Where("td.provider_id = ? AND td.organisation_id = ?", p.ProviderID, p.OrganisationID)
	return list[StoreRow](base, q, StoreSchema)
}

// ListInbox lists the caller's inbox; removed entries only when the
// filter asks for them.
func (s *Service) ListInbox(ctx context.Context, q *qpar.QueryParameter) ([]InboxRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	base := models.Conn(ctx, s.DB).Table("inbox_entries ib").
		Select("ib.id, ib.document_id, ib.document_type, ib.number, ib.kind, ib.sender_id, ib.version, ib.cancelled, ib.read, ib.removed, ib.created_at, "+
			"COALESCE(v.top_layer, '') AS top_layer, td.created_at AS doc_created_at, v.created_at AS version_created_at").
		Joins("LEFT JOIN transport_document_versions v ON v.document_id = ib.document_id AND v.version = ib.version").
		Joins("LEFT JOIN transport_documents td ON td.id = ib.document_id").
		Where("ib.provider_id = ? AND ib.organisation_id = ?", p.ProviderID, p.OrganisationID)
	if q == nil || !slices.ContainsFunc(q.Filter, func(f qpar.Filter) bool { return f.Path == "removed" }) {
		base = base.Where("ib.removed = ?", false)
	}
	return list[InboxRow](base, q, InboxSchema)
}

// ListTemplates lists the caller's transport templates.
func (s *Service) ListTemplates(ctx context.Context, q *qpar.QueryParameter) ([]TemplateRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	base := models.Conn(ctx, s.DB).Table("transport_templates tt").
		Select("tt.id, tt.interne_bezeichnung, tt.art, tt.format, "+anzahlSQL+" AS anzahl, tt.created_at").
		Where("tt.provider_id = ? AND tt.organisation_id = ?", p.ProviderID, p.OrganisationID)
	return list[TemplateRow](base, q, TemplateSchema)
}

// MarkInbox sets read (or removed) on entries of the caller's inbox and
// returns how many it changed; ids not in the caller's inbox are named.
func (s *Service) MarkInbox(ctx context.Context, ids []string, column string, value bool) (int64, []string, error) {
	p, err := caller(ctx)
	if err != nil {
		return 0, nil, err
	}
	if len(ids) == 0 {
		return 0, nil, status.Invalid("ids", "at least one inbox entry id is required")
	}
	var changed int64
	var unknown []string
	err = models.Conn(ctx, s.DB).Transaction(func(tx *gorm.DB) error {
		var found []string
		if err := tx.Model(&models.InboxEntry{}).Where("provider_id = ? AND organisation_id = ? AND id IN ?", p.ProviderID, p.OrganisationID, ids).
			Pluck("id", &found).Error; err != nil {
			return err
		}
		for _, id := range ids {
			if !slices.Contains(found, id) {
				unknown = append(unknown, id)
			}
		}
		if len(found) == 0 {
			return nil
		}
		r := tx.Model(&models.InboxEntry{}).Where("id IN ? AND "+column+" <> ?", found, value).Update(column, value)
		changed = r.RowsAffected
		return r.Error
	})
	return changed, unknown, err
}

// Template is a stored template of the caller's organisation.
func (s *Service) Template(ctx context.Context, id string) (*models.TransportTemplate, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var t models.TransportTemplate
	if err := models.Conn(ctx, s.DB).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, p.ProviderID, p.OrganisationID).Take(&t).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, status.New(status.NotFound, "no transport template %q of your organisation", id)
		}
		return nil, err
	}
	return &t, nil
}

// TakeNumber consumes one note number of a template of the caller's
// organisation, atomically; a used-up block is a clear refusal.
func (s *Service) TakeNumber(ctx context.Context, templateID string) (string, error) {
	if _, err := s.Template(ctx, templateID); err != nil {
		return "", err
	}
	var number string
	err := models.Conn(ctx, s.DB).Transaction(func(tx *gorm.DB) error {
		var err error
		number, err = models.TakeTemplateNumber(tx, templateID, s.now())
		return err
	})
	if errors.Is(err, models.ErrNoNumberLeft) {
		return "", status.New(status.FailedPrecondition, "transport template %s has no note number left (anzahl 0): ask the Länder system for a new block", templateID)
	}
	return number, err
}

// ExportTemplate is a template's XML with its id on the root, so a note
// created from it takes a number of its block.
func (s *Service) ExportTemplate(ctx context.Context, id string) ([]byte, error) {
	t, err := s.Template(ctx, id)
	if err != nil {
		return nil, err
	}
	d, err := s.Mapping.Parse(t.XML)
	if err != nil {
		return nil, err
	}
	root := d.Tree().Root()
	root.RemoveAttr("templateId")
	root.CreateAttr("templateId", t.ID)
	return d.Bytes()
}
