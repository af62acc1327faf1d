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

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Inbox entry kinds.
const (
	KindDelivery       = "DELIVERY"       // a version of another party's note
	KindDekadenmeldung = "DEKADENMELDUNG" // a ten-day report to an authority
)

// EventInbox is the notifier groups' event kind for a new inbox entry.
const EventInbox = eventkinds.InboxEntryAdded

// Store keeps the organisations' stores of notes, their inboxes and their
// templates; models.TransportStore implements it. A missing row is
// models.ErrNotFound; a client's mistake in a list's query is a
// *qpar.Error.
type Store interface {
	// Tx runs fn in one transaction: the store's methods called with the
	// ctx fn receives run inside it.
	Tx(ctx context.Context, fn func(ctx context.Context) error) error

	// LockDocumentByNumber reads a note of an organisation's store by its
	// number and holds it until the transaction ends, so concurrent
	// imports of one number take turns.
	LockDocumentByNumber(ctx context.Context, provider, org, number string) (*models.TransportDocument, error)
	SaveDocument(ctx context.Context, doc *models.TransportDocument) error
	CreateVersion(ctx context.Context, v *models.TransportDocumentVersion) error
	// NumberHolders says who holds which of the official numbers.
	NumberHolders(ctx context.Context, provider string, numbers []string) ([]models.OrganisationNumber, error)
	Organisation(ctx context.Context, provider, id string) (*models.Organisation, error)
	// AuthoritiesAt lists the authorities of a place, ordered.
	AuthoritiesAt(ctx context.Context, provider, country, region string) ([]string, error)
	// AddInboxEntries delivers entries with the events announcing them.
	AddInboxEntries(ctx context.Context, entries []models.InboxEntry, events []models.Event) error

	Document(ctx context.Context, provider, org, id string) (*models.TransportDocument, error)
	InboxEntry(ctx context.Context, provider, org, id string) (*models.InboxEntry, error)
	Version(ctx context.Context, doc string, version int64) (*models.TransportDocumentVersion, error)
	// InboxEntryIDs are those of ids in the organisation's inbox.
	InboxEntryIDs(ctx context.Context, provider, org string, ids []string) ([]string, error)
	// MarkInboxEntries sets a flag (models.InboxRead, models.InboxRemoved)
	// of entries; it counts those it changed.
	MarkInboxEntries(ctx context.Context, ids []string, flag string, value bool) (int64, error)

	Template(ctx context.Context, provider, org, id string) (*models.TransportTemplate, error)
	// TakeNumber consumes the lowest free number of a template atomically;
	// models.ErrNoNumberLeft when the block is used up.
	TakeNumber(ctx context.Context, template string, now time.Time) (string, error)

	// The file area and transfers (files.go).
	CreateFile(ctx context.Context, f *models.File, docs []models.FileDocument) error
	AddFileDocuments(ctx context.Context, fileID string, docs []models.FileDocument, now time.Time) error
	VisibleFile(ctx context.Context, provider, org, id string) (*models.File, error)
	LockOwnFile(ctx context.Context, provider, org, id string) (*models.File, error)
	FilesOfDocument(ctx context.Context, provider, org, doc string) ([]models.FileRow, error)
	GrantFile(ctx context.Context, g *models.FileGrant) error
	MergeFiles(ctx context.Context, target string, sources []string, by string, now time.Time) error
	ListFiles(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]models.FileRow, int64, error)
	ListFileDocuments(ctx context.Context, id string, q *qpar.QueryParameter, schema *qpar.Schema) ([]models.FileDocumentRow, int64, error)
	InFileOf(ctx context.Context, provider, org, doc string) (bool, error)
	DocumentOf(ctx context.Context, provider, id string) (*models.TransportDocument, error)
	// DocumentIDs are those of ids in the organisation's store.
	DocumentIDs(ctx context.Context, provider, org string, ids []string) ([]string, error)
	TakeInboxEntry(ctx context.Context, id, doc string, version int64) (bool, error)
	CreateTransfer(ctx context.Context, t *models.Transfer) error
	Transfer(ctx context.Context, provider, id string) (*models.Transfer, []models.InboxEntry, error)

	ListStore(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]StoreRow, int64, error)
	ListInbox(ctx context.Context, provider, org string, withRemoved bool, q *qpar.QueryParameter, schema *qpar.Schema) ([]InboxRow, int64, error)
	ListTemplates(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]TemplateRow, int64, error)
}

// Service is the store, the inboxes and the templates.
type Service struct {
	Store   Store
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
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		locked, err := s.Store.LockDocumentByNumber(ctx, p.ProviderID, p.OrganisationID, number)
		var doc models.TransportDocument
		switch {
		case errors.Is(err, models.ErrNotFound):
			doc = models.TransportDocument{ID: newID("td_"), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Number: number,
				DocumentType: n.Type, Version: 1, CreatedAt: now}
		case err != nil:
			return err
		case locked.DocumentType != n.Type:
			return status.New(status.FailedPrecondition, "number %s is a %s in your store, not a %s", number, locked.DocumentType, n.Type)
		default:
			doc = *locked
			doc.Version++
		}
		doc.TopLayer, doc.Cancelled, doc.UpdatedAt = top.Type.String(), o.Cancel, now
		if err := s.Store.SaveDocument(ctx, &doc); err != nil {
			return err
		}
		v := models.TransportDocumentVersion{DocumentID: doc.ID, Version: doc.Version, XML: xml, Size: int64(len(xml)), TopLayer: doc.TopLayer,
			Cancelled: o.Cancel, Distributed: o.Distribute, Reported: res.Reported, ImportedBy: fmt.Sprint(p.AccountID), CreatedAt: now}
		if err := s.Store.CreateVersion(ctx, &v); err != nil {
			return err
		}
		res.Document = doc
		parties, err := s.partiesOf(ctx, p.ProviderID, p.OrganisationID, n)
		if err != nil {
			return err
		}
		// Only a party delivers or reports a note: an organisation that
		// holds none of its numbers would put a note into the parties'
		// inboxes as if it came along the chain (SendDocument sends to
		// organisations named by the sender, as what it is).
		if (o.Distribute || res.Reported) && !parties.names(p.OrganisationID) {
			return status.New(status.PermissionDenied, "your organisation holds none of the official numbers note %s names: only a party delivers or reports it (import it with distribute false, or send it with SendDocument)", number)
		}
		var to []recipient
		if o.Distribute {
			res.UnknownNumbers = parties.unknown
			for _, org := range parties.orgs {
				res.DeliveredTo = append(res.DeliveredTo, org)
				to = append(to, recipient{org, KindDelivery})
			}
		}
		if res.Reported {
			auths, note, err := s.reportAuthorities(ctx, p.ProviderID, n, parties.holderOf)
			if err != nil {
				return err
			}
			res.ReportNote = note
			for _, a := range auths {
				res.ReportedTo = append(res.ReportedTo, a)
				to = append(to, recipient{a, KindDekadenmeldung})
			}
		}
		_, err = s.deliver(ctx, &doc, o.Cancel, to, "", now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// parties are the organisations a note's official numbers name.
type parties struct {
	orgs     []string          // the holders of its numbers but the sender, in the chain's order, once each
	unknown  []string          // numbers nobody here holds
	holderOf map[string]string // number -> organisation
}

// names reports whether org holds one of the note's numbers.
func (ps *parties) names(org string) bool {
	for _, o := range ps.holderOf {
		if o == org {
			return true
		}
	}
	return false
}

// partiesOf finds who holds the official numbers note n names.
func (s *Service) partiesOf(ctx context.Context, provider, sender string, n *rbmu.Note) (*parties, error) {
	numbers := partyNumbers(n)
	out := &parties{holderOf: map[string]string{}}
	if len(numbers) > 0 {
		holders, err := s.Store.NumberHolders(ctx, provider, numbers)
		if err != nil {
			return nil, err
		}
		for _, h := range holders {
			out.holderOf[h.Number] = h.OrganisationID
		}
	}
	for _, num := range numbers {
		org, ok := out.holderOf[num]
		switch {
		case !ok:
			out.unknown = append(out.unknown, num)
		case org != sender && !slices.Contains(out.orgs, org):
			out.orgs = append(out.orgs, org)
		}
	}
	return out, nil
}

// recipient is an organisation an inbox entry goes to, and why.
type recipient struct{ org, kind string }

// deliver puts doc's current version into the recipients' inboxes, each
// entry announced by an event, as part of transfer (or of none), and
// returns the entries.
func (s *Service) deliver(ctx context.Context, doc *models.TransportDocument, cancelled bool, to []recipient, transfer string, now time.Time) ([]models.InboxEntry, error) {
	if len(to) == 0 {
		return nil, nil
	}
	entries := make([]models.InboxEntry, 0, len(to))
	events := make([]models.Event, 0, len(to))
	for _, r := range to {
		e := models.InboxEntry{ID: newID("ib_"), ProviderID: doc.ProviderID, OrganisationID: r.org, DocumentID: doc.ID, Version: doc.Version,
			Number: doc.Number, DocumentType: doc.DocumentType, Kind: r.kind, SenderID: doc.OrganisationID, Cancelled: cancelled, CreatedAt: now, TransferID: transfer}
		entries = append(entries, e)
		payload, _ := json.Marshal(eventkinds.InboxEntry{InboxEntryID: e.ID, Number: e.Number, DocumentType: e.DocumentType,
			Version: e.Version, Kind: e.Kind, Sender: e.SenderID, Cancelled: e.Cancelled})
		events = append(events, models.Event{ProviderID: e.ProviderID, OrganisationID: e.OrganisationID, Kind: EventInbox,
			DocumentID: e.DocumentID, DedupKey: "inbox:" + e.ID, Payload: string(payload), CreatedAt: now})
	}
	return entries, s.Store.AddInboxEntries(ctx, entries, events)
}

// reportAuthorities are the authorities a ten-day report goes to: those of
// the disposer's place (same country and region), our design.
func (s *Service) reportAuthorities(ctx context.Context, provider string, n *rbmu.Note, holderOf map[string]string) ([]string, string, error) {
	num, _ := n.Value("entsorger.nummer")
	disposer, ok := holderOf[num]
	if !ok {
		return nil, echo.Sprintf("the disposer's number %q is held by no organisation here: no authority found for the report", num), nil
	}
	org, err := s.Store.Organisation(ctx, provider, disposer)
	if err != nil {
		return nil, "", err
	}
	auths, err := s.Store.AuthoritiesAt(ctx, provider, org.Country, org.Region)
	if err != nil {
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
	var docID string
	var version int64
	var number string
	if doc, err := s.Store.Document(ctx, p.ProviderID, p.OrganisationID, id); err == nil {
		docID, version, number = doc.ID, doc.Version, doc.Number
	} else if !errors.Is(err, models.ErrNotFound) {
		return nil, "", err
	} else {
		e, err := s.Store.InboxEntry(ctx, p.ProviderID, p.OrganisationID, id)
		switch {
		case errors.Is(err, models.ErrNotFound):
			// A document of a file shared with the caller (GrantAccessToFile).
			shared, err := s.Store.InFileOf(ctx, p.ProviderID, p.OrganisationID, id)
			if err != nil {
				return nil, "", err
			}
			doc, derr := s.Store.DocumentOf(ctx, p.ProviderID, id)
			if !shared || derr != nil {
				return nil, "", status.New(status.NotFound, "no transport document %q in your store, your inbox or a file shared with you", id)
			}
			docID, version, number = doc.ID, doc.Version, doc.Number
		case err != nil:
			return nil, "", err
		default:
			docID, version, number = e.DocumentID, e.Version, e.Number
		}
	}
	v, err := s.Store.Version(ctx, docID, version)
	if err != nil {
		return nil, "", err
	}
	return v.XML, number, nil
}

// StoreRow is one row of ListTransportDocuments.
type StoreRow = models.StoreRow

// InboxRow is one row of an inbox list: the entry, and the version it
// delivered (its number, top layer and import time) of the sender's
// document (created at DocCreatedAt).
type InboxRow = models.InboxRow

// TemplateRow is one row of ListTransportTemplates.
type TemplateRow = models.TemplateRow

// Schemas of the lists (the valid qpar paths); the store says where
// each path is.
var (
	StoreSchema = models.StoreColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
		{Path: "doc.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_type", Kind: qpar.Enum, Values: []string{"BGS", "RGB", "UNS"}, Sortable: true},
		{Path: "doc.number", Kind: qpar.Text, Sortable: true},
		{Path: "doc.version", Kind: qpar.Integer, Sortable: true},
		{Path: "doc.top_layer", Kind: qpar.Enum, Values: layerNames(), Sortable: true},
		{Path: "doc.created_at", Kind: qpar.Time, Sortable: true},
		{Path: "doc.updated_at", Kind: qpar.Time, Sortable: true},
		{Path: "cancelled", Kind: qpar.Bool, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "doc.updated_at", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500})
	InboxSchema = models.InboxColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
		{Path: "id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_type", Kind: qpar.Enum, Values: []string{"BGS", "RGB", "UNS"}, Sortable: true},
		{Path: "doc.number", Kind: qpar.Text, Sortable: true},
		{Path: "doc.version", Kind: qpar.Integer, Sortable: true},
		{Path: "doc.top_layer", Kind: qpar.Enum, Values: layerNames(), Sortable: true},
		{Path: "kind", Kind: qpar.Enum, Values: []string{KindDelivery, KindDekadenmeldung}, Sortable: true},
		{Path: "sender", Kind: qpar.Text, Sortable: true},
		{Path: "cancelled", Kind: qpar.Bool, Sortable: true},
		{Path: "read", Kind: qpar.Bool, Sortable: true},
		{Path: "removed", Kind: qpar.Bool, Sortable: true},
		{Path: "received_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "received_at", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500})
	TemplateSchema = models.TemplateColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
		{Path: "template_id", Kind: qpar.Text, Sortable: true},
		{Path: "interne_bezeichnung", Kind: qpar.Text, Sortable: true},
		{Path: "art", Kind: qpar.Enum, Values: []string{"N", "S", "L"}, Sortable: true},
		{Path: "format", Kind: qpar.Enum, Values: []string{"BMU"}, Sortable: true},
		{Path: "anzahl", Kind: qpar.Integer, Sortable: true},
		{Path: "created_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "interne_bezeichnung", Direction: qpar.Asc}}, DefaultPageSize: 50, MaxPageSize: 500})
)

func layerNames() []string { return rbmu.LayerType(0).EnumNames()[1:] }

func qparErr(err error) error {
	var qe *qpar.Error
	if errors.As(err, &qe) {
		return status.Invalid(qe.Field, qe.Reason)
	}
	return err
}

// ListStore lists the caller's stored notes.
func (s *Service) ListStore(ctx context.Context, q *qpar.QueryParameter) ([]StoreRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, total, err := s.Store.ListStore(ctx, p.ProviderID, p.OrganisationID, q, StoreSchema)
	return out, total, qparErr(err)
}

// ListInbox lists the caller's inbox; removed entries only when the
// filter asks for them.
func (s *Service) ListInbox(ctx context.Context, q *qpar.QueryParameter) ([]InboxRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	withRemoved := q != nil && slices.ContainsFunc(q.Filter, func(f qpar.Filter) bool { return f.Path == "removed" })
	out, total, err := s.Store.ListInbox(ctx, p.ProviderID, p.OrganisationID, withRemoved, q, InboxSchema)
	return out, total, qparErr(err)
}

// ListTemplates lists the caller's transport templates.
func (s *Service) ListTemplates(ctx context.Context, q *qpar.QueryParameter) ([]TemplateRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, total, err := s.Store.ListTemplates(ctx, p.ProviderID, p.OrganisationID, q, TemplateSchema)
	return out, total, qparErr(err)
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
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		found, err := s.Store.InboxEntryIDs(ctx, p.ProviderID, p.OrganisationID, ids)
		if err != nil {
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
		changed, err = s.Store.MarkInboxEntries(ctx, found, column, value)
		return err
	})
	return changed, unknown, err
}

// Template is a stored template of the caller's organisation.
func (s *Service) Template(ctx context.Context, id string) (*models.TransportTemplate, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.Store.Template(ctx, p.ProviderID, p.OrganisationID, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, status.New(status.NotFound, "no transport template %q of your organisation", id)
	}
	return t, err
}

// TakeNumber consumes one note number of a template of the caller's
// organisation, atomically; a used-up block is a clear refusal.
func (s *Service) TakeNumber(ctx context.Context, templateID string) (string, error) {
	if _, err := s.Template(ctx, templateID); err != nil {
		return "", err
	}
	number, err := s.Store.TakeNumber(ctx, templateID, s.now())
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
	d, err := s.Mapping.ParseStored(t.XML) // as stored; a note made from it is checked
	if err != nil {
		return nil, err
	}
	root := d.Tree().Root()
	root.RemoveAttr("templateId")
	root.CreateAttr("templateId", t.ID)
	return d.Bytes()
}
