package transport

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The operations without a REST route (section 8 of the interface), our
// design of them: an inbox entry taken into the store; the file area, an
// organisation's case files that group documents of its store and are
// shared with other organisations by grant (a grantee lists the file and
// exports its documents); and transfers, a version sent to named
// organisations or delivered again to the parties its official numbers
// name, each recipient's inbox entry tracked.

// Transfer kinds (and the kinds of the inbox entries they make).
const (
	KindSending = "SENDING" // SendDocument: to organisations the sender names
)

// TakeResult is what taking an inbox entry into the store did.
type TakeResult struct {
	*ImportResult
	Entry models.InboxEntry
}

// TakeFromInbox takes the version an inbox entry delivered into the
// caller's store (a new document, or a new version of the number there),
// as ImportTransportDocument would with the options o, and marks the entry
// read and taken. An entry is taken once: again is ALREADY_EXISTS, naming
// the document and version it became.
func (s *Service) TakeFromInbox(ctx context.Context, entryID string, o ImportOptions) (*TakeResult, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var out *TakeResult
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		e, err := s.Store.InboxEntry(ctx, p.ProviderID, p.OrganisationID, entryID)
		if errors.Is(err, models.ErrNotFound) {
			return status.New(status.NotFound, "no entry %q in your inbox", entryID)
		} else if err != nil {
			return err
		}
		if e.TakenDocumentID != "" {
			return taken(e)
		}
		v, err := s.Store.Version(ctx, e.DocumentID, e.Version)
		if err != nil {
			return fmt.Errorf("the version entry %s delivered: %w", e.ID, err)
		}
		o.Cancel = e.Cancelled
		res, err := s.Import(ctx, v.XML, o)
		if err != nil {
			return err
		}
		ok, err := s.Store.TakeInboxEntry(ctx, e.ID, res.Document.ID, res.Document.Version)
		if err != nil {
			return err
		}
		if !ok { // a concurrent take won
			e, err = s.Store.InboxEntry(ctx, p.ProviderID, p.OrganisationID, entryID)
			if err != nil {
				return err
			}
			return taken(e)
		}
		e.TakenDocumentID, e.TakenVersion, e.Read = res.Document.ID, res.Document.Version, true
		out = &TakeResult{ImportResult: res, Entry: *e}
		return nil
	})
	return out, err
}

func taken(e *models.InboxEntry) error {
	return status.New(status.AlreadyExists, "inbox entry %s was taken into your store already: document %s, version %d", e.ID, e.TakenDocumentID, e.TakenVersion).
		WithDetails(status.Info("INBOX_ENTRY_TAKEN", map[string]string{"documentId": e.TakenDocumentID, "version": fmt.Sprint(e.TakenVersion)}))
}

// FileInput names a new file.
type FileInput struct {
	Name, Reference string
	DocumentIDs     []string // documents of the caller's store
}

// CreateFile makes a file in the caller's file area with documents of its
// store.
func (s *Service) CreateFile(ctx context.Context, in FileInput) (*models.File, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		return nil, status.Invalid("name", "a file needs a name")
	}
	now := s.now()
	f := &models.File{ID: newID("fl_"), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Name: in.Name, Reference: in.Reference,
		CreatedBy: fmt.Sprint(p.AccountID), CreatedAt: now, UpdatedAt: now}
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		docs, err := s.ownDocuments(ctx, p.ProviderID, p.OrganisationID, "documentIds", in.DocumentIDs, f.ID, fmt.Sprint(p.AccountID))
		if err != nil {
			return err
		}
		return s.Store.CreateFile(ctx, f, docs)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ownDocuments are the file rows of documents ids of org's store; an id
// that is not is field's mistake.
func (s *Service) ownDocuments(ctx context.Context, provider, org, field string, ids []string, file, by string) ([]models.FileDocument, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.Store.DocumentIDs(ctx, provider, org, ids)
	if err != nil {
		return nil, err
	}
	var out []models.FileDocument
	now := s.now()
	for i, id := range ids {
		if !slices.Contains(found, id) {
			return nil, status.Invalidf(fmt.Sprintf("%s[%d]", field, i), "no document %q in your store", id)
		}
		out = append(out, models.FileDocument{FileID: file, DocumentID: id, AddedBy: by, AddedAt: now})
	}
	return out, nil
}

// FileFromInbox takes an inbox entry into the store (unless it was taken
// already) and puts the document in a file of the caller's: fileID, or a
// new file named after the note's number.
func (s *Service) FileFromInbox(ctx context.Context, entryID, fileID string, o ImportOptions) (*TakeResult, *models.File, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	var res *TakeResult
	var file *models.File
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		res, err = s.TakeFromInbox(ctx, entryID, o)
		var se *status.Error
		if errors.As(err, &se) && se.Code == status.AlreadyExists {
			e, gerr := s.Store.InboxEntry(ctx, p.ProviderID, p.OrganisationID, entryID)
			if gerr != nil {
				return gerr
			}
			doc, gerr := s.Store.Document(ctx, p.ProviderID, p.OrganisationID, e.TakenDocumentID)
			if gerr != nil {
				return gerr
			}
			res, err = &TakeResult{ImportResult: &ImportResult{Document: *doc}, Entry: *e}, nil
		}
		if err != nil {
			return err
		}
		by := fmt.Sprint(p.AccountID)
		now := s.now()
		if fileID == "" {
			file = &models.File{ID: newID("fl_"), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Name: res.Document.Number,
				Reference: res.Entry.SenderID, CreatedBy: by, CreatedAt: now, UpdatedAt: now}
			return s.Store.CreateFile(ctx, file, []models.FileDocument{{FileID: file.ID, DocumentID: res.Document.ID, AddedBy: by, AddedAt: now}})
		}
		if file, err = s.Store.LockOwnFile(ctx, p.ProviderID, p.OrganisationID, fileID); errors.Is(err, models.ErrNotFound) {
			return status.New(status.NotFound, "no file %q in your file area", fileID)
		} else if err != nil {
			return err
		}
		return s.Store.AddFileDocuments(ctx, file.ID, []models.FileDocument{{FileID: file.ID, DocumentID: res.Document.ID, AddedBy: by, AddedAt: now}}, now)
	})
	if err != nil {
		return nil, nil, err
	}
	return res, file, nil
}

// FilesOfDocument are the files the caller sees that hold document id of
// its store (or of a file shared with it).
func (s *Service) FilesOfDocument(ctx context.Context, id string) ([]models.FileRow, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store.FilesOfDocument(ctx, p.ProviderID, p.OrganisationID, id)
}

// GrantFile lets organisation org of the caller's provider see the
// caller's file id: list it and its documents, export them. Only the
// file's owner grants; a second grant changes nothing.
func (s *Service) GrantFile(ctx context.Context, id, org string) (*models.File, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var file *models.File
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		f, err := s.Store.LockOwnFile(ctx, p.ProviderID, p.OrganisationID, id)
		if errors.Is(err, models.ErrNotFound) {
			return status.New(status.NotFound, "no file %q in your file area", id)
		} else if err != nil {
			return err
		}
		if org == p.OrganisationID {
			return status.Invalid("organisationId", "the file is yours already")
		}
		if _, err := s.Store.Organisation(ctx, p.ProviderID, org); errors.Is(err, models.ErrNotFound) {
			return status.Invalidf("organisationId", "no organisation %q", org)
		} else if err != nil {
			return err
		}
		file = f
		return s.Store.GrantFile(ctx, &models.FileGrant{FileID: id, OrganisationID: org, GrantedBy: fmt.Sprint(p.AccountID), GrantedAt: s.now()})
	})
	return file, err
}

// MergeFiles moves the documents and grants of the caller's files sources
// into its file target; the sources are gone from the lists after (merged
// into target).
func (s *Service) MergeFiles(ctx context.Context, target string, sources []string) (*models.File, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return nil, status.Invalid("fileIds", "name the files to merge into the target")
	}
	var file *models.File
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		f, err := s.Store.LockOwnFile(ctx, p.ProviderID, p.OrganisationID, target)
		if errors.Is(err, models.ErrNotFound) {
			return status.New(status.NotFound, "no file %q in your file area", target)
		} else if err != nil {
			return err
		}
		for i, src := range sources {
			if src == target || slices.Contains(sources[:i], src) {
				return status.Invalid(fmt.Sprintf("fileIds[%d]", i), "the target or a file named twice")
			}
			if _, err := s.Store.LockOwnFile(ctx, p.ProviderID, p.OrganisationID, src); errors.Is(err, models.ErrNotFound) {
				return status.Invalidf(fmt.Sprintf("fileIds[%d]", i), "no file %q in your file area", src)
			} else if err != nil {
				return err
			}
		}
		file = f
		return s.Store.MergeFiles(ctx, target, sources, fmt.Sprint(p.AccountID), s.now())
	})
	return file, err
}

// FileSchema and FileDocumentSchema are the file lists' qpar paths.
var (
	FileSchema = models.FileColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
		{Path: "file_id", Kind: qpar.Text, Sortable: true},
		{Path: "owner", Kind: qpar.Text, Sortable: true},
		{Path: "name", Kind: qpar.Text, Sortable: true},
		{Path: "reference", Kind: qpar.Text, Sortable: true},
		{Path: "created_at", Kind: qpar.Time, Sortable: true},
		{Path: "updated_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "updated_at", Direction: qpar.Desc}}, DefaultPageSize: 50, MaxPageSize: 500})
	FileDocumentSchema = models.FileDocumentColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
		{Path: "doc.document_id", Kind: qpar.Text, Sortable: true},
		{Path: "doc.document_type", Kind: qpar.Enum, Values: []string{"BGS", "RGB", "UNS"}, Sortable: true},
		{Path: "doc.number", Kind: qpar.Text, Sortable: true},
		{Path: "doc.version", Kind: qpar.Integer, Sortable: true},
		{Path: "doc.top_layer", Kind: qpar.Enum, Values: layerNames(), Sortable: true},
		{Path: "cancelled", Kind: qpar.Bool, Sortable: true},
		{Path: "added_at", Kind: qpar.Time, Sortable: true},
	}, DefaultSort: []qpar.Sort{{Path: "added_at", Direction: qpar.Asc}}, DefaultPageSize: 50, MaxPageSize: 500})
)

// ListFiles lists the files the caller owns or was granted.
func (s *Service) ListFiles(ctx context.Context, q *qpar.QueryParameter) ([]models.FileRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, total, err := s.Store.ListFiles(ctx, p.ProviderID, p.OrganisationID, q, FileSchema)
	return out, total, qparErr(err)
}

// ListFileDocuments lists the documents of a file the caller sees.
func (s *Service) ListFileDocuments(ctx context.Context, fileID string, q *qpar.QueryParameter) ([]models.FileDocumentRow, int64, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, 0, err
	}
	if _, err := s.Store.VisibleFile(ctx, p.ProviderID, p.OrganisationID, fileID); errors.Is(err, models.ErrNotFound) {
		return nil, 0, status.New(status.NotFound, "no file %q in your file area or shared with you", fileID)
	} else if err != nil {
		return nil, 0, err
	}
	out, total, err := s.Store.ListFileDocuments(ctx, fileID, q, FileDocumentSchema)
	return out, total, qparErr(err)
}

// TransferDetails is a transfer and its recipients' entries.
type TransferDetails struct {
	Transfer models.Transfer
	Entries  []models.InboxEntry
}

// Send delivers the current version of a document of the caller's store
// to the inboxes of the organisations it names (kind SENDING), as one
// transfer.
func (s *Service) Send(ctx context.Context, docID string, to []string, message string) (*TransferDetails, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if len(to) == 0 {
		return nil, status.Invalid("recipients", "name at least one organisation")
	}
	var out *TransferDetails
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		doc, err := s.ownDocument(ctx, p.ProviderID, p.OrganisationID, docID)
		if err != nil {
			return err
		}
		var rs []recipient
		for i, org := range to {
			if org == p.OrganisationID || slices.Contains(to[:i], org) {
				return status.Invalid(fmt.Sprintf("recipients[%d]", i), "yourself, or an organisation named twice")
			}
			if _, err := s.Store.Organisation(ctx, p.ProviderID, org); errors.Is(err, models.ErrNotFound) {
				return status.Invalidf(fmt.Sprintf("recipients[%d]", i), "no organisation %q", org)
			} else if err != nil {
				return err
			}
			rs = append(rs, recipient{org, KindSending})
		}
		out, err = s.transfer(ctx, doc, KindSending, message, rs, fmt.Sprint(p.AccountID))
		return err
	})
	return out, err
}

// Deliver delivers the current version of a document of the caller's
// store again to the parties its official numbers name (what
// ImportTransportDocument's distribute does), as one transfer: for a
// version imported without distribution, or a party that joined since.
func (s *Service) Deliver(ctx context.Context, docID string) (*TransferDetails, []string, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out *TransferDetails
	var unknown []string
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		doc, err := s.ownDocument(ctx, p.ProviderID, p.OrganisationID, docID)
		if err != nil {
			return err
		}
		v, err := s.Store.Version(ctx, doc.ID, doc.Version)
		if err != nil {
			return err
		}
		d, err := s.Mapping.Parse(v.XML)
		var pe *bmu.ParseError
		if errors.As(err, &pe) { // stored before fields had lengths (issue 44.3): not delivered on
			return status.Invalid("docId", fmt.Sprintf("the stored note cannot be delivered: %v", pe))
		}
		if err != nil {
			return fmt.Errorf("stored version %s v%d: %w", doc.ID, doc.Version, err)
		}
		parties, err := s.partiesOf(ctx, p.ProviderID, p.OrganisationID, d.Note())
		if err != nil {
			return err
		}
		unknown = parties.unknown
		var rs []recipient
		for _, org := range parties.orgs {
			rs = append(rs, recipient{org, KindDelivery})
		}
		if len(rs) == 0 {
			return status.New(status.FailedPrecondition, "no organisation here holds an official number of %s other than you: nobody to deliver to", doc.Number)
		}
		out, err = s.transfer(ctx, doc, KindDelivery, "", rs, fmt.Sprint(p.AccountID))
		return err
	})
	return out, unknown, err
}

func (s *Service) ownDocument(ctx context.Context, provider, org, id string) (*models.TransportDocument, error) {
	doc, err := s.Store.Document(ctx, provider, org, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, status.New(status.NotFound, "no document %q in your store", id)
	}
	return doc, err
}

func (s *Service) transfer(ctx context.Context, doc *models.TransportDocument, kind, message string, rs []recipient, by string) (*TransferDetails, error) {
	now := s.now()
	t := models.Transfer{ID: newID("tr_"), ProviderID: doc.ProviderID, SenderID: doc.OrganisationID, DocumentID: doc.ID, Version: doc.Version,
		Number: doc.Number, Kind: kind, Message: message, CreatedBy: by, CreatedAt: now}
	if err := s.Store.CreateTransfer(ctx, &t); err != nil {
		return nil, err
	}
	entries, err := s.deliver(ctx, doc, doc.Cancelled, rs, t.ID, now)
	if err != nil {
		return nil, err
	}
	return &TransferDetails{Transfer: t, Entries: entries}, nil
}

// TransferDetails is a transfer the caller sent, or received (then only
// its own entry is shown): each recipient's entry, read, removed, taken.
func (s *Service) TransferDetails(ctx context.Context, id string) (*TransferDetails, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, entries, err := s.Store.Transfer(ctx, p.ProviderID, id)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return nil, err
	}
	if t != nil && t.SenderID != p.OrganisationID {
		entries = slices.DeleteFunc(entries, func(e models.InboxEntry) bool { return e.OrganisationID != p.OrganisationID })
		if len(entries) == 0 {
			t = nil
		}
	}
	if t == nil {
		return nil, status.New(status.NotFound, "no transfer %q that you sent or received", id)
	}
	return &TransferDetails{Transfer: *t, Entries: entries}, nil
}
