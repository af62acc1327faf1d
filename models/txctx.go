package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type txKey struct{}

// WithTx carries a request's transaction: the work of a request with an
// Idempotency-Key runs in it, so the key and the effect commit together.
func WithTx(ctx context.Context, tx *gorm.DB) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// Conn is the database handle for ctx: the request's transaction when it
// has one (nested transactions become savepoints), else db.
func Conn(ctx context.Context, db *gorm.DB) *gorm.DB {
	if tx, ok := ctx.Value(txKey{}).(*gorm.DB); ok && tx != nil {
		return tx.WithContext(ctx)
	}
	return db.WithContext(ctx)
}

// IdempotencyKey is a remembered answer of a mutation.
type IdempotencyKey struct {
	ProviderID     string `gorm:"primaryKey"`
	OrganisationID string `gorm:"primaryKey"`
	Key            string `gorm:"primaryKey"`
	Operation      string
	RequestHash    string
	Status         int
	Body           []byte
	CreatedAt      time.Time
}

// ClaimIdempotencyKey inserts the key in tx, or reports the row another
// request holds: a concurrent claim of the same key waits until that
// request's transaction ends (PostgreSQL's unique index; SQLite's single
// writer).
func ClaimIdempotencyKey(tx *gorm.DB, k *IdempotencyKey) (claimed bool, existing *IdempotencyKey, err error) {
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(k)
	if res.Error != nil {
		return false, nil, res.Error
	}
	if res.RowsAffected == 1 {
		return true, nil, nil
	}
	var cur IdempotencyKey
	err = tx.Where("provider_id = ? AND organisation_id = ? AND key = ?", k.ProviderID, k.OrganisationID, k.Key).Take(&cur).Error
	return false, &cur, err
}
