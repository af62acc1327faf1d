package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/transport"
)

// The operations the interface gives no REST route (section 8): native
// gRPC and gRPC-Web only; REST answers them as any path it cannot route
// (404, code 5). Their design is ours (workflows/transport/files.go).

type ImportTransportDocumentFromInboxRequest struct {
	InboxEntryID   string     `json:"inboxEntryId" required:"true" doc:"an entry of your inbox"`
	Distribute     *BoolValue `json:"distribute" doc:"deliver the version on to the other parties, as ImportTransportDocument does; false when omitted (it came from one of them)"`
	Dekadenmeldung *BoolValue `json:"dekadenmeldung" doc:"mark it for the ten-day report, as ImportTransportDocument does; false when omitted"`
}

type ImportTransportDocumentFromInboxResponse struct {
	ImportTransportDocumentResponse `json:",inline"`
	InboxEntryID                    string `json:"inboxEntryId" doc:"the entry taken: now read, and taken (a second take is 409, code 6, INBOX_ENTRY_TAKEN)"`
}

type ImportDocumentToFileAreaFromInboxRequest struct {
	InboxEntryID   string     `json:"inboxEntryId" required:"true" doc:"an entry of your inbox; taken into your store first unless it was already"`
	FileID         string     `json:"fileId" doc:"a file of yours to put the document in; empty: a new file named after the note's number"`
	Distribute     *BoolValue `json:"distribute" doc:"as ImportTransportDocumentFromInbox; false when omitted"`
	Dekadenmeldung *BoolValue `json:"dekadenmeldung" doc:"as ImportTransportDocumentFromInbox; false when omitted"`
}

type ImportDocumentToFileAreaFromInboxResponse struct {
	DocID   StoredDocID `json:"docId" doc:"the document in your store"`
	Number  string      `json:"number"`
	Version int64       `json:"version"`
	File    FileEntry   `json:"file"`
}

// FileEntry is a file of a file area.
type FileEntry struct {
	FileID    string    `json:"fileId"`
	Owner     string    `json:"owner" doc:"the organisation whose file area holds it"`
	Name      string    `json:"name"`
	Reference string    `json:"reference" doc:"the owner's reference (a case number, a contract); a file made from an inbox entry has the sender"`
	Documents int64     `json:"documents" doc:"how many documents it holds"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type CreateNewFileRequest struct {
	Name        string   `json:"name" required:"true" maxLength:"200"`
	Reference   string   `json:"reference" maxLength:"200"`
	DocumentIDs []string `json:"documentIds" maxItems:"1000" doc:"documents of your store to put in it"`
}

type FileResponse struct {
	File FileEntry `json:"file"`
}

type (
	CreateNewFileResponse     FileResponse
	GrantAccessToFileResponse FileResponse
	MergeFilesResponse        FileResponse
)

type GrantAccessToFileRequest struct {
	FileID         string `json:"fileId" required:"true" doc:"a file of yours"`
	OrganisationID string `json:"organisationId" required:"true" doc:"the organisation that may list the file and its documents and export them"`
}

type MergeFilesRequest struct {
	FileID  string   `json:"fileId" required:"true" doc:"the file of yours that keeps everything"`
	FileIDs []string `json:"fileIds" required:"true" maxItems:"100" doc:"files of yours whose documents and grants move into fileId; they are gone from the lists after"`
}

type FindFilesToDocumentRequest struct {
	DocID DocID `json:"docId" required:"true" doc:"a document of your store, or of a file shared with you"`
}

type FindFilesToDocumentResponse struct {
	Files []FileEntry `json:"files" doc:"the files you see that hold it, newest change first"`
}

type SendDocumentRequest struct {
	DocID      DocID    `json:"docId" required:"true" doc:"a document of your store: its current version is sent"`
	Recipients []string `json:"recipients" required:"true" maxItems:"100" maxLength:"128" doc:"organisations whose inboxes receive it"`
	Message    string   `json:"message" maxLength:"2000"`
}

type DeliverDocumentRequest struct {
	DocID DocID `json:"docId" required:"true" doc:"a document of your store: its current version goes to the parties its official numbers name"`
}

type GetTransferDetailsRequest struct {
	TransferID string `json:"transferId" required:"true"`
}

// TransferEntry is a transfer and where each copy stands.
type TransferEntry struct {
	TransferID string              `json:"transferId"`
	Kind       string              `json:"kind" doc:"SENDING (SendDocument) or DELIVERY (DeliverDocument)"`
	DocID      StoredDocID         `json:"docId" doc:"the sender's document"`
	Number     string              `json:"number"`
	Version    int64               `json:"version" doc:"the version transferred"`
	Sender     string              `json:"sender"`
	Message    string              `json:"message"`
	CreatedAt  time.Time           `json:"createdAt"`
	Recipients []TransferRecipient `json:"recipients" doc:"every recipient for the sender; only your own entry for a recipient"`
}

type TransferRecipient struct {
	OrganisationID string `json:"organisationId"`
	InboxEntryID   string `json:"inboxEntryId"`
	Read           bool   `json:"read"`
	Removed        bool   `json:"removed"`
	Taken          bool   `json:"taken" doc:"taken into the recipient's store (ImportTransportDocumentFromInbox)"`
}

type TransferResponse struct {
	Transfer TransferEntry `json:"transfer"`
}

type (
	SendDocumentResponse       TransferResponse
	GetTransferDetailsResponse TransferResponse
)

type DeliverDocumentResponse struct {
	Transfer       TransferEntry `json:"transfer"`
	UnknownNumbers []string      `json:"unknownNumbers" doc:"official numbers in the note that no organisation here holds"`
}

type ListFilesRequest struct {
	Qpar qpar.QueryParameter `json:"qpar"`
}

type ListFilesResponse struct {
	Entries []FileEntry `json:"entries"`
	Total   int64       `json:"total"`
}

type ListFileAreaDocumentsRequest struct {
	FileID string              `json:"fileId" required:"true"`
	Qpar   qpar.QueryParameter `json:"qpar"`
}

type FileAreaDocumentEntry struct {
	Doc       DocRow    `json:"doc"`
	Cancelled bool      `json:"cancelled"`
	AddedAt   time.Time `json:"addedAt"`
}

type ListFileAreaDocumentsResponse struct {
	Entries []FileAreaDocumentEntry `json:"entries"`
	Total   int64                   `json:"total"`
}

func fileEntry(f *models.File, documents int64) FileEntry {
	return FileEntry{FileID: f.ID, Owner: f.OrganisationID, Name: f.Name, Reference: f.Reference, Documents: documents, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}

func fileRow(r models.FileRow) FileEntry {
	return FileEntry{FileID: r.ID, Owner: r.OrganisationID, Name: r.Name, Reference: r.Reference, Documents: r.Documents, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func transferEntry(d *transport.TransferDetails) TransferEntry {
	t := d.Transfer
	out := TransferEntry{TransferID: t.ID, Kind: t.Kind, DocID: StoredDocID{ID: t.DocumentID}, Number: t.Number, Version: t.Version, Sender: t.SenderID,
		Message: t.Message, CreatedAt: t.CreatedAt, Recipients: []TransferRecipient{}}
	for _, e := range d.Entries {
		out.Recipients = append(out.Recipients, TransferRecipient{OrganisationID: e.OrganisationID, InboxEntryID: e.ID, Read: e.Read, Removed: e.Removed,
			Taken: e.TakenDocumentID != ""})
	}
	return out
}

// fileOf reads a file's row (its document count) after a change.
func (s *Server) fileOf(ctx context.Context, f *models.File) (FileEntry, error) {
	rows, _, err := s.transport.ListFiles(ctx, &qpar.QueryParameter{Filter: []qpar.Filter{{Path: "file_id", Op: qpar.Equal, Operands: []qpar.Operand{{S: &f.ID}}}}})
	if err != nil || len(rows) == 0 {
		return fileEntry(f, 0), err
	}
	return fileRow(rows[0]), nil
}

func (s *Server) fileAreaOperations() []api.Operation {
	if s.transport == nil {
		return nil
	}
	op := func(service, method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgCore, Service: service, Method: method, Verb: http.MethodPost, GRPCOnly: true, Summary: summary,
			Description: desc + " No REST route (section 8): native gRPC and gRPC-Web only; our design."}
	}
	const doc, query = "DocumentApi", "QueryApi"
	fileResp := func(ctx context.Context, f *models.File, err error) (*FileResponse, error) {
		if err != nil {
			return nil, err
		}
		e, err := s.fileOf(ctx, f)
		return &FileResponse{File: e}, err
	}
	return []api.Operation{
		api.Unary(op(doc, "ImportTransportDocumentFromInbox", "Take an inbox entry's version into your store",
			"The version the entry delivered becomes a document of your store (a new version of a number you have), as ImportTransportDocument "+
				"would store it, without distributing or reporting it unless asked; the entry is marked read and taken. An entry is taken once: "+
				"again answers 409, code 6, with ErrorInfo INBOX_ENTRY_TAKEN naming the document and version it became."),
			func(ctx context.Context, r *ImportTransportDocumentFromInboxRequest) (*ImportTransportDocumentFromInboxResponse, error) {
				res, err := s.transport.TakeFromInbox(ctx, r.InboxEntryID, transport.ImportOptions{Distribute: r.Distribute != nil && r.Distribute.Value,
					Dekadenmeldung: r.Dekadenmeldung != nil && r.Dekadenmeldung.Value})
				if err != nil {
					return nil, err
				}
				d := res.Document
				return &ImportTransportDocumentFromInboxResponse{InboxEntryID: res.Entry.ID, ImportTransportDocumentResponse: ImportTransportDocumentResponse{
					DocID: StoredDocID{ID: d.ID}, Number: d.Number, DocumentType: d.DocumentType, Version: d.Version, Cancelled: d.Cancelled,
					DeliveredTo: nonNil(res.DeliveredTo), UnknownNumbers: nonNil(res.UnknownNumbers), Dekadenmeldung: res.Reported,
					ReportedTo: nonNil(res.ReportedTo), Note: res.ReportNote}}, nil
			}),
		api.Unary(op(doc, "ImportDocumentToFileAreaFromInbox", "Take an inbox entry into your store and put it in a file",
			"As ImportTransportDocumentFromInbox (an entry taken already is not taken again: its document is filed), then the document goes "+
				"into fileId, a file of yours, or into a new file named after the note's number with the sender as reference."),
			func(ctx context.Context, r *ImportDocumentToFileAreaFromInboxRequest) (*ImportDocumentToFileAreaFromInboxResponse, error) {
				res, f, err := s.transport.FileFromInbox(ctx, r.InboxEntryID, r.FileID, transport.ImportOptions{Distribute: r.Distribute != nil && r.Distribute.Value,
					Dekadenmeldung: r.Dekadenmeldung != nil && r.Dekadenmeldung.Value})
				if err != nil {
					return nil, err
				}
				e, err := s.fileOf(ctx, f)
				return &ImportDocumentToFileAreaFromInboxResponse{DocID: StoredDocID{ID: res.Document.ID}, Number: res.Document.Number, Version: res.Document.Version, File: e}, err
			}),
		api.Unary(op(doc, "CreateNewFile", "Open a file in your file area",
			"A file groups documents of your store under a name and a reference (a case, a contract, a disposal route); GrantAccessToFile "+
				"shares it. documentIds not in your store are 400, code 3, naming the entry."),
			func(ctx context.Context, r *CreateNewFileRequest) (*CreateNewFileResponse, error) {
				f, err := s.transport.CreateFile(ctx, transport.FileInput{Name: r.Name, Reference: r.Reference, DocumentIDs: r.DocumentIDs})
				resp, err := fileResp(ctx, f, err)
				return (*CreateNewFileResponse)(resp), err
			}),
		api.Unary(op(doc, "GrantAccessToFile", "Share a file of yours with another organisation",
			"The organisation then lists the file (ListFiles), its documents (ListFileAreaDocuments) and exports them (ExportCurrentDocument); "+
				"it cannot change the file. Only the owner grants; a second grant changes nothing."),
			func(ctx context.Context, r *GrantAccessToFileRequest) (*GrantAccessToFileResponse, error) {
				f, err := s.transport.GrantFile(ctx, r.FileID, r.OrganisationID)
				resp, err := fileResp(ctx, f, err)
				return (*GrantAccessToFileResponse)(resp), err
			}),
		api.Unary(op(doc, "MergeFiles", "Merge files of yours into one",
			"The documents and grants of fileIds move into fileId; the merged files are gone from the lists. All must be yours."),
			func(ctx context.Context, r *MergeFilesRequest) (*MergeFilesResponse, error) {
				f, err := s.transport.MergeFiles(ctx, r.FileID, r.FileIDs)
				resp, err := fileResp(ctx, f, err)
				return (*MergeFilesResponse)(resp), err
			}),
		api.Unary(op(doc, "FindFilesToDocument", "The files that hold a document",
			"Of the files you own or were granted."),
			func(ctx context.Context, r *FindFilesToDocumentRequest) (*FindFilesToDocumentResponse, error) {
				rows, err := s.transport.FilesOfDocument(ctx, r.DocID.ID)
				if err != nil {
					return nil, err
				}
				out := &FindFilesToDocumentResponse{Files: make([]FileEntry, 0, len(rows))}
				for _, row := range rows {
					out.Files = append(out.Files, fileRow(row))
				}
				return out, nil
			}),
		api.Unary(op(doc, "SendDocument", "Send a document to organisations you name",
			"Its current version goes to each recipient's inbox (kind SENDING, an INBOX_ENTRY_ADDED event each), as one transfer: "+
				"GetTransferDetails follows it."),
			func(ctx context.Context, r *SendDocumentRequest) (*SendDocumentResponse, error) {
				d, err := s.transport.Send(ctx, r.DocID.ID, r.Recipients, r.Message)
				if err != nil {
					return nil, err
				}
				return &SendDocumentResponse{Transfer: transferEntry(d)}, nil
			}),
		api.Unary(op(doc, "DeliverDocument", "Deliver a document to the parties it names",
			"Its current version goes to the inbox of each organisation holding an official number in it (what ImportTransportDocument's "+
				"distribute does): for a version stored without distribution, or a party registered since. One transfer; nobody to deliver "+
				"to is 400, code 9."),
			func(ctx context.Context, r *DeliverDocumentRequest) (*DeliverDocumentResponse, error) {
				d, unknown, err := s.transport.Deliver(ctx, r.DocID.ID)
				if err != nil {
					return nil, err
				}
				return &DeliverDocumentResponse{Transfer: transferEntry(d), UnknownNumbers: nonNil(unknown)}, nil
			}),
		api.Unary(op(doc, "GetTransferDetails", "Where a transfer's copies stand",
			"For the sender every recipient's entry (read, removed, taken into their store); for a recipient its own."),
			func(ctx context.Context, r *GetTransferDetailsRequest) (*GetTransferDetailsResponse, error) {
				d, err := s.transport.TransferDetails(ctx, r.TransferID)
				if err != nil {
					return nil, err
				}
				return &GetTransferDetailsResponse{Transfer: transferEntry(d)}, nil
			}),
		api.Unary(op(query, "ListFiles", "The files of your file area and those shared with you", qpar.Describe(transport.FileSchema)),
			func(ctx context.Context, r *ListFilesRequest) (*ListFilesResponse, error) {
				rows, total, err := s.transport.ListFiles(ctx, &r.Qpar)
				if err != nil {
					return nil, err
				}
				out := &ListFilesResponse{Entries: make([]FileEntry, 0, len(rows)), Total: total}
				for _, row := range rows {
					out.Entries = append(out.Entries, fileRow(row))
				}
				return out, nil
			}),
		api.Unary(op(query, "ListFileAreaDocuments", "The documents of a file", qpar.Describe(transport.FileDocumentSchema)),
			func(ctx context.Context, r *ListFileAreaDocumentsRequest) (*ListFileAreaDocumentsResponse, error) {
				rows, total, err := s.transport.ListFileDocuments(ctx, r.FileID, &r.Qpar)
				if err != nil {
					return nil, err
				}
				out := &ListFileAreaDocumentsResponse{Entries: make([]FileAreaDocumentEntry, 0, len(rows)), Total: total}
				for _, row := range rows {
					out.Entries = append(out.Entries, FileAreaDocumentEntry{Doc: docRow(row.ID, row.DocumentType, row.Number, row.TopLayer, row.Version, row.CreatedAt, row.UpdatedAt),
						Cancelled: row.Cancelled, AddedAt: row.AddedAt})
				}
				return out, nil
			}),
	}
}
