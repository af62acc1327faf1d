package models

import (
	"context"
	"io"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// RegisterExport is one export of an organisation's register.
type RegisterExport struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	RequestedBy    string
	DateFrom       time.Time
	DateTo         time.Time
	Kinds          string // comma-separated
	Format         string // CSV or XLSX
	Language       string
	State          string // QUEUED, RUNNING, DONE, FAILED, CANCELLED
	Phase          string // DOCUMENTS, NOTES, ASSEMBLE, DONE
	AfterAt        *time.Time
	AfterID        string
	Done           int64
	Total          int64
	RowsWritten    int64
	Chunks         int64 // chunks of rows written
	FileChunks     int64 // chunks of the assembled file (XLSX)
	Size           int64
	JobID          int64
	Error          string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
}

// RegisterExportChunk is a piece of an export: part "rows" (the CSV
// rows, the header in the first) or "file" (the assembled XLSX).
type RegisterExportChunk struct {
	ExportID string `gorm:"primaryKey"`
	Part     string `gorm:"primaryKey"`
	Seq      int64  `gorm:"primaryKey"`
	Data     []byte
}

// ExportStore keeps register exports.
type ExportStore struct{ db *gorm.DB }

// NewExportStore returns the store over db.
func NewExportStore(db *gorm.DB) *ExportStore { return &ExportStore{db: db} }

// Tx runs fn in one transaction.
func (s *ExportStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// Create stores a new export.
func (s *ExportStore) Create(ctx context.Context, e *RegisterExport) error {
	return Conn(ctx, s.db).Create(e).Error
}

// Get reads export id; ErrNotFound when missing. With lock, the row stays
// locked until the transaction ends (PostgreSQL).
func (s *ExportStore) Get(ctx context.Context, id string, lock bool) (*RegisterExport, error) {
	db := Conn(ctx, s.db)
	if lock && IsPostgres(s.db) {
		db = db.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var e RegisterExport
	if err := db.Where("id = ?", id).Take(&e).Error; err != nil {
		return nil, notFound(err)
	}
	return &e, nil
}

// Save writes e's progress when it is still at the chunks count the
// worker read (another worker, or a cancel, moved it otherwise): it
// reports whether it did.
func (s *ExportStore) Save(ctx context.Context, e *RegisterExport, chunksRead, fileChunksRead int64, state string) (bool, error) {
	res := Conn(ctx, s.db).Model(&RegisterExport{}).
		Where("id = ? AND state = ? AND chunks = ? AND file_chunks = ?", e.ID, state, chunksRead, fileChunksRead).
		Updates(map[string]any{"state": e.State, "phase": e.Phase, "after_at": e.AfterAt, "after_id": e.AfterID, "done": e.Done, "total": e.Total,
			"rows_written": e.RowsWritten, "chunks": e.Chunks, "file_chunks": e.FileChunks, "size": e.Size, "error": e.Error,
			"updated_at": e.UpdatedAt, "finished_at": e.FinishedAt})
	return res.RowsAffected == 1, res.Error
}

// SetState moves export id from one of states to state (a cancel, a
// failure): it reports whether it did.
func (s *ExportStore) SetState(ctx context.Context, id, state, errText string, now time.Time, from ...string) (bool, error) {
	res := Conn(ctx, s.db).Model(&RegisterExport{}).Where("id = ? AND state IN ?", id, from).
		Updates(map[string]any{"state": state, "error": errText, "updated_at": now, "finished_at": now})
	return res.RowsAffected == 1, res.Error
}

// SetJob records the job that works export id.
func (s *ExportStore) SetJob(ctx context.Context, id string, job int64) error {
	return Conn(ctx, s.db).Model(&RegisterExport{}).Where("id = ?", id).Update("job_id", job).Error
}

// AddChunk stores one chunk.
func (s *ExportStore) AddChunk(ctx context.Context, c *RegisterExportChunk) error {
	return Conn(ctx, s.db).Create(c).Error
}

// DropChunks deletes the chunks of export id's part ("" every part).
func (s *ExportStore) DropChunks(ctx context.Context, id, part string) error {
	db := Conn(ctx, s.db).Where("export_id = ?", id)
	if part != "" {
		db = db.Where("part = ?", part)
	}
	return db.Delete(&RegisterExportChunk{}).Error
}

// WriteChunks writes the chunks of export id's part to w in order, one
// chunk in memory at a time.
func (s *ExportStore) WriteChunks(ctx context.Context, id, part string, w io.Writer) error {
	for seq := int64(0); ; seq++ {
		var c RegisterExportChunk
		err := Conn(ctx, s.db).Where("export_id = ? AND part = ? AND seq = ?", id, part, seq).Take(&c).Error
		if err == gorm.ErrRecordNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(c.Data); err != nil {
			return err
		}
	}
}

// Expired deletes the exports created before cutoff with their chunks;
// it returns how many.
func (s *ExportStore) Expired(ctx context.Context, cutoff time.Time) (int64, error) {
	var ids []string
	if err := Conn(ctx, s.db).Model(&RegisterExport{}).Where("created_at < ?", cutoff).Limit(1000).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
		return 0, err
	}
	var n int64
	err := inTx(ctx, s.db, func(ctx context.Context) error {
		if err := Conn(ctx, s.db).Where("export_id IN ?", ids).Delete(&RegisterExportChunk{}).Error; err != nil {
			return err
		}
		res := Conn(ctx, s.db).Where("id IN ?", ids).Delete(&RegisterExport{})
		n = res.RowsAffected
		return res.Error
	})
	return n, err
}

// NotePage is one page of an organisation's stored BMU notes: created in
// [from, to), after the keyset, each with its current version's XML.
type NotePage struct {
	TransportDocument
	XML []byte
}

// RegisterNotes reads up to limit notes of provider's org in [from, to)
// after (afterAt, afterID) in (created_at, id) order.
func (s *ExportStore) RegisterNotes(ctx context.Context, provider, org string, types []string, from, to time.Time, afterAt time.Time, afterID string, limit int) ([]NotePage, error) {
	q := Conn(ctx, s.db).Table("transport_documents d").
		Select("d.*, v.xml").
		Joins("JOIN transport_document_versions v ON v.document_id = d.id AND v.version = d.version").
		Where("d.provider_id = ? AND d.organisation_id = ? AND d.created_at >= ? AND d.created_at < ? AND d.document_type IN ?", provider, org, from, to, types)
	if afterID != "" {
		q = q.Where("(d.created_at, d.id) > (?, ?)", afterAt, afterID)
	}
	var out []NotePage
	err := q.Order("d.created_at, d.id").Limit(limit).Scan(&out).Error
	return out, err
}

// CountNotes counts the notes RegisterNotes would read.
func (s *ExportStore) CountNotes(ctx context.Context, provider, org string, types []string, from, to time.Time) (int64, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&TransportDocument{}).
		Where("provider_id = ? AND organisation_id = ? AND created_at >= ? AND created_at < ? AND document_type IN ?", provider, org, from, to, types).
		Count(&n).Error
	return n, err
}
