package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/registers"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// Register exports: ExportRegister starts a durable job, GetRegisterExport
// reads its progress and, when done, the file; CancelRegisterExport stops
// it. Only the requesting organisation reads its exports.

type ExportRegisterRequest struct {
	From     string   `json:"from" doc:"first day (YYYY-MM-DD) on which the documents were created; default: from the start" label:"From|Von" help:"The first day; empty for from the start.|Der erste Tag; leer für von Anfang an."`
	To       string   `json:"to" doc:"last day, included; default: today" label:"To|Bis" help:"The last day, included; empty for today.|Der letzte Tag, einschließlich; leer für heute."`
	Kinds    []string `json:"kinds" doc:"kinds of document (as ListDocuments names them: NOTIFICATION, ANNEX_VII, MOVEMENT) and of BMU note (BGS, UNS); default: all" label:"Kinds of document|Dokumentarten" help:"Empty for all.|Leer für alle." codeList:"documentKind"`
	Format   string   `json:"format" doc:"CSV (RFC 4180, the default) or XLSX" label:"File format|Dateiformat" help:"CSV or XLSX.|CSV oder XLSX."`
	Language string   `json:"language" doc:"en (the default) or de: the columns' headers" label:"Language of the headers|Sprache der Spaltenüberschriften" help:"English or German.|Englisch oder Deutsch."`
}

type ExportRegisterResponse struct {
	ExportID string `json:"exportId" label:"Export|Export"`
}

type RegisterExportRequest struct {
	ExportID string `json:"exportId" required:"true" label:"Export|Export"`
}

type ExportProgress struct {
	Done  int64 `json:"done" doc:"documents written" label:"Documents written|Geschriebene Dokumente"`
	Total int64 `json:"total" doc:"documents the export reads (counted when it starts)" label:"Documents in all|Dokumente insgesamt"`
}

type GetRegisterExportResponse struct {
	ExportID   string         `json:"exportId" label:"Export|Export"`
	State      string         `json:"state" doc:"QUEUED, RUNNING, DONE, FAILED or CANCELLED" label:"Status|Status"`
	Progress   ExportProgress `json:"progress" label:"Progress|Fortschritt"`
	Rows       int64          `json:"rows" doc:"rows written (the header not counted)" label:"Rows|Zeilen"`
	Format     string         `json:"format" label:"File format|Dateiformat"`
	FileName   string         `json:"fileName" label:"File name|Dateiname"`
	Size       int64          `json:"size" doc:"bytes of the file so far (of the CSV rows while running)" label:"Size (bytes)|Größe (Bytes)"`
	CreatedAt  time.Time      `json:"createdAt" label:"Requested|Angefordert"`
	FinishedAt *time.Time     `json:"finishedAt" label:"Finished|Fertig"`
	ExpiresAt  time.Time      `json:"expiresAt" doc:"when the export is deleted (WASTEFLOW_EXPORT_RETENTION after it was requested)" label:"Kept until|Aufbewahrt bis"`
	Error      string         `json:"error" doc:"why it FAILED" label:"Why it failed|Warum es fehlschlug"`
	Document   []byte         `json:"document" doc:"the file, base64, when DONE (empty otherwise); written as a stream: large files do not pass through the server's memory" label:"File|Datei"`
}

func (s *Server) exportOwner(ctx context.Context) (provider, org string, account int64) {
	if p := reqctx.From(ctx).Principal; p != nil {
		return p.ProviderID, p.OrganisationID, p.AccountID
	}
	return "", "", 0
}

func (s *Server) exportRegister(ctx context.Context, r *ExportRegisterRequest) (*ExportRegisterResponse, error) {
	provider, org, account := s.exportOwner(ctx)
	e, err := s.registers.Start(ctx, provider, org, strconv.FormatInt(account, 10),
		registers.Request{From: r.From, To: r.To, Kinds: r.Kinds, Format: r.Format, Language: r.Language})
	if err != nil {
		return nil, err
	}
	return &ExportRegisterResponse{ExportID: e.ID}, nil
}

func (s *Server) exportView(e *models.RegisterExport) *GetRegisterExportResponse {
	return &GetRegisterExportResponse{ExportID: e.ID, State: e.State, Progress: ExportProgress{Done: e.Done, Total: e.Total}, Rows: e.RowsWritten,
		Format: e.Format, FileName: registers.FileName(e), Size: e.Size, CreatedAt: e.CreatedAt, FinishedAt: e.FinishedAt,
		ExpiresAt: e.CreatedAt.Add(s.cfg.ExportRetention), Error: e.Error}
}

// getRegisterExport writes the answer as a stream: the export's fields,
// then the file as base64, a chunk at a time.
func (s *Server) getRegisterExport(ctx context.Context, r *RegisterExportRequest) (func(io.Writer) error, error) {
	provider, org, _ := s.exportOwner(ctx)
	e, err := s.registers.Get(ctx, provider, org, r.ExportID)
	if err != nil {
		return nil, err
	}
	head, err := codec.Marshal(s.exportView(e))
	if err != nil {
		return nil, err
	}
	done := e.State == registers.Done
	if done {
		i := bytes.LastIndex(head, []byte(`"document":`))
		if i < 0 {
			return nil, errors.New("the export's answer lacks its document field")
		}
		head = head[:i]
	}
	return func(w io.Writer) error {
		if _, err := w.Write(head); err != nil || !done {
			return err
		}
		if _, err := io.WriteString(w, `"document":"`); err != nil {
			return err
		}
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if err := s.registers.WriteFile(ctx, e, enc); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		_, err := io.WriteString(w, `"}`)
		return err
	}, nil
}

func (s *Server) cancelRegisterExport(ctx context.Context, r *RegisterExportRequest) (*GetRegisterExportResponse, error) {
	provider, org, _ := s.exportOwner(ctx)
	e, err := s.registers.Cancel(ctx, provider, org, r.ExportID)
	if err != nil {
		return nil, err
	}
	return s.exportView(e), nil
}

func (s *Server) registerOperations() []api.Operation {
	if s.registers == nil {
		return nil
	}
	var cols []string
	for _, c := range documents.RegisterColumns {
		cols = append(cols, c.Key)
	}
	exportDesc := "Starts an export of the caller's organisation's register: one row per document it is a party to (notifications, Annex VII " +
		"documents, movements: each its own row) and per BMU note of its store, created between from and to (both included), as CSV " +
		"(RFC 4180) or XLSX, headers in English or German. The columns, in order: " + strings.Join(cols, ", ") + " (docs/reference/registers.md says where " +
		"each comes from). The export runs as a durable job in the database (it survives a restart or a kill of the instance running it " +
		"and carries on elsewhere) and is kept for WASTEFLOW_EXPORT_RETENTION; follow it with GetRegisterExport. Our design."
	getDesc := "An export's state and progress; when DONE, the file in document (base64). Only the organisation that asked for it (any " +
		"other gets 404, code 5). Our design."
	cancelDesc := "Stops a QUEUED or RUNNING export: it ends CANCELLED and its rows are deleted; a finished export is answered as it is. Our design."
	op := func(service, method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc, Scope: rules.ScopeDocumentsRead}
	}
	var ops []api.Operation
	for _, svc := range []string{"CompanyDocumentApi", "AuthorityDocumentApi"} {
		who := " Company accounts (an authority gets 403, code 7)."
		if svc == "AuthorityDocumentApi" {
			who = " Authority accounts, for the documents they are competent for (a company gets 403, code 7)."
		}
		get := op(svc, "GetRegisterExport", "An export's progress and, when done, its file", getDesc+who)
		get.Verb = http.MethodPost
		ops = append(ops,
			api.Unary(op(svc, "ExportRegister", "Export the register (CSV or XLSX) as a background job", exportDesc+who), s.exportRegister),
			api.StreamJSON[RegisterExportRequest, GetRegisterExportResponse](get, s.getRegisterExport),
			api.Unary(op(svc, "CancelRegisterExport", "Cancel an export", cancelDesc+who), s.cancelRegisterExport),
		)
	}
	return ops
}
