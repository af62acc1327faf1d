package tests

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/language"
	textmessage "golang.org/x/text/message"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	bmuapi "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/bmu/v1/api"
	core "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
	types "github.com/wasteflow/wasteflow/proto/gen/go/wasteflow/types/v1"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// measured runs fn and says how long it took, how much the process
// allocated meanwhile and the most heap it held (sampled every 2 ms).
func measured(fn func()) (took time.Duration, alloc, peak uint64) {
	var m0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	fn()
	took = time.Since(start)
	close(done)
	wg.Wait()
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	return took, m1.TotalAlloc - m0.TotalAlloc, peak
}

// printBound is how long a print of an over-long note may take. What tells
// a bounded print from the unbounded one is its size (a PDF of a few
// hundred KB, the value cut, where the unbounded print set it whole) and
// the heap; the time is a guard against a print that never ends, with
// room for a loaded machine (a print under load took 6 s where it takes
// 1.7 s alone) and for the race detector (about tenfold).
func printBound() time.Duration {
	if raceDetector {
		return 60 * time.Second
	}
	return 20 * time.Second
}

// hugeField is the size of the over-long field: 4 MB (a thousand times a
// field's limit, enough to tell a bounded print from the unbounded one,
// which set it whole), or 2 MB under the race detector, which makes each
// MB a second (the mechanism is the same).
func hugeField() int {
	if raceDetector {
		return 2 << 20
	}
	return 4 << 20
}

// Issue 44.3: a BMU note's field longer than its length is refused, 400
// naming it (its JSON path, or its XML element's), and nothing is stored
// or delivered, over REST and gRPC; a note stored before the lengths (an
// old row, inserted as it was) still reads and prints, within a bound of
// time and memory, and is not delivered on.
func TestBmuFieldLengths(t *testing.T) {
	// Not parallel: measured reads the process's heap, which parallel
	// tests (and their databases' replays at the end) would fill too.
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		conn := dialGRPC(t, d.url)
		alice := grpcLogin(t, conn, "alice")
		bmuc, docs := bmuapi.NewBmuDocumentApiClient(conn), core.NewDocumentApiClient(conn)

		// JSON: each field's own length, from its tag.
		note := fullBGS(t)
		note["bgs"].(map[string]any)["erzeuger"].(map[string]any)["name"] = tv(strings.Repeat("n", 201))
		st, _, raw := d.bmu(t, "CreateDocument", map[string]any{"document": note})
		wantError(t, 400, 3, st, raw, "document.bgs.erzeuger.name.value", "at most 200 characters, not 201")
		note["bgs"].(map[string]any)["erzeuger"].(map[string]any)["name"] = tv(strings.Repeat("n", 200))
		note["bgs"].(map[string]any)["vermerke"] = tv(strings.Repeat("v", 2001))
		st, _, raw = d.bmu(t, "CreateDocument", map[string]any{"document": note})
		wantError(t, 400, 3, st, raw, "document.bgs.vermerke.value", "at most 2000 characters")
		note["bgs"].(map[string]any)["vermerke"] = tv(strings.Repeat("v", 2000))
		d.bmuOK(t, "CreateDocument", map[string]any{"document": note}) // at the length: fine
		_, err := bmuc.CreateDocument(alice, &bmuapi.CreateDocumentRequest{Document: &types.BmuDocument{Bgs: &types.Bgs{
			Erzeuger: &types.Producer{Name: &types.Text{Value: strings.Repeat("n", 201)}}}}})
		if s := grpcstatus.Convert(err); s.Code() != codes.InvalidArgument || !strings.Contains(s.Message(), "document.bgs.erzeuger.name.value") {
			t.Fatalf("a long name over gRPC: %v", err)
		}

		// XML: an over-long name (hugeField) in a note made here.
		_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
		if !bytes.Contains(x, []byte("ACME Elektronik GmbH")) {
			t.Fatalf("the note's XML: %.500s", x)
		}
		big := bytes.Replace(x, []byte("ACME Elektronik GmbH"), bytes.Repeat([]byte("x"), hugeField()), 1)
		long := bytes.Replace(x, []byte("ACME Elektronik GmbH"), bytes.Repeat([]byte("l"), 1000), 1)
		where := "BGSERZLayer/Felder/erzeuger/name"
		counts := func() [3]int64 {
			return [3]int64{d.count(t, "transport_documents"), d.count(t, "transport_document_versions"), d.count(t, "inbox_entries")}
		}
		before := counts()
		st, _, raw = d.call(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": big})
		wantError(t, 400, 3, st, raw, where, fmt.Sprintf("at most 200 characters, not %d", hugeField()))
		for _, c := range []struct {
			method string
			body   map[string]any
		}{
			{"UpdateDocument", map[string]any{"docXml": long, "document": map[string]any{"bgs": map[string]any{"vermerke": inLayer("x")}}}},
			{"AddLayer", map[string]any{"docXml": long, "layerType": "BEFOERDERER"}},
			{"CreateDocumentFromTemplate", map[string]any{"templateXml": long}},
		} {
			st, _, raw := d.bmu(t, c.method, c.body)
			wantError(t, 400, 3, st, raw, where, "at most 200 characters, not 1000")
			if len(raw) > 2000 {
				t.Errorf("%s: an answer of %d bytes echoes the value", c.method, len(raw))
			}
		}
		// One character over, in an element a comment splits.
		split := bytes.Replace(x, []byte("ACME Elektronik GmbH"), []byte(strings.Repeat("y", 100)+"<!-- -->"+strings.Repeat("y", 101)), 1)
		st, _, raw = d.call(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": split})
		wantError(t, 400, 3, st, raw, where, "not 201")
		// Over gRPC.
		_, err = docs.ImportTransportDocument(alice, &core.ImportTransportDocumentRequest{Document: big})
		if s := grpcstatus.Convert(err); s.Code() != codes.InvalidArgument || !strings.Contains(s.Message(), where) || len(s.Message()) > 1000 {
			t.Fatalf("an import over gRPC: %v", err)
		}
		_, err = bmuc.UpdateDocument(alice, &bmuapi.UpdateDocumentRequest{DocXml: long, Document: &types.BmuDocument{Bgs: &types.Bgs{Vermerke: &types.Text{Value: "x"}}}})
		if s := grpcstatus.Convert(err); s.Code() != codes.InvalidArgument || !strings.Contains(s.Message(), where) {
			t.Fatalf("an update over gRPC: %v", err)
		}
		if after := counts(); after != before {
			t.Fatalf("refused notes changed the store and inboxes: %v, before %v", after, before)
		}

		// An old row: stored before lengths were checked.
		now := d.clock.Now()
		old := models.TransportDocument{ID: "td_old", ProviderID: "dev-1", OrganisationID: "acme", Number: "11681570210293", DocumentType: "BGS",
			Version: 1, TopLayer: "ERZEUGER", CreatedAt: now, UpdatedAt: now}
		if err := d.db.Create(&old).Error; err != nil {
			t.Fatal(err)
		}
		if err := d.db.Create(&models.TransportDocumentVersion{DocumentID: old.ID, Version: 1, XML: big, Size: int64(len(big)), TopLayer: "ERZEUGER",
			ImportedBy: "1", CreatedAt: now}).Error; err != nil {
			t.Fatal(err)
		}
		st, em, raw := d.getAs(t, "alice", docAPI+"ExportCurrentDocument?docId.id=td_old")
		if st != 200 || !bytes.Equal(b64(t, em["document"]), big) {
			t.Fatalf("the old row's export: %d %.200s", st, raw)
		}
		var pm map[string]any
		took, alloc, peak := measured(func() {
			st, pm, raw = d.bmu(t, "PrintDocument", map[string]any{"docXml": big, "language": "de"})
		})
		t.Logf("PrintDocument of a note with a %d MB field over REST: %v, %d MB allocated, heap at most %d MB", hugeField()>>20, took.Round(time.Millisecond), alloc>>20, peak>>20)
		if st != 200 {
			t.Fatalf("the old row's print: %d %.300s", st, raw)
		}
		pdf := b64(t, pm["document"])
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) > 200<<10 {
			t.Fatalf("the old row's PDF: %d bytes", len(pdf))
		}
		// The German print says in German what it cut, the number as German writes it.
		_, text := printtest.Text(t, pdf)
		if want := "[…gekürzt: " + textmessage.NewPrinter(language.German).Sprintf("%d", hugeField()) + " Zeichen insgesamt]"; !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("the German print does not say %q", want)
		}
		if took > printBound() || peak > 600<<20 {
			t.Errorf("printing a note with a %d MB field: %v, a heap of %d MB: not bounded", hugeField()>>20, took, peak>>20)
		}
		var pr *bmuapi.PrintDocumentResponse
		took, alloc, peak = measured(func() {
			pr, err = bmuc.PrintDocument(alice, &bmuapi.PrintDocumentRequest{DocXml: big})
		})
		t.Logf("PrintDocument of a note with a %d MB field over gRPC: %v, %d MB allocated, heap at most %d MB", hugeField()>>20, took.Round(time.Millisecond), alloc>>20, peak>>20)
		if err != nil || !bytes.HasPrefix(pr.GetDocument(), []byte("%PDF-")) || took > printBound() {
			t.Fatalf("the old row's print over gRPC: %v, %v", err, took)
		}
		if st, m, raw := d.bmu(t, "GetDocument", map[string]any{"docXml": big}); st != 200 || len(field(m["document"].(map[string]any), "bgs.erzeuger.name")["value"].(string)) != hugeField() {
			t.Fatalf("reading the old row: %d %.200s", st, raw)
		}
		// It is not delivered on.
		_, err = docs.DeliverDocument(alice, &core.DeliverDocumentRequest{DocId: &types.DocID{Id: "td_old"}})
		if s := grpcstatus.Convert(err); s.Code() != codes.InvalidArgument || !strings.Contains(s.Message(), where) {
			t.Fatalf("delivering the old row: %v", err)
		}
		if n := d.count(t, "inbox_entries"); n != before[2] {
			t.Fatalf("the old row reached %d inboxes", n-before[2])
		}
	})
}

// overlong is a submitted notification whose stored row holds a waste code
// of size characters, put there directly, as no operation takes it.
func (d *docEnv) overlong(t *testing.T, size int) string {
	t.Helper()
	nid := d.submitted(t)
	var data string
	if err := d.db.Table("documents").Where("id = ?", nid).Pluck("data", &data).Error; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(data, `"16 02 13*"`) {
		t.Fatalf("the stored notification: %.500s", data)
	}
	data = strings.Replace(data, `"16 02 13*"`, `"`+strings.Repeat("w", size)+`"`, 1)
	dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
	if err := d.db.Exec("UPDATE documents SET data = ? WHERE id = ?", data, nid).Error; err != nil {
		t.Fatal(err)
	}
	return nid
}

// Issue 44.3: a document print is bounded too, whatever the stored
// document holds: a notification whose row holds an over-long waste code (hugeField) (put
// there directly, as no operation takes it) prints as a PDF and an
// inspection page within a bound of time and size, the cut said.
func TestPrintOfAnOverlongStoredDocumentIsBounded(t *testing.T) {
	// Not parallel: measured reads the process's heap, which parallel
	// tests (and their databases' replays at the end) would fill too.
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.overlong(t, hugeField())
		var m map[string]any
		took, alloc, peak := measured(func() { _, m = d.printed(t, "alice", co, nid, "en") })
		t.Logf("PrintDocument of a notification with a %d MB value: %v, %d MB allocated, heap at most %d MB", hugeField()>>20, took.Round(time.Millisecond), alloc>>20, peak>>20)
		if pdf := b64(t, m["document"]); len(pdf) > 300<<10 || took > printBound() {
			t.Fatalf("the print: %d bytes in %v", len(pdf), took)
		}
		st, _, body := inspect(t, m["inspectionLink"].(string), "text/html")
		if st != 200 || len(body) > 300<<10 || !strings.Contains(string(body), textmessage.NewPrinter(language.English).Sprintf(" […cut: %d characters in all]", hugeField())) {
			t.Fatalf("the inspection page: %d, %d bytes", st, len(body))
		}
	})
}
