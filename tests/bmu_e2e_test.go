package tests

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	wbmu "github.com/wasteflow/wasteflow/workflows/bmu"
)

const bmuAPI = "/svc.bxa.bmu.v1.api.BmuDocumentApi/"

// numbered appends the check digit of our method to a 9-character party
// number (base must not give the unusable 10).
func numbered(t testing.TB, base string) string {
	t.Helper()
	cd, _ := rbmu.CheckDigitMethod(rbmu.DefaultCheckDigit)
	d, err := cd.Digit(base)
	if err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	return base + d
}

func tv(v string) map[string]any { return map[string]any{"value": v} }

// fullBGS is a complete consignment note as its producer creates it.
func fullBGS(t testing.TB) map[string]any {
	return map[string]any{"bgs": map[string]any{
		"nummer": tv("11681570210293"), "pruefziffer": tv("4"), "nachweisnummer": tv("ENI123456789"),
		"abfallschluessel": tv("170503*"), "menge": map[string]any{"value": map[string]any{"units": "12", "nanos": 500000000}},
		"erzeuger":       map[string]any{"nummer": tv(numbered(t, "I123E4567")), "name": tv("ACME Elektronik GmbH"), "anschrift": tv("Werkstr. 1, 80331 München")},
		"befoerderer":    []any{map[string]any{"nummer": tv(numbered(t, "E234F5678")), "name": tv("Spedition Schnell GmbH"), "kennzeichen": tv("D-SX 4711")}},
		"entsorger":      map[string]any{"nummer": tv(numbered(t, "I345G6789")), "name": tv("Deponie Süd GmbH")},
		"uebergabeDatum": tv("2026-12-01"),
	}}
}

// bmu calls a BmuDocumentApi operation as alice.
func (d *docEnv) bmu(t *testing.T, method string, body any) (int, map[string]any, []byte) {
	t.Helper()
	return d.call(t, "alice", bmuAPI+method, body)
}

// bmuOK calls and requires 200; it returns the document and the XML.
func (d *docEnv) bmuOK(t *testing.T, method string, body any) (map[string]any, []byte) {
	t.Helper()
	st, m, raw := d.bmu(t, method, body)
	if st != 200 {
		t.Fatalf("%s: HTTP %d %.1500s", method, st, raw)
	}
	var x []byte
	if s, ok := m["docXml"].(string); ok {
		x, _ = base64.StdEncoding.DecodeString(s)
	}
	return m["document"].(map[string]any), x
}

// violations are the field names of a CANCELLED answer's BadRequest.
func violations(t *testing.T, st int, m map[string]any, raw []byte) []string {
	t.Helper()
	if st != 499 || m["code"] != float64(1) {
		t.Fatalf("want CANCELLED (HTTP 499, code 1), got %d %.800s", st, raw)
	}
	var out []string
	for _, d := range m["details"].([]any) {
		for _, v := range d.(map[string]any)["fieldViolations"].([]any) {
			out = append(out, v.(map[string]any)["field"].(string))
		}
	}
	return out
}

func field(doc map[string]any, path string) map[string]any {
	var cur any = doc
	for _, seg := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(seg, "[")
		cur = cur.(map[string]any)[name]
		if idx != "" {
			var i int
			fmt.Sscanf(idx, "%d]", &i)
			cur = cur.([]any)[i]
		}
	}
	return cur.(map[string]any)
}

func layerTypes(doc map[string]any) []string {
	var out []string
	for _, l := range doc["meta"].(map[string]any)["layers"].([]any) {
		out = append(out, l.(map[string]any)["layerType"].(string))
	}
	return out
}

func TestBmuCreateAndValidate(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))

	doc, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
	if !strings.Contains(string(x), `<BGS xmlns="urn:wasteflow:eanv:1"`) || !strings.Contains(string(x), "<BGSERZLayer") ||
		fmt.Sprint(layerTypes(doc)) != "[ERZEUGER]" || field(doc, "bgs.menge")["value"].(map[string]any)["nanos"] != float64(500000000) {
		t.Fatalf("created: %v\n%s", doc["meta"], x)
	}
	if ps := doc["meta"].(map[string]any)["signaturePositions"].([]any); len(ps) != 2 {
		t.Fatalf("positions of a new note: %v", ps)
	}

	// Incomplete: every missing field is named.
	incomplete := fullBGS(t)
	b := incomplete["bgs"].(map[string]any)
	delete(b, "nachweisnummer")
	delete(b, "entsorger")
	b["uebergabeDatum"] = tv("1.12.2026")
	st, m, raw := d.bmu(t, "CreateDocument", map[string]any{"document": incomplete})
	got := violations(t, st, m, raw)
	for _, want := range []string{"bgs.nachweisnummer", "bgs.entsorger.nummer", "bgs.entsorger.name", "bgs.uebergabeDatum"} {
		if !slices.Contains(got, want) {
			t.Errorf("violations %v lack %s", got, want)
		}
	}
	// VALIDATION_NONE turns it off; VALIDATION_TYPES still checks the date.
	d.bmuOK(t, "CreateDocument", map[string]any{"document": incomplete, "xmlOptions": map[string]any{"validation": "VALIDATION_NONE"}})
	st, m, raw = d.bmu(t, "CreateDocument", map[string]any{"document": incomplete, "xmlOptions": map[string]any{"validation": "VALIDATION_TYPES"}})
	if got := violations(t, st, m, raw); fmt.Sprint(got) != "[bgs.uebergabeDatum]" {
		t.Errorf("types only: %v", got)
	}

	// Code lists and check digits (full validation).
	for name, tc := range map[string]struct {
		field, value, want string
	}{
		"a waste code not in the list": {"abfallschluessel", "170504*", "bgs.abfallschluessel"},
		"a hazardous code without *":   {"abfallschluessel", "170503", "bgs.abfallschluessel"},
		"a wrong check digit":          {"pruefziffer", "5", "bgs.pruefziffer"},
	} {
		t.Run(name, func(t *testing.T) {
			c := fullBGS(t)
			c["bgs"].(map[string]any)[tc.field] = tv(tc.value)
			st, m, raw := d.bmu(t, "CreateDocument", map[string]any{"document": c})
			if got := violations(t, st, m, raw); fmt.Sprint(got) != "["+tc.want+"]" {
				t.Errorf("violations %v, want [%s]", got, tc.want)
			}
		})
	}
	wrongParty := fullBGS(t)
	wrongParty["bgs"].(map[string]any)["erzeuger"].(map[string]any)["nummer"] = tv("I123E45670")
	if numbered(t, "I123E4567") == "I123E45670" {
		t.Fatal("pick another wrong digit")
	}
	st, m, raw = d.bmu(t, "CreateDocument", map[string]any{"document": wrongParty})
	if got := violations(t, st, m, raw); fmt.Sprint(got) != "[bgs.erzeuger.nummer]" {
		t.Errorf("a producer number with a wrong check digit: %v", got)
	}
	// PRUEFZIFFER_CALCULATE fills them in.
	calc := fullBGS(t)
	calc["bgs"].(map[string]any)["pruefziffer"] = tv("")
	calc["bgs"].(map[string]any)["erzeuger"].(map[string]any)["nummer"] = tv("I123E4567")
	doc, _ = d.bmuOK(t, "CreateDocument", map[string]any{"document": calc, "xmlOptions": map[string]any{"pruefziffer": "PRUEFZIFFER_CALCULATE"}})
	if field(doc, "bgs.pruefziffer")["value"] != "4" || field(doc, "bgs.erzeuger.nummer")["value"] != numbered(t, "I123E4567") {
		t.Errorf("calculated: %v %v", field(doc, "bgs.pruefziffer"), field(doc, "bgs.erzeuger.nummer"))
	}

	// Acceptance notes: a role of ERZ, BEF or ENT, even without validation.
	uns := map[string]any{"uns": fullBGS(t)["bgs"]}
	u := uns["uns"].(map[string]any)
	u["befoerderer"] = u["befoerderer"].([]any)[0]
	u["befoerderer"].(map[string]any)["uebernahmeDatum"] = tv("2026-12-01") // the carrier creates it: its date is due
	st, m, raw = d.bmu(t, "CreateDocument", map[string]any{"document": uns, "xmlOptions": map[string]any{"validation": "VALIDATION_NONE"}})
	violations(t, st, m, raw)
	udoc, ux := d.bmuOK(t, "CreateDocument", map[string]any{"document": uns, "xmlOptions": map[string]any{"atbRolle": "BEF"}})
	if fmt.Sprint(layerTypes(udoc)) != "[BEFOERDERER]" || !strings.Contains(string(ux), "<UNSBEFLayer") {
		t.Fatalf("acceptance note: %v", udoc["meta"])
	}
	for _, lt := range []string{"BEFOERDERER", "ENTSORGER", "ERGAENZUNG"} {
		st, m, raw = d.bmu(t, "AddLayer", map[string]any{"docXml": ux, "layerType": lt, "xmlOptions": map[string]any{"atbRolle": "ENT"}})
		violations(t, st, m, raw)
	}
}

func TestBmuUpdateAndLayers(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})

	// Only marked fields are written; unmarked ones are ignored and the call
	// succeeds; fields not sent stay; a non-empty list sets the length.
	upd := map[string]any{"bgs": map[string]any{
		"vermerke":       map[string]any{"value": "two trucks", "meta": map[string]any{"inLayer": true}},
		"nachweisnummer": tv("IGNORED"),
		"befoerderer": []any{map[string]any{}, map[string]any{"nummer": map[string]any{"value": numbered(t, "E999X0001"), "meta": map[string]any{"inLayer": true}},
			"name": map[string]any{"value": "Zweite Spedition", "meta": map[string]any{"inLayer": true}}}},
	}}
	doc, x := d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": upd})
	if field(doc, "bgs.vermerke")["value"] != "two trucks" || field(doc, "bgs.nachweisnummer")["value"] != "ENI123456789" ||
		len(doc["bgs"].(map[string]any)["befoerderer"].([]any)) != 2 || field(doc, "bgs.befoerderer[0].name")["value"] != "Spedition Schnell GmbH" ||
		field(doc, "bgs.befoerderer[1].name")["value"] != "Zweite Spedition" {
		t.Fatalf("updated: %v", doc["bgs"])
	}
	// Options apply to one call: without them validation is full again.
	clear := map[string]any{"bgs": map[string]any{"entsorger": map[string]any{"name": map[string]any{"value": "", "meta": map[string]any{"inLayer": true}}}}}
	_, loose := d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": clear, "xmlOptions": map[string]any{"validation": "VALIDATION_NONE"}})
	st, m, raw := d.bmu(t, "UpdateDocument", map[string]any{"docXml": loose, "document": upd})
	if got := violations(t, st, m, raw); fmt.Sprint(got) != "[bgs.entsorger.name]" {
		t.Errorf("the next call validates fully: %v", got)
	}

	// Layers come in order; carriers and supplements repeat.
	doc, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
	if fmt.Sprint(layerTypes(doc)) != "[ERZEUGER BEFOERDERER]" || field(doc, "bgs.vermerke")["meta"].(map[string]any)["inLayer"] != false ||
		field(doc, "bgs.vermerke")["value"] != "two trucks" {
		t.Fatalf("after a carrier layer: %v %v", layerTypes(doc), field(doc, "bgs.vermerke"))
	}
	st, _, raw = d.bmu(t, "AddLayer", map[string]any{"docXml": x, "layerType": "ERZEUGER"})
	wantError(t, 400, 9, st, raw, "BEFOERDERER, ENTSORGER")
	st, _, raw = d.bmu(t, "AddLayer", map[string]any{"docXml": x, "layerType": "ERGAENZUNG"})
	wantError(t, 400, 3, st, raw, "atbRolle")
	// The carrier's field in its own layer: the newest layer wins.
	own := map[string]any{"bgs": map[string]any{"befoerderer": []any{map[string]any{
		"uebernahmeDatum": map[string]any{"value": "2026-12-02", "meta": map[string]any{"inLayer": true}},
		"kennzeichen":     map[string]any{"value": "D-SX 4712", "meta": map[string]any{"inLayer": true}}}, map[string]any{}}}} // two entries: the list keeps its length
	doc, x = d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": own})
	if field(doc, "bgs.befoerderer[0].kennzeichen")["value"] != "D-SX 4712" || field(doc, "bgs.befoerderer[0].kennzeichen")["meta"].(map[string]any)["inLayer"] != true ||
		field(doc, "bgs.befoerderer[0].name")["meta"].(map[string]any)["inLayer"] != false {
		t.Fatalf("carrier's fields: %v", doc["bgs"].(map[string]any)["befoerderer"])
	}
	for _, lt := range []string{"BEFOERDERER", "ENTSORGER"} {
		_, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": lt})
	}
	doc, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "ERGAENZUNG", "xmlOptions": map[string]any{"atbRolle": "ENT", "validation": "VALIDATION_NONE"}})
	if fmt.Sprint(layerTypes(doc)) != "[ERZEUGER BEFOERDERER BEFOERDERER ENTSORGER ERGAENZUNG]" || !strings.Contains(string(x), `<BGSERGLayer xmlns="urn:wasteflow:eanv:1" Id="layer-5" index="5" layerType="ERGAENZUNG" atbRolle="ENT">`) {
		t.Fatalf("layers: %v\n%s", layerTypes(doc), x)
	}
	// A full validation now asks for the dates of the roles whose layers exist.
	st, m, raw = d.bmu(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{}}})
	if got := violations(t, st, m, raw); fmt.Sprint(got) != "[bgs.befoerderer[1].uebernahmeDatum bgs.entsorger.annahmeDatum]" {
		t.Errorf("role dates: %v", got)
	}
}

// testSigner is a key and a self-signed certificate.
type testSigner struct {
	key  crypto.Signer
	cert *x509.Certificate
}

func newSigner(t testing.TB, name string) testSigner {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return testSigner{key: key, cert: cert}
}

// sign signs a position of the note's XML as s.
func (s testSigner) sign(t testing.TB, x []byte, position string) []byte {
	t.Helper()
	doc, err := wbmu.Ours{}.Parse(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := wbmu.Sign(doc, position, s.key, s.cert, time.Now()); err != nil {
		t.Fatal(err)
	}
	out, _ := doc.Bytes()
	return out
}

func signatures(doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, s := range doc["meta"].(map[string]any)["signatures"].([]any) {
		sig := s.(map[string]any)
		key := fmt.Sprint(sig["layerIndex"])
		if sig["envelope"] == true {
			key += "+envelope"
		}
		out[key] = sig
	}
	return out
}

// A layer's signature covers it and every layer inside it: a changed
// inner layer breaks its own signature and every one above; an untrusted
// certificate is named; positions open and close with the layers.
func TestBmuSignatures(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	producer, carrier, stranger := newSigner(t, "ACME producer"), newSigner(t, "Schnell carrier"), newSigner(t, "someone")
	d.trust.Add(producer.cert)
	d.trust.Add(carrier.cert)

	_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
	st, m, raw := d.bmu(t, "GetValidSignaturePositions", map[string]any{"docXml": x})
	if st != 200 || fmt.Sprint(m["positions"]) != "[map[atbRolle:ERZ envelope:false id:layer-1 layerIndex:1 layerType:ERZEUGER open:true] map[atbRolle:ERZ envelope:true id:layer-1+envelope layerIndex:1 layerType:ERZEUGER open:true]]" {
		t.Fatalf("positions: %d %s", st, raw)
	}
	x = producer.sign(t, x, "layer-1")
	doc, _ := d.bmuOK(t, "GetDocument", map[string]any{"docXml": x})
	if s := signatures(doc)["1"]; s == nil || s["valid"] != true || s["signer"] != "ACME producer" || len(doc["meta"].(map[string]any)["signaturePositions"].([]any)) != 0 {
		t.Fatalf("signed by the producer: %v", doc["meta"])
	}
	st, _, raw = d.bmu(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{"vermerke": map[string]any{"value": "late", "meta": map[string]any{"inLayer": true}}}}})
	wantError(t, 400, 9, st, raw, "add a layer first")

	// AddLayer works on a signed note; the carrier signs its layer.
	doc, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
	if ps := doc["meta"].(map[string]any)["signaturePositions"].([]any); len(ps) != 2 || ps[0].(map[string]any)["id"] != "layer-2" {
		t.Fatalf("positions of the carrier layer: %v", ps)
	}
	_, x = d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{"befoerderer": []any{map[string]any{
		"uebernahmeDatum": map[string]any{"value": "2026-12-02", "meta": map[string]any{"inLayer": true}}}}}}})
	x = carrier.sign(t, x, "layer-2")
	doc, _ = d.bmuOK(t, "GetDocument", map[string]any{"docXml": x})
	sigs := signatures(doc)
	if sigs["1"]["valid"] != true || sigs["2"]["valid"] != true || fmt.Sprint(sigs["2"]["coversLayers"]) != "[1 2]" {
		t.Fatalf("two signatures: %v", sigs)
	}

	// A changed byte in the producer's layer: both signatures fail.
	tampered := []byte(strings.Replace(string(x), "<name>ACME Elektronik GmbH</name>", "<name>ACME Elektronik GmbX</name>", 1))
	if string(tampered) == string(x) {
		t.Fatal("nothing tampered")
	}
	doc, _ = d.bmuOK(t, "GetDocument", map[string]any{"docXml": tampered})
	sigs = signatures(doc)
	if sigs["1"]["valid"] != false || sigs["2"]["valid"] != false || !strings.Contains(sigs["1"]["reason"].(string), "changed") {
		t.Fatalf("tampered inner layer: %v", sigs)
	}
	// A change in the carrier's layer breaks only its signature.
	tampered = []byte(strings.Replace(string(x), "<uebernahmeDatum>2026-12-02</uebernahmeDatum>", "<uebernahmeDatum>2026-12-03</uebernahmeDatum>", 1))
	doc, _ = d.bmuOK(t, "GetDocument", map[string]any{"docXml": tampered})
	if sigs = signatures(doc); sigs["1"]["valid"] != true || sigs["2"]["valid"] != false {
		t.Fatalf("tampered outer layer: %v", sigs)
	}

	// An intact signature by an untrusted certificate is not valid.
	_, y := d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "ENTSORGER"})
	y = stranger.sign(t, y, "layer-3+envelope")
	doc, _ = d.bmuOK(t, "GetDocument", map[string]any{"docXml": y})
	if s := signatures(doc)["3+envelope"]; s == nil || s["valid"] != false || !strings.Contains(s["reason"].(string), "not trusted") || fmt.Sprint(s["coversLayers"]) != "[1 2 3]" {
		t.Fatalf("untrusted envelope signature: %v", signatures(doc))
	}
	// A sealed note takes no layer and no update; it has no open position.
	st, _, raw = d.bmu(t, "AddLayer", map[string]any{"docXml": y, "layerType": "ERGAENZUNG", "xmlOptions": map[string]any{"atbRolle": "ENT"}})
	wantError(t, 400, 9, st, raw, "sealed")
	if _, m, _ := d.bmu(t, "GetValidSignaturePositions", map[string]any{"docXml": y}); len(m["positions"].([]any)) != 0 {
		t.Fatalf("a sealed note offers %v", m["positions"])
	}
}

// Document -> XML -> document is the identity for every field, and the XML
// of a note is pinned by a golden file (testdata/bgs-full.xml; regenerate
// with WASTEFLOW_GOLDEN=1).
func TestBmuRoundTripAndGolden(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	in := fullBGS(t)
	b := in["bgs"].(map[string]any)
	b["zwischenlager"] = map[string]any{"nummer": tv(numbered(t, "B111H2222")), "name": tv("Zwischenlager Nord"), "annahmeDatum": tv("2026-12-02")}
	b["unsNrn"] = []any{tv("11681570200001"), tv("11681570200002")}
	b["vermerke"] = tv("Sammeltour <Nord> & \"Süd\"")
	b["befoerderer"] = append(b["befoerderer"].([]any), map[string]any{"nummer": tv(numbered(t, "C333K4444")), "name": tv("Bahn AG"), "kennzeichen": tv(""), "uebernahmeDatum": tv("2026-12-03")})
	created, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": in})
	got, _ := d.bmuOK(t, "GetDocument", map[string]any{"docXml": x})
	var walk func(path string, want any)
	walk = func(path string, want any) {
		switch w := want.(type) {
		case map[string]any:
			if v, leaf := w["value"]; leaf {
				g := field(got, path)["value"]
				if gm, ok := g.(map[string]any); ok { // a decimal: compare as JSON numbers do
					g = fmt.Sprintf("%v/%v", gm["units"], gm["nanos"])
					vm := v.(map[string]any)
					v = fmt.Sprintf("%v/%v", vm["units"], float64(vm["nanos"].(int)))
				}
				if fmt.Sprint(g) != fmt.Sprint(v) {
					t.Errorf("%s: %v after the round trip, want %v", path, g, v)
				}
				return
			}
			for k, v := range w {
				walk(path+"."+k, v)
			}
		case []any:
			for i, v := range w {
				walk(fmt.Sprintf("%s[%d]", path, i), v)
			}
		}
	}
	walk("bgs", b)
	if fmt.Sprint(created["bgs"]) != fmt.Sprint(got["bgs"]) {
		t.Errorf("CreateDocument and GetDocument disagree:\n%v\n%v", created["bgs"], got["bgs"])
	}

	golden := filepath.Join("testdata", "bgs-full.xml")
	if os.Getenv("WASTEFLOW_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, x, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (WASTEFLOW_GOLDEN=1 writes it)", err)
	}
	if string(want) != string(x) {
		t.Fatalf("the XML differs from %s:\n%s", golden, x)
	}
	// The golden file is a note the server reads.
	if doc, _ := d.bmuOK(t, "GetDocument", map[string]any{"docXml": want}); fmt.Sprint(doc["bgs"]) != fmt.Sprint(got["bgs"]) {
		t.Fatal("the golden file reads differently")
	}
}

// Hostile XML is refused with a 4xx naming what is wrong, never fetches
// anything, and leaves the server answering.
func TestBmuHostileXML(t *testing.T) {
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	d := startDocs(t, dbtest.SQLite(t))
	var fetched atomic.Int32
	bait := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fetched.Add(1) }))
	defer bait.Close()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("TOP SECRET"), 0o600)
	const ns = `xmlns="urn:wasteflow:eanv:1"`
	layer := func(felder string) string {
		return `<BGS ` + ns + `><BGSERZLayer ` + ns + ` Id="layer-1" index="1" layerType="ERZEUGER" atbRolle="ERZ"><Felder>` + felder + `</Felder></BGSERZLayer></BGS>`
	}
	deep := strings.Repeat("<a>", 10001) + strings.Repeat("</a>", 10001)
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;">]>` + layer(`<vermerke>&lol9;</vermerke>`)
	for name, tc := range map[string]struct {
		xml, want string
	}{
		"billion laughs":            {laughs, "DOCTYPE"},
		"XXE with a file URL":       {`<!DOCTYPE BGS [<!ENTITY x SYSTEM "file://` + secret + `">]>` + layer(`<vermerke>&x;</vermerke>`), "DOCTYPE"},
		"XXE with an http URL":      {`<!DOCTYPE BGS [<!ENTITY x SYSTEM "` + bait.URL + `/x">]>` + layer(`<vermerke>&x;</vermerke>`), "DOCTYPE"},
		"external DTD":              {`<!DOCTYPE BGS SYSTEM "` + bait.URL + `/dtd">` + layer(``), "DOCTYPE"},
		"an undeclared entity":      {layer(`<vermerke>&x;</vermerke>`), "malformed"},
		"10,001 levels":             {deep, "nested deeper than 64"},
		"garbage before the root":   {"junk" + layer(``), "text outside the root"},
		"garbage after the root":    {layer(``) + "junk", "text outside the root"},
		"a second root":             {layer(``) + layer(``), "second root"},
		"an unclosed element":       {`<BGS ` + ns + `><BGSERZLayer ` + ns + ` Id="layer-1" index="1" layerType="ERZEUGER"><Felder><vermerke>x</Felder>`, "BGS/BGSERZLayer/Felder/vermerke"},
		"a processing instruction":  {layer(`<?php system("id") ?>`), "processing instruction"},
		"another root namespace":    {`<BGS xmlns="urn:evil"><BGSERZLayer/></BGS>`, "namespace urn:wasteflow:eanv:1"},
		"a layer in a foreign ns":   {`<BGS ` + ns + `><e:BGSERZLayer xmlns:e="urn:evil" Id="layer-1" index="1" layerType="ERZEUGER"/></BGS>`, "not in namespace"},
		"fields in a foreign ns":    {layer(`<vermerke xmlns="urn:evil">x</vermerke>`), "not in namespace"},
		"ds bound to our namespace": {layer(`<ds:Signature xmlns:ds="urn:wasteflow:eanv:1"/>`), "not a field"},
		"an unknown field":          {layer(`<passwort>x</passwort>`), "Felder/passwort: not a field"},
		"a wrong layer name":        {`<BGS ` + ns + `><BGSXYZLayer ` + ns + ` Id="layer-1" index="1" layerType="ERZEUGER"/></BGS>`, "BGSERZLayer"},
		"a list entry without pos":  {layer(`<befoerderer><name>x</name></befoerderer>`), "needs its position"},
		"a huge list length":        {layer(`<liste feld="befoerderer" anzahl="999999999"/>`), "a length from 0"},
		"a quantity that is text":   {layer(`<menge>viel</menge>`), "Felder/menge"},
		"not UTF-8":                 {"<BGS " + ns + ">\xff\xfe</BGS>", "malformed"},
	} {
		t.Run(name, func(t *testing.T) {
			st, _, raw := d.bmu(t, "GetDocument", map[string]any{"docXml": []byte(tc.xml)})
			wantError(t, 400, 3, st, raw, tc.want)
			if strings.Contains(string(raw), "TOP SECRET") {
				t.Fatal("the file's content came back")
			}
		})
	}
	// 28 MB in one base64 text node: over the request limit (413, code 8).
	big := layer(`<vermerke>` + strings.Repeat("QUFB", 7<<20) + `</vermerke>`)
	st, _, raw := d.bmu(t, "GetDocument", map[string]any{"docXml": []byte(big)})
	wantError(t, 413, 8, st, raw)
	// Just over 21 MB of XML inside a body the gateway takes: 400 naming the limit.
	over := []byte(layer(`<vermerke>` + strings.Repeat("x", wbmu.MaxXMLBytes) + `</vermerke>`))
	st, _, raw = d.post(t, bmuAPI+"GetDocument", hdr("dev-1", d.token(t, "alice")), map[string]any{"docXml": string(over)}) // as text: no base64 growth
	if st != 400 && st != 413 {
		t.Fatalf("an XML over 21 MB: %d %.300s", st, raw)
	}
	if n := fetched.Load(); n != 0 {
		t.Fatalf("the server fetched %d URL(s) named in XML", n)
	}
	// The server still answers.
	_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
	d.bmuOK(t, "GetDocument", map[string]any{"docXml": x})
}

// A template layer holds a company's pre-filled fields; a note made from
// it starts with a base layer holding them; the schema is served.
func TestBmuTemplates(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	pre := map[string]any{"bgs": map[string]any{
		"nachweisnummer": tv("ENI123456789"), "abfallschluessel": tv("170503*"),
		"erzeuger":  map[string]any{"nummer": tv(numbered(t, "I123E4567")), "name": tv("ACME Elektronik GmbH")},
		"entsorger": map[string]any{"nummer": tv(numbered(t, "I345G6789")), "name": tv("Deponie Süd GmbH")},
	}}
	tpl, tx := d.bmuOK(t, "CreateDocument", map[string]any{"document": pre, "vorlageLayer": true, "xmlOptions": map[string]any{"atbRolle": "ERZ"}})
	if fmt.Sprint(layerTypes(tpl)) != "[VORLAGE]" || !strings.Contains(string(tx), "<BGSVORLayer") || len(tpl["meta"].(map[string]any)["signaturePositions"].([]any)) != 0 {
		t.Fatalf("template: %v", tpl["meta"])
	}
	// A template with a wrong waste code is still refused (code lists).
	bad := map[string]any{"bgs": map[string]any{"abfallschluessel": tv("999999")}}
	st, m, raw := d.bmu(t, "CreateDocument", map[string]any{"document": bad, "vorlageLayer": true})
	if got := violations(t, st, m, raw); fmt.Sprint(got) != "[bgs.abfallschluessel]" {
		t.Errorf("template violations %v", got)
	}

	doc, x := d.bmuOK(t, "CreateDocumentFromTemplate", map[string]any{"templateXml": tx})
	if fmt.Sprint(layerTypes(doc)) != "[ERZEUGER]" || field(doc, "bgs.erzeuger.name")["value"] != "ACME Elektronik GmbH" ||
		field(doc, "bgs.erzeuger.name")["meta"].(map[string]any)["inLayer"] != true {
		t.Fatalf("from the template: %v %v", layerTypes(doc), doc["bgs"])
	}
	// Not a template: the top layer is the producer's.
	st, _, raw = d.bmu(t, "CreateDocumentFromTemplate", map[string]any{"templateXml": x})
	wantError(t, 400, 9, st, raw, "not a template")

	resp, err := http.Get(d.url + "/bmu/eanv.xsd")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `targetNamespace="urn:wasteflow:eanv:1"`) || !strings.Contains(string(body), "OUR DESIGN") {
		t.Fatalf("schema: %d %.200s", resp.StatusCode, body)
	}
}
