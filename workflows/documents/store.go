package documents

import (
	"context"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/clock"
)

// Store is the storage the runner needs; models.DocumentStore keeps it in
// PostgreSQL or SQLite. Missing rows are models.ErrNotFound.
type Store interface {
	// Update runs fn in one transaction: the request's when ctx carries
	// one (an Idempotency-Key's), else its own. Every mutation is one.
	// fn's context carries the transaction: what fn reads through other
	// stores (the test clocks) it reads in the transaction.
	Update(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// Apart runs fn in a transaction of its own, whatever ctx carries:
	// the sweep's, one per deadline, several at once.
	Apart(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// Reads are a request's reads outside a transaction.
	Reads(ctx context.Context) Reader

	// DueDeadlines is one page of the deadlines due at now (entering their
	// warning window or past due), in (due_at, id) order after the keyset
	// (after, afterID), of provider only when only is set and of no
	// provider in except: the sweep's candidates.
	DueDeadlines(ctx context.Context, now, after time.Time, afterID string, limit int, only string, except []string) ([]models.Deadline, error)
	// NextDeadlineChange is the earliest time at which a deadline of
	// provider enters its warning window or falls due (nil: none waits).
	NextDeadlineChange(ctx context.Context, provider string) (*time.Time, error)
	// Entries is one page of organisation org's list entries (only those
	// with a follow-up intent when actionable) and their total; client
	// mistakes in q are *qpar.Error.
	Entries(ctx context.Context, provider, org string, actionable bool, q *qpar.QueryParameter, s *qpar.Schema) ([]models.DocumentEntry, int64, error)
	// Audit reads the audit rows of document id, oldest first, and the
	// head its row keeps, in one snapshot.
	Audit(ctx context.Context, id string) ([]models.AuditEvent, *models.Document, error)
	// Deadlines are the deadlines of documents ids, oldest first.
	Deadlines(ctx context.Context, ids []string) ([]models.Deadline, error)
	// PartyNames are the names of the organisations in roles on documents
	// ids, in one query.
	PartyNames(ctx context.Context, provider string, ids, roles []string) ([]models.PartyName, error)
	// TaskPending reports whether maintenance task name waits; TaskDone
	// removes it.
	TaskPending(ctx context.Context, name string) (bool, error)
	TaskDone(ctx context.Context, name string) error
	// DocumentsAfter is up to limit documents after id, in id order (only
	// those without list entries when withoutEntries is set).
	DocumentsAfter(ctx context.Context, after string, limit int, withoutEntries bool) ([]models.Document, error)
	// RegisterCount and RegisterPage read an organisation's register;
	// OrganisationNumbers the official numbers of organisations.
	RegisterCount(ctx context.Context, q models.RegisterQuery) (int64, error)
	RegisterPage(ctx context.Context, q models.RegisterQuery) (*models.RegisterPage, error)
	OrganisationNumbers(ctx context.Context, provider string, ids []string) (map[string][]string, error)
	// Family reads a document with the documents under it, their
	// deadlines and their audit rows in the order written, in one
	// snapshot (the replay's input); Roots pages through the documents
	// without a parent, by id.
	Family(ctx context.Context, root string) (*models.Family, error)
	Roots(ctx context.Context, after string, limit int) ([]string, error)
	// Unsummarised is up to limit documents of kinds after id, in id
	// order, that have no summary yet.
	Unsummarised(ctx context.Context, kinds []string, after string, limit int) ([]models.Document, error)
}

// Reader reads documents, in a transaction or outside one.
type Reader interface {
	// Load reads the document q names with its deadlines, its parent (and
	// the parent's children when q asks) and its children, marked by
	// whether q.Party is a party to each; with q.Lock the parent's row,
	// then the document's, stay locked until the transaction ends.
	Load(q models.DocumentQuery) (*models.LoadedDocument, error)
	// Find reads document id of provider, only when party is one of its
	// parties ("" skips the check).
	Find(id, provider, party string) (*models.Document, error)
	// Organisations are the organisations of provider among ids.
	Organisations(provider string, ids []string) ([]models.Organisation, error)
	// ProviderSettings are provider's rule settings as stored (JSON).
	ProviderSettings(provider string) (string, error)
}

// Tx is one transaction of the runner.
type Tx interface {
	Reader
	// Commit writes one change of a document (its row, audit row,
	// parties, deadlines, events, list entries and its relatives' entries)
	// and reports whether the document was still at the version read.
	Commit(c *models.Change) (bool, error)
	// NextNumber draws the next number of provider's sequence prefix.
	NextNumber(provider, prefix string) (string, error)
	// LockOrSkip locks document id for the sweep: models.ErrNotFound when
	// it is missing or another transaction holds it.
	LockOrSkip(id string) (*models.Document, error)
	// Deadline reads deadline id; SaveDeadline writes the sweep's change of
	// it with its events.
	Deadline(id string) (*models.Deadline, error)
	// DueDeadlinesOf lists the deadlines of document id due at now
	// (entering their warning window or past due), in (due_at, id) order.
	DueDeadlinesOf(id string, now time.Time) ([]models.Deadline, error)
	SaveDeadline(d *models.Deadline, events []models.Event) error
	// Index rewrites the parties of document id and its list entries, the
	// entries of organisations no longer a party removed.
	Index(id string, parties []models.DocumentParty, entries []models.DocumentEntry) error
	// Children reads the documents under id with their data, oldest first
	// (Load reads them as relatives do: by their summaries).
	Children(id string) ([]models.Document, error)
	// SetSummary writes the summary of document id while it is at
	// version and has none.
	SetSummary(id string, version int64, summary string) error
	// The test clock an advance moves.
	clock.Tx
}

// NewStore keeps the documents in db (cmd's handle; the runner only sees
// the Store).
func NewStore(db *models.DB) Store { return modelsStore{models.NewDocumentStore(db)} }

// modelsStore is models.DocumentStore as a Store: models cannot name this
// package's Tx and Reader, so the two methods that hand them out are
// adapted here.
type modelsStore struct{ *models.DocumentStore }

var _ Tx = (*models.DocumentTx)(nil)

func (s modelsStore) Update(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error {
	return s.DocumentStore.Update(ctx, func(ctx context.Context, tx *models.DocumentTx) error { return fn(ctx, tx) })
}

func (s modelsStore) Apart(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error {
	return s.DocumentStore.Apart(ctx, func(ctx context.Context, tx *models.DocumentTx) error { return fn(ctx, tx) })
}

func (s modelsStore) Reads(ctx context.Context) Reader { return s.DocumentStore.Reads(ctx) }
