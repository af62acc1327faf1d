package models

import (
	"context"
	"errors"
	"net/http"
	"time"

	"gorm.io/gorm"
)

// errReplay ends the transaction of a key an earlier request holds.
var errReplay = errors.New("idempotency key held by an earlier request")

// RunIdempotent runs call once for key k (its provider, organisation and
// key), in one transaction that call's writes join (WithTx): a key past
// retention is free again; a key another request claimed is answered with
// that request's row (replay: its hash, operation, status and body, status 0
// while it runs), and call does not run; otherwise call's answer is stored
// with the key and returned. An error of call rolls everything back and
// frees the key.
func RunIdempotent(ctx context.Context, db *gorm.DB, k *IdempotencyKey, retention time.Duration, call func(ctx context.Context) ([]byte, error)) (replay *IdempotencyKey, out []byte, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		where := tx.Where("provider_id = ? AND organisation_id = ? AND key = ?", k.ProviderID, k.OrganisationID, k.Key)
		if err := where.Where("created_at < ?", k.CreatedAt.Add(-retention)).Delete(&IdempotencyKey{}).Error; err != nil {
			return err
		}
		claimed, existing, err := ClaimIdempotencyKey(tx, k)
		if err != nil {
			return err
		}
		if !claimed {
			replay = existing
			return errReplay
		}
		if out, err = call(WithTx(ctx, tx)); err != nil {
			return err
		}
		return tx.Model(&IdempotencyKey{}).Where("provider_id = ? AND organisation_id = ? AND key = ?", k.ProviderID, k.OrganisationID, k.Key).
			Updates(map[string]any{"status": http.StatusOK, "body": out}).Error
	})
	if replay != nil {
		return replay, nil, nil
	}
	return nil, out, err
}
