package tests

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// printed calls PrintDocument as user and returns the PDF and the answer.
func (d *docEnv) printed(t *testing.T, user, face, id, lang string) ([]byte, map[string]any) {
	t.Helper()
	m := d.okAs(t, user, face+"PrintDocument", map[string]any{"documentId": id, "language": lang})
	pdf, err := base64.StdEncoding.DecodeString(m["document"].(string))
	if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatalf("not a PDF: %v %.20q", err, pdf)
	}
	return pdf, m
}

// readmePage writes the first page of pdf as docs/<name>.png for the
// README when WASTEFLOW_SCREENSHOT is set (on SQLite).
func readmePage(t *testing.T, dbcfg configs.Database, pdf []byte, name string) {
	if os.Getenv("WASTEFLOW_SCREENSHOT") == "" || dbcfg.Driver != "sqlite" {
		return
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name+".png"), printtest.PNG(t, pdf, 1, 72), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rawName finds an enum value's raw name in printed text: a name with an
// underscore (CONSENT_WITH_CONDITIONS, EU_LIST_OF_WASTE), or one of the
// one-word values of the enums and code lists a form shows.
var rawName = regexp.MustCompile(`\b[A-Z0-9]+(_[A-Z0-9]+)+\b|\b(ROAD|RAIL|SEA|AIR|DRUM|BULK|BOX|BAG|JERRICAN|COMPOSITE|OTHER|CONSENT|OBJECTION|` +
	`DRAFT|SUBMITTED|ACKNOWLEDGED|CONSENTED|OBJECTED|CREATED|IN_TRANSIT|RECEIVED|COMPLETED|REJECTED|CONFIRM|REJECT|ANNOUNCED|WITHDRAWN)\b`)

// heading is a form's heading bar in capitals ("TO BE COMPLETED BY THE
// RECOVERY FACILITY"): four words in capitals or more.
var heading = regexp.MustCompile(`(\b[A-ZÄÖÜ]+\b[ /,()–-]*){4,}`)

// token is an inspection link's random token (43 characters of base64url,
// which may hold "-AB1_C-" by chance): a run of 20 or more such
// characters with a small letter, which no raw name has.
var token = regexp.MustCompile(`[A-Za-z0-9_-]{20,}`)

// noRawNames fails when text shows an enum value's raw name (the headings
// in capitals aside).
func noRawNames(t *testing.T, what, text string) bool {
	t.Helper()
	text = token.ReplaceAllStringFunc(heading.ReplaceAllString(text, ""), func(run string) string {
		if strings.ContainsFunc(run, unicode.IsLower) {
			return "" // a token; a raw name (CERTIFICATE_OF_COMPLETION) has no small letter
		}
		return run
	})
	if m := rawName.FindAllString(text, 5); len(m) > 0 {
		t.Errorf("%s shows raw names %q", what, m)
		return true
	}
	return false
}

// keepPrint writes pdf as <name>.pdf into WASTEFLOW_PRINT_DIR when it is
// set, to look at.
func keepPrint(t *testing.T, name string, pdf []byte) {
	if dir := os.Getenv("WASTEFLOW_PRINT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".pdf"), pdf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// inspect GETs an inspection link without any credentials.
func inspect(t *testing.T, link, accept string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

func (d *docEnv) count(t *testing.T, table string) int64 {
	t.Helper()
	var n int64
	if err := d.db.Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// Every kind prints as its form, in English and German, for its parties
// only; the QR code read off the rendered page is the inspection link, and
// the link shows the current document without login (a receipt recorded
// after the print), as HTML or PDF, each use kept for the parties; a
// revoked or expired link, and an unknown one, answer as an absent page
// and write nothing.
func TestPrintAndInspect(t *testing.T) {
	parallel(t)
	printtest.Tool(t, "pdftotext")
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(3))
		ndoc, _ := d.get(t, "alice", nid)
		number := ndoc["number"].(string)
		names := []string{"ACME", "Recycling", "Carrier", "Barge carrier", "LfU Bayern", "ILT", "OVAM"}
		days := map[string][]string{"en": {"1 December 2026", "30 June 2027", "4 December 2026"}, "de": {"01.12.2026", "30.06.2027", "04.12.2026"}}

		// The notification, both languages, both faces.
		for _, c := range []struct{ user, face, lang, title string }{
			{"alice", co, "en", "Notification document for transboundary movements/shipments of waste"},
			{"bernd", au, "de", "Notifizierungsformular für grenzüberschreitende Verbringungen von Abfällen"},
		} {
			pdf, m := d.printed(t, c.user, c.face, nid, c.lang)
			keepPrint(t, "notification-"+c.lang+"-"+dbcfg.Driver, pdf)
			if c.lang == "en" {
				readmePage(t, dbcfg, pdf, "print-notification")
			}
			text := printtest.Raw(t, pdf)
			noRawNames(t, "the notification's print ("+c.lang+")", text)
			for _, want := range append([]string{c.title, number, "16 02 13*", days[c.lang][0], days[c.lang][1], "R4"}, names...) {
				if !strings.Contains(text, want) {
					t.Errorf("%s's notification print (%s) lacks %q", c.user, c.lang, want)
				}
			}
			if m["fileName"] != fmt.Sprintf("%s-v%v.pdf", number, ndoc["version"]) {
				t.Errorf("file name %v", m["fileName"])
			}
			exp, err := time.Parse(time.RFC3339, m["inspectionLinkExpiresAt"].(string))
			if want := d.clock.Now().Add(7 * 24 * time.Hour); err != nil || exp.Sub(want).Abs() > time.Second {
				t.Errorf("a notification's link expires after the TTL: %v, want %v", m["inspectionLinkExpiresAt"], want)
			}
		}

		// An Annex VII document, a draft printed by its arranger.
		a7 := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
		for lang, title := range map[string]string{"en": "Information accompanying shipments of waste", "de": "Mitzuführende Informationen"} {
			pdf, m := d.printed(t, "alice", co, a7["id"].(string), lang)
			keepPrint(t, "annex7-"+lang+"-"+dbcfg.Driver, pdf)
			if lang == "de" {
				readmePage(t, dbcfg, pdf, "print-annex7")
			}
			text := printtest.Raw(t, pdf)
			noRawNames(t, "the Annex VII print ("+lang+")", text)
			for _, want := range []string{title, a7["number"].(string), "B3011", "PET bottle flakes", days[lang][2], "R3", "ACME", "Recycling",
				"Carrier", "LfU Bayern", "ILT"} {
				if !strings.Contains(text, want) {
					t.Errorf("the Annex VII print (%s) lacks %q", lang, want)
				}
			}
			if strings.Contains(text, "DRAFT") {
				t.Errorf("the Annex VII print (%s) shows the raw state DRAFT", lang)
			}
			if m["inspectionLinkExpiresAt"] != "2027-01-04T00:00:00Z" {
				t.Errorf("an Annex VII link lasts until its shipment day plus 30 days: %v", m["inspectionLinkExpiresAt"])
			}
		}

		// The movement: printed by the facility, the QR code read off
		// the rendered page.
		mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})
		mid := mv["id"].(string)
		d.advanceTo(t, "2026-12-07")
		d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": mid, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07", "vehicleId": "M-XY 123"}})
		pdf, m := d.printed(t, "rita", co, mid, "de")
		link := m["inspectionLink"].(string)
		if !strings.HasPrefix(link, d.url+"/inspect/") {
			t.Fatalf("inspection link %q", link)
		}
		if qr := printtest.QR(t, pdf); len(qr) != 1 || qr[0] != link {
			t.Fatalf("the QR code on the page reads %q, want %q", qr, link)
		}
		if m["inspectionLinkExpiresAt"] != "2027-07-31T00:00:00Z" {
			t.Errorf("a movement's link lasts until the shipment period's end (2027-06-30) plus 30 days: %v", m["inspectionLinkExpiresAt"])
		}
		text := printtest.Raw(t, pdf)
		noRawNames(t, "the movement's print", text)
		for _, want := range append([]string{"Begleitformular", mv["number"].(string), number, "M-XY 123", "07.12.2026", "16 02 13*"}, names[:4]...) {
			if !strings.Contains(text, want) {
				t.Errorf("the movement's print lacks %q", want)
			}
		}

		// The inspector: no login, the current state.
		st, h, body := inspect(t, link, "text/html,application/xhtml+xml")
		if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(string(body), mv["number"].(string)) ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != "no-store" {
			t.Fatalf("the inspection page: %d %v %.300s", st, h, body)
		}
		if strings.Contains(string(body), "8 December 2026") {
			t.Fatal("a receipt before it was recorded")
		}
		// A screen reads the boxes one under the other, by their numbers
		// (the paper sets 1 beside 2, 3 beside 4, 9 beside 12).
		var numbers []int
		for _, m := range regexp.MustCompile(`<h2[^>]*>(\d+)[.(]`).FindAllStringSubmatch(string(body), -1) {
			n, _ := strconv.Atoi(m[1])
			numbers = append(numbers, n)
		}
		if len(numbers) < 15 || !slices.IsSorted(numbers) {
			t.Errorf("the inspection page's boxes are not in number order: %v", numbers)
		}
		d.advanceTo(t, "2026-12-08")
		d.ok(t, "rita", co+"SetConsigneeReception", map[string]any{"documentId": mid, "consigneeReception": map[string]any{"receivedOn": "2026-12-08",
			"quantity": map[string]any{"tonnes": map[string]any{"units": "39"}}}})
		st, h, body = inspect(t, link, "application/pdf")
		if st != 200 || h.Get("Content-Type") != "application/pdf" {
			t.Fatalf("the inspection PDF: %d %v %.200s", st, h, body)
		}
		readmePage(t, dbcfg, body, "print-movement")
		keepPrint(t, "movement-en-"+dbcfg.Driver, body)
		keepPrint(t, "movement-de-"+dbcfg.Driver, pdf)
		if text := printtest.Raw(t, body); noRawNames(t, "the inspection PDF", text) || !strings.Contains(text, "8 December 2026") || !strings.Contains(text, "39 t") {
			t.Fatal("the inspection PDF does not show the receipt recorded after the print")
		}
		if st, _, body = inspect(t, link+"?lang=de", "text/html"); st != 200 || !strings.Contains(string(body), "Eingang beim Importeur") {
			t.Fatalf("the German page: %d %.300s", st, body)
		}

		// The printing party sees every use, the reader's network only
		// (issue 44.8); another party sees not its links; a non-party
		// sees nothing.
		if others := d.okAs(t, "alice", co+"ListInspectionLinks", map[string]any{"documentId": mid})["links"].([]any); len(others) != 0 {
			t.Fatalf("another party sees the printer's links: %v", others)
		}
		links := d.okAs(t, "rita", co+"ListInspectionLinks", map[string]any{"documentId": mid})["links"].([]any)
		if len(links) != 1 {
			t.Fatalf("links: %v", links)
		}
		l := links[0].(map[string]any)
		uses := l["recentUses"].([]any)
		if fmt.Sprint(l["uses"]) != "3" || l["state"] != "VALID" || l["organisationId"] != "recyc" || len(uses) != 3 ||
			uses[0].(map[string]any)["clientAddress"] != "127.0.0.0/24" || uses[1].(map[string]any)["format"] != "pdf" {
			t.Fatalf("the link as its parties see it: %v", l)
		}
		missing := "mvt_" + strings.Repeat("0", len(mid)-4)
		for _, op := range []string{"PrintDocument", "ListInspectionLinks", "RevokeInspectionLinks"} {
			st, _, raw := d.call(t, "eve", co+op, map[string]any{"documentId": mid})
			st2, _, raw2 := d.call(t, "eve", co+op, map[string]any{"documentId": missing})
			if st != 404 || st2 != 404 || strings.ReplaceAll(string(raw), mid, missing) != string(raw2) {
				t.Fatalf("%s by a non-party: %d %s; of a missing document: %d %s", op, st, raw, st2, raw2)
			}
		}
		st, _, raw := d.call(t, "noor", co+"PrintDocument", map[string]any{"documentId": mid})
		wantError(t, 403, 7, st, raw, "AuthorityDocumentApi/PrintDocument")
		st, _, raw = d.call(t, "alice", co+"PrintDocument", map[string]any{"documentId": mid, "language": "fr"})
		wantError(t, 400, 3, st, raw, "language")

		// A draft prints only for its author.
		draft := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		d.printed(t, "alice", co, draft, "en")
		st, _, raw = d.call(t, "noor", au+"PrintDocument", map[string]any{"documentId": draft})
		wantError(t, 404, 5, st, raw, "")

		// Unknown, revoked and expired links: an absent page, no write.
		_, _, absent := inspect(t, d.url+"/no/such/page", "")
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		unknown := d.url + "/inspect/" + base64.RawURLEncoding.EncodeToString(b)
		before := d.count(t, "inspection_uses")
		if st, _, body := inspect(t, unknown, ""); st != 404 || string(body) != string(absent) {
			t.Fatalf("an unknown token: %d %s, an absent page: %s", st, body, absent)
		}
		if r := d.okAs(t, "rita", co+"RevokeInspectionLinks", map[string]any{"documentId": mid}); fmt.Sprint(r["revoked"]) != "1" {
			t.Fatalf("revoked: %v", r)
		}
		if st, _, body := inspect(t, link, ""); st != 404 || string(body) != string(absent) {
			t.Fatalf("a revoked link: %d %s", st, body)
		}
		if after := d.count(t, "inspection_uses"); after != before {
			t.Fatalf("an unknown and a revoked link wrote %d uses", after-before)
		}
		nlinks := d.okAs(t, "bernd", au+"ListInspectionLinks", map[string]any{"documentId": nid})["links"].([]any)
		if len(nlinks) != 1 { // bernd's own; alice's is hers
			t.Fatalf("the notification's links: %v", nlinks)
		}
		_, m = d.printed(t, "alice", co, nid, "en")
		nlink := m["inspectionLink"].(string)
		if st, _, _ := inspect(t, nlink, ""); st != 200 {
			t.Fatalf("a fresh link: %d", st)
		}
		d.advance(7*24*time.Hour + time.Minute)
		before = d.count(t, "inspection_uses")
		if st, _, body := inspect(t, nlink, ""); st != 404 || string(body) != string(absent) {
			t.Fatalf("an expired link: %d %s", st, body)
		}
		if after := d.count(t, "inspection_uses"); after != before {
			t.Fatalf("a refused link wrote %d uses", after-before)
		}
		if l := d.okAs(t, "alice", co+"ListInspectionLinks", map[string]any{"documentId": nid})["links"].([]any)[0].(map[string]any); l["state"] != "EXPIRED" {
			t.Fatalf("the expired link: %v", l)
		}
	})
}

// One address reading links too fast gets 429 with Retry-After, in the
// gateway's shape; another address is not held up by it (the limit is
// per client).
func TestInspectionRateLimit(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	b := make([]byte, 32)
	limited := 0
	for i := 0; i < 40; i++ {
		_, _ = rand.Read(b)
		st, h, body := inspect(t, d.url+"/inspect/"+base64.RawURLEncoding.EncodeToString(b), "")
		switch st {
		case 404:
		case 429:
			limited++
			if h.Get("Retry-After") == "" || !strings.Contains(string(body), `"code":8`) {
				t.Fatalf("429 without Retry-After or code 8: %v %s", h, body)
			}
		default:
			t.Fatalf("status %d %s", st, body)
		}
	}
	if limited < 20 {
		t.Fatalf("only %d of 40 reads in a burst were limited", limited)
	}
}

// A consignment note prints with its fields, each layer, who signed which
// and whether the signature verifies; changed content after the producer
// signed prints as a signature that does not verify.
func TestPrintBmuNote(t *testing.T) {
	parallel(t)
	printtest.Tool(t, "pdftotext")
	d := startDocs(t, dbtest.SQLite(t))
	x := d.carrierNote(t)
	print := func(xml []byte, lang string) (string, map[string]any) {
		t.Helper()
		m := d.okAs(t, "alice", bmuAPI+"PrintDocument", map[string]any{"docXml": xml, "language": lang})
		pdf, err := base64.StdEncoding.DecodeString(m["document"].(string))
		if err != nil {
			t.Fatal(err)
		}
		keepPrint(t, "bmu-"+lang, pdf)
		return printtest.Raw(t, pdf), m
	}
	text, m := print(x, "de")
	if m["fileName"] != "BGS-11681570210293.pdf" {
		t.Errorf("file name %v", m["fileName"])
	}
	for _, want := range []string{"Begleitschein (BGS)", "11681570210293", "170503*", "12,5 t", "ACME Elektronik GmbH", "Werkstr. 1, 80331 München",
		"Spedition Schnell GmbH", "D-SX 4711", "Übernommen am 02.12.2026", "Deponie Süd GmbH", "Schicht 1: " + printing.For("de").Enum("LayerType", "ERZEUGER") + " (Rolle ERZ)",
		"Schicht 2: " + printing.For("de").Enum("LayerType", "BEFOERDERER") + " (Rolle BEF)", "Signiert von ACME producer", "Signatur (Schicht) gültig", "Signatur nicht signiert", "Gültige Signaturen 1 von 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the note's print lacks %q", want)
		}
	}
	tampered := []byte(strings.Replace(string(x), "Deponie Süd GmbH", "Deponie Nord GmbH", 1))
	if string(tampered) == string(x) {
		t.Fatal("nothing to change in the note")
	}
	text, _ = print(tampered, "en")
	if !strings.Contains(text, "Consignment note") || !strings.Contains(text, "DOES NOT VERIFY") || !strings.Contains(text, "Signatures verifying 0 of 1") {
		t.Errorf("a changed note's print does not say its signature fails:\n%s", text)
	}
	st, _, raw := d.call(t, "alice", bmuAPI+"PrintDocument", map[string]any{"docXml": []byte("<not-xml")})
	wantError(t, 400, 3, st, raw, "docXml")
}
