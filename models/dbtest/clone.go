package dbtest

import (
	"testing"

	"gorm.io/gorm"
)

// CloneDocuments copies every document of db times times, with its
// parties: ids and numbers get the suffixes -c<i> and -C<i>; the copies
// have no parent, children, deadlines or audit rows. Volume for the tests
// and benchmarks of reads over many documents (registers), made in two
// statements on either database.
func CloneDocuments(t testing.TB, db *gorm.DB, times int) {
	t.Helper()
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, parent_id, audit_seq, audit_hash, children, summary)
			WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
			SELECT d.id || '-c' || k.i, d.provider_id, d.kind, d.number || '-C' || k.i, d.state, d.version, d.data, d.created_by, d.created_at, d.updated_at,
				NULL, d.audit_seq, d.audit_hash, 0, d.summary
			FROM documents d CROSS JOIN k WHERE d.id NOT LIKE '%-c%'`, times).Error; err != nil {
			return err
		}
		return tx.Exec(`INSERT INTO document_parties (document_id, organisation_id, role)
			WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
			SELECT p.document_id || '-c' || k.i, p.organisation_id, p.role
			FROM document_parties p CROSS JOIN k WHERE p.document_id NOT LIKE '%-c%'`, times).Error
	})
	if err != nil {
		t.Fatalf("clone documents: %v", err)
	}
}
