package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// File is a case file of an organisation's file area: documents of its
// store under a name, shared with other organisations by grant.
type File struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	Name           string
	Reference      string
	MergedInto     string
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// FileDocument puts a document of the owner's store in a file.
type FileDocument struct {
	FileID     string `gorm:"primaryKey"`
	DocumentID string `gorm:"primaryKey"`
	AddedBy    string
	AddedAt    time.Time
}

// FileGrant lets another organisation see a file and its documents.
type FileGrant struct {
	FileID         string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	GrantedBy      string
	GrantedAt      time.Time
}

// Transfer is a version of a document sent or delivered to other
// organisations' inboxes; each recipient's InboxEntry names it.
type Transfer struct {
	ID         string `gorm:"primaryKey"`
	ProviderID string
	SenderID   string
	DocumentID string
	Version    int64
	Number     string
	Kind       string
	Message    string
	CreatedBy  string
	CreatedAt  time.Time
}

// FileRow is one row of a file list.
type FileRow struct {
	ID, OrganisationID, Name, Reference string
	Documents                           int64
	CreatedAt, UpdatedAt                time.Time
}

// FileDocumentRow is one row of a file's documents.
type FileDocumentRow struct {
	StoreRow
	FileID  string
	AddedAt time.Time
}

// Where the paths of the file lists are.
var (
	FileColumns = Columns{
		"file_id": "f.id", "owner": "f.organisation_id", "name": "f.name", "reference": "f.reference",
		"created_at": "f.created_at", "updated_at": "f.updated_at",
	}
	FileDocumentColumns = Columns{
		"doc.document_id": "td.id", "doc.document_type": "td.document_type", "doc.number": "td.number", "doc.version": "td.version",
		"doc.top_layer": "td.top_layer", "cancelled": "td.cancelled", "added_at": "fd.added_at",
	}
)

const fileDocumentCount = "(SELECT COUNT(*) FROM file_documents c WHERE c.file_id = f.id)"

// visibleFiles are the files org owns or was granted, not merged away.
func (s *TransportStore) visibleFiles(ctx context.Context, provider, org string) *DB {
	return Conn(ctx, s.db).Table("files f").
		Where("f.provider_id = ? AND f.merged_into = '' AND (f.organisation_id = ? OR EXISTS (SELECT 1 FROM file_grants g WHERE g.file_id = f.id AND g.organisation_id = ?))",
			provider, org, org)
}

// CreateFile stores a new file with its documents.
func (s *TransportStore) CreateFile(ctx context.Context, f *File, docs []FileDocument) error {
	tx := Conn(ctx, s.db)
	if err := tx.Create(f).Error; err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&docs).Error
}

// AddFileDocuments puts documents in a file (those in it already stay)
// and touches the file.
func (s *TransportStore) AddFileDocuments(ctx context.Context, fileID string, docs []FileDocument, now time.Time) error {
	tx := Conn(ctx, s.db)
	if len(docs) > 0 {
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&docs).Error; err != nil {
			return err
		}
	}
	return tx.Model(&File{}).Where("id = ?", fileID).Update("updated_at", now).Error
}

// VisibleFile is file id if org owns it or was granted it (not merged).
func (s *TransportStore) VisibleFile(ctx context.Context, provider, org, id string) (*File, error) {
	var f File
	if err := s.visibleFiles(ctx, provider, org).Where("f.id = ?", id).Select("f.*").Take(&f).Error; err != nil {
		return nil, notFound(err)
	}
	return &f, nil
}

// LockOwnFile is file id of org's own (not merged), held until the
// transaction ends.
func (s *TransportStore) LockOwnFile(ctx context.Context, provider, org, id string) (*File, error) {
	q := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND organisation_id = ? AND merged_into = ''", id, provider, org)
	if IsPostgres(q) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var f File
	if err := q.Take(&f).Error; err != nil {
		return nil, notFound(err)
	}
	return &f, nil
}

// FilesOfDocument are the files org sees that hold document doc.
func (s *TransportStore) FilesOfDocument(ctx context.Context, provider, org, doc string) ([]FileRow, error) {
	var out []FileRow
	err := s.visibleFiles(ctx, provider, org).
		Where("EXISTS (SELECT 1 FROM file_documents d WHERE d.file_id = f.id AND d.document_id = ?)", doc).
		Select("f.id, f.organisation_id, f.name, f.reference, " + fileDocumentCount + " AS documents, f.created_at, f.updated_at").
		Order("f.updated_at DESC, f.id").Scan(&out).Error
	return out, err
}

// GrantFile lets org see file id (once; a second grant changes nothing).
func (s *TransportStore) GrantFile(ctx context.Context, g *FileGrant) error {
	return Conn(ctx, s.db).Clauses(clause.OnConflict{DoNothing: true}).Create(g).Error
}

// MergeFiles moves the documents and grants of sources into target and
// marks the sources merged into it.
func (s *TransportStore) MergeFiles(ctx context.Context, target string, sources []string, by string, now time.Time) error {
	tx := Conn(ctx, s.db)
	for _, src := range sources {
		var docs []FileDocument
		if err := tx.Where("file_id = ?", src).Find(&docs).Error; err != nil {
			return err
		}
		for i := range docs {
			docs[i].FileID = target
		}
		var grants []FileGrant
		if err := tx.Where("file_id = ?", src).Find(&grants).Error; err != nil {
			return err
		}
		for i := range grants {
			grants[i].FileID = target
		}
		if len(docs) > 0 {
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&docs).Error; err != nil {
				return err
			}
		}
		if len(grants) > 0 {
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&grants).Error; err != nil {
				return err
			}
		}
	}
	if err := tx.Model(&File{}).Where("id IN ?", sources).Updates(map[string]any{"merged_into": target, "updated_at": now}).Error; err != nil {
		return err
	}
	return tx.Model(&File{}).Where("id = ?", target).Update("updated_at", now).Error
}

// ListFiles lists the files org sees as q selects them.
func (s *TransportStore) ListFiles(ctx context.Context, provider, org string, q *qpar.QueryParameter, schema *qpar.Schema) ([]FileRow, int64, error) {
	base := s.visibleFiles(ctx, provider, org).
		Select("f.id, f.organisation_id, f.name, f.reference, " + fileDocumentCount + " AS documents, f.created_at, f.updated_at")
	return listPage[FileRow](base, q, schema)
}

// ListFileDocuments lists the documents of file id (which the caller sees).
func (s *TransportStore) ListFileDocuments(ctx context.Context, id string, q *qpar.QueryParameter, schema *qpar.Schema) ([]FileDocumentRow, int64, error) {
	base := Conn(ctx, s.db).Table("file_documents fd").
		Joins("JOIN transport_documents td ON td.id = fd.document_id").
		Select("td.id, td.document_type, td.number, td.top_layer, td.version, td.cancelled, td.created_at, td.updated_at, fd.file_id, fd.added_at").
		Where("fd.file_id = ?", id)
	return listPage[FileDocumentRow](base, q, schema)
}

// InFileOf tells whether document doc is in a file org sees (so org may
// read it though it is another organisation's).
func (s *TransportStore) InFileOf(ctx context.Context, provider, org, doc string) (bool, error) {
	var n int64
	err := s.visibleFiles(ctx, provider, org).
		Where("EXISTS (SELECT 1 FROM file_documents d WHERE d.file_id = f.id AND d.document_id = ?)", doc).Count(&n).Error
	return n > 0, err
}

// TakeInboxEntry records that entry id was taken into the recipient's
// store as doc's version; false when it was taken already (by a
// concurrent request, say).
func (s *TransportStore) TakeInboxEntry(ctx context.Context, id, doc string, version int64) (bool, error) {
	r := Conn(ctx, s.db).Model(&InboxEntry{}).Where("id = ? AND taken_document_id = ''", id).
		Updates(map[string]any{"taken_document_id": doc, "taken_version": version, "read": true})
	return r.RowsAffected == 1, r.Error
}

// CreateTransfer records a transfer (its entries are added with
// AddInboxEntries).
func (s *TransportStore) CreateTransfer(ctx context.Context, t *Transfer) error {
	return Conn(ctx, s.db).Create(t).Error
}

// Transfer is transfer id with its recipients' entries.
func (s *TransportStore) Transfer(ctx context.Context, provider, id string) (*Transfer, []InboxEntry, error) {
	var t Transfer
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ?", id, provider).Take(&t).Error; err != nil {
		return nil, nil, notFound(err)
	}
	var entries []InboxEntry
	err := Conn(ctx, s.db).Where("transfer_id = ?", id).Order("organisation_id").Find(&entries).Error
	return &t, entries, err
}

// DocumentOf is document id of any organisation of provider (the caller
// checks that it may read it).
func (s *TransportStore) DocumentOf(ctx context.Context, provider, id string) (*TransportDocument, error) {
	var doc TransportDocument
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ?", id, provider).Take(&doc).Error; err != nil {
		return nil, notFound(err)
	}
	return &doc, nil
}

// DocumentIDs are those of ids that are documents of org's store.
func (s *TransportStore) DocumentIDs(ctx context.Context, provider, org string, ids []string) ([]string, error) {
	var found []string
	err := Conn(ctx, s.db).Model(&TransportDocument{}).Where("provider_id = ? AND organisation_id = ? AND id IN ?", provider, org, ids).
		Pluck("id", &found).Error
	return found, err
}
