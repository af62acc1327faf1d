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
	"slices"
	"strings"
	"time"

	"github.com/beevik/etree"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/wake"
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

// States are every state, in the order of a process's life.
var States = []string{Created, Opened, Signed, Declined, Expired, Cancelled}

// Final reports whether a process's state no longer changes.
func Final(state string) bool { return state != Created && state != Opened }

// Process is a signing process with the names of who asked for it (the
// username of the account that created it, RequestedBy, and the name of
// its organisation, OrganisationName).
type Process = models.SigningProcessView

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

// Store keeps signing processes; models.SignerStore implements it. A
// missing row is models.ErrNotFound; a client's mistake in a list's query
// is a *qpar.Error.
type Store interface {
	EnabledAccountByUsername(ctx context.Context, provider, username string) (*models.Account, error)
	// HoldsAnyNumber reports whether an organisation holds one of the
	// official numbers.
	HoldsAnyNumber(ctx context.Context, provider, org string, numbers []string) (bool, error)
	CreateProcess(ctx context.Context, sp *models.SigningProcess) error
	// Requester is an account's username and an organisation's name (""
	// for one that is gone).
	Requester(ctx context.Context, account int64, provider, org string) (username, orgName string, err error)
	Process(ctx context.Context, provider, id string) (*models.SigningProcess, error)
	// Reload reads a process again.
	Reload(ctx context.Context, sp *models.SigningProcess) error
	// MoveProcess moves a process from one of the states from to its final
	// state, once: false when it is in none of them (any more).
	MoveProcess(ctx context.Context, id string, from []string, state string, result []byte, reason string, now time.Time) (moved bool, err error)
	// OpenProcess records the signer opening a process still in state from.
	OpenProcess(ctx context.Context, id, from, to string, now time.Time) error
	// ExpireProcesses ends the processes past their expiry that an
	// organisation created or an account is to sign.
	ExpireProcesses(ctx context.Context, provider, org string, account int64, from []string, state, reason string, now time.Time) error
	// ExpireDue ends every process past its expiry, of any provider, and
	// reports how many.
	ExpireDue(ctx context.Context, from []string, state, reason string, now time.Time) (int64, error)
	// ListProcesses lists, without documents, the processes an
	// organisation created or an account is to sign (only those in states
	// when not nil).
	ListProcesses(ctx context.Context, provider, org string, account int64, states []string, q *qpar.QueryParameter, schema *qpar.Schema) ([]Process, int64, error)
}

// Service runs the processes.
type Service struct {
	Store Store
	BMU   *bmu.Service
	Keys  Keys
	Now   func() time.Time
	Poll  time.Duration // how often Wait looks when Wake is not live
	// Wake, when live, wakes a Wait when its process's state changes (key:
	// the process's id); it then reads the database only when woken and
	// every wake.Safety.
	Wake *wake.Hub
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
	Doc      bmu.Doc                 // a BMU note
	Slot     *rbmu.SignaturePosition // a BMU note's position
	Tree     *etree.Document         // any other XML
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
			return &Prepared{Position: position, Covers: covers, Doc: d, Slot: &p}, nil
		}
	}
	return nil, status.New(status.FailedPrecondition, "signature position %q is not open in this note (see BmuDocumentApi/GetValidSignaturePositions)", position)
}

// maxTTL is the longest a signing process may wait for its signer.
const maxTTL = 30 * 24 * time.Hour

// Create starts a process for the person username of the caller's provider.
// Only a person of the caller's organisation, or of the organisation that
// holds the position by its official number in the note, may be asked.
func (s *Service) Create(ctx context.Context, xml []byte, position, username string, ttl time.Duration) (*Process, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	if username == "" {
		return nil, status.Invalid("signer", "the username of the person who is to sign is required")
	}
	if ttl < 0 || ttl > maxTTL {
		return nil, status.Invalid("expiresInSeconds", fmt.Sprintf("a process lives at most 30 days (%d seconds); 0 or absent for the default", int64(maxTTL/time.Second)))
	}
	prep, err := s.prepare(xml, position)
	if err != nil {
		return nil, err
	}
	acc, err := s.Store.EnabledAccountByUsername(ctx, p.ProviderID, username)
	if err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return nil, status.Invalidf("signer", "no account %q here", username)
		}
		return nil, err
	}
	if err := s.mayAsk(ctx, p, prep, acc); err != nil {
		return nil, err
	}
	if ttl <= 0 {
		ttl = s.TTL
	}
	if ttl <= 0 || ttl > maxTTL {
		ttl = 24 * time.Hour
	}
	now := s.now()
	sp := &models.SigningProcess{ID: newID(), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, CreatedBy: p.AccountID,
		SignerID: acc.ID, SignerName: acc.Username, Position: prep.Position, Document: xml, State: Created, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.Store.CreateProcess(ctx, sp); err != nil {
		return nil, err
	}
	return s.named(ctx, sp, nil)
}

// AskRule is the rule of who may be asked to sign, as refusals state it.
const AskRule = "a signature may be asked only of a person of your own organisation, or of the organisation that holds the " +
	"signature position by its official number in the note (the producer's, carrier's, interim storage's or disposer's number of that layer)"

// mayAsk applies AskRule: the signer acc is of the caller's organisation,
// or of an organisation holding one of the official numbers the note names
// for the position being signed (rules/bmu.HolderNumberPaths over the
// position GetValidSignaturePositions gives).
func (s *Service) mayAsk(ctx context.Context, p *reqctx.Principal, prep *Prepared, acc *models.Account) error {
	if acc.OrganisationID == p.OrganisationID {
		return nil
	}
	refuse := func(why string) error {
		return status.New(status.PermissionDenied, "%s: %s", AskRule, why).
			WithDetails(status.Info("SIGNER_NOT_PERMITTED", map[string]string{"signer": acc.Username, "position": prep.Position}))
	}
	if prep.Doc == nil {
		return refuse(fmt.Sprintf("%s is not of your organisation, and a document that is not a BMU note names no holder of its position", acc.Username))
	}
	n := prep.Doc.Note()
	var numbers, named []string
	for _, path := range rbmu.HolderNumberPaths(n, *prep.Slot) {
		if v, _ := n.Value(path); v != "" {
			numbers = append(numbers, v)
			named = append(named, path+" = "+v)
		}
	}
	where := fmt.Sprintf("position %s (%s, %s)", prep.Position, prep.Slot.LayerType, prep.Slot.AtbRolle)
	if len(numbers) == 0 {
		return refuse(fmt.Sprintf("%s is not of your organisation, and the note names no official number for %s", acc.Username, where))
	}
	held, err := s.Store.HoldsAnyNumber(ctx, p.ProviderID, acc.OrganisationID, numbers)
	if err != nil {
		return err
	}
	if !held {
		return refuse(fmt.Sprintf("%s is neither of your organisation nor of the organisation holding the number the note names for %s (%s)",
			acc.Username, where, strings.Join(named, ", ")))
	}
	return nil
}

// named adds who asked for sp: the creating account's username and its
// organisation's name (one lookup each; the list reads them in its query).
func (s *Service) named(ctx context.Context, sp *models.SigningProcess, err error) (*Process, error) {
	if err != nil {
		return nil, err
	}
	out := &Process{SigningProcess: *sp}
	if out.RequestedBy, out.OrganisationName, err = s.Store.Requester(ctx, sp.CreatedBy, sp.ProviderID, sp.OrganisationID); err != nil {
		return nil, err
	}
	return out, nil
}

// load reads a process the caller may see: its creator's organisation or
// its signer. A process past its expiry becomes EXPIRED here.
func (s *Service) load(ctx context.Context, id string, signerOnly bool) (*models.SigningProcess, *reqctx.Principal, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, nil, err
	}
	sp, err := s.Store.Process(ctx, p.ProviderID, id)
	isSigner := err == nil && sp.SignerID == p.AccountID
	isCreator := err == nil && sp.OrganisationID == p.OrganisationID
	if errors.Is(err, models.ErrNotFound) || (err == nil && !isSigner && !isCreator) {
		return nil, nil, status.New(status.NotFound, "no signing process %q for you", id)
	}
	if err != nil {
		return nil, nil, err
	}
	if signerOnly && !isSigner {
		return nil, nil, status.New(status.PermissionDenied, "only %s, named in the process, may sign or decline it", sp.SignerName)
	}
	if !Final(sp.State) && s.now().After(sp.ExpiresAt) {
		if _, err := s.finish(ctx, sp, []string{Created, Opened}, Expired, nil, "nobody signed before "+sp.ExpiresAt.Format(time.RFC3339)); err != nil {
			return nil, nil, err
		}
	}
	return sp, p, nil
}

// finish moves a process from one of the states from to state, once.
func (s *Service) finish(ctx context.Context, sp *models.SigningProcess, from []string, state string, result []byte, reason string) (bool, error) {
	now := s.now()
	moved, err := s.Store.MoveProcess(ctx, sp.ID, from, state, result, reason, now)
	if err != nil {
		return false, err
	}
	if !moved { // someone else moved it first: read what it is now
		return false, s.Store.Reload(ctx, sp)
	}
	sp.State, sp.Result, sp.Reason, sp.CompletedAt = state, result, reason, &now
	return true, nil
}

// Get reads a process (its creator's organisation or its signer).
func (s *Service) Get(ctx context.Context, id string) (*Process, error) {
	sp, _, err := s.load(ctx, id, false)
	return s.named(ctx, sp, err)
}

// Open is the signer opening the page: it shows what they would sign, or,
// once signed, what they signed: the signed document.
func (s *Service) Open(ctx context.Context, id string) (*Process, *Prepared, error) {
	sp, _, err := s.load(ctx, id, true)
	if err != nil {
		return nil, nil, err
	}
	if sp.State == Created {
		now := s.now()
		if err := s.Store.OpenProcess(ctx, sp.ID, Created, Opened, now); err != nil {
			return nil, nil, err
		}
		sp.State, sp.OpenedAt = Opened, &now
	}
	prep, err := s.prepare(sp.Document, sp.Position)
	if err != nil {
		return nil, nil, err
	}
	if sp.State == Signed && len(sp.Result) > 0 {
		if prep, err = s.signed(sp.Result, prep); err != nil {
			return nil, nil, err
		}
	}
	named, err := s.named(ctx, sp, nil)
	return named, prep, err
}

// signed is what a signed process shows: the signed document in place of
// the one that waited, with what the signature covers.
func (s *Service) signed(result []byte, before *Prepared) (*Prepared, error) {
	out := &Prepared{Position: before.Position, Covers: before.Covers, Slot: before.Slot}
	var err error
	if before.Doc != nil {
		out.Doc, err = s.BMU.Mapping.Parse(result)
	} else {
		out.Tree = etree.NewDocument()
		err = out.Tree.ReadFromBytes(result)
	}
	if err != nil {
		return nil, status.New(status.Internal, "the signed document cannot be read: %v", err)
	}
	return out, nil
}

// Sign signs the process's document as its signer, with their key.
func (s *Service) Sign(ctx context.Context, id string) (*Process, error) {
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
	return s.named(ctx, sp, nil)
}

// Decline records the signer's refusal.
func (s *Service) Decline(ctx context.Context, id, reason string) (*Process, error) {
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
	return s.named(ctx, sp, nil)
}

// Cancel withdraws a process (its creator's organisation).
func (s *Service) Cancel(ctx context.Context, id string) (*Process, error) {
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
	return s.named(ctx, sp, nil)
}

// ExpireDue ends the processes nobody signed before their expiry (the
// scheduler's sweep; reads end an expired process too), so that their
// state is true in lists and exports and their waiters are told, and
// reports how many it ended.
func (s *Service) ExpireDue(ctx context.Context) (int64, error) {
	return s.Store.ExpireDue(ctx, []string{Created, Opened}, Expired, "nobody signed in time", s.now())
}

// Wait returns the process once it is final, or after wait.
func (s *Service) Wait(ctx context.Context, id string, wait time.Duration) (*Process, error) {
	deadline := time.Now().Add(wake.Budget(ctx, wait))
	poll := s.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	w := s.Wake.Wait(id) // before the first read: a change meanwhile wakes it
	defer w.Stop()
	for {
		sp, _, err := s.load(ctx, id, false)
		if err != nil || Final(sp.State) || !time.Now().Before(deadline) {
			return s.named(ctx, sp, err)
		}
		timer := time.NewTimer(min(s.Wake.Poll(poll), time.Until(deadline)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return s.named(ctx, sp, nil)
		case <-w.C:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// ListSchema is the filter and sort paths of List.
var ListSchema = models.SigningColumns.Bind(&qpar.Schema{Fields: []qpar.Field{
	{Path: "id", Kind: qpar.Text, Sortable: true},
	{Path: "state", Kind: qpar.Enum, Values: States, Sortable: true},
	{Path: "signer", Kind: qpar.Text, Sortable: true},
	{Path: "position", Kind: qpar.Text, Sortable: true},
	{Path: "requested_by.username", Kind: qpar.Text, Sortable: true},
	{Path: "requested_by.organisation_id", Kind: qpar.Text, Sortable: true},
	{Path: "created_at", Kind: qpar.Time, Sortable: true},
	{Path: "expires_at", Kind: qpar.Time, Sortable: true},
	{Path: "opened_at", Kind: qpar.Time, Sortable: true},
	{Path: "completed_at", Kind: qpar.Time, Sortable: true},
}, DefaultSort: []qpar.Sort{{Path: "created_at", Direction: qpar.Asc}, {Path: "id", Direction: qpar.Asc}}, DefaultPageSize: 50, MaxPageSize: 500})

// List is the processes the caller's organisation created and those the
// caller is to sign, as q selects them. Without a filter on state it keeps
// those that have not ended (CREATED, OPENED), as the list always did; a
// filter on state selects among all, ended ones included. Rows leave out
// the documents (Get has them). Processes past their expiry become EXPIRED
// first.
func (s *Service) List(ctx context.Context, q *qpar.QueryParameter) ([]Process, int64, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, 0, err
	}
	if q == nil {
		q = &qpar.QueryParameter{}
	}
	now := s.now()
	if err := s.Store.ExpireProcesses(ctx, p.ProviderID, p.OrganisationID, p.AccountID, []string{Created, Opened}, Expired, "nobody signed in time", now); err != nil {
		return nil, 0, err
	}
	var states []string
	if !slices.ContainsFunc(q.Filter, func(f qpar.Filter) bool { return f.Path == "state" }) {
		states = []string{Created, Opened}
	}
	out, total, err := s.Store.ListProcesses(ctx, p.ProviderID, p.OrganisationID, p.AccountID, states, q, ListSchema)
	return out, total, qparErr(err)
}

func qparErr(err error) error {
	var qe *qpar.Error
	if errors.As(err, &qe) {
		return status.Invalid(qe.Field, qe.Reason)
	}
	return err
}
