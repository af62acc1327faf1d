package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// InspectionLink lets anyone holding its token read one document's
// current state (our design: the QR code of a printed form). Only the
// token's SHA-256 is stored.
type InspectionLink struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	DocumentID     string
	TokenHash      string
	OrganisationID string // whose account printed it
	CreatedBy      string // the account id
	CreatedAt      time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
	RevokedBy      string
}

// InspectionUse is one reading of a document through a link.
type InspectionUse struct {
	ID         int64 `gorm:"primaryKey"`
	LinkID     string
	DocumentID string
	UsedAt     time.Time
	// ClientAddress is the reader's network, not the reader's address:
	// the caller stores it shortened (rows before issue 44.8 may hold a
	// full address; the handler shortens them when it shows them).
	ClientAddress string
	UserAgent     string
	Format        string // pdf or html
}

// InspectionStore keeps inspection links and their uses.
type InspectionStore struct{ db *gorm.DB }

// NewInspectionStore returns the store over db.
func NewInspectionStore(db *gorm.DB) *InspectionStore { return &InspectionStore{db: db} }

// Create stores a new link.
func (s *InspectionStore) Create(ctx context.Context, l *InspectionLink) error {
	return Conn(ctx, s.db).Create(l).Error
}

// ByHash reads the link of a token's hash; ErrNotFound when there is none.
// It writes nothing.
func (s *InspectionStore) ByHash(ctx context.Context, hash string) (*InspectionLink, error) {
	var l InspectionLink
	if err := Conn(ctx, s.db).Where("token_hash = ?", hash).Take(&l).Error; err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// RecordUse keeps a use of a link.
func (s *InspectionStore) RecordUse(ctx context.Context, u *InspectionUse) error {
	return Conn(ctx, s.db).Create(u).Error
}

// Revoke ends every link of a document that organisation org created and
// that is still valid at now; it returns how many it ended. Another
// organisation's links are not touched.
func (s *InspectionStore) Revoke(ctx context.Context, documentID, org, by string, now time.Time) (int64, error) {
	res := Conn(ctx, s.db).Model(&InspectionLink{}).Where("document_id = ? AND organisation_id = ? AND revoked_at IS NULL AND expires_at > ?", documentID, org, now).
		Updates(map[string]any{"revoked_at": now, "revoked_by": by})
	return res.RowsAffected, res.Error
}

// LinkUses are a link's uses: how many in all, and the newest ones.
type LinkUses struct {
	Total  int64
	Newest []InspectionUse // newest first
}

// Links reads the links of a document that organisation org created,
// newest first (at most limit), each with its count of uses and its newest
// uses (at most perLink). Another organisation's links, and so who read
// them, are not among them.
func (s *InspectionStore) Links(ctx context.Context, documentID, org string, limit, perLink int) ([]InspectionLink, map[string]*LinkUses, error) {
	var links []InspectionLink
	if err := Conn(ctx, s.db).Where("document_id = ? AND organisation_id = ?", documentID, org).Order("created_at DESC, id").Limit(limit).Find(&links).Error; err != nil {
		return nil, nil, err
	}
	uses := map[string]*LinkUses{}
	if len(links) == 0 {
		return links, uses, nil
	}
	ids := make([]string, len(links))
	for i, l := range links {
		ids[i] = l.ID
		uses[l.ID] = &LinkUses{}
	}
	var counts []struct {
		LinkID string
		N      int64
	}
	if err := Conn(ctx, s.db).Model(&InspectionUse{}).Select("link_id, COUNT(*) AS n").Where("link_id IN ?", ids).Group("link_id").Scan(&counts).Error; err != nil {
		return nil, nil, err
	}
	for _, c := range counts {
		uses[c.LinkID].Total = c.N
	}
	var newest []InspectionUse
	if err := Conn(ctx, s.db).Raw(`SELECT * FROM (SELECT u.*, ROW_NUMBER() OVER (PARTITION BY link_id ORDER BY used_at DESC, id DESC) AS rn
		FROM inspection_uses u WHERE link_id IN ?) x WHERE rn <= ? ORDER BY used_at DESC, id DESC`, ids, perLink).Scan(&newest).Error; err != nil {
		return nil, nil, err
	}
	for _, u := range newest {
		uses[u.LinkID].Newest = append(uses[u.LinkID].Newest, u)
	}
	return links, uses, nil
}
