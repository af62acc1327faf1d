// Package signer runs signing processes: a document waits for one named
// person, who opens the signing page, logs in, sees what they sign and
// signs (with their key and certificate) or declines; the caller waits for
// the outcome and receives the signed XML.
package signer

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/beevik/etree"
	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// States of a signing process (our design).
const (
	Created   = "CREATED"   // waiting for the signer
	Opened    = "OPENED"    // the signer opened the page
	Signed    = "SIGNED"    // the result holds the signed document
	Declined  = "DECLINED"  // the signer refused (reason)
	Expired   = "EXPIRED"   // nobody signed in time
	Cancelled = "CANCELLED" // the caller withdrew it
)

// Final reports whether a process's state no longer changes.
func Final(state string) bool { return state != Created && state != Opened }

// DocumentPosition is the position of a document that is not a BMU note:
// an enveloped signature of its root element.
const DocumentPosition = "document"

// Key is a signer's private key and certificate.
type Key struct {
	Signer crypto.Signer
	Cert   *x509.Certificate
}

// Keys finds a person's signing key. A qualified signature provider plugs
// in here; DirKeys reads files.
type Keys interface {
	KeyFor(provider, username string) (*Key, error)
}

// DirKeys reads <Dir>/<provider>/<username>.pem: a PKCS#8 PRIVATE KEY
// (RSA or ECDSA) and its CERTIFICATE; or <username>.p12, a PKCS#12 file
// whose password is in <username>.p12.password (empty when missing).
type DirKeys struct{ Dir string }

// KeyFor implements Keys.
func (k DirKeys) KeyFor(provider, username string) (*Key, error) {
	if k.Dir == "" {
		return nil, errors.New("no signing keys are configured (WASTEFLOW_SIGNER_KEYS)")
	}
	base := filepath.Join(k.Dir, filepath.Base(provider), filepath.Base(username))
	raw, err := os.ReadFile(base + ".pem")
	if errors.Is(err, os.ErrNotExist) {
		return readP12(base)
	}
	if err != nil {
		return nil, fmt.Errorf("no signing key for %s: %w", username, err)
	}
	var key *Key = &Key{}
	for {
		var b *pem.Block
		if b, raw = pem.Decode(raw); b == nil {
			break
		}
		switch b.Type {
		case "PRIVATE KEY":
			pk, err := x509.ParsePKCS8PrivateKey(b.Bytes)
			if err != nil {
				return nil, err
			}
			s, ok := pk.(crypto.Signer)
			if !ok {
				return nil, errors.New("the private key cannot sign")
			}
			key.Signer = s
		case "CERTIFICATE":
			if key.Cert == nil {
				if key.Cert, err = x509.ParseCertificate(b.Bytes); err != nil {
					return nil, err
				}
			}
		}
	}
	if key.Signer == nil || key.Cert == nil {
		return nil, fmt.Errorf("the key file of %s needs a PRIVATE KEY and a CERTIFICATE", username)
	}
	return key, nil
}

// Service runs the processes.
type Service struct {
	DB   *gorm.DB
	BMU  *bmu.Service
	Keys Keys
	Now  func() time.Time
	Poll time.Duration // how often Wait looks
	TTL  time.Duration // default lifetime of a process
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "sp_" + hex.EncodeToString(b)
}

func principal(ctx context.Context) (*reqctx.Principal, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return nil, status.New(status.PermissionDenied, "signing needs an account's access token")
	}
	return p, nil
}

// Prepared is what a document offers for a position: a BMU note (Doc) or
// any other XML (Tree), the position, and what the signature covers.
type Prepared struct {
	Position string
	Covers   string
	Doc      bmu.Doc         // a BMU note
	Tree     *etree.Document // any other XML
}

// prepare checks that position is open in the document: a BMU note's
// position from GetValidSignaturePositions (the first when none is given),
// or, for any other XML, "document" (an enveloped signature of its root).
func (s *Service) prepare(xml []byte, position string) (*Prepared, error) {
	if err := bmu.Check(xml); err != nil {
		return nil, status.Invalid("document", err.Error())
	}
	if !bmu.IsNote(xml) {
		if position != "" && position != DocumentPosition {
			return nil, status.New(status.FailedPrecondition, "a document that is not a BMU note has one position: %q (its root)", DocumentPosition)
		}
		tree := etree.NewDocument()
		if err := tree.ReadFromBytes(xml); err != nil {
			return nil, status.Invalid("document", err.Error())
		}
		return &Prepared{Position: DocumentPosition, Covers: "the whole document (an enveloped signature of its root element)", Tree: tree}, nil
	}
	d, err := s.BMU.Mapping.Parse(xml)
	if err != nil {
		return nil, status.Invalid("document", err.Error())
	}
	ps := bmu.Positions(d)
	if position == "" && len(ps) > 0 {
		position = ps[0].ID
	}
	for _, p := range ps {
		if p.ID == position {
			covers := fmt.Sprintf("layer %d (%s, signed as %s) and every layer inside it", p.LayerIndex, p.LayerType, p.AtbRolle)
			if p.Envelope {
				covers = "the whole document: no layer or field can follow it"
			}
			return &Prepared{Position: position, Covers: covers, Doc: d}, nil
		}
	}
	return nil, status.New(status.FailedPrecondition, "signature position %q is not open in this note (see BmuDocumentApi/GetValidSignaturePositions)", position)
}

// Create starts a process for the person username of the caller's provider.
func (s *Service) Create(ctx context.Context, xml []byte, position, username string, ttl time.Duration) (*models.SigningProcess, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if username == "" {
		return nil, status.Invalid("signer", "the username of the person who is to sign is required")
	}
	prep, err := s.prepare(xml, position)
	if err != nil {
		return nil, err
	}
	var acc models.Account
	if err := models.Conn(ctx, s.DB).Where("provider_id = ? AND username = ? AND disabled_at IS NULL", p.ProviderID, username).Take(&acc).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, status.Invalid("signer", fmt.Sprintf("no account %q here", username))
		}
		return nil, err
	}
	if ttl <= 0 {
		ttl = s.TTL
	}
	if ttl <= 0 || ttl > 30*24*time.Hour {
		ttl = 24 * time.Hour
	}
	now := s.now()
	sp := &models.SigningProcess{ID: newID(), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, CreatedBy: p.AccountID,
		SignerID: acc.ID, SignerName: acc.Username, Position: prep.Position, Document: xml, State: Created, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	return sp, models.Conn(ctx, s.DB).Create(sp).Error
}

// load reads a process the caller may see: its creator's organisation or
// its signer. A process past its expiry becomes EXPIRED here.
func (s *Service) load(ctx context.Context, id string, signerOnly bool) (*models.SigningProcess, *reqctx.Principal, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, nil, err
	}
	var sp models.SigningProcess
	err = models.Conn(ctx, s.DB).Where("id = ? AND provider_id = ?", id, p.ProviderID).Take(&sp).Error
	isSigner := err == nil && sp.SignerID == p.AccountID
	isCreator := err == nil && sp.OrganisationID == p.OrganisationID
	if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && !isSigner && !isCreator) {
		return nil, nil, status.New(status.NotFound, "no signing process %q for you", id)
	}
	if err != nil {
		return nil, nil, err
	}
	if signerOnly && !isSigner {
		return nil, nil, status.New(status.PermissionDenied, "only %s, named in the process, may sign or decline it", sp.SignerName)
	}
	if !Final(sp.State) && s.now().After(sp.ExpiresAt) {
		if _, err := s.finish(ctx, &sp, []string{Created, Opened}, Expired, nil, "nobody signed before "+sp.ExpiresAt.Format(time.RFC3339)); err != nil {
			return nil, nil, err
		}
	}
	return &sp, p, nil
}

// finish moves a process from one of the states from to state, once.
func (s *Service) finish(ctx context.Context, sp *models.SigningProcess, from []string, state string, result []byte, reason string) (bool, error) {
	now := s.now()
	r := models.Conn(ctx, s.DB).Model(&models.SigningProcess{}).Where("id = ? AND state IN ?", sp.ID, from).
		Updates(map[string]any{"state": state, "result": result, "reason": reason, "completed_at": now})
	if r.Error != nil {
		return false, r.Error
	}
	if r.RowsAffected == 0 { // someone else moved it first: read what it is now
		return false, models.Conn(ctx, s.DB).Where("id = ?", sp.ID).Take(sp).Error
	}
	sp.State, sp.Result, sp.Reason, sp.CompletedAt = state, result, reason, &now
	return true, nil
}

// Get reads a process (its creator's organisation or its signer).
func (s *Service) Get(ctx context.Context, id string) (*models.SigningProcess, error) {
	sp, _, err := s.load(ctx, id, false)
	return sp, err
}

// Open is the signer opening the page: it shows what they would sign.
func (s *Service) Open(ctx context.Context, id string) (*models.SigningProcess, *Prepared, error) {
	sp, _, err := s.load(ctx, id, true)
	if err != nil {
		return nil, nil, err
	}
	if sp.State == Created {
		now := s.now()
		if err := models.Conn(ctx, s.DB).Model(sp).Where("state = ?", Created).Updates(map[string]any{"state": Opened, "opened_at": now}).Error; err != nil {
			return nil, nil, err
		}
		sp.State, sp.OpenedAt = Opened, &now
	}
	prep, err := s.prepare(sp.Document, sp.Position)
	return sp, prep, err
}

// Sign signs the process's document as its signer, with their key.
func (s *Service) Sign(ctx context.Context, id string) (*models.SigningProcess, error) {
	sp, p, err := s.load(ctx, id, true)
	if err != nil {
		return nil, err
	}
	if Final(sp.State) {
		return nil, status.New(status.FailedPrecondition, "the signing process is %s", sp.State)
	}
	key, err := s.Keys.KeyFor(p.ProviderID, sp.SignerName)
	if err != nil {
		return nil, status.New(status.FailedPrecondition, "%v", err)
	}
	prep, err := s.prepare(sp.Document, sp.Position)
	if err != nil {
		return nil, err
	}
	var out []byte
	if prep.Doc != nil {
		err = bmu.Sign(prep.Doc, sp.Position, key.Signer, key.Cert, s.now())
		if err == nil {
			out, err = prep.Doc.Bytes()
		}
	} else {
		err = bmu.SignRoot(prep.Tree, key.Signer, key.Cert, s.now())
		if err == nil {
			out, err = prep.Tree.WriteToBytes()
		}
	}
	if err != nil {
		return nil, status.New(status.FailedPrecondition, "signing failed: %v", err)
	}
	if ok, err := s.finish(ctx, sp, []string{Created, Opened}, Signed, out, ""); err != nil || !ok {
		if err == nil {
			err = status.New(status.FailedPrecondition, "the signing process is %s", sp.State)
		}
		return nil, err
	}
	return sp, nil
}

// Decline records the signer's refusal.
func (s *Service) Decline(ctx context.Context, id, reason string) (*models.SigningProcess, error) {
	sp, _, err := s.load(ctx, id, true)
	if err != nil {
		return nil, err
	}
	if ok, err := s.finish(ctx, sp, []string{Created, Opened}, Declined, nil, reason); err != nil || !ok {
		if err == nil {
			err = status.New(status.FailedPrecondition, "the signing process is %s", sp.State)
		}
		return nil, err
	}
	return sp, nil
}

// Cancel withdraws a process (its creator's organisation).
func (s *Service) Cancel(ctx context.Context, id string) (*models.SigningProcess, error) {
	sp, p, err := s.load(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if sp.OrganisationID != p.OrganisationID {
		return nil, status.New(status.PermissionDenied, "only the organisation that created the process may cancel it")
	}
	if ok, err := s.finish(ctx, sp, []string{Created, Opened}, Cancelled, nil, "cancelled by the caller"); err != nil || !ok {
		if err == nil {
			err = status.New(status.FailedPrecondition, "the signing process is %s", sp.State)
		}
		return nil, err
	}
	return sp, nil
}

// Wait returns the process once it is final, or after wait.
func (s *Service) Wait(ctx context.Context, id string, wait time.Duration) (*models.SigningProcess, error) {
	deadline := time.Now().Add(wait)
	poll := s.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	for {
		sp, err := s.Get(ctx, id)
		if err != nil || Final(sp.State) || !time.Now().Before(deadline) {
			return sp, err
		}
		select {
		case <-ctx.Done():
			return sp, nil
		case <-time.After(min(poll, time.Until(deadline))):
		}
	}
}

// List is the caller's organisation's processes that are not final.
func (s *Service) List(ctx context.Context) ([]models.SigningProcess, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	var out []models.SigningProcess
	err = models.Conn(ctx, s.DB).Where("provider_id = ? AND (organisation_id = ? OR signer_id = ?) AND state IN ?", p.ProviderID, p.OrganisationID, p.AccountID,
		[]string{Created, Opened}).Order("created_at").Find(&out).Error
	var live []models.SigningProcess
	for i := range out {
		if s.now().After(out[i].ExpiresAt) {
			if _, err := s.finish(ctx, &out[i], []string{Created, Opened}, Expired, nil, "nobody signed in time"); err != nil {
				return nil, err
			}
			continue
		}
		live = append(live, out[i])
	}
	return live, err
}
