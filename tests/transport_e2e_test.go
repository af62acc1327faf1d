package tests

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

const (
	docAPI   = "/svc.core.v1.api.DocumentApi/"
	queryAPI = "/svc.core.v1.api.QueryApi/"
)

func (d *docEnv) okAs(t *testing.T, user, path string, body any) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, user, path, body)
	if st != 200 {
		t.Fatalf("%s %s: HTTP %d %.800s", user, path, st, raw)
	}
	return m
}

// get calls a GET operation with a query string as user.
func (d *docEnv) getAs(t *testing.T, user, path string) (int, map[string]any, []byte) {
	t.Helper()
	st, _, raw := d.do(t, call{method: http.MethodGet, path: path, headers: hdr("dev-1", d.token(t, user))})
	return st, decode(t, raw), raw
}

func b64(t *testing.T, s any) []byte {
	t.Helper()
	x, err := base64.StdEncoding.DecodeString(s.(string))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// bmuAs is d.bmuOK as another user.
func (d *docEnv) bmuAs(t *testing.T, user, method string, body any) (map[string]any, []byte) {
	t.Helper()
	m := d.okAs(t, user, bmuAPI+method, body)
	return m["document"].(map[string]any), b64(t, m["docXml"])
}

func inLayer(v string) map[string]any {
	return map[string]any{"value": v, "meta": map[string]any{"inLayer": true}}
}

// inbox lists user's inbox entries.
func (d *docEnv) inbox(t *testing.T, user string, qpar map[string]any) []map[string]any {
	t.Helper()
	if qpar == nil {
		qpar = map[string]any{}
	}
	m := d.okAs(t, user, queryAPI+"ListInboxDocuments", map[string]any{"qpar": qpar})
	var out []map[string]any
	for _, e := range m["entries"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

// A consignment note's life across parties: the producer makes it from its
// template and imports it, the carrier and the disposer find it in their
// inboxes, read it, add their layers and import their versions, the
// disposer's version reaches the authority as a ten-day report, and a
// cancellation is delivered but not reported. Nobody else sees any of it.
func TestTransportNoteLife(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)

		// The producer's template and its block of numbers.
		m := d.okAs(t, "alice", queryAPI+"ListTransportTemplates", map[string]any{})
		tpl := m["entries"].([]any)[0].(map[string]any)
		if m["total"] != "1" || tpl["anzahl"] != "5" || tpl["art"] != "N" || tpl["templateId"].(map[string]any)["id"] != "tpl-acme" {
			t.Fatalf("templates: %v", m)
		}
		st, tm, raw := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
		if st != 200 || !strings.Contains(string(b64(t, tm["document"])), `templateId="tpl-acme"`) {
			t.Fatalf("export template: %d %.300s", st, raw)
		}
		doc, x := d.bmuAs(t, "alice", "CreateDocumentFromTemplate", map[string]any{"templateXml": b64(t, tm["document"])})
		number := field(doc, "bgs.nummer")["value"].(string)
		if !strings.HasPrefix(number, "1168157021029") || field(doc, "bgs.erzeuger.nummer")["value"] != "I123E45678" {
			t.Fatalf("note from the template: %v", doc["bgs"])
		}
		if m := d.okAs(t, "alice", queryAPI+"ListTransportTemplates", map[string]any{}); m["entries"].([]any)[0].(map[string]any)["anzahl"] != "4" {
			t.Fatalf("a number was not consumed: %v", m)
		}
		_, x = d.bmuAs(t, "alice", "UpdateDocument", map[string]any{"docXml": x, "document": completeNote()})

		// The producer imports: delivered to carrier and disposer; not reported yet.
		imp := d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x})
		aliceDoc := imp["docId"].(map[string]any)["id"].(string)
		if imp["version"] != "1" || fmt.Sprint(imp["deliveredTo"]) != "[truck dump]" || imp["dekadenmeldung"] != false ||
			!strings.Contains(imp["note"].(string), "ENTSORGER") || len(imp["unknownNumbers"].([]any)) != 0 {
			t.Fatalf("producer's import: %v", imp)
		}

		// The carrier finds it, reads it, adds its layer and imports its version.
		in := d.inbox(t, "tom", nil)
		if len(in) != 1 || in[0]["sender"] != "acme" || in[0]["read"] != false || in[0]["kind"] != "DELIVERY" || in[0]["doc"].(map[string]any)["number"] != number {
			t.Fatalf("carrier's inbox: %v", in)
		}
		r := d.okAs(t, "tom", docAPI+"SetInboxDocumentsRead", map[string]any{"ids": []string{in[0]["id"].(string), "ib_nope"}})
		if r["changed"] != "1" || fmt.Sprint(r["unknown"]) != "[ib_nope]" {
			t.Fatalf("read: %v", r)
		}
		if in = d.inbox(t, "tom", nil); in[0]["read"] != true {
			t.Fatalf("not read: %v", in)
		}
		st, em, raw := d.getAs(t, "tom", docAPI+"ExportCurrentDocument?docId.id="+in[0]["id"].(string))
		if st != 200 || string(b64(t, em["document"])) != string(x) {
			t.Fatalf("carrier's export: %d %.200s", st, raw)
		}
		_, y := d.bmuAs(t, "tom", "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
		_, y = d.bmuAs(t, "tom", "UpdateDocument", map[string]any{"docXml": y, "document": map[string]any{"bgs": map[string]any{
			"befoerderer": []any{map[string]any{"uebernahmeDatum": inLayer("2026-12-02")}}}}})
		imp = d.okAs(t, "tom", docAPI+"ImportTransportDocument", map[string]any{"document": y, "dekadenmeldung": map[string]any{"value": true}})
		if imp["version"] != "1" || fmt.Sprint(imp["deliveredTo"]) != "[acme dump]" || imp["dekadenmeldung"] != false {
			t.Fatalf("carrier's import: %v", imp)
		}

		// The disposer takes the carrier's version, adds its layer, imports:
		// the ten-day report reaches the authority of its place.
		in = d.inbox(t, "dora", map[string]any{"filter": []any{map[string]any{"path": "sender", "op": "EQUAL", "operands": []any{map[string]any{"s": "truck"}}}}})
		if len(in) != 1 {
			t.Fatalf("disposer's inbox from the carrier: %v", in)
		}
		_, em, _ = d.getAs(t, "dora", docAPI+"ExportCurrentDocument?docId.id="+in[0]["id"].(string))
		_, z := d.bmuAs(t, "dora", "AddLayer", map[string]any{"docXml": b64(t, em["document"]), "layerType": "ENTSORGER"})
		_, z = d.bmuAs(t, "dora", "UpdateDocument", map[string]any{"docXml": z, "document": map[string]any{"bgs": map[string]any{
			"entsorger": map[string]any{"annahmeDatum": inLayer("2026-12-03")}}}})
		imp = d.okAs(t, "dora", docAPI+"ImportTransportDocument", map[string]any{"document": z})
		if imp["dekadenmeldung"] != true || fmt.Sprint(imp["reportedTo"]) != "[auth-de]" || fmt.Sprint(imp["deliveredTo"]) != "[acme truck]" {
			t.Fatalf("disposer's import: %v", imp)
		}
		reports := d.inbox(t, "bernd", nil)
		if len(reports) != 1 || reports[0]["kind"] != "DEKADENMELDUNG" || reports[0]["sender"] != "dump" {
			t.Fatalf("authority's inbox: %v", reports)
		}
		// A cancellation: a new version, delivered, never reported.
		imp = d.okAs(t, "dora", docAPI+"ImportTransportDocument", map[string]any{"document": z, "cancel": map[string]any{"value": true}})
		if imp["version"] != "2" || imp["cancelled"] != true || imp["dekadenmeldung"] != false || fmt.Sprint(imp["deliveredTo"]) != "[acme truck]" {
			t.Fatalf("cancellation: %v", imp)
		}
		if got := d.inbox(t, "bernd", nil); len(got) != 1 {
			t.Fatalf("a cancellation was reported: %v", got)
		}
		cancelled := d.inbox(t, "alice", map[string]any{"filter": []any{map[string]any{"path": "cancelled", "op": "EQUAL", "operands": []any{map[string]any{"b": true}}}}})
		if len(cancelled) != 1 || cancelled[0]["sender"] != "dump" {
			t.Fatalf("producer's cancellations: %v", cancelled)
		}
		store := d.okAs(t, "dora", queryAPI+"ListTransportDocuments", map[string]any{})
		if e := store["entries"].([]any)[0].(map[string]any); store["total"] != "1" || e["cancelled"] != true || e["doc"].(map[string]any)["version"] != "2" {
			t.Fatalf("disposer's store: %v", store)
		}

		// The newest version exports as what BmuDocumentApi reads.
		_, em, _ = d.getAs(t, "dora", docAPI+"ExportCurrentDocument?docId.id="+imp["docId"].(map[string]any)["id"].(string))
		got := d.okAs(t, "dora", bmuAPI+"GetDocument", map[string]any{"docXml": b64(t, em["document"])})["document"].(map[string]any)
		if fmt.Sprint(layerTypes(got)) != "[ERZEUGER BEFOERDERER ENTSORGER]" {
			t.Fatalf("exported: %v", layerTypes(got))
		}

		// Nobody else sees any of it; recipients were told by events.
		st, _, raw = d.getAs(t, "eve", docAPI+"ExportCurrentDocument?docId.id="+aliceDoc)
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.getAs(t, "tom", docAPI+"ExportCurrentDocument?docId.id="+aliceDoc)
		wantError(t, 404, 5, st, raw)
		if m := d.okAs(t, "eve", queryAPI+"ListTransportDocuments", map[string]any{}); m["total"] != "0" || len(d.inbox(t, "eve", nil)) != 0 {
			t.Fatalf("a stranger sees %v", m)
		}
		var events int64
		d.db.Model(&models.Event{}).Where("organisation_id = ? AND kind = 'INBOX_ENTRY_ADDED'", "auth-de").Count(&events)
		if events != 1 {
			t.Fatalf("the authority got %d inbox events, want 1", events)
		}
		// Removing from the inbox hides the entry, unless asked for.
		d.okAs(t, "bernd", docAPI+"RemoveDocumentsFromInbox", map[string]any{"ids": []string{reports[0]["id"].(string)}})
		if len(d.inbox(t, "bernd", nil)) != 0 || len(d.inbox(t, "bernd", map[string]any{"filter": []any{map[string]any{"path": "removed", "op": "EQUAL", "operands": []any{map[string]any{"b": true}}}}})) != 1 {
			t.Fatal("removal")
		}

		// A number nobody holds is reported back, not an error.
		other := strings.Replace(string(x), "<nummer>E234F56781</nummer>", "<nummer>Z999Z99990</nummer>", 1)
		imp = d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": []byte(other), "distribute": map[string]any{"value": true}})
		if fmt.Sprint(imp["unknownNumbers"]) != "[Z999Z99990]" || fmt.Sprint(imp["deliveredTo"]) != "[dump]" || imp["version"] != "2" {
			t.Fatalf("unknown number: %v", imp)
		}
	})
}

// Twenty concurrent creates from a template with five numbers left: five
// notes with five distinct numbers, fifteen clear refusals.
func TestTemplateNumbersAreTakenOnce(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.Postgres(t))
	_, tm, _ := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
	tpl := b64(t, tm["document"])
	var mu sync.Mutex
	var numbers []string
	refused := 0
	var wg sync.WaitGroup
	d.token(t, "alice")
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, m, raw := d.call(t, "alice", bmuAPI+"CreateDocumentFromTemplate", map[string]any{"templateXml": tpl})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case st == 200:
				numbers = append(numbers, field(m["document"].(map[string]any), "bgs.nummer")["value"].(string))
			case st == 400 && m["code"] == float64(9) && strings.Contains(m["message"].(string), "no note number left"):
				refused++
			default:
				t.Errorf("unexpected answer %d %.300s", st, raw)
			}
		}()
	}
	wg.Wait()
	slices.Sort(numbers)
	if len(slices.Compact(slices.Clone(numbers))) != 5 || len(numbers) != 5 || refused != 15 {
		t.Fatalf("numbers %v, refusals %d", numbers, refused)
	}
}

// The lists take every qpar operator with typed operands, several sort
// paths, paging, the mask and the document-type filter; a path a list does
// not have is 400 naming it; the preview lists take mask and paging in the
// query string; the operations without a REST route answer as unroutable.
func TestTransportLists(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	for i := range 5 {
		b := fullBGS(t)
		b["bgs"].(map[string]any)["nummer"] = tv(fmt.Sprintf("1168157021%04d", i))
		b["bgs"].(map[string]any)["pruefziffer"] = tv("")
		_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": b, "xmlOptions": map[string]any{"pruefziffer": "PRUEFZIFFER_CALCULATE", "validation": "VALIDATION_NONE"}})
		d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x, "distribute": map[string]any{"value": false}, "cancel": map[string]any{"value": i == 4}})
		d.advance(time.Hour)
	}
	list := func(qpar map[string]any) (int, map[string]any, []byte) {
		return d.call(t, "alice", queryAPI+"ListTransportDocuments", map[string]any{"qpar": qpar})
	}
	numbers := func(m map[string]any) string {
		var out []string
		for _, e := range m["entries"].([]any) {
			out = append(out, strings.TrimPrefix(e.(map[string]any)["doc"].(map[string]any)["number"].(string), "1168157021"))
		}
		return strings.Join(out, ",")
	}
	s := func(v string) map[string]any { return map[string]any{"s": v} }
	f := func(path, op string, operands ...map[string]any) map[string]any {
		if operands == nil {
			operands = []map[string]any{}
		}
		return map[string]any{"filter": []any{map[string]any{"path": path, "op": op, "operands": operands}}, "sort": []any{map[string]any{"path": "doc.number"}}}
	}
	for name, tc := range map[string]struct {
		qpar      map[string]any
		want, tot string
	}{
		"all, newest first":     {map[string]any{}, "0004,0003,0002,0001,0000", "5"},
		"EQUAL":                 {f("doc.number", "EQUAL", s("11681570210002")), "0002", "1"},
		"NOT_EQUAL":             {f("doc.number", "NOT_EQUAL", s("11681570210002")), "0000,0001,0003,0004", "4"},
		"IS_NULL":               {f("doc.number", "IS_NULL"), "", "0"},
		"IS_NOT_NULL":           {f("doc.number", "IS_NOT_NULL"), "0000,0001,0002,0003,0004", "5"},
		"CONTAINS":              {f("doc.number", "CONTAINS", s("0210003")), "0003", "1"},
		"BEGINS_WITH":           {f("doc.number", "BEGINS_WITH", s("116815702100")), "0000,0001,0002,0003,0004", "5"},
		"ENDS_WITH":             {f("doc.number", "ENDS_WITH", s("04")), "0004", "1"},
		"LESSER_THAN":           {f("doc.number", "LESSER_THAN", s("11681570210002")), "0000,0001", "2"},
		"GREATER_THAN":          {f("doc.number", "GREATER_THAN", s("11681570210002")), "0003,0004", "2"},
		"LESSER_OR_EQUAL_THAN":  {f("doc.number", "LESSER_OR_EQUAL_THAN", s("11681570210001")), "0000,0001", "2"},
		"GREATER_OR_EQUAL_THAN": {f("doc.number", "GREATER_OR_EQUAL_THAN", s("11681570210003")), "0003,0004", "2"},
		"BETWEEN":               {f("doc.number", "BETWEEN", s("11681570210001"), s("11681570210003")), "0001,0002,0003", "3"},
		"IN_LIST":               {f("doc.number", "IN_LIST", s("11681570210000"), s("11681570210004")), "0000,0004", "2"},
		"a Boolean":             {f("cancelled", "EQUAL", map[string]any{"b": true}), "0004", "1"},
		"an integer":            {f("doc.version", "EQUAL", map[string]any{"nInt32": 1}), "0000,0001,0002,0003,0004", "5"},
		"a time":                {f("doc.created_at", "GREATER_OR_EQUAL_THAN", map[string]any{"utc": "2026-12-01T11:00:00Z"}), "0002,0003,0004", "3"},
		"the document type":     {f("doc.document_type", "IN_LIST", s("BGS"), s("RGB")), "0000,0001,0002,0003,0004", "5"},
		"UNS only":              {f("doc.document_type", "EQUAL", s("UNS")), "", "0"},
		"two sorts and a page":  {map[string]any{"sort": []any{map[string]any{"path": "cancelled", "direction": "DESC"}, map[string]any{"path": "doc.number"}}, "pageStart": 1, "pageSize": 2}, "0000,0001", "5"},
	} {
		t.Run(name, func(t *testing.T) {
			st, m, raw := list(tc.qpar)
			if st != 200 || numbers(m) != tc.want || m["total"] != tc.tot {
				t.Fatalf("got %d %s total %v, want %s total %s: %.300s", st, numbers(m), m["total"], tc.want, tc.tot, raw)
			}
		})
	}
	st, _, raw := list(f("doc.colour", "EQUAL", s("red")))
	wantError(t, 400, 3, st, raw, "doc.colour")
	st, _, raw = list(f("doc.document_type", "EQUAL", s("PDF")))
	wantError(t, 400, 3, st, raw, "BGS")
	// The mask keeps what it names.
	_, m, _ := list(map[string]any{"mask": "doc.number,cancelled", "pageSize": 1})
	e := m["entries"].([]any)[0].(map[string]any)
	if e["doc"].(map[string]any)["number"] == "" || e["doc"].(map[string]any)["documentId"].(map[string]any)["id"] != "" {
		t.Fatalf("masked row: %v", e)
	}
	st, _, raw = list(map[string]any{"mask": "doc.colour"})
	wantError(t, 400, 3, st, raw, "qpar.mask")

	// Preview lists: GET with mask and paging.
	st, pm, raw := d.getAs(t, "alice", "/svc.core.preview.api.PreviewApi/ListTransportDocument?qpar.pageSize=2&qpar.pageStart=0&qpar.mask=doc.number")
	if st != 200 || len(pm["entries"].([]any)) != 2 || pm["total"] != "5" {
		t.Fatalf("preview: %d %.300s", st, raw)
	}
	st, pm, raw = d.getAs(t, "alice", "/svc.core.preview.api.PreviewApi/ListTransportTemplates?qpar.pageSize=10")
	if st != 200 || pm["total"] != "1" {
		t.Fatalf("preview templates: %d %.300s", st, raw)
	}
	// No REST route: as any path the gateway cannot route (section 8).
	for _, p := range []string{docAPI + "SendDocument", docAPI + "ImportTransportDocumentFromInbox", queryAPI + "ListFiles", docAPI + "MergeFiles"} {
		st, _, raw := d.do(t, call{path: p, headers: hdr("dev-1", d.token(t, "alice")), body: []byte("{}"), rest: true})
		wantError(t, 404, 5, st, raw)
	}
}

// completeNote fills the fields a consignment note of acme needs before
// its import: waste, quantity, the parties' numbers, the hand-over date.
func completeNote() map[string]any {
	return map[string]any{"bgs": map[string]any{
		"nachweisnummer": inLayer("ENI123456789"), "abfallschluessel": inLayer("170503*"),
		"menge":          map[string]any{"value": map[string]any{"units": "12"}, "meta": map[string]any{"inLayer": true}},
		"erzeuger":       map[string]any{"name": inLayer("ACME")},
		"befoerderer":    []any{map[string]any{"nummer": inLayer("E234F56781"), "name": inLayer("Carrier")}},
		"entsorger":      map[string]any{"nummer": inLayer("I345G67898"), "name": inLayer("Deponie Sued")},
		"uebergabeDatum": inLayer("2026-12-01"),
	}}
}
