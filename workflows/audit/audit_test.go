package audit_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/audit"
)

// chain writes a document with rows audit rows.
func chain(t *testing.T, db *gorm.DB, id string, rows int) {
	t.Helper()
	now := time.Date(2026, 12, 1, 9, 0, 0, 123456789, time.UTC)
	if err := db.Create(&models.Provider{ID: "p-" + id, Environment: "test", Name: "P"}).Error; err != nil {
		t.Fatal(err)
	}
	doc := models.Document{ID: id, ProviderID: "p-" + id, Kind: "NOTIFICATION", Number: id, State: "DRAFT", Version: 1, Data: "{}", CreatedBy: "1", CreatedAt: now, UpdatedAt: now}
	if err := db.Create(&doc).Error; err != nil {
		t.Fatal(err)
	}
	states := []string{"", "DRAFT", "SUBMITTED", "ACKNOWLEDGED", "CONSENTED", "CLOSED"}
	for i := 0; i < rows; i++ {
		err := db.Transaction(func(tx *gorm.DB) error {
			e := models.AuditEvent{DocumentID: id, FromState: states[i], ToState: states[i+1], Intent: "X",
				Actor: "1", ActorOrg: "acme", At: now.Add(time.Duration(i) * time.Hour), RequestID: "r"}
			audit.Link(&e, doc.AuditSeq, doc.AuditHash)
			if err := tx.Create(&e).Error; err != nil {
				return err
			}
			doc.AuditSeq, doc.AuditHash = e.Seq, e.Hash
			return tx.Model(&doc).Updates(map[string]any{"audit_seq": e.Seq, "audit_hash": e.Hash, "version": e.Seq, "state": e.ToState}).Error
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestVerifyFindsTheFirstBrokenLink(t *testing.T) {
	ctx := context.Background()
	for name, tamper := range map[string]struct {
		sql     string
		seq     int64
		because string
	}{
		"update":  {"UPDATE audit_events SET actor = 'mallory' WHERE document_id = ? AND seq = 3", 3, "changed"},
		"delete":  {"DELETE FROM audit_events WHERE document_id = ? AND seq = 2", 3, "missing"},
		"cut":     {"DELETE FROM audit_events WHERE document_id = ? AND seq = 5", 5, "missing at the end"},
		"version": {"UPDATE documents SET version = version + 1 WHERE id = ?", 5, "version 6 but its chain has 5 rows"},
		"state":   {"UPDATE documents SET state = 'OBJECTED' WHERE id = ?", 5, "the chain ends in state CLOSED but the document is OBJECTED"},
		"swap":    {"UPDATE audit_events SET to_state = CASE seq WHEN 2 THEN 'ACKNOWLEDGED' ELSE 'SUBMITTED' END WHERE document_id = ? AND seq IN (2, 3)", 2, "changed"},
	} {
		t.Run(name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
				db := dbtest.Open(t, cfg)
				chain(t, db, "good", 5)
				chain(t, db, "bad", 5)
				breaks, rows, err := audit.Verify(ctx, db)
				if err != nil || len(breaks) != 0 || rows != 10 {
					t.Fatalf("before tampering: %v, %d rows, %v", breaks, rows, err)
				}
				if err := db.Exec(tamper.sql, "bad").Error; err != nil {
					t.Fatal(err)
				}
				breaks, _, err = audit.Verify(ctx, db)
				if err != nil || len(breaks) != 1 {
					t.Fatalf("after %s: %v %v", name, breaks, err)
				}
				if b := breaks[0]; b.DocumentID != "bad" || b.Seq != tamper.seq || !strings.Contains(b.Reason, tamper.because) {
					t.Fatalf("after %s: reported %s", name, b)
				}
			})
		})
	}
}

// Rows written before details existed (detail empty) keep the hash they
// were written with; a row with a detail (a decision's, issue 44) is
// hashed with it, so changing or dropping the detail shows.
func TestHashCoversTheDetailAndKeepsOldRows(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := models.AuditEvent{DocumentID: "ntf_1", Seq: 4, FromState: "ACKNOWLEDGED", ToState: "ACKNOWLEDGED", Intent: "DECISION",
		Actor: "7", ActorOrg: "auth-de", At: at, RequestID: "r", PrevHash: audit.Genesis}
	// The formula of the rows before migration 00009 added the detail.
	h := sha256.New()
	for _, f := range []string{e.DocumentID, "4", e.FromState, e.ToState, e.Intent, e.Actor, e.ActorOrg, at.Format(time.RFC3339Nano), e.RequestID, e.PrevHash} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	if got := audit.Hash(&e); got != hex.EncodeToString(h.Sum(nil)) {
		t.Fatalf("a row without a detail hashes differently now: %s", got)
	}
	e.Detail = "CONSENT, 0 conditions, valid until 2027-12-01 (the default)"
	with := audit.Hash(&e)
	e.Detail = "OBJECTION, 0 conditions, no validity (an objection)"
	if other := audit.Hash(&e); with == other || with == hex.EncodeToString(h.Sum(nil)) {
		t.Fatal("the detail is not in the hash")
	}
}
