package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestDocumentListsAtScale is the lists' benchmark (make bench,
// PostgreSQL): 1,000,000 documents of the three kinds across 1,000
// organisations (950 companies, 50 authorities; each document names two
// companies and two authorities, so a company is a party to about 2,100
// documents and an authority to about 40,000); over HTTP, the p99 of 300
// calls of a filtered, sorted third page of one company's list and of an
// authority's work queue, each beside its query plan.
func TestDocumentListsAtScale(t *testing.T) {
	if os.Getenv("WASTEFLOW_BENCH") == "" {
		t.Skip("the lists' benchmark runs with WASTEFLOW_BENCH=1 (make bench)")
	}
	d := startDocs(t, dbtest.Postgres(t))
	dbtest.SkipAtEnd(d.db) // documents copied by SQL, without trails: the replay would fail them (and read a million)
	start := time.Now()
	// Company c0 is acme (alice's), authority a0 is auth-nl (noor's).
	company := "CASE WHEN %[1]s = 0 THEN 'acme' ELSE 'co' || %[1]s END"
	authority := "CASE WHEN %[1]s = 0 THEN 'auth-nl' ELSE 'au' || %[1]s END"
	for _, q := range []string{
		`INSERT INTO organisations (provider_id, id, kind, name, country, region, created_at, updated_at)
		 SELECT 'dev-1', 'co' || g, 'company', 'Company ' || g, 'DE', 'BY', now(), now() FROM generate_series(1, 949) g`,
		`INSERT INTO organisations (provider_id, id, kind, name, country, region, created_at, updated_at)
		 SELECT 'dev-1', 'au' || g, 'authority', 'Authority ' || g, 'NL', '', now(), now() FROM generate_series(1, 49) g`,
		// g's kind, state and parties, as columns of one row per document.
		`CREATE TEMPORARY TABLE bench_docs AS SELECT g,
		   CASE WHEN g % 10 < 6 THEN 'NOTIFICATION' WHEN g % 10 < 9 THEN 'MOVEMENT' ELSE 'ANNEX_VII' END AS kind,
		   (ARRAY['SUBMITTED','ACKNOWLEDGED','CONSENTED','CONSENTED','CONSENTED','CLOSED','CLOSED','CLOSED','EXPIRED','OBJECTED'])[1 + (g / 10) % 10] AS state,
		   g % 950 AS c1, (g * 7 + 1) % 950 AS c2, g % 50 AS a1, (g * 3 + 1) % 50 AS a2,
		   now() - (g || ' seconds')::interval AS at
		 FROM generate_series(1, 1000000) g`,
		`INSERT INTO documents (id, provider_id, kind, number, state, version, data, created_by, created_at, updated_at, audit_seq, audit_hash, children)
		 SELECT 'doc' || g, 'dev-1', kind, 'DE-2026-' || lpad(g::text, 7, '0'), state, 1 + g % 5, '{}', '1', at, at, 0, '', 0 FROM bench_docs`,
		fmt.Sprintf(`INSERT INTO document_entries (document_id, organisation_id, provider_id, kind, number, state, version, parent_id, roles, intents, actionable, next_due_at, created_at, updated_at)
		 SELECT 'doc' || g, org, 'dev-1', kind, 'DE-2026-' || lpad(g::text, 7, '0'), state, 1 + g %% 5, NULL, role,
		        CASE WHEN authority AND state IN ('SUBMITTED', 'ACKNOWLEDGED') THEN 'REQUEST_INFORMATION' ELSE '' END,
		        authority AND state IN ('SUBMITTED', 'ACKNOWLEDGED'),
		        CASE WHEN authority AND state IN ('SUBMITTED', 'ACKNOWLEDGED') THEN at + interval '14 days' END, at, at
		 FROM bench_docs, LATERAL (VALUES (%s, 'NOTIFIER', false), (%s, 'CARRIER', false), (%s, 'AUTHORITY_DISPATCH', true), (%s, 'AUTHORITY_DESTINATION', true)) p(org, role, authority)
		 ON CONFLICT DO NOTHING`, fmt.Sprintf(company, "c1"), fmt.Sprintf(company, "c2"), fmt.Sprintf(authority, "a1"), fmt.Sprintf(authority, "a2")),
		fmt.Sprintf(`INSERT INTO deadlines (id, document_id, provider_id, rule, legal_basis, party_org, party_role, state, started_at, due_at, suspended_days, updated_at)
		 SELECT 'dl' || g || '-' || r, 'doc' || g, 'dev-1', 'DECISION_DUE', 'Art. 9(1) Regulation (EU) 2024/1157', org, 'AUTHORITY', 'OPEN', at, at + interval '14 days', 0, at
		 FROM bench_docs, LATERAL (VALUES (1, %s), (2, %s)) p(r, org) WHERE state IN ('SUBMITTED', 'ACKNOWLEDGED')`,
			fmt.Sprintf(authority, "a1"), fmt.Sprintf(authority, "a2")),
		"ANALYZE documents", "ANALYZE document_entries", "ANALYZE deadlines",
	} {
		if err := d.db.Exec(q).Error; err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	var entries int64
	d.db.Raw("SELECT COUNT(*) FROM document_entries").Scan(&entries)
	t.Logf("1,000,000 documents with %d list entries of 1,000 organisations stored in %s", entries, time.Since(start).Round(time.Millisecond))

	sqlDB, err := d.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	b := &loadBench{t: t, d: d, db: "postgres", sql: sqlDB, dur: benchDuration(),
		client: &http.Client{Transport: &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}}}
	measure := func(figure, user, op string, body map[string]any, plan string) {
		d.okAs(t, user, op, body) // warm
		var lat []time.Duration
		var total any
		for range 300 {
			t0 := time.Now()
			m := d.okAs(t, user, op, body)
			lat = append(lat, time.Since(t0))
			total = m["total"]
		}
		slices.Sort(lat)
		p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
		t.Logf("%s (total %v): p50 %.1f ms, p99 %.1f ms", figure, total, ms(p50), ms(p99))
		fmt.Printf("bench figure=%s db=postgres documents=1000000 p50_ms=%.1f p99_ms=%.1f\n", figure, ms(p50), ms(p99))
		var rows []string
		d.db.Raw("EXPLAIN ANALYZE " + plan).Scan(&rows)
		t.Logf("plan:\n%s", strings.Join(rows, "\n"))

		// Beside its floor, 8 clients: a net/http handler on the same pool
		// that decodes the request, counts, reads the page and its
		// deadlines with the server's statements and answers as much.
		raw, _ := json.Marshal(body)
		token := d.token(t, user)
		size := b.answerSize(op, token, raw)
		where := plan[strings.Index(plan, "WHERE"):strings.Index(plan, "ORDER BY")]
		least := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Qpar       map[string]any `json:"qpar"`
				Actionable bool           `json:"actionable"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var total int64
			if err := sqlDB.QueryRow("SELECT COUNT(*) FROM document_entries e " + where).Scan(&total); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			rows, err := sqlDB.Query(plan)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			cols, _ := rows.Columns()
			var page []map[string]any
			var ids []string
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					rows.Close()
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				row := map[string]any{}
				for i, c := range cols {
					row[c] = vals[i]
				}
				ids = append(ids, row["document_id"].(string))
				page = append(page, row)
			}
			rows.Close()
			dls, err := sqlDB.Query("SELECT * FROM deadlines WHERE document_id = ANY($1) ORDER BY started_at, id", ids)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for dls.Next() {
			}
			dls.Close()
			out, _ := json.Marshal(map[string]any{"entries": page, "total": total})
			if pad := size - len(out); pad > 0 {
				out, _ = json.Marshal(map[string]any{"entries": page, "total": total, "pad": strings.Repeat("x", pad)})
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(out)
		}))
		defer least.Close()
		server, serverP99 := b.run(8, func(c, i int) error { return b.post(op, token, raw) })
		floorRate, floorP99 := b.run(8, func(c, i int) error { return b.floorPost(&floor{srv: least}, "", raw) })
		t.Logf("%s, 8 clients: server %.0f/s (p99 %.1f ms), floor %.0f/s (p99 %.1f ms): %.2f of the floor", figure, server, serverP99, floorRate, floorP99, server/floorRate)
		fmt.Printf("bench figure=%s/8 db=postgres documents=1000000 server=%.0f floor=%.0f server_floor=%.3f p99_ms=%.1f floor_p99_ms=%.1f\n",
			figure, server, floorRate, server/floorRate, serverP99, floorP99)
	}
	measure("list-company-page3", "alice", co+"ListDocuments", map[string]any{"qpar": map[string]any{
		"filter": []any{filter("kind", "EQUAL", s("NOTIFICATION")), filter("state", "IN_LIST", s("CONSENTED"), s("CLOSED"))},
		"sort":   []any{map[string]any{"path": "created_at", "direction": "DESC"}}, "pageSize": 50, "pageStart": 100}},
		`SELECT e.* FROM document_entries e WHERE e.provider_id = 'dev-1' AND e.organisation_id = 'acme' AND e.kind = 'NOTIFICATION'
		 AND e.state IN ('CONSENTED', 'CLOSED') ORDER BY e.created_at DESC, e.updated_at DESC, e.document_id DESC LIMIT 50 OFFSET 100`)
	measure("list-authority-queue", "noor", au+"ListDocuments", map[string]any{"actionable": true},
		`SELECT e.* FROM document_entries e WHERE e.provider_id = 'dev-1' AND e.organisation_id = 'auth-nl' AND e.actionable
		 ORDER BY e.next_due_at, e.updated_at DESC, e.document_id DESC LIMIT 50`)
}
