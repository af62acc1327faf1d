package models

import (
	"context"
	"database/sql"

	"gorm.io/gorm"
)

// AuditTrail reads the hash-chained audit rows (workflows/audit.Trail).
type AuditTrail struct{ db *gorm.DB }

// NewAuditTrail reads the audit rows of db.
func NewAuditTrail(db *gorm.DB) *AuditTrail { return &AuditTrail{db: db} }

// Walk calls row for every audit row, by document and sequence, and then
// returns the heads the documents keep (id, audit_seq, audit_hash, version
// and state of those with a chain, by id). The rows and the heads are read
// in one transaction, one snapshot on PostgreSQL: a transition committed
// in between would otherwise look like rows missing at the end.
func (a *AuditTrail) Walk(ctx context.Context, row func(e *AuditEvent) error) ([]Document, error) {
	var opts []*sql.TxOptions
	if IsPostgres(a.db) {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	}
	var docs []Document
	err := a.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		rows, err := tx.Model(&AuditEvent{}).Order("document_id, seq").Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e AuditEvent
			if err := tx.ScanRows(rows, &e); err != nil {
				return err
			}
			if err := row(&e); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.Select("id", "audit_seq", "audit_hash", "version", "state").Where("audit_seq > 0").Order("id").Find(&docs).Error
	}, opts...)
	return docs, err
}

// DocumentsByRef reads at most limit documents whose id or human number is
// ref, of provider when it is not empty (a number is unique per provider
// only).
func (a *AuditTrail) DocumentsByRef(ctx context.Context, ref, provider string, limit int) ([]Document, error) {
	q := a.db.WithContext(ctx).Model(&Document{}).Where("id = ? OR number = ?", ref, ref)
	if provider != "" {
		q = q.Where("provider_id = ?", provider)
	}
	var docs []Document
	err := q.Limit(limit).Find(&docs).Error
	return docs, err
}

// Of reads the audit rows of document id, oldest first.
func (a *AuditTrail) Of(ctx context.Context, id string) ([]AuditEvent, error) {
	var rows []AuditEvent
	err := a.db.WithContext(ctx).Where("document_id = ?", id).Order("seq").Find(&rows).Error
	return rows, err
}
