// Package audit keeps the append-only, hash-chained trail of fired triggers:
// each row carries the hash of the previous row of its document, so any
// edit, deletion or reordering breaks the chain at the first changed row.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
)

// Genesis is the previous hash of a document's first row.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Hash of a row: SHA-256 over its fields and the previous hash, each
// length-prefixed so no two rows can serialise alike.
func Hash(e *models.AuditEvent) string {
	h := sha256.New()
	for _, f := range []string{e.DocumentID, strconv.FormatInt(e.Seq, 10), e.FromState, e.ToState, e.Intent,
		e.Actor, e.ActorOrg, e.At.UTC().Format(time.RFC3339Nano), e.RequestID, e.PrevHash} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	if e.Detail != "" { // rows from before details existed keep their hashes
		fmt.Fprintf(h, "detail%d:%s;", len(e.Detail), e.Detail)
	}
	if e.Context != "" { // likewise, rows from before contexts existed
		fmt.Fprintf(h, "context%d:%s;", len(e.Context), e.Context)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Link makes e the row after (prevSeq, prevHash), the head of its
// document's chain (0 and "" for a new document): its sequence number,
// previous hash and hash. The caller stores the new head with the
// document and inserts e, in the transaction that holds the row lock.
func Link(e *models.AuditEvent, prevSeq int64, prevHash string) {
	if prevSeq == 0 {
		prevHash = Genesis
	}
	e.Seq, e.PrevHash = prevSeq+1, prevHash
	e.At = e.At.UTC().Truncate(time.Microsecond) // what both databases keep
	e.Hash = Hash(e)
}

// Break is the first broken link of a document's chain.
type Break struct {
	DocumentID string
	Seq        int64
	Reason     string
}

func (b Break) String() string {
	return fmt.Sprintf("document %s: row %d: %s", b.DocumentID, b.Seq, b.Reason)
}

// Trail is where the chains are kept: models.AuditTrail.
type Trail interface {
	// Walk calls row for every audit row, by document and sequence, and
	// then returns the heads the documents keep (ID, AuditSeq, AuditHash,
	// Version and State of every document with a chain), all of one
	// snapshot.
	Walk(ctx context.Context, row func(e *models.AuditEvent) error) ([]models.Document, error)
}

// Verify checks every document's chain in db and returns the first broken
// link of each broken chain, and how many rows it checked.
func Verify(ctx context.Context, db *models.DB) ([]Break, int, error) {
	return VerifyTrail(ctx, models.NewAuditTrail(db))
}

// VerifyTrail checks every document's chain in trail and returns the
// first broken link of each broken chain, and how many rows it checked.
func VerifyTrail(ctx context.Context, trail Trail) ([]Break, int, error) {
	var breaks []Break
	last := map[string]head{}
	var doc, prev string
	var seq int64
	broken, checked := false, 0
	docs, err := trail.Walk(ctx, func(e *models.AuditEvent) error {
		checked++
		if e.DocumentID != doc {
			doc, prev, seq, broken = e.DocumentID, Genesis, 0, false
		}
		if broken {
			return nil
		}
		var reasons []string
		if e.Seq != seq+1 {
			reasons = append(reasons, fmt.Sprintf("sequence jumps from %d to %d (a row is missing or moved)", seq, e.Seq))
		}
		if e.PrevHash != prev {
			reasons = append(reasons, "previous-hash does not match the row before")
		}
		if Hash(e) != e.Hash {
			reasons = append(reasons, "content does not match its hash (the row was changed)")
		}
		if len(reasons) > 0 {
			breaks = append(breaks, Break{DocumentID: e.DocumentID, Seq: e.Seq, Reason: strings.Join(reasons, "; ")})
			broken = true
		}
		prev, seq = e.Hash, e.Seq
		last[doc] = head{seq, prev, e.ToState}
		return nil
	})
	if err != nil {
		return nil, checked, err
	}
	// The head each document keeps must be its chain's last row: a chain
	// cut short at its end shows here.
	for _, d := range docs {
		h, ok := last[d.ID]
		if slices.ContainsFunc(breaks, func(b Break) bool { return b.DocumentID == d.ID }) {
			continue
		}
		switch {
		case !ok || h.seq != d.AuditSeq || h.hash != d.AuditHash:
			breaks = append(breaks, Break{DocumentID: d.ID, Seq: h.seq + 1,
				Reason: fmt.Sprintf("the chain ends at row %d but the document's head is row %d (rows are missing at the end)", h.seq, d.AuditSeq)})
		case d.Version != h.seq:
			// Every write of a document appends one row: its version counts them.
			breaks = append(breaks, Break{DocumentID: d.ID, Seq: h.seq,
				Reason: fmt.Sprintf("the document is at version %d but its chain has %d rows", d.Version, h.seq)})
		case d.State != h.state:
			breaks = append(breaks, Break{DocumentID: d.ID, Seq: h.seq,
				Reason: fmt.Sprintf("the chain ends in state %s but the document is %s", h.state, d.State)})
		}
	}
	return breaks, checked, nil
}

type head struct {
	seq   int64
	hash  string
	state string
}

// VerifyDocument checks one document's chain: its rows, oldest first, and
// the head its row keeps (ID, AuditSeq, AuditHash, Version, State). It
// returns the first broken link, or nil when the chain holds.
func VerifyDocument(ctx context.Context, doc models.Document, rows []models.AuditEvent) (*Break, error) {
	breaks, _, err := VerifyTrail(ctx, oneDocument{doc, rows})
	if err != nil || len(breaks) == 0 {
		return nil, err
	}
	return &breaks[0], nil
}

// oneDocument is a Trail of one document's rows.
type oneDocument struct {
	doc  models.Document
	rows []models.AuditEvent
}

func (o oneDocument) Walk(_ context.Context, row func(e *models.AuditEvent) error) ([]models.Document, error) {
	for i := range o.rows {
		if err := row(&o.rows[i]); err != nil {
			return nil, err
		}
	}
	if o.doc.AuditSeq == 0 {
		return nil, nil
	}
	return []models.Document{o.doc}, nil
}
