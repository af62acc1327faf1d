package tests

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// The floor: the least an HTTP service can do for the same request, a
// net/http handler over the same database pool (pgx), that decodes the
// same request JSON, runs the raw baseline's statements and encodes an
// answer as large as the server's, driven by the same load generator over
// loopback. Server ÷ floor is what the framework costs (routing, the token
// and its session, the workflow engine, the audit chain, the codec).

type floor struct {
	srv  *httptest.Server
	sql  *sql.DB
	q    func(string) string
	lock string
	// sizes of the server's answers, which the floor's match
	answer map[string]int
}

func (b *loadBench) newFloor() *floor {
	lock := " FOR UPDATE"
	if b.db != "postgres" {
		lock = ""
	}
	f := &floor{sql: b.sql, q: b.q, lock: lock, answer: map[string]int{}}
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

// transition: the raw baseline's transaction on the request's document
// in the bench's table (lock, update, append an audit row).
func (f *floor) transition(w http.ResponseWriter, r *http.Request) {
	req, ok := f.read(w, r)
	if !ok {
		return
	}
	state, intent := "ACKNOWLEDGED", "SET_REPLY_TO_REQUEST_INFORMATION"
	if req.RequestInformation != nil {
		state, intent = "INFORMATION_REQUESTED", "SET_REQUEST_INFORMATION"
	}
	tx, err := f.sql.BeginTx(r.Context(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer tx.Rollback()
	var version int64
	var data string
	if err := tx.QueryRow(f.q(`SELECT version, data FROM bench_docs WHERE id = ?`+f.lock), req.DocumentID).Scan(&version, &data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if _, err := tx.Exec(f.q(`UPDATE bench_docs SET state = ?, version = ?, data = ?, updated_at = ? WHERE id = ?`), state, version+1, data, now, req.DocumentID); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if _, err := tx.Exec(f.q(`INSERT INTO bench_audit VALUES (?, ?, ?, ?)`), req.DocumentID, version+1, intent, now); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.write(w, "transition", data)
}

// getDocument: the one select by key.
func (f *floor) getDocument(w http.ResponseWriter, r *http.Request) {
	req, ok := f.read(w, r)
	if !ok {
		return
	}
	var data string
	if err := f.sql.QueryRowContext(r.Context(), f.q(`SELECT data FROM documents WHERE id = ?`), req.DocumentID).Scan(&data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.write(w, "getdocument", data)
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
