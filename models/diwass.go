package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DIWASSOperator links an organisation to its DIWASS operator.
type DIWASSOperator struct {
	ProviderID     string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	OperatorID     string
	Status         string
	// Identifier is the one DIWASS keys the operator by ("eori:DE…").
	Identifier string
	// Linked: found in DIWASS (it knew the identifier), not created by us.
	Linked       bool
	RegisteredAt time.Time
}

// TableName of DIWASSOperator.
func (DIWASSOperator) TableName() string { return "diwass_operators" }

// DIWASSStore keeps the links of organisations to DIWASS operators
// (workflows/diwass.Store).
type DIWASSStore struct{ db *gorm.DB }

// NewDIWASSStore keeps them in db.
func NewDIWASSStore(db *gorm.DB) *DIWASSStore { return &DIWASSStore{db: db} }

// Companies are provider's company organisations, by id, each with its
// link when it has one.
func (s *DIWASSStore) Companies(ctx context.Context, provider string) ([]Organisation, map[string]DIWASSOperator, error) {
	var orgs []Organisation
	if err := s.db.WithContext(ctx).Where("provider_id = ? AND kind = ?", provider, "company").Order("id").Find(&orgs).Error; err != nil {
		return nil, nil, err
	}
	var links []DIWASSOperator
	if err := s.db.WithContext(ctx).Where("provider_id = ?", provider).Find(&links).Error; err != nil {
		return nil, nil, err
	}
	byOrg := make(map[string]DIWASSOperator, len(links))
	for _, l := range links {
		byOrg[l.OrganisationID] = l
	}
	return orgs, byOrg, nil
}

// Link records (or replaces) the link of an organisation.
func (s *DIWASSStore) Link(ctx context.Context, l DIWASSOperator) error {
	return s.db.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&l).Error
}
