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
