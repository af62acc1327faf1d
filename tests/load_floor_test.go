package tests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// The floor: the least an HTTP service can do for the same request, a
// net/http handler over the same database pool that decodes the same
// request JSON, runs the same statements as the server (the store's own
// Load and Commit: the lock, the read of the document with its deadlines,
// one write of the document, its audit row, deadlines, events and list
// entries, as many rows of each as the server's act writes; the bench
// measures them on a sample document first) and writes an answer as large
// as the server's, driven by the same load generator over loopback. What
// it leaves out is what the framework adds: routing, the token and its
// session, the workflow engine (decoding the aggregate, the machine, the
// rules, the follow-up intents), the audit chain's facts, the codec, and
// the event sequencer's round after each commit. The raw baseline (raw/s)
// is the bare statements without HTTP (lock, update, append an audit row
// to tables of its own).

type floor struct {
	srv   *httptest.Server
	sql   *sql.DB
	store *models.DocumentStore
	q     func(string) string
	// sizes of the server's answers, which the floor's match
	answer map[string]int
	// steps are what the server's two acts wrote (floorStep), by the
	// request's block: "request" and "reply"
	steps map[string]*floorStep
	// reader is the organisation GetDocument reads as
	reader string
	seq    atomic.Int64
}

// floorStep is what one of the server's acts wrote on a sample document,
// read back after it ran: the floor's act writes as much.
type floorStep struct {
	state, intent, actorOrg string
	data, context           string            // the aggregate and the audit row's facts after it
	added                   []models.Deadline // the deadlines it opened
	changed                 int               // the deadlines it changed
	events                  []models.Event
	entries                 []models.DocumentEntry
}

func (b *loadBench) newFloor() *floor {
	f := &floor{sql: b.sql, store: models.NewDocumentStore(b.d.db), q: b.q, answer: map[string]int{}, steps: map[string]*floorStep{}}
	if err := b.d.db.Model(&models.Account{}).Where("provider_id = 'dev-1' AND username = 'noor'").Pluck("organisation_id", &f.reader).Error; err != nil || f.reader == "" {
		b.t.Fatalf("noor's organisation: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transition", f.transition)
	mux.HandleFunc("POST /getdocument", f.getDocument)
	mux.HandleFunc("POST /access", f.access)
	f.srv = httptest.NewServer(mux)
	b.t.Cleanup(f.srv.Close)
	return f
}

// floorRequest is what the floor reads of a request: the document's id
// and the intent's block, kept as it came.
type floorRequest struct {
	DocumentID                string          `json:"documentId"`
	RequestInformation        json.RawMessage `json:"requestInformation"`
	ReplyToRequestInformation json.RawMessage `json:"replyToRequestInformation"`
}

func (f *floor) read(w http.ResponseWriter, r *http.Request) (*floorRequest, bool) {
	var req floorRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.DocumentID == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return nil, false
	}
	return &req, true
}

// answer writes an answer of the server's size for the figure, holding
// data (the stored document) and padding.
func (f *floor) write(w http.ResponseWriter, figure, data string) {
	out, _ := json.Marshal(map[string]any{"document": json.RawMessage(data), "businessErrors": []any{}})
	if pad := f.answer[figure] - len(out); pad > 0 {
		out, _ = json.Marshal(map[string]any{"document": json.RawMessage(data), "businessErrors": []any{}, "pad": strings.Repeat("x", pad)})
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// transition: the server's statements for the act the request names, on
// the request's document: lock and read it (Load), then one Commit of the
// new state and version, the next audit row in its chain, the deadlines,
// events and list entries the server's act wrote.
func (f *floor) transition(w http.ResponseWriter, r *http.Request) {
	req, ok := f.read(w, r)
	if !ok {
		return
	}
	st := f.steps["reply"]
	if req.RequestInformation != nil {
		st = f.steps["request"]
	}
	var data string
	err := f.store.Update(r.Context(), func(ctx context.Context, tx *models.DocumentTx) error {
		loaded, err := tx.Load(models.DocumentQuery{ID: req.DocumentID, Provider: "dev-1", Kinds: []string{notifications.Kind}, Party: st.actorOrg, Lock: true, Root: true})
		if err != nil {
			return err
		}
		now, doc, n := time.Now().UTC().Truncate(time.Microsecond), loaded.Doc, f.seq.Add(1)
		row := models.AuditEvent{DocumentID: doc.ID, FromState: doc.State, ToState: st.state, Intent: st.intent, Actor: "floor", ActorOrg: st.actorOrg,
			At: now, RequestID: "floor", Context: st.context}
		audit.Link(&row, doc.AuditSeq, doc.AuditHash)
		after := doc
		after.State, after.Version, after.UpdatedAt, after.Data, after.AuditSeq, after.AuditHash = st.state, doc.Version+1, now, st.data, row.Seq, row.Hash
		var deadlines []models.Deadline
		for i, d := range st.added {
			d.ID, d.DocumentID, d.StartedAt, d.UpdatedAt = fmt.Sprintf("dl_floor_%d_%d", n, i), doc.ID, now, now
			deadlines = append(deadlines, d)
		}
		for _, d := range loaded.Deadlines[max(len(loaded.Deadlines)-st.changed, 0):] {
			d.UpdatedAt = now
			deadlines = append(deadlines, d)
		}
		events := make([]models.Event, len(st.events))
		for i, e := range st.events {
			e.ID, e.DocumentID, e.DedupKey, e.CreatedAt, e.Position = 0, doc.ID, fmt.Sprintf("floor-%d-%d", n, i), now, nil
			events[i] = e
		}
		entries := make([]models.DocumentEntry, len(st.entries))
		for i, e := range st.entries {
			e.DocumentID, e.Number, e.State, e.Version, e.UpdatedAt, e.CreatedAt = doc.ID, doc.Number, st.state, after.Version, now, doc.CreatedAt
			entries[i] = e
		}
		ok, err := tx.Commit(&models.Change{Doc: &after, Audit: &row, Deadlines: deadlines, Events: events, Entries: entries})
		if err == nil && !ok {
			err = fmt.Errorf("document %s changed meanwhile", doc.ID)
		}
		data = after.Data
		return err
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.write(w, "transition", data)
}

// learn runs the server's two acts on sample (ACKNOWLEDGED: the request,
// then the reply) and keeps what each wrote (floorStep).
func (b *loadBench) learn(f *floor, sample string) {
	if len(f.steps) == 2 {
		return
	}
	db := b.d.db
	must := func(err error) {
		if err != nil {
			b.t.Helper()
			b.t.Fatalf("learn the server's acts: %v", err)
		}
	}
	for _, step := range []struct{ name, user, path, body string }{
		{"request", "noor", au + "SetRequestInformation", `"requestInformation":{"questions":["the analysis, please"]}`},
		{"reply", "alice", co + "SetReplyToRequestInformation", `"replyToRequestInformation":{"answers":["attached"],"complete":true}`},
	} {
		var before []models.Deadline
		var lastEvent int64
		must(db.Where("document_id = ?", sample).Find(&before).Error)
		must(db.Model(&models.Event{}).Where("document_id = ?", sample).Select("COALESCE(MAX(id), 0)").Scan(&lastEvent).Error)
		var version int64
		must(db.Model(&models.Document{}).Where("id = ?", sample).Pluck("version", &version).Error)
		b.d.ok(b.t, step.user, step.path, json.RawMessage(fmt.Sprintf(`{"documentId":%q,"version":"%d",%s}`, sample, version, step.body)))
		var doc models.Document
		var row models.AuditEvent
		must(db.Where("id = ?", sample).Take(&doc).Error)
		must(db.Where("document_id = ? AND seq = ?", sample, doc.AuditSeq).Take(&row).Error)
		st := &floorStep{state: doc.State, intent: row.Intent, actorOrg: row.ActorOrg, data: doc.Data, context: row.Context}
		var after []models.Deadline
		must(db.Where("document_id = ?", sample).Find(&after).Error)
		old := map[string]bool{}
		for _, d := range before {
			old[d.ID] = true
		}
		for _, d := range after {
			switch {
			case !old[d.ID]:
				st.added = append(st.added, d)
			case d.UpdatedAt.Equal(row.At):
				st.changed++
			}
		}
		must(db.Where("document_id = ? AND id > ?", sample, lastEvent).Find(&st.events).Error)
		must(db.Where("document_id = ?", sample).Find(&st.entries).Error)
		if len(st.events) == 0 || len(st.entries) == 0 || len(st.added)+st.changed == 0 {
			b.t.Fatalf("the server's %s wrote %d events, %d entries, %d deadlines: the floor would write less than it", step.name, len(st.events), len(st.entries), len(st.added)+st.changed)
		}
		f.steps[step.name] = st
	}
}

// forget deletes the floor's documents (their trails are the floor's
// rows, not acts: the suite's replay of every trail at the end would
// find them wrong), with everything that names them.
func (b *loadBench) forget(ids []string) {
	for _, table := range []string{"inspection_uses", "inspection_links", "document_entries", "document_parties", "deadlines", "events", "audit_events", "documents"} {
		col := "document_id"
		if table == "documents" {
			col = "id"
		}
		if err := b.d.db.Exec("DELETE FROM "+table+" WHERE "+col+" IN ?", ids).Error; err != nil {
			b.t.Fatalf("forget the floor's documents: %s: %v", table, err)
		}
	}
}

// getDocument: the server's read (Load, without a lock), as the reader.
func (f *floor) getDocument(w http.ResponseWriter, r *http.Request) {
	req, ok := f.read(w, r)
	if !ok {
		return
	}
	loaded, err := f.store.Reads(r.Context()).Load(models.DocumentQuery{ID: req.DocumentID, Provider: "dev-1", Party: f.reader})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.write(w, "getdocument", loaded.Doc.Data)
}

// access: the rotation's statements (consume the refresh token the
// Authorization header names, insert its successor, touch the session) and
// an answer of the server's size naming the successor.
func (f *floor) access(w http.ResponseWriter, r *http.Request) {
	jti := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	i := strings.LastIndexByte(jti, '-')
	if i < 0 {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	session := jti[:i]
	var gen int64
	if _, err := fmt.Sscan(jti[i+1:], &gen); err != nil {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	tx, err := f.sql.BeginTx(r.Context(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	res, err := tx.Exec(f.q(`UPDATE bench_tokens SET consumed_at = ? WHERE jti = ? AND consumed_at IS NULL`), now, jti)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if n, _ := res.RowsAffected(); n != 1 {
		http.Error(w, "token used", http.StatusUnauthorized)
		return
	}
	next := fmt.Sprintf("%s-%d", session, gen+1)
	if _, err := tx.Exec(f.q(`INSERT INTO bench_tokens VALUES (?, ?, ?, NULL)`), next, session, gen+1); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if _, err := tx.Exec(f.q(`UPDATE bench_sessions SET last_used_at = ? WHERE id = ?`), now, session); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out, _ := json.Marshal(map[string]string{"refreshToken": next, "accessToken": strings.Repeat("x", max(f.answer["access"]-len(next)-40, 0))})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// answerSize is the size of the server's answer to body at path.
func (b *loadBench) answerSize(path, token string, body []byte) int {
	req, _ := http.NewRequest(http.MethodPost, b.d.url+path, bytes.NewReader(body))
	req.Header.Set("provider_id", "dev-1")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
	}
	return len(raw)
}

// floorPost sends body to the floor's path as the load generator sends
// the server's requests.
func (b *loadBench) floorPost(f *floor, path string, body []byte) error {
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+path, bytes.NewReader(body))
	req.Header.Set("provider_id", "dev-1")
	req.Header.Set("Authorization", "Bearer floor")
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("floor %s: %d %.300s", path, resp.StatusCode, raw)
	}
	return nil
}
