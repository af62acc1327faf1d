package tests

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	wbmu "github.com/wasteflow/wasteflow/workflows/bmu"
)

// TestStoreAtScale is the store's benchmark (make bench, PostgreSQL):
// 1,000,000 stored notes across 1,000 organisations; a filtered, sorted,
// paged ListTransportDocuments of one organisation over HTTP (p99 of 300
// calls), with its query plan; and the import of a 21 MB note.
func TestStoreAtScale(t *testing.T) {
	if os.Getenv("WASTEFLOW_BENCH") == "" {
		t.Skip("the store benchmark runs with WASTEFLOW_BENCH=1 (make bench)")
	}
	d := startDocs(t, dbtest.Postgres(t))
	start := time.Now()
	// alice's organisation acme is one of the 1,000.
	d.db.Exec(`INSERT INTO organisations (provider_id, id, kind, name, country, region, created_at, updated_at)
		SELECT 'dev-1', 'org' || g, 'company', 'Company ' || g, 'DE', 'BY', now(), now() FROM generate_series(1, 999) g`)
	if err := d.db.Exec(`INSERT INTO transport_documents (id, provider_id, organisation_id, number, document_type, version, top_layer, cancelled, created_at, updated_at)
		SELECT 'td_' || g, 'dev-1', CASE WHEN g % 1000 = 0 THEN 'acme' ELSE 'org' || (g % 1000) END, lpad(g::text, 14, '0'),
		       CASE WHEN g % 7 = 0 THEN 'UNS' ELSE 'BGS' END, 1 + g % 3, 'ERZEUGER', g % 11 = 0,
		       now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
		FROM generate_series(1, 1000000) g`).Error; err != nil {
		t.Fatal(err)
	}
	d.db.Exec("ANALYZE transport_documents")
	t.Logf("1,000,000 notes of 1,000 organisations stored in %s", time.Since(start).Round(time.Millisecond))

	body := map[string]any{"qpar": map[string]any{
		"filter": []any{map[string]any{"path": "doc.document_type", "op": "EQUAL", "operands": []any{map[string]any{"s": "BGS"}}},
			map[string]any{"path": "cancelled", "op": "EQUAL", "operands": []any{map[string]any{"b": false}}}},
		"sort":     []any{map[string]any{"path": "doc.updated_at", "direction": "DESC"}, map[string]any{"path": "doc.number"}},
		"pageSize": 50, "pageStart": 100}}
	d.okAs(t, "alice", queryAPI+"ListTransportDocuments", body) // warm
	var lat []time.Duration
	var total any
	for range 300 {
		t0 := time.Now()
		m := d.okAs(t, "alice", queryAPI+"ListTransportDocuments", body)
		lat = append(lat, time.Since(t0))
		total = m["total"]
	}
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("ListTransportDocuments of one organisation (total %v, page 3 of 50): p50 %.1f ms, p99 %.1f ms", total, ms(p50), ms(p99))
	fmt.Printf("bench figure=store-list db=postgres rows=1000000 p50_ms=%.1f p99_ms=%.1f\n", ms(p50), ms(p99))
	var plan []string
	d.db.Raw(`EXPLAIN ANALYZE SELECT td.id, td.document_type, td.number, td.top_layer, td.version, td.cancelled, td.created_at, td.updated_at
		FROM transport_documents td WHERE td.provider_id = 'dev-1' AND td.organisation_id = 'acme' AND td.document_type = 'BGS' AND td.cancelled = false
		ORDER BY td.updated_at DESC, td.number ASC, td.id LIMIT 50 OFFSET 100`).Scan(&plan)
	t.Logf("plan:\n%s", strings.Join(plan, "\n"))

	// The import of a 21 MB note (five layers of 100,000 acceptance-note numbers).
	var layers []*rbmu.Layer
	for i, lt := range []rbmu.LayerType{rbmu.LayerErzeuger, rbmu.LayerBefoerderer, rbmu.LayerBefoerderer, rbmu.LayerEntsorger, rbmu.LayerErgaenzung} {
		l := rbmu.NewLayer(i+1, lt, rbmu.RoleFor(lt))
		if lt == rbmu.LayerErgaenzung {
			l.Role = rbmu.RoleENT
		}
		if i == 0 {
			l.Values["nummer"] = "11681570210293"
			l.Values["erzeuger.nummer"] = "I123E45678" // alice's organisation: only a party reports a note
		}
		for j := range rbmu.MaxListLength {
			l.Values[fmt.Sprintf("unsNrn[%d]", j)] = fmt.Sprintf("116815%08d", j+i)
		}
		layers = append(layers, l)
	}
	doc, err := wbmu.Ours{}.New(&rbmu.Note{Type: rbmu.TypeBGS, Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := doc.Bytes()
	var imports []time.Duration
	for range 3 {
		t0 := time.Now()
		d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x, "distribute": map[string]any{"value": false}})
		imports = append(imports, time.Since(t0))
	}
	slices.Sort(imports)
	t.Logf("ImportTransportDocument of a %.1f MB note over HTTP: median %.0f ms (%v)", float64(len(x))/1e6, ms(imports[1]), imports)
	fmt.Printf("bench figure=store-import db=postgres xml_mb=%.1f median_ms=%.0f\n", float64(len(x))/1e6, ms(imports[1]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
