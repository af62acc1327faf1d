package handlers

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/transport"
)

const pkgPreview = "svc.core.preview.api"

// noRoute lists the operations of the store that have no REST route; the
// gateway answers them as any path it cannot route (404, code 5).
const noRoute = " Operations of these services with no REST route (section 8 of the interface): ImportTransportDocumentFromInbox, " +
	"ImportDocumentToFileAreaFromInbox, SendDocument, DeliverDocument, GetTransferDetails, FindFilesToDocument, CreateNewFile, " +
	"GrantAccessToFile, MergeFiles, QueryApi ListFileAreaDocuments and ListFiles: native gRPC and gRPC-Web only (proto/svc/core/v1/api); " +
	"over REST they answer 404, code 5, as every path the gateway cannot route. Over REST an inbox entry is read with ExportCurrentDocument."

// BoolValue is a Boolean option that can be unset ({value}).
type BoolValue struct {
	Value bool `json:"value"`
}

// DocID names a stored document ({id}) in a request.
type DocID struct {
	ID string `json:"id" required:"true"`
}

// StoredDocID names a stored document ({id}) in an answer.
type StoredDocID struct {
	ID string `json:"id"`
}

type ImportTransportDocumentRequest struct {
	Document       []byte     `json:"document" required:"true" doc:"the note's whole XML with all layers, base64 (at most 21 MB)"`
	Distribute     *BoolValue `json:"distribute" doc:"deliver the version to the inboxes of the other parties named by their official numbers; true when omitted"`
	Dekadenmeldung *BoolValue `json:"dekadenmeldung" doc:"mark a consignment note for the ten-day report to the authorities, effective once the disposer's or a supplement layer is on top; true when omitted"`
	Cancel         *BoolValue `json:"cancel" doc:"the version is a cancellation: delivered, never reported; false when omitted (our choice: the interface leaves it open)"`
}

type ImportTransportDocumentResponse struct {
	DocID          StoredDocID `json:"docId" doc:"the document in your store (the same for every version of its number)"`
	Number         string      `json:"number" doc:"the note number: the transport identifier"`
	DocumentType   string      `json:"documentType"`
	Version        int64       `json:"version" doc:"1 for a new document, one more for each import of the same number"`
	Cancelled      bool        `json:"cancelled"`
	DeliveredTo    []string    `json:"deliveredTo" doc:"organisations whose inbox received this version"`
	UnknownNumbers []string    `json:"unknownNumbers" doc:"official numbers in the note that no organisation here holds (not an error)"`
	Dekadenmeldung bool        `json:"dekadenmeldung" doc:"the version is marked for the ten-day report"`
	ReportedTo     []string    `json:"reportedTo" doc:"authorities whose inbox received the ten-day report: those of the disposer's place (our design)"`
	Note           string      `json:"note" doc:"why a report asked for did not take effect"`
}

type ExportCurrentDocumentRequest struct {
	DocID DocID `json:"docId" required:"true" doc:"a document of your store (its newest version) or an entry of your inbox (the version it delivered)"`
}

type ExportCurrentDocumentResponse struct {
	Document []byte `json:"document" doc:"the XML, base64: what BmuDocumentApi takes as docXml"`
}

// DocRow describes a stored note in list rows.
type DocRow struct {
	DocumentID   StoredDocID `json:"documentId"`
	DocumentType string      `json:"documentType" doc:"BGS, UNS (RGB, a record list entry, is a value of the filter)"`
	Number       string      `json:"number"`
	Version      int64       `json:"version"`
	TopLayer     string      `json:"topLayer"`
	CreatedAt    time.Time   `json:"createdAt"`
	UpdatedAt    time.Time   `json:"updatedAt"`
}

type TransportDocumentEntry struct {
	Doc       DocRow `json:"doc"`
	Cancelled bool   `json:"cancelled"`
}

type InboxEntry struct {
	ID         string    `json:"id" doc:"the inbox entry: ExportCurrentDocument takes it as docId.id"`
	Doc        DocRow    `json:"doc" doc:"the sender's document and the version delivered: doc.version is that version (a new import of the same note is a new version, a new entry), doc.topLayer its top layer (as in the store's rows), doc.createdAt when the sender's document was first stored, doc.updatedAt when the delivered version was"`
	Kind       string    `json:"kind" doc:"DELIVERY, or DEKADENMELDUNG for an authority's ten-day report"`
	Sender     string    `json:"sender"`
	Cancelled  bool      `json:"cancelled"`
	Read       bool      `json:"read"`
	Removed    bool      `json:"removed"`
	ReceivedAt time.Time `json:"receivedAt" doc:"when this version reached your inbox"`
}

type TemplateID struct {
	ID string `json:"id"`
}

type TransportTemplateEntry struct {
	TemplateID         TemplateID `json:"templateId"`
	InterneBezeichnung string     `json:"interneBezeichnung"`
	Art                string     `json:"art" doc:"N consignment note, S acceptance note, L record list"`
	Format             string     `json:"format" doc:"BMU"`
	Anzahl             int64      `json:"anzahl" doc:"note numbers left in the template's block"`
}

type ListRequest struct {
	Qpar qpar.QueryParameter `json:"qpar"`
}

type (
	ListTransportDocumentsRequest ListRequest
	ListInboxDocumentsRequest     ListRequest
	ListTransportTemplatesRequest ListRequest
	ListInboxRequest              ListRequest
)

type ListTransportDocumentsResponse struct {
	Entries []TransportDocumentEntry `json:"entries"`
	Total   int64                    `json:"total"`
}

type ListInboxDocumentsResponse struct {
	Entries []InboxEntry `json:"entries"`
	Total   int64        `json:"total"`
}

type ListTransportTemplatesResponse struct {
	Entries []TransportTemplateEntry `json:"entries"`
	Total   int64                    `json:"total"`
}

type InboxIDsRequest struct {
	IDs []string `json:"ids" required:"true" doc:"inbox entry ids"`
}

type SetInboxDocumentsReadRequest struct {
	IDs  []string   `json:"ids" required:"true" doc:"inbox entry ids"`
	Read *BoolValue `json:"read" doc:"true when omitted; false marks them unread again"`
}

type InboxChangeResponse struct {
	Changed int64    `json:"changed" doc:"entries whose flag changed"`
	Unknown []string `json:"unknown" doc:"ids that are not entries of your inbox"`
}

type (
	SetInboxDocumentsReadResponse    InboxChangeResponse
	RemoveDocumentsFromInboxResponse InboxChangeResponse
)

type ExportTransportTemplateRequest struct {
	TemplateID TemplateID `json:"templateId" required:"true"`
}

type ExportTransportTemplateResponse struct {
	Document []byte `json:"document" doc:"the template's XML, base64, its root carrying templateId: BmuDocumentApi/CreateDocumentFromTemplate takes it and consumes one number of the block"`
}

type PreviewListRequest struct {
	Qpar qpar.QueryParameter `json:"qpar" doc:"mask, pageStart and pageSize"`
}

func docRow(id, typ, number, top string, version int64, created, updated time.Time) DocRow {
	return DocRow{DocumentID: StoredDocID{ID: id}, DocumentType: typ, Number: number, Version: version, TopLayer: top, CreatedAt: created, UpdatedAt: updated}
}

// masked keeps what the field mask selects (all without a mask): fields it
// leaves out are empty.
func masked[T any](rows []T, mask string, allowed []string, clear func(row *T, keep map[string]bool)) ([]T, error) {
	keep, err := qpar.MaskSelects(mask, allowed)
	if err != nil {
		return nil, qparErr(err)
	}
	if keep != nil {
		for i := range rows {
			clear(&rows[i], keep)
		}
	}
	return rows, nil
}

var storeMask = []string{"doc.documentId", "doc.documentType", "doc.number", "doc.version", "doc.topLayer", "doc.createdAt", "doc.updatedAt", "cancelled"}
var inboxMask = []string{"id", "doc.documentId", "doc.documentType", "doc.number", "doc.version", "doc.topLayer", "doc.createdAt", "doc.updatedAt",
	"kind", "sender", "cancelled", "read", "removed", "receivedAt"}
var templateMask = []string{"templateId", "interneBezeichnung", "art", "format", "anzahl"}

func clearDoc(d *DocRow, keep map[string]bool) {
	if !keep["doc.documentId"] {
		d.DocumentID = StoredDocID{}
	}
	if !keep["doc.documentType"] {
		d.DocumentType = ""
	}
	if !keep["doc.number"] {
		d.Number = ""
	}
	if !keep["doc.version"] {
		d.Version = 0
	}
	if !keep["doc.topLayer"] {
		d.TopLayer = ""
	}
	if !keep["doc.createdAt"] {
		d.CreatedAt = time.Time{}
	}
	if !keep["doc.updatedAt"] {
		d.UpdatedAt = time.Time{}
	}
}

func (s *Server) listStore(ctx context.Context, q *qpar.QueryParameter) (*ListTransportDocumentsResponse, error) {
	rows, total, err := s.transport.ListStore(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ListTransportDocumentsResponse{Entries: make([]TransportDocumentEntry, 0, len(rows)), Total: total}
	for _, r := range rows {
		out.Entries = append(out.Entries, TransportDocumentEntry{Doc: docRow(r.ID, r.DocumentType, r.Number, r.TopLayer, r.Version, r.CreatedAt, r.UpdatedAt), Cancelled: r.Cancelled})
	}
	out.Entries, err = masked(out.Entries, q.Mask, storeMask, func(e *TransportDocumentEntry, keep map[string]bool) {
		clearDoc(&e.Doc, keep)
		if !keep["cancelled"] {
			e.Cancelled = false
		}
	})
	return out, err
}

func (s *Server) listTemplates(ctx context.Context, q *qpar.QueryParameter) (*ListTransportTemplatesResponse, error) {
	rows, total, err := s.transport.ListTemplates(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ListTransportTemplatesResponse{Entries: make([]TransportTemplateEntry, 0, len(rows)), Total: total}
	for _, r := range rows {
		out.Entries = append(out.Entries, TransportTemplateEntry{TemplateID: TemplateID{ID: r.ID}, InterneBezeichnung: r.InterneBezeichnung, Art: r.Art, Format: r.Format, Anzahl: r.Anzahl})
	}
	out.Entries, err = masked(out.Entries, q.Mask, templateMask, func(e *TransportTemplateEntry, keep map[string]bool) {
		if !keep["templateId"] {
			e.TemplateID = TemplateID{}
		}
		if !keep["interneBezeichnung"] {
			e.InterneBezeichnung = ""
		}
		if !keep["art"] {
			e.Art = ""
		}
		if !keep["format"] {
			e.Format = ""
		}
		if !keep["anzahl"] {
			e.Anzahl = 0
		}
	})
	return out, err
}

func (s *Server) listInbox(ctx context.Context, q *qpar.QueryParameter) (*ListInboxDocumentsResponse, error) {
	rows, total, err := s.transport.ListInbox(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ListInboxDocumentsResponse{Entries: make([]InboxEntry, 0, len(rows)), Total: total}
	for _, r := range rows {
		created, updated := r.CreatedAt, r.CreatedAt
		if r.DocCreatedAt != nil {
			created = *r.DocCreatedAt
		}
		if r.VersionCreatedAt != nil {
			updated = *r.VersionCreatedAt
		}
		out.Entries = append(out.Entries, InboxEntry{ID: r.ID, Doc: docRow(r.DocumentID, r.DocumentType, r.Number, r.TopLayer, r.Version, created, updated),
			Kind: r.Kind, Sender: r.SenderID, Cancelled: r.Cancelled, Read: r.Read, Removed: r.Removed, ReceivedAt: r.CreatedAt})
	}
	out.Entries, err = masked(out.Entries, q.Mask, inboxMask, func(e *InboxEntry, keep map[string]bool) {
		clearDoc(&e.Doc, keep)
		if !keep["id"] {
			e.ID = ""
		}
		if !keep["kind"] {
			e.Kind = ""
		}
		if !keep["sender"] {
			e.Sender = ""
		}
		if !keep["cancelled"] {
			e.Cancelled = false
		}
		if !keep["read"] {
			e.Read = false
		}
		if !keep["removed"] {
			e.Removed = false
		}
		if !keep["receivedAt"] {
			e.ReceivedAt = time.Time{}
		}
	})
	return out, err
}

func orTrue(b *BoolValue) bool { return b == nil || b.Value }

// streamBytes writes {"<key>":"<base64>"} without a second copy of the bytes.
func streamBytes(key string, data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"`+key+`":"`); err != nil {
			return err
		}
		enc := base64.NewEncoder(base64.StdEncoding, w)
		for off := 0; off < len(data); off += 1 << 16 {
			if _, err := enc.Write(data[off:min(off+1<<16, len(data))]); err != nil {
				return err
			}
		}
		if err := enc.Close(); err != nil {
			return err
		}
		_, err := io.WriteString(w, `"}`)
		return err
	}
}

func (s *Server) storeOperations() []api.Operation {
	if s.transport == nil {
		return nil
	}
	op := func(pkg, service, method, verb, summary, desc string) api.Operation {
		return api.Operation{Package: pkg, Service: service, Method: method, Verb: verb, Summary: summary, Description: desc}
	}
	const doc, query = "DocumentApi", "QueryApi"
	return []api.Operation{
		api.Unary(op(pkgCore, doc, "ImportTransportDocument", http.MethodPost, "Store a note's XML in your store (a new version for a number you have)",
			"Stores the whole XML with all layers. The note number is the transport identifier: the same number again is a new version of that "+
				"document, otherwise a new document. distribute (true when omitted) delivers the version to the inbox of every other party, found from "+
				"the official numbers in the note (numbers nobody here holds are listed in unknownNumbers); only a party (an organisation holding one of "+
				"the note's numbers) delivers or reports a note: another gets 403, code 7, and nothing is stored; dekadenmeldung (true when omitted) marks a "+
				"consignment note for the ten-day report once the disposer's or a supplement layer is on top, delivered to the inbox of the authorities "+
				"of the disposer's place (our design); cancel (false when omitted, our choice) makes the version a cancellation, delivered but never "+
				"reported. Each new inbox entry is an INBOX_ENTRY_ADDED event for the recipient's notifier groups. A field longer than its length (the "+
				"maxLength of each field of BmuDocumentApi's bgs and uns) is 400, code 3, naming its element, and nothing is stored."+noRoute),
			func(ctx context.Context, r *ImportTransportDocumentRequest) (*ImportTransportDocumentResponse, error) {
				res, err := s.transport.Import(ctx, r.Document, transport.ImportOptions{Distribute: orTrue(r.Distribute), Dekadenmeldung: orTrue(r.Dekadenmeldung),
					Cancel: r.Cancel != nil && r.Cancel.Value})
				if err != nil {
					return nil, err
				}
				d := res.Document
				return &ImportTransportDocumentResponse{DocID: StoredDocID{ID: d.ID}, Number: d.Number, DocumentType: d.DocumentType, Version: d.Version,
					Cancelled: d.Cancelled, DeliveredTo: nonNil(res.DeliveredTo), UnknownNumbers: nonNil(res.UnknownNumbers), Dekadenmeldung: res.Reported,
					ReportedTo: nonNil(res.ReportedTo), Note: res.ReportNote}, nil
			}),
		api.StreamJSON[ExportCurrentDocumentRequest, ExportCurrentDocumentResponse](op(pkgCore, doc, "ExportCurrentDocument", http.MethodGet,
			"The XML of a stored note's newest version, or of an inbox entry's version",
			"docId.id names a document of your store or an entry of your inbox; anything else answers 404. The answer is streamed (up to 50 MB) "+
				"and accepted by BmuDocumentApi as docXml."),
			func(ctx context.Context, r *ExportCurrentDocumentRequest) (func(io.Writer) error, error) {
				x, _, err := s.transport.Export(ctx, r.DocID.ID)
				if err != nil {
					return nil, err
				}
				return streamBytes("document", x), nil
			}),
		api.Unary(op(pkgCore, doc, "ListInbox", http.MethodPost, "Your inbox (our design: the rows of QueryApi/ListInboxDocuments)",
			"Removed entries appear only when the filter asks for removed. "+qpar.Describe(transport.InboxSchema)),
			func(ctx context.Context, r *ListInboxRequest) (*ListInboxDocumentsResponse, error) {
				return s.listInbox(ctx, &r.Qpar)
			}),
		api.Unary(op(pkgCore, doc, "SetInboxDocumentsRead", http.MethodPost, "Mark inbox entries read or unread (our design)",
			"ids of your inbox's entries; read true when omitted. Ids not in your inbox are listed in unknown."),
			func(ctx context.Context, r *SetInboxDocumentsReadRequest) (*SetInboxDocumentsReadResponse, error) {
				n, unknown, err := s.transport.MarkInbox(ctx, r.IDs, "read", orTrue(r.Read))
				return &SetInboxDocumentsReadResponse{Changed: n, Unknown: nonNil(unknown)}, err
			}),
		api.Unary(op(pkgCore, doc, "RemoveDocumentsFromInbox", http.MethodPost, "Remove entries from your inbox (our design)",
			"The entries leave the inbox's lists (a filter on removed shows them); the stored notes are not touched."),
			func(ctx context.Context, r *InboxIDsRequest) (*RemoveDocumentsFromInboxResponse, error) {
				n, unknown, err := s.transport.MarkInbox(ctx, r.IDs, "removed", true)
				return &RemoveDocumentsFromInboxResponse{Changed: n, Unknown: nonNil(unknown)}, err
			}),
		api.Unary(op(pkgCore, query, "ListTransportDocuments", http.MethodPost, "Your stored notes", qpar.Describe(transport.StoreSchema)+
			" The mask selects among "+strings.Join(storeMask, ", ")+"; fields it leaves out are empty."),
			func(ctx context.Context, r *ListTransportDocumentsRequest) (*ListTransportDocumentsResponse, error) {
				return s.listStore(ctx, &r.Qpar)
			}),
		api.Unary(op(pkgCore, query, "ListInboxDocuments", http.MethodPost, "Your inbox's entries", qpar.Describe(transport.InboxSchema)),
			func(ctx context.Context, r *ListInboxDocumentsRequest) (*ListInboxDocumentsResponse, error) {
				return s.listInbox(ctx, &r.Qpar)
			}),
		api.Unary(op(pkgCore, query, "ListTransportTemplates", http.MethodPost, "Your organisation's transport templates", qpar.Describe(transport.TemplateSchema)+
			" The mask selects among "+strings.Join(templateMask, ", ")+"."),
			func(ctx context.Context, r *ListTransportTemplatesRequest) (*ListTransportTemplatesResponse, error) {
				return s.listTemplates(ctx, &r.Qpar)
			}),
		api.StreamJSON[ExportTransportTemplateRequest, ExportTransportTemplateResponse](op(pkgCore, "DocumentTemplateApi", "ExportTransportTemplate", http.MethodGet,
			"A transport template's XML", "templateId.id of your organisation's template; its root carries templateId, so CreateDocumentFromTemplate "+
				"consumes a number of its block."),
			func(ctx context.Context, r *ExportTransportTemplateRequest) (func(io.Writer) error, error) {
				x, err := s.transport.ExportTemplate(ctx, r.TemplateID.ID)
				if err != nil {
					return nil, err
				}
				return streamBytes("document", x), nil
			}),
		api.Unary(op(pkgPreview, "PreviewApi", "ListTransportDocument", http.MethodGet, "Your stored notes (preview list)",
			"qpar.mask, qpar.pageStart and qpar.pageSize in the query string; newest first."),
			func(ctx context.Context, r *PreviewListRequest) (*ListTransportDocumentsResponse, error) {
				return s.listStore(ctx, &qpar.QueryParameter{Mask: r.Qpar.Mask, PageStart: r.Qpar.PageStart, PageSize: r.Qpar.PageSize})
			}),
		api.Unary(op(pkgPreview, "PreviewApi", "ListTransportTemplates", http.MethodGet, "Your transport templates (preview list)",
			"qpar.mask, qpar.pageStart and qpar.pageSize in the query string."),
			func(ctx context.Context, r *PreviewListRequest) (*ListTransportTemplatesResponse, error) {
				return s.listTemplates(ctx, &qpar.QueryParameter{Mask: r.Qpar.Mask, PageStart: r.Qpar.PageStart, PageSize: r.Qpar.PageSize})
			}),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func qparErr(err error) error {
	if qe, ok := err.(*qpar.Error); ok {
		return status.Invalid(qe.Field, qe.Reason)
	}
	return err
}
