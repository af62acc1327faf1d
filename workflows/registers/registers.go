// Package registers exports an organisation's register: one row per
// document (notifications, Annex VII documents, movements, and the BMU
// notes of its store) with the columns compliance staff must show, as CSV
// (RFC 4180) or XLSX. An export is a durable job of the job queue: it runs
// in slices, each appending one chunk of rows and moving the export's
// keyset in one transaction, so a restart or a kill of the instance
// running it loses at most one slice and the job carries on elsewhere.
// Memory stays bounded by a page of rows; the XLSX is written by
// excelize's stream writer from the stored rows.
package registers

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/wasteflow/wasteflow/rules/labels"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/xuri/excelize/v2"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/csvsafe"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// States of an export.
const (
	Queued    = "QUEUED"
	Running   = "RUNNING"
	Done      = "DONE"
	Failed    = "FAILED"
	Cancelled = "CANCELLED"
)

// Phases of a running export.
const (
	phaseDocuments = "DOCUMENTS"
	phaseNotes     = "NOTES"
	phaseAssemble  = "ASSEMBLE"
	phaseDone      = "DONE"
)

// noteKinds are the BMU notes a register holds beside the documents.
var noteKinds = []string{"BGS", "UNS"}

// Kinds a register may hold: the registry's kinds that lay out a register
// row (documents.Kind.Register), in the registry's order, then the BMU
// notes.
func (s *Service) Kinds() []string {
	var out []string
	for _, k := range s.Docs.Kinds.Kinds() {
		if k.Register != nil {
			out = append(out, k.Name())
		}
	}
	return append(out, noteKinds...)
}

// Service runs register exports.
type Service struct {
	Store *models.ExportStore
	Docs  *documents.Runner
	BMU   *bmu.Service // nil: no BMU notes in registers
	Jobs  *models.JobQueue
	Now   func() time.Time
	// PageSize is the documents read per page (default 500); Slice how
	// long one run of the job works before it lets others in (default
	// 3 s).
	PageSize int
	Slice    time.Duration
}

// Request is what ExportRegister asks for.
type Request struct {
	From, To string // YYYY-MM-DD, both included
	Kinds    []string
	Format   string // CSV or XLSX
	Language string // en or de
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Start validates r, stores the export and enqueues its job in one
// transaction.
func (s *Service) Start(ctx context.Context, provider, org, account string, r Request) (*models.RegisterExport, error) {
	from, err := parseDay("from", r.From, time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return nil, err
	}
	to, err := parseDay("to", r.To, s.now().UTC().Truncate(24*time.Hour))
	if err != nil {
		return nil, err
	}
	if to.Before(from) {
		return nil, status.Invalid("to", "before from")
	}
	all := s.Kinds()
	kinds := r.Kinds
	if len(kinds) == 0 {
		kinds = all
	}
	for i, k := range kinds {
		if !slices.Contains(all, k) {
			return nil, status.Invalid(fmt.Sprintf("kinds[%d]", i), "one of "+strings.Join(all, ", "))
		}
	}
	format := strings.ToUpper(cmp.Or(r.Format, "CSV"))
	if format != "CSV" && format != "XLSX" {
		return nil, status.Invalid("format", "CSV or XLSX")
	}
	lang := cmp.Or(r.Language, "en")
	if lang != "en" && lang != "de" {
		return nil, status.Invalid("language", "en or de")
	}
	now := s.now().UTC()
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	e := &models.RegisterExport{ID: "exp_" + hex.EncodeToString(b), ProviderID: provider, OrganisationID: org, RequestedBy: account,
		DateFrom: from, DateTo: to.AddDate(0, 0, 1), Kinds: strings.Join(kinds, ","), Format: format, Language: lang,
		State: Queued, Phase: phaseDocuments, CreatedAt: now, UpdatedAt: now}
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		if err := s.Store.Create(ctx, e); err != nil {
			return err
		}
		id, err := s.Jobs.InsertTx(ctx, ExportArgs{ExportID: e.ID}, nil)
		if err != nil {
			return err
		}
		e.JobID = id
		return s.Store.SetJob(ctx, e.ID, id)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

func parseDay(field, v string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, status.Invalid(field, "a date YYYY-MM-DD")
	}
	return d, nil
}

// Get reads export id of org (another organisation's is reported as
// missing).
func (s *Service) Get(ctx context.Context, provider, org, id string) (*models.RegisterExport, error) {
	if id == "" {
		return nil, status.Invalid("exportId", "required")
	}
	e, err := s.Store.Get(ctx, id, false)
	if errors.Is(err, models.ErrNotFound) || (err == nil && (e.ProviderID != provider || e.OrganisationID != org)) {
		return nil, status.New(status.NotFound, "no register export %q", id)
	}
	return e, err
}

// Cancel stops export id of org: a queued or running export ends
// CANCELLED and its rows are dropped; a finished one is answered as it is.
func (s *Service) Cancel(ctx context.Context, provider, org, id string) (*models.RegisterExport, error) {
	e, err := s.Get(ctx, provider, org, id)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	moved := false
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		ok, err := s.Store.SetState(ctx, id, Cancelled, "", now, Queued, Running)
		if err != nil || !ok {
			return err
		}
		moved = true
		return s.Store.DropChunks(ctx, id, "")
	})
	if err != nil {
		return nil, err
	}
	if moved && e.JobID != 0 {
		if err := s.Jobs.Cancel(ctx, e.JobID); err != nil {
			return nil, err
		}
	}
	return s.Store.Get(ctx, id, false)
}

// FileName is the name of e's file.
func FileName(e *models.RegisterExport) string {
	return fmt.Sprintf("register-%s-%s-%s.%s", e.OrganisationID, e.DateFrom.Format("20060102"), e.DateTo.AddDate(0, 0, -1).Format("20060102"), strings.ToLower(e.Format))
}

// WriteFile writes a finished export's file to w, a chunk at a time.
func (s *Service) WriteFile(ctx context.Context, e *models.RegisterExport, w io.Writer) error {
	part := "rows"
	if e.Format == "XLSX" {
		part = "file"
	}
	return s.Store.WriteChunks(ctx, e.ID, part, w)
}

// ExportArgs is the job of one export.
type ExportArgs struct {
	ExportID string `json:"exportId"`
}

// Kind implements river.JobArgs.
func (ExportArgs) Kind() string { return "register_export" }

type worker struct {
	river.WorkerDefaults[ExportArgs]
	s *Service
}

// Work runs one slice of the export; the job snoozes (is worked again at
// once) until the export is finished.
func (w *worker) Work(ctx context.Context, job *river.Job[ExportArgs]) error {
	finished, err := w.s.work(ctx, job.Args.ExportID)
	if err != nil {
		return err
	}
	if !finished {
		return models.JobSnooze()
	}
	return nil
}

// Register adds the export worker to q.
func (s *Service) Register(q *models.JobQueue) { models.AddWorker[ExportArgs](q, &worker{s: s}) }

// errMoved: the export changed under the worker (cancelled, or another
// worker moved on): this run stops.
var errMoved = errors.New("the export moved on")

// work runs export id for one slice; finished when nothing is left to do.
func (s *Service) work(ctx context.Context, id string) (bool, error) {
	e, err := s.Store.Get(ctx, id, false)
	if errors.Is(err, models.ErrNotFound) {
		return true, nil // deleted (retention)
	}
	if err != nil {
		return false, err
	}
	if e.State != Queued && e.State != Running {
		return true, nil
	}
	if e.State == Queued {
		if err := s.begin(ctx, e); err != nil {
			return moved(err)
		}
	}
	slice := s.Slice
	if slice <= 0 {
		slice = 3 * time.Second
	}
	end := time.Now().Add(slice)
	for time.Now().Before(end) {
		var err error
		switch e.Phase {
		case phaseDocuments, phaseNotes:
			err = s.page(ctx, e)
		case phaseAssemble:
			err = s.assemble(ctx, e)
		default:
			return true, nil
		}
		if err != nil {
			var se *status.Error
			if errors.As(err, &se) || errors.Is(err, errMoved) {
				return moved(err)
			}
			if ctx.Err() == nil && !models.IsUnavailable(err) {
				// a fault of the data, not of the moment: the export fails
				_, _ = s.Store.SetState(context.WithoutCancel(ctx), id, Failed, err.Error(), s.now().UTC(), Running)
				return true, nil
			}
			return false, err
		}
		if e.Phase == phaseDone {
			return true, nil
		}
	}
	return false, nil
}

func moved(err error) (bool, error) {
	if errors.Is(err, errMoved) {
		return true, nil
	}
	return false, err
}

// begin counts what the export will read and marks it running.
func (s *Service) begin(ctx context.Context, e *models.RegisterExport) error {
	docKinds, noteKinds := split(e.Kinds)
	var total int64
	if len(docKinds) > 0 {
		n, err := s.Docs.RegisterCount(ctx, s.query(e, docKinds))
		if err != nil {
			return err
		}
		total += n
	}
	if len(noteKinds) > 0 && s.BMU != nil {
		n, err := s.Store.CountNotes(ctx, e.ProviderID, e.OrganisationID, noteKinds, e.DateFrom, e.DateTo)
		if err != nil {
			return err
		}
		total += n
	}
	read := *e
	e.State, e.Total, e.UpdatedAt = Running, total, s.now().UTC()
	ok, err := s.Store.Save(ctx, e, read.Chunks, read.FileChunks, Queued)
	if err != nil {
		return err
	}
	if !ok {
		return errMoved
	}
	return nil
}

func split(kinds string) (docs, notes []string) {
	for _, k := range strings.Split(kinds, ",") {
		switch {
		case slices.Contains(noteKinds, k):
			notes = append(notes, k)
		case k != "":
			docs = append(docs, k)
		}
	}
	return docs, notes
}

func (s *Service) pageSize() int {
	if s.PageSize > 0 {
		return s.PageSize
	}
	return 500
}

func (s *Service) query(e *models.RegisterExport, kinds []string) documents.RegisterQuery {
	q := documents.RegisterQuery{Provider: e.ProviderID, Org: e.OrganisationID, Kinds: kinds, From: e.DateFrom, To: e.DateTo, AfterID: e.AfterID, Limit: s.pageSize()}
	if e.AfterAt != nil {
		q.AfterAt = *e.AfterAt
	}
	return q
}

// page reads the next page of the current phase and appends its rows
// with the export's new keyset in one transaction; an empty page ends
// the phase.
func (s *Service) page(ctx context.Context, e *models.RegisterExport) error {
	docKinds, noteKinds := split(e.Kinds)
	var lines [][]string
	var lastAt time.Time
	var lastID string
	var err error
	switch {
	case e.Phase == phaseDocuments && len(docKinds) > 0:
		lines, lastAt, lastID, err = s.Docs.RegisterLines(ctx, s.query(e, docKinds), e.Language)
	case e.Phase == phaseNotes && len(noteKinds) > 0 && s.BMU != nil:
		lines, lastAt, lastID, err = s.noteLines(ctx, e, noteKinds)
	}
	if err != nil {
		return err
	}
	read := *e
	e.UpdatedAt = s.now().UTC()
	if lastID == "" { // the phase is over
		e.AfterAt, e.AfterID = nil, ""
		if e.Phase == phaseDocuments {
			e.Phase = phaseNotes
		} else {
			e.Phase = phaseAssemble
		}
		if e.Chunks == 0 { // no row at all: the header alone
			return s.appendRows(ctx, e, &read, nil)
		}
		return s.save(ctx, e, &read)
	}
	e.AfterAt, e.AfterID = &lastAt, lastID
	e.Done += int64(len(lines))
	e.RowsWritten += int64(len(lines))
	return s.appendRows(ctx, e, &read, lines)
}

func (s *Service) save(ctx context.Context, e, read *models.RegisterExport) error {
	ok, err := s.Store.Save(ctx, e, read.Chunks, read.FileChunks, Running)
	if err != nil {
		return err
	}
	if !ok {
		return errMoved
	}
	return nil
}

// appendRows stores lines as the next chunk (the header before the first
// row) and e's progress, in one transaction. A CSV export's cells are made
// safe for a spreadsheet (csvsafe: a value another party wrote, such as
// "=HYPERLINK(...)" in a transport note, is never a formula); an XLSX
// export's rows are kept as they are, its cells are written as text.
func (s *Service) appendRows(ctx context.Context, e, read *models.RegisterExport, lines [][]string) error {
	var buf bytes.Buffer
	var w interface {
		Write([]string) error
		WriteAll([][]string) error
	}
	if e.Format == "XLSX" {
		cw := csv.NewWriter(&buf)
		cw.UseCRLF = true
		w = cw
	} else {
		cw := csvsafe.NewWriter(&buf)
		cw.UseCRLF = true // RFC 4180
		w = cw
	}
	if e.Chunks == 0 {
		if err := w.Write(documents.RegisterHeader(e.Language)); err != nil {
			return err
		}
	}
	if err := w.WriteAll(lines); err != nil {
		return err
	}
	seq := e.Chunks
	e.Chunks++
	e.Size += int64(buf.Len())
	return s.Store.Tx(ctx, func(ctx context.Context) error {
		if err := s.Store.AddChunk(ctx, &models.RegisterExportChunk{ExportID: e.ID, Part: "rows", Seq: seq, Data: buf.Bytes()}); err != nil {
			return err
		}
		return s.save(ctx, e, read)
	})
}

// cancelledNote is the state of a cancelled BMU note in a register.
var cancelledNote = labels.Text{EN: "Cancelled", DE: "Storniert"}

// noteLines are the register rows of the next page of BMU notes.
func (s *Service) noteLines(ctx context.Context, e *models.RegisterExport, types []string) ([][]string, time.Time, string, error) {
	var afterAt time.Time
	if e.AfterAt != nil {
		afterAt = *e.AfterAt
	}
	notes, err := s.Store.RegisterNotes(ctx, e.ProviderID, e.OrganisationID, types, e.DateFrom, e.DateTo, afterAt, e.AfterID, s.pageSize())
	if err != nil || len(notes) == 0 {
		return nil, time.Time{}, "", err
	}
	index := map[string]int{}
	for i, c := range documents.RegisterColumns {
		index[c.Key] = i
	}
	lines := make([][]string, 0, len(notes))
	for _, n := range notes {
		line := make([]string, len(documents.RegisterColumns))
		set := func(key, v string) { line[index[key]] = v }
		set("number", n.Number)
		set("kind", documents.Word(labels.ListDocumentKind, n.DocumentType, e.Language))
		set("version", fmt.Sprint(n.Version))
		set("filed_on", documents.Day(n.CreatedAt))
		state := documents.Word("LayerType", n.TopLayer, e.Language) // the top layer's type in words
		if n.Cancelled {
			state = cancelledNote.In(e.Language)
		}
		set("state", state)
		if sum, err := s.BMU.Summary(n.XML); err == nil {
			set("ewc_codes", sum.Code)
			set("shipped_t", sum.Quantity)
			set("notifier", sum.Producer)
			set("producers", sum.Producer)
			set("carriers", strings.Join(sum.Carriers, "; "))
			set("facility", sum.Disposer)
			set("shipment_from", sum.HandoverOn)
			set("received_on", sum.AcceptedOn)
		}
		lines = append(lines, line)
	}
	last := notes[len(notes)-1]
	return lines, last.CreatedAt, last.ID, nil
}

// assemble finishes the export: a CSV is its rows; an XLSX is written from
// them by excelize's stream writer into chunks of its own (started over
// when a kill interrupted it).
func (s *Service) assemble(ctx context.Context, e *models.RegisterExport) error {
	read := *e
	now := s.now().UTC()
	if e.Format == "XLSX" {
		if err := s.Store.DropChunks(ctx, e.ID, "file"); err != nil {
			return err
		}
		size, chunks, err := s.writeXLSX(ctx, e)
		if err != nil {
			return err
		}
		e.Size, e.FileChunks = size, chunks
	}
	e.State, e.Phase, e.Done, e.UpdatedAt, e.FinishedAt = Done, phaseDone, e.Total, now, &now
	err := s.save(ctx, e, &read)
	if errors.Is(err, errMoved) && e.Format == "XLSX" {
		// cancelled while the file was written: its chunks go too (a
		// file another worker finished stays)
		if cur, gerr := s.Store.Get(ctx, e.ID, false); gerr == nil && cur.State == Cancelled {
			_ = s.Store.DropChunks(ctx, e.ID, "file")
		}
	}
	return err
}

func (s *Service) writeXLSX(ctx context.Context, e *models.RegisterExport) (int64, int64, error) {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Register"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return 0, 0, err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return 0, 0, err
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(s.Store.WriteChunks(ctx, e.ID, "rows", pw)) }()
	r := csv.NewReader(pr)
	r.ReuseRecord = true
	for row := 1; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			pr.CloseWithError(err)
			return 0, 0, err
		}
		cells := make([]any, len(rec))
		for i, v := range rec {
			cells[i] = v
		}
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := sw.SetRow(cell, cells); err != nil {
			pr.CloseWithError(err)
			return 0, 0, err
		}
	}
	if err := sw.Flush(); err != nil {
		return 0, 0, err
	}
	cw := &chunkWriter{ctx: ctx, s: s, id: e.ID}
	if _, err := f.WriteTo(cw); err != nil {
		return 0, 0, err
	}
	if err := cw.flush(); err != nil {
		return 0, 0, err
	}
	return cw.size, cw.seq, nil
}

// chunkWriter stores what is written to it as chunks of 1 MiB.
type chunkWriter struct {
	ctx  context.Context
	s    *Service
	id   string
	buf  bytes.Buffer
	seq  int64
	size int64
}

const chunkSize = 1 << 20

func (w *chunkWriter) Write(p []byte) (int, error) {
	n, _ := w.buf.Write(p)
	w.size += int64(n)
	for w.buf.Len() >= chunkSize {
		if err := w.store(w.buf.Next(chunkSize)); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (w *chunkWriter) flush() error {
	if w.buf.Len() == 0 {
		return nil
	}
	return w.store(w.buf.Next(w.buf.Len()))
}

func (w *chunkWriter) store(p []byte) error {
	data := bytes.Clone(p)
	err := w.s.Store.AddChunk(w.ctx, &models.RegisterExportChunk{ExportID: w.id, Part: "file", Seq: w.seq, Data: data})
	w.seq++
	return err
}

// Expire deletes the exports created before now minus retention.
func (s *Service) Expire(ctx context.Context, now time.Time, retention time.Duration) (int64, error) {
	var total int64
	for {
		n, err := s.Store.Expired(ctx, now.Add(-retention))
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}
