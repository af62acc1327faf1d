package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// DB is the database handle as the workflows pass it on: cmd opens it and
// hands it to their constructors, which give it to a store of this
// package; the workflows themselves only see the store's interface.
type DB = gorm.DB

// DocumentStore is the storage of the document runner
// (workflows/documents.Store) on PostgreSQL and SQLite: every statement
// the runner makes, the differences of the two dialects inside.
type DocumentStore struct{ db *gorm.DB }

// NewDocumentStore keeps the documents in db.
func NewDocumentStore(db *gorm.DB) *DocumentStore { return &DocumentStore{db: db} }

// DocumentTx is the runner's view of one transaction (or, from Reads, of
// the reads of a request outside one).
type DocumentTx struct{ db *gorm.DB }

// Update runs fn in one transaction: the request's (as a savepoint) when
// ctx carries one, else a new one. fn's context carries the transaction,
// so that every store it reads through (the test clocks, say) reads in it:
// a read beside the transaction would need a second connection while this
// one holds SQLite's write gate, and with the pool taken by writers
// waiting for that gate, wait for it until the gate's timeout.
func (s *DocumentStore) Update(ctx context.Context, fn func(ctx context.Context, tx *DocumentTx) error) error {
	return Conn(ctx, s.db).Transaction(func(tx *gorm.DB) error { return fn(WithTx(ctx, tx), &DocumentTx{db: tx}) })
}

// Apart runs fn in a transaction of its own, whatever ctx carries (the
// sweep's: one per deadline, several at once); fn's context carries it.
func (s *DocumentStore) Apart(ctx context.Context, fn func(ctx context.Context, tx *DocumentTx) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return fn(WithTx(ctx, tx), &DocumentTx{db: tx}) })
}

// Reads are the reads of a request outside a transaction (inside the
// request's, when ctx carries one).
func (s *DocumentStore) Reads(ctx context.Context) *DocumentTx {
	return &DocumentTx{db: Conn(ctx, s.db)}
}

// DueDeadlines: see the function of that name.
func (s *DocumentStore) DueDeadlines(ctx context.Context, now, after time.Time, afterID string, limit int, only string, except []string) ([]Deadline, error) {
	return DueDeadlines(s.db.WithContext(ctx), now, after, afterID, limit, only, except)
}

// NextDeadlineChange: see the function of that name.
func (s *DocumentStore) NextDeadlineChange(ctx context.Context, provider string) (*time.Time, error) {
	return NextDeadlineChange(s.db.WithContext(ctx), provider)
}

// Entries is one page of an organisation's list entries (ListEntries).
func (s *DocumentStore) Entries(ctx context.Context, provider, org string, actionable bool, q *qpar.QueryParameter, schema *qpar.Schema) ([]DocumentEntry, int64, error) {
	return ListEntries(Conn(ctx, s.db), provider, org, actionable, q, schema)
}

// PartyNames reads the names of the organisations in roles on documents
// ids (provider's), in one query.
func (s *DocumentStore) PartyNames(ctx context.Context, provider string, ids, roles []string) ([]PartyName, error) {
	return PartyNamesOf(Conn(ctx, s.db), provider, ids, roles)
}

// Deadlines reads the deadlines of documents ids, oldest first.
func (s *DocumentStore) Deadlines(ctx context.Context, ids []string) ([]Deadline, error) {
	return DeadlinesOf(Conn(ctx, s.db), ids)
}

// Audit reads the audit rows of document id, oldest first, and the
// document's row with its chain's head, in one snapshot (a transition
// committed in between would look like a row missing at the end).
func (s *DocumentStore) Audit(ctx context.Context, id string) ([]AuditEvent, *Document, error) {
	var rows []AuditEvent
	var doc Document
	var opts []*sql.TxOptions
	if IsPostgres(s.db) {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("document_id = ?", id).Order("seq").Find(&rows).Error; err != nil {
			return err
		}
		return tx.Select("id", "audit_seq", "audit_hash", "version", "state").Where("id = ?", id).Take(&doc).Error
	}, opts...)
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, ErrNotFound
	}
	return rows, &doc, err
}

// Family is the family of document root as stored, in one snapshot: root
// and the documents under it at every level (by id), their deadlines, and
// their audit rows in the order they were written (pos). A missing root
// is ErrNotFound.
func (s *DocumentStore) Family(ctx context.Context, root string) (*Family, error) {
	var f Family
	var opts []*sql.TxOptions
	if IsPostgres(s.db) {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		f = Family{}
		ids := []string{root}
		for level := ids; len(level) > 0; {
			var docs []Document
			if err := tx.Where("id IN ?", level).Order("id").Find(&docs).Error; err != nil {
				return err
			}
			f.Documents = append(f.Documents, docs...)
			level = nil
			if err := tx.Model(&Document{}).Where("parent_id IN ?", idsOf(docs)).Order("id").Pluck("id", &level).Error; err != nil {
				return err
			}
			ids = append(ids, level...)
		}
		if len(f.Documents) == 0 {
			return ErrNotFound
		}
		if err := tx.Where("document_id IN ?", ids).Order("started_at, id").Find(&f.Deadlines).Error; err != nil {
			return err
		}
		return tx.Where("document_id IN ?", ids).Order("pos").Find(&f.Audit).Error
	}, opts...)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// Family is a document with the documents under it, as stored.
type Family struct {
	Documents []Document
	Deadlines []Deadline
	Audit     []AuditEvent
}

func idsOf(docs []Document) []string {
	out := make([]string, len(docs))
	for i := range docs {
		out[i] = docs[i].ID
	}
	return out
}

// Roots are up to limit ids of documents without a parent after id
// after, in id order.
func (s *DocumentStore) Roots(ctx context.Context, after string, limit int) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&Document{}).Where("parent_id IS NULL AND id > ?", after).Order("id").Limit(limit).Pluck("id", &ids).Error
	return ids, err
}

// TaskPending reports whether maintenance task name waits to be done.
func (s *DocumentStore) TaskPending(ctx context.Context, name string) (bool, error) {
	return TaskPending(s.db.WithContext(ctx), name)
}

// TaskDone removes maintenance task name.
func (s *DocumentStore) TaskDone(ctx context.Context, name string) error {
	return TaskDone(s.db.WithContext(ctx), name)
}

// DocumentsAfter: see the function of that name.
func (s *DocumentStore) DocumentsAfter(ctx context.Context, after string, limit int, withoutEntries bool) ([]Document, error) {
	return DocumentsAfter(s.db.WithContext(ctx), after, limit, withoutEntries)
}

// DocumentQuery names the document a request acts on and what it reads
// with it.
type DocumentQuery struct {
	ID string
	// Provider of the document ("": any, for the system's triggers by id).
	Provider string
	// Kinds the operation serves (any when empty).
	Kinds []string
	// Party: only a document this organisation is a party to ("" skips the
	// check: the system); its children are marked by whether Party is a
	// party to each (all of them when "").
	Party string
	// Lock the document's row for the transaction, its parent's before it
	// (PostgreSQL; SQLite serialises writers instead).
	Lock bool
	// ParentChildren reads the parent's children too (a child's rules count
	// its siblings); with ParentTallied only when the parent keeps no tally
	// yet (Document.Tally ""): the tally stands for them.
	ParentChildren, ParentTallied bool
	// ChildrenTallied reads the document's own children only when it keeps
	// no tally yet.
	ChildrenTallied bool
	// Apart leaves the document's Data without its Archive's items
	// (Document.Apart), for a reader that puts them back in its own way
	// (the runner, decoding each part once rather than joining the JSON
	// and decoding the whole).
	Apart bool
	// Hot reads the document's Data without its Archive (archive.go): not
	// the aggregate whole, but what a retrieval document lists of it
	// (Archived counts the rest). Its parent is read whole.
	Hot bool
	// ChildrenLimit, when above 0, reads on PostgreSQL at most that many
	// of the children, and only those Party is a party to: the ones in
	// none of the states ChildrenFinal first, then the latest; LoadedDocument.
	// ChildrenVisible counts them all (a retrieval document lists a part
	// of a large family; its tally counts the whole). SQLite reads them all
	// (LoadedDocument.ChildrenBounded says which happened).
	ChildrenLimit int
	ChildrenFinal []string
	// ChildrenStates are every state of the child kinds: with them the
	// pick on PostgreSQL reads each state's newest children up to the
	// limit (childrenPicked), not the family newest first until it has
	// found enough open ones and enough closed ones. SQLite does without
	// them (migration 00035 says why).
	ChildrenStates []string
	// Root: every kind in Kinds is a kind without a parent, so there is no
	// parent to lock or read (one lock on the row, a shorter read).
	Root bool
}

// LoadedDocument is a document with what a request needs beside it.
type LoadedDocument struct {
	Doc       Document
	Deadlines []Deadline // oldest first
	// Parent is the document this one belongs to (nil: none) and, when
	// asked for, ParentChildren all of the parent's children (this one
	// too), oldest first, as relatives read them (familyColumnsOf: id, kind,
	// number, state, version, summary or data, creation; the rest blank).
	Parent         *Document
	ParentChildren []Document
	// Children are the documents under this one, oldest first, as
	// relatives read them (familyColumnsOf); Visible says which of them the
	// query's Party is a party to.
	Children []Document
	Visible  map[string]bool
	// ChildrenBounded: the store applied DocumentQuery.ChildrenLimit
	// (PostgreSQL), and ChildrenVisible counts the children Party is a
	// party to, read or not; else Children are all of them.
	ChildrenBounded bool
	ChildrenVisible int64
}

// Load reads what every document request needs: the document, its
// deadlines, its parent (and the parent's children) and its own children,
// locked first when q says so; ErrNotFound when the document is missing,
// of another provider or kind, or q.Party is none of its parties. On
// PostgreSQL it is two statements at most, the lock and one read (scanned
// by hand, not by reflection): the read comes after the lock, so a request
// that waited for the lock sees the rows its holder wrote. SQLite reads
// them one by one in its process.
func (t *DocumentTx) Load(q DocumentQuery) (*LoadedDocument, error) {
	if IsPostgres(t.db) {
		return t.loadPostgres(q)
	}
	doc, ds, err := loadDocument(t.db, q)
	if err != nil {
		return nil, err
	}
	out := &LoadedDocument{Doc: *doc, Deadlines: ds}
	if doc.ParentID != nil {
		if out.Parent, err = FindDocument(t.db, *doc.ParentID, doc.ProviderID, nil, false); err != nil {
			return nil, err
		}
		if q.ParentChildren && out.Parent.Children > 0 && (!q.ParentTallied || out.Parent.Tally == "") {
			if out.ParentChildren, _, err = family(t.db, out.Parent.ID, "", out.Parent.Children); err != nil {
				return nil, err
			}
		}
	}
	// SQLite picks a part of the children in SQL only when they do not all
	// fit in it; a smaller family is read whole (ChildrenBounded stays
	// false: the runner picks the part): in its process reading a few rows
	// in index order costs less than picking and counting them (measured:
	// a small family's GetDocument 870-900/s picked in SQL, 1,270-1,720/s
	// read whole, before the pick read the list entries).
	if q.ChildrenLimit > 0 && q.Party != "" && doc.Children > int64(q.ChildrenLimit) {
		if out.Children, out.ChildrenVisible, err = picked(t.db, doc.ID, q); err != nil {
			return nil, err
		}
		out.ChildrenBounded, out.Visible = true, make(map[string]bool, len(out.Children))
		for _, c := range out.Children {
			out.Visible[c.ID] = true
		}
	} else if doc.Children > 0 && (!q.ChildrenTallied || doc.Tally == "" || q.ChildrenLimit > 0) {
		if out.Children, out.Visible, err = family(t.db, doc.ID, q.Party, doc.Children); err != nil {
			return nil, err
		}
	}
	return out, nil
}

const documentColumnsOf = "x.id, x.provider_id, x.kind, x.number, x.state, x.version, CAST(x.data AS TEXT), x.summary, x.parent_id, x.audit_seq, x.audit_hash, x.children, x.tally, x.archive, x.archived, x.created_by, x.created_at, x.updated_at"

// hotColumnsOf are documentColumnsOf without the archive (DocumentQuery.Hot).
var hotColumnsOf = strings.Replace(documentColumnsOf, "x.archive,", "'',", 1)

// familyColumnsOf are documentColumnsOf as relatives read a document: its
// id, kind, number, state, version and creation, and its summary (its data
// only when it has no summary); the other columns are left blank, so that
// a family of a thousand costs no more than it must to read (a relative's
// rules and the parent's list read nothing else).
const familyColumnsOf = "x.id, '', x.kind, x.number, x.state, x.version, CASE WHEN x.summary = '' THEN CAST(x.data AS TEXT) ELSE '' END, x.summary, NULL, 0, '', 0, '', '', '', '', x.created_at, x.created_at"

// familyColumnsCounted are familyColumnsOf with, in the children column,
// how many rows the statement found before its LIMIT (a window count: no
// second scan of the family to count it).
const familyColumnsCounted = "x.id, '', x.kind, x.number, x.state, x.version, CASE WHEN x.summary = '' THEN CAST(x.data AS TEXT) ELSE '' END, x.summary, NULL, 0, '', count(*) OVER (), '', '', '', '', x.created_at, x.created_at"

// family reads the n documents under parent as relatives read them
// (familyColumnsOf), oldest first, and which of them party is a party to
// (all of them when party is ""), in one statement scanned row by row:
// the SQLite side of loadPostgres's parts 2 and 3.
func family(tx *gorm.DB, parent, party string, n int64) ([]Document, map[string]bool, error) {
	visible, args := "1", []any{parent}
	if party != "" {
		visible = "EXISTS (SELECT 1 FROM document_parties p WHERE p.document_id = x.id AND p.organisation_id = ?)"
		args = []any{party, parent}
	}
	rows, err := tx.Raw("SELECT "+familyColumnsOf+", "+visible+" FROM documents x WHERE x.parent_id = ? ORDER BY x.created_at, x.id", args...).Rows()
	if err != nil {
		return nil, nil, err
	}
	return scanFamily(rows, n)
}

// scanFamily reads the rows of a family's statement (familyColumnsOf and
// whether the party sees each) and closes them.
func scanFamily[N int | int64](rows *sql.Rows, n N) ([]Document, map[string]bool, error) {
	defer rows.Close()
	docs, vis := make([]Document, 0, n), make(map[string]bool, n)
	for rows.Next() {
		var d Document
		var parentID sql.NullString
		var v bool
		if err := rows.Scan(&d.ID, &d.ProviderID, &d.Kind, &d.Number, &d.State, &d.Version, &d.Data, &d.Summary, &parentID,
			&d.AuditSeq, &d.AuditHash, &d.Children, &d.Tally, &d.Archive, &d.Archived, &d.CreatedBy, &d.CreatedAt, &d.UpdatedAt, &v); err != nil {
			return nil, nil, err
		}
		docs = append(docs, d)
		vis[d.ID] = v
	}
	return docs, vis, rows.Err()
}

// picked reads the children of parent that childrenPicked picks, oldest
// first, and counts those q.Party sees (SQLite: two statements).
func picked(tx *gorm.DB, parent string, q DocumentQuery) ([]Document, int64, error) {
	q.ChildrenStates = nil // SQLite picks in two branches (migration 00035 says why)
	pick, args := childrenPicked(q, "?", parent)
	rows, err := tx.Raw("SELECT "+familyColumnsOf+", 1 FROM documents x WHERE x.id IN ("+pick+") ORDER BY x.created_at, x.id", args...).Rows()
	if err != nil {
		return nil, 0, err
	}
	docs, _, err := scanFamily(rows, q.ChildrenLimit)
	if err != nil {
		return nil, 0, err
	}
	count, cargs := childrenCounted(q, "?", parent)
	var n int64
	err = tx.Raw(count, cargs...).Scan(&n).Error
	return docs, n, err
}

// childrenPicked is a statement that picks, from q.Party's list entries,
// the ids of at most q.ChildrenLimit children of parent (an SQL
// expression) it is a party to, in childrenOrder's order;
// childrenCounted counts them all. Both read the entries' index
// (on PostgreSQL document_entries_children_state, migration 00035; on
// SQLite 00034's document_entries_children) and no child's row,
// and the index's first columns are the two equalities, so no plan kept
// for the prepared statement can start from another side
// (TestGenericPlanReadsChildrenFirst). Before 00034, a notification of
// 1,000 movements read every movement's row and checked the party's right
// to each for every GetDocument (12 ms in psql). With q.ChildrenStates, a
// branch per state reads that state's newest entries, backwards on the
// index, up to the limit: at most the limit per state, whatever the
// family's size and however its states are spread. Without them, two
// branches (open, closed) read the family newest first and filter the
// state: one of them reads every entry when the family has few children
// of its kind (00034's plan: all 1,000 when all are open). An entry holds
// its document's state and creation as of its last change, written in the
// same transaction, so the pick is the one childrenOrder makes on the rows
// (TestChildrenPickedFromEntries).
func childrenPicked(q DocumentQuery, parent string, parentArgs ...any) (string, []any) {
	of := append([]any{q.Party}, parentArgs...)
	// a branch reads the index backwards and stops at the limit: no sort of
	// the whole family
	branch := func(closed, cond string) string {
		return "SELECT * FROM (SELECT e.document_id AS id, e.created_at AS at, e.number AS number, " + closed + " AS closed FROM document_entries e" +
			" WHERE e.organisation_id = ? AND e.parent_id = " + parent + cond + " ORDER BY e.created_at DESC, e.number DESC, e.document_id DESC LIMIT ?) b"
	}
	const order = " ORDER BY closed, at DESC, number DESC, id DESC LIMIT ?"
	if len(q.ChildrenFinal) == 0 {
		return "SELECT id FROM (" + branch("FALSE", "") + ") o", append(of, q.ChildrenLimit)
	}
	if len(q.ChildrenStates) > 0 {
		var s strings.Builder
		var args []any
		for i, state := range q.ChildrenStates {
			closed := "FALSE"
			if slices.Contains(q.ChildrenFinal, state) {
				closed = "TRUE"
			}
			if i > 0 {
				s.WriteString(" UNION ALL ")
			}
			s.WriteString(branch(closed, " AND e.state = ?"))
			args = append(append(args, of...), state, q.ChildrenLimit)
		}
		return "SELECT id FROM (" + s.String() + ") o" + order, append(args, q.ChildrenLimit)
	}
	args := append(append(slices.Clone(of), q.ChildrenFinal, q.ChildrenLimit), of...)
	return "SELECT id FROM (" + branch("FALSE", " AND NOT (e.state IN ?)") + " UNION ALL " + branch("TRUE", " AND e.state IN ?") + ") o" +
		order, append(args, q.ChildrenFinal, q.ChildrenLimit, q.ChildrenLimit)
}

func childrenCounted(q DocumentQuery, parent string, parentArgs ...any) (string, []any) {
	return "SELECT count(*) FROM document_entries e WHERE e.organisation_id = ? AND e.parent_id = " + parent, append([]any{q.Party}, parentArgs...)
}

// childrenOrder is the order (on alias x) in which ChildrenLimit picks
// children: those in none of the final states first, then the latest;
// among those made in one instant (a test clock that stands still) the
// highest number, which a person reads as the latest.
func childrenOrder(q DocumentQuery) (string, []any) {
	if len(q.ChildrenFinal) == 0 {
		return "x.created_at DESC, x.number DESC, x.id DESC", nil
	}
	return "x.state IN ?, x.created_at DESC, x.number DESC, x.id DESC", []any{q.ChildrenFinal}
}

// deadlineArray is a deadline row of alias dl as a JSON array, its
// columns in deadlineColumns' order (the dialects' functions take the same
// arguments). An array, not an object: PostgreSQL builds it in two thirds
// of an object's time (json_build_object: 0.8 ms for a long history's 54
// deadlines, json_build_array 0.5 ms), and decodeDeadlines reads no names.
const deadlineArray = "dl.id, dl.document_id, dl.provider_id, dl.rule, dl.legal_basis, dl.party_org, dl.party_role, dl.state, " +
	"dl.started_at, dl.due_at, dl.warn_at, dl.suspended_since, dl.suspended_days, dl.closed_at, dl.updated_at"

// documentFilter is the WHERE clause (on table documents) of q's document.
func documentFilter(q DocumentQuery) (string, []any) {
	var w strings.Builder
	args := []any{q.ID}
	w.WriteString("documents.id = ?")
	if q.Provider != "" {
		w.WriteString(" AND documents.provider_id = ?")
		args = append(args, q.Provider)
	}
	if len(q.Kinds) > 0 {
		w.WriteString(" AND documents.kind IN ?")
		args = append(args, q.Kinds)
	}
	if q.Party != "" {
		w.WriteString(" AND EXISTS (SELECT 1 FROM document_parties p WHERE p.document_id = documents.id AND p.organisation_id = ?)")
		args = append(args, q.Party)
	}
	return w.String(), args
}

// lockFamily locks document id and its parent, the parent first (the
// order of every mutation: a child's parent before the child); the row
// alone when root says it has no parent.
func lockFamily(tx *gorm.DB, id, provider string, root bool) error {
	q, args := "SELECT id FROM documents WHERE (id = ? OR id = (SELECT parent_id FROM documents WHERE id = ?))", []any{id, id}
	if root {
		q, args = "SELECT id FROM documents WHERE id = ?", []any{id}
	}
	if provider != "" {
		q, args = q+" AND provider_id = ?", append(args, provider)
	}
	var ids []string
	return tx.Raw(q+" ORDER BY id = ? FOR UPDATE", append(args, id)...).Scan(&ids).Error
}

func (t *DocumentTx) loadPostgres(q DocumentQuery) (*LoadedDocument, error) {
	if q.Lock {
		if err := lockFamily(t.db, q.ID, q.Provider, q.Root); err != nil {
			return nil, err
		}
	}
	where, args := documentFilter(q)
	visible := "TRUE"
	if q.Party != "" {
		visible = "EXISTS (SELECT 1 FROM document_parties p WHERE p.document_id = x.id AND p.organisation_id = ?)"
	}
	columns := documentColumnsOf
	if q.Hot {
		columns = hotColumnsOf
	}
	var s strings.Builder
	s.WriteString("WITH d AS (SELECT * FROM documents WHERE " + where + ")\n" +
		"SELECT 0 AS part, " + columns + ", COALESCE((SELECT json_agg(json_build_array(" + deadlineArray + ") ORDER BY dl.started_at, dl.id)" +
		" FROM deadlines dl WHERE dl.document_id = x.id), '[]') AS deadlines, TRUE AS visible FROM d x\n")
	if !q.Root {
		s.WriteString("UNION ALL SELECT 1, " + documentColumnsOf + ", '[]', TRUE FROM documents x WHERE x.id = (SELECT parent_id FROM d)\n")
	}
	if q.ParentChildren && !q.Root {
		s.WriteString("UNION ALL SELECT 2, " + familyColumnsOf + ", '[]', TRUE FROM documents x WHERE x.parent_id = (SELECT parent_id FROM d)")
		if q.ParentTallied {
			s.WriteString(" AND (SELECT tally FROM documents WHERE id = (SELECT parent_id FROM d)) = ''")
		}
		s.WriteString("\n")
	}
	if q.ChildrenLimit > 0 && q.Party != "" { // a part of the children the party sees, picked and counted from its list entries
		pick, pargs := childrenPicked(q, "(SELECT id FROM d)")
		count, cargs := childrenCounted(q, "(SELECT id FROM d)")
		s.WriteString("UNION ALL SELECT 3, " + familyColumnsOf + ", '[]', TRUE FROM documents x WHERE (SELECT children FROM d) > 0 AND x.id IN (" + pick + ")\n" +
			"UNION ALL SELECT 4, '', '', '', '', '', 0, '', '', NULL, 0, '', (" + count + "), '', '', '', '', now(), now(), '[]', TRUE WHERE (SELECT children FROM d) > 0\n")
		args = append(append(args, pargs...), cargs...)
	} else if q.ChildrenLimit > 0 { // a part of all the children (the system's read), with their count in each row's children column
		order, oargs := childrenOrder(q)
		s.WriteString("UNION ALL (SELECT 3, " + familyColumnsCounted + ", '[]', TRUE FROM documents x WHERE x.parent_id = (SELECT id FROM d) AND (SELECT children FROM d) > 0" +
			" ORDER BY " + order + " LIMIT ?)\n")
		args = append(append(args, oargs...), q.ChildrenLimit)
	} else {
		s.WriteString("UNION ALL SELECT 3, " + familyColumnsOf + ", '[]', " + visible + " FROM documents x WHERE x.parent_id = (SELECT id FROM d) AND (SELECT children FROM d) > 0")
		if q.ChildrenTallied {
			s.WriteString(" AND (SELECT tally FROM d) = ''")
		}
		s.WriteString("\n")
		if q.Party != "" {
			args = append(args, q.Party)
		}
	}
	s.WriteString("ORDER BY part, created_at, id")
	rows, err := t.db.Raw(s.String(), args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out *LoadedDocument
	for rows.Next() {
		var part int
		var d Document
		var parent sql.NullString
		var deadlines []byte
		var vis bool
		if err := rows.Scan(&part, &d.ID, &d.ProviderID, &d.Kind, &d.Number, &d.State, &d.Version, &d.Data, &d.Summary, &parent,
			&d.AuditSeq, &d.AuditHash, &d.Children, &d.Tally, &d.Archive, &d.Archived, &d.CreatedBy, &d.CreatedAt, &d.UpdatedAt, &deadlines, &vis); err != nil {
			return nil, err
		}
		if parent.Valid {
			d.ParentID = &parent.String
		}
		switch {
		case part == 0 && q.Apart:
			d.Apart = d.Archive != ""
		case part <= 1: // the document and its parent whole (the family's columns have no archive)
			if err := d.join(); err != nil {
				return nil, err
			}
		}
		if part == 0 {
			ds, err := decodeDeadlines(deadlines)
			if err != nil {
				return nil, fmt.Errorf("document %s: deadlines: %w", d.ID, err)
			}
			out = &LoadedDocument{Doc: d, Deadlines: ds}
			if q.ChildrenLimit > 0 {
				n := min(d.Children, int64(q.ChildrenLimit))
				out.Children, out.Visible = make([]Document, 0, n), make(map[string]bool, n)
			} else if d.Children > 0 && (!q.ChildrenTallied || d.Tally == "") { // a large family's rows are appended without copying
				out.Children, out.Visible = make([]Document, 0, d.Children), make(map[string]bool, d.Children)
			}
			continue
		}
		if out == nil {
			break // no such document: the rest is empty too
		}
		switch part {
		case 1:
			out.Parent = &d
			if q.ParentChildren && d.Children > 0 && (!q.ParentTallied || d.Tally == "") {
				out.ParentChildren = make([]Document, 0, d.Children)
			}
		case 2:
			out.ParentChildren = append(out.ParentChildren, d)
		case 4: // the count of the children the party sees (childrenPicked)
			out.ChildrenBounded, out.ChildrenVisible = true, d.Children
		case 3:
			if q.ChildrenLimit > 0 && q.Party == "" { // the count of them all, not a child's count
				out.ChildrenBounded, out.ChildrenVisible, d.Children = true, d.Children, 0
			}
			out.Children = append(out.Children, d)
			if out.Visible == nil {
				out.Visible = map[string]bool{}
			}
			out.Visible[d.ID] = vis
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, ErrNotFound
	}
	return out, nil
}

// loadDocument reads q's document and its deadlines, oldest first,
// aggregated as JSON beside it, in one statement.
func loadDocument(tx *gorm.DB, q DocumentQuery) (*Document, []Deadline, error) {
	agg := "json_group_array(json_array(" + deadlineArray + ") ORDER BY dl.started_at, dl.id)"
	if IsPostgres(tx) {
		agg = "json_agg(json_build_array(" + deadlineArray + ") ORDER BY dl.started_at, dl.id)"
	}
	if q.Lock && IsPostgres(tx) {
		// Lock first, then read: a statement that waited for the lock would
		// see the new row but deadlines from its older snapshot.
		if err := lockFamily(tx, q.ID, q.Provider, q.Root); err != nil {
			return nil, nil, err
		}
	}
	where, args := documentFilter(q)
	columns := documentColumns
	if q.Hot {
		columns = strings.Replace(columns, "archive,", "'',", 1)
	}
	rows, err := tx.Raw("SELECT "+columns+", COALESCE((SELECT "+agg+" FROM deadlines dl WHERE dl.document_id = documents.id), '[]')"+
		" FROM documents WHERE "+where, args...).Rows()
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrNotFound
	}
	var d Document
	var parent sql.NullString
	var deadlines []byte
	if err := rows.Scan(&d.ID, &d.ProviderID, &d.Kind, &d.Number, &d.State, &d.Version, &d.Data, &d.Summary, &parent,
		&d.AuditSeq, &d.AuditHash, &d.Children, &d.Tally, &d.Archive, &d.Archived, &d.CreatedBy, &d.CreatedAt, &d.UpdatedAt, &deadlines); err != nil {
		return nil, nil, err
	}
	if parent.Valid {
		d.ParentID = &parent.String
	}
	if q.Apart {
		d.Apart = d.Archive != ""
	} else if err := d.join(); err != nil {
		return nil, nil, err
	}
	ds, err := decodeDeadlines(deadlines)
	if err != nil {
		return nil, nil, fmt.Errorf("document %s: deadlines: %w", q.ID, err)
	}
	return &d, ds, rows.Err()
}

// Find reads document id of provider without its deadlines, only when
// party is one of its parties ("" skips the check).
func (t *DocumentTx) Find(id, provider, party string) (*Document, error) {
	where, args := documentFilter(DocumentQuery{ID: id, Provider: provider, Party: party})
	var doc Document
	if err := t.db.Where(where, args...).Take(&doc).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &doc, nil
}

// Organisations reads the organisations of provider among ids.
func (t *DocumentTx) Organisations(provider string, ids []string) ([]Organisation, error) {
	return OrganisationsByID(t.db, provider, ids)
}

// ProviderSettings are provider's rule settings as stored (JSON; "{}"
// for a provider without a row).
func (t *DocumentTx) ProviderSettings(provider string) (string, error) {
	var settings []string
	if err := t.db.Model(&Provider{}).Where("id = ?", provider).Pluck("settings", &settings).Error; err != nil || len(settings) == 0 {
		return "{}", err
	}
	return settings[0], nil
}

// LockOrSkip locks document id for the sweep: ErrNotFound when it is
// missing or, on PostgreSQL, held by another transaction (SKIP LOCKED).
func (t *DocumentTx) LockOrSkip(id string) (*Document, error) { return LockDocumentOrSkip(t.db, id) }

// Deadline reads deadline id.
func (t *DocumentTx) Deadline(id string) (*Deadline, error) { return FindDeadline(t.db, id) }

// DueDeadlinesOf lists the deadlines of document id due at now (see the
// function of that name).
func (t *DocumentTx) DueDeadlinesOf(id string, now time.Time) ([]Deadline, error) {
	return DueDeadlinesOf(t.db, id, now)
}

// NextNumber draws the next number of a provider's sequence prefix.
func (t *DocumentTx) NextNumber(provider, prefix string) (string, error) {
	return NextNumber(t.db, provider, prefix)
}

// SaveDeadline writes the sweep's change of one deadline and its events.
func (t *DocumentTx) SaveDeadline(d *Deadline, events []Event) error {
	if err := t.db.Save(d).Error; err != nil {
		return err
	}
	return InsertEvents(t.db, events)
}

// Index rewrites the parties of document id and its list entries: one per
// party organisation, the others removed.
func (t *DocumentTx) Index(id string, parties []DocumentParty, entries []DocumentEntry) error {
	if err := ReplaceParties(t.db, id, parties); err != nil {
		return err
	}
	orgs := make([]string, 0, len(entries))
	for _, e := range entries {
		orgs = append(orgs, e.OrganisationID)
	}
	if err := KeepEntries(t.db, id, orgs); err != nil {
		return err
	}
	return SaveEntries(t.db, entries)
}

// LockClock is provider's test clock offset (0 without a clock), its row
// locked for the transaction (PostgreSQL).
func (t *DocumentTx) LockClock(provider string) (time.Duration, error) {
	return ClockOffset(t.db, provider, true)
}

// ResetClock sets provider's test clock back to real time and deletes its
// documents, recording the reset (ResetClock).
func (t *DocumentTx) ResetClock(provider string, a *TestClockAdvance) (ResetCounts, error) {
	return ResetClock(t.db, provider, a)
}

// MoveClock moves provider's test clock to offset and records the advance.
func (t *DocumentTx) MoveClock(provider string, offset time.Duration, a *TestClockAdvance) error {
	return SetClockOffset(t.db, provider, offset, a)
}
