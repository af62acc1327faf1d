package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// getJSON reads a public path: its status, headers and body.
func getPublic(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// The words for people over the wire (contract 3 of issue 45): every list
// at /labels.json (public, cacheable), the machines' labels in
// /workflows/<kind>.json, and in /openapi.json the labels, help, code
// lists and enum labels beside the schemas, properties in form order.
func TestLabelsOverTheWire(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))

	resp, body := getPublic(t, d.url+"/labels.json")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age") {
		t.Fatalf("/labels.json: %d, ETag %q, Cache-Control %q", resp.StatusCode, etag, resp.Header.Get("Cache-Control"))
	}
	var lj struct {
		Lists map[string]map[string]struct{ EN, DE string }
	}
	if err := json.Unmarshal(body, &lj); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ list, code, en, de string }{
		{"operation", "R4", "Recycling/reclamation of metals and metal compounds", "Recycling/Rückgewinnung von Metallen und Metallverbindungen"},
		{"wasteCode/EU_LIST_OF_WASTE", "16 02 13*", "discarded equipment containing hazardous components other than those mentioned in 16 02 09 to 16 02 12", ""},
		{"wasteClassificationList", "EU_LIST_OF_WASTE", "European List of Waste", "Europäisches Abfallverzeichnis"},
		{"state/notification", "INFORMATION_REQUESTED", "Information requested", "Auskunft angefordert"},
		{"intent/movement", "CARRIER_TRANSPORT", "Take over the waste", "Abfälle übernehmen"},
		{"state/annex_vii", "ANNOUNCED", "Announced", "Angekündigt"},
		{"role", "AUTHORITY_DISPATCH", "Authority of dispatch", "Behörde am Versandort"},
		{"DecisionType", "CONSENT_WITH_CONDITIONS", "Consent with conditions", "Zustimmung mit Auflagen"},
		{"NotificationSignalType", "REVALIDATION", "Revalidation", "Verlängerung der Zustimmung"},
		{"MovementSignalType", "REJECT", "Reject", "Ablehnen"},
		{"meansOfTransport", "INLAND_WATERWAYS", "Inland waterways", "Binnenwasserstraße"},
		{"packagingType", "BULK", "Bulk", "Lose Schüttung"},
		{"country", "NL", "Netherlands", "Niederlande"},
		{"deadlineRule", "DECISION_DUE", "Decision due", "Entscheidung fällig"},
		{"deadlineState", "DUE_SOON", "Due soon", "Bald fällig"},
	} {
		got, ok := lj.Lists[c.list][c.code]
		if !ok || got.EN != c.en || c.de != "" && got.DE != c.de || got.DE == "" {
			t.Errorf("/labels.json %s %s = %+v, want %q / %q", c.list, c.code, got, c.en, c.de)
		}
	}
	if resp, _ := getPublic(t, d.url+"/labels.json", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("/labels.json with its ETag: %d, want 304", resp.StatusCode)
	}

	for _, kind := range []string{"notification", "annex_vii", "movement"} {
		resp, body := getPublic(t, d.url+"/workflows/"+kind+".json")
		var m struct {
			States  []string
			Intents []struct{ Name string }
			Labels  struct {
				States, Intents, Roles map[string]struct{ EN, DE string }
			}
		}
		if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("/workflows/%s.json: %d %v", kind, resp.StatusCode, err)
		}
		for _, s := range m.States {
			if l := m.Labels.States[s]; l.EN == "" || l.DE == "" {
				t.Errorf("%s: state %s has no label", kind, s)
			}
		}
		for _, in := range m.Intents {
			if l := m.Labels.Intents[in.Name]; l.EN == "" || l.DE == "" {
				t.Errorf("%s: intent %s has no label", kind, in.Name)
			}
		}
		if len(m.Labels.Roles) == 0 {
			t.Errorf("%s: no role labels", kind)
		}
	}

	_, raw := getPublic(t, d.url+"/openapi.json")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				XOrder      []string                           `json:"x-order"`
				Properties  map[string]json.RawMessage         `json:"properties"`
				XEnumLabels map[string]struct{ EN, DE string } `json:"x-enum-labels"`
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	content := doc.Components.Schemas["notification.Content"]
	want := []string{"notifier", "consignee", "numberOfShipments", "totalQuantity", "shipmentPeriod", "packagingTypes", "carriers",
		"producers", "facility", "recoveryDisposalCodes", "wasteDescription", "wasteClassifications", "competentAuthorities", "route"}
	if strings.Join(content.XOrder, ",") != strings.Join(want, ",") {
		t.Errorf("notification.Content x-order = %v, want Annex IA's order %v", content.XOrder, want)
	}
	// The served properties are in that order too.
	at := strings.Index(string(raw), `"notification.Content":{`)
	if at < 0 {
		t.Fatal("no notification.Content in /openapi.json")
	}
	prev := at
	for _, p := range want {
		i := strings.Index(string(raw[at:]), `"`+p+`":{`)
		if i < 0 || at+i < prev {
			t.Fatalf("/openapi.json: notification.Content's %s is not in form order", p)
		}
		prev = at + i
	}
	var codes struct {
		Title    string                  `json:"title"`
		XLabels  struct{ EN, DE string } `json:"x-labels"`
		XHelp    struct{ EN, DE string } `json:"x-help"`
		CodeList string                  `json:"x-code-list"`
	}
	if err := json.Unmarshal(content.Properties["recoveryDisposalCodes"], &codes); err != nil {
		t.Fatal(err)
	}
	if codes.Title == "" || codes.Title != codes.XLabels.EN || codes.XLabels.DE == "" || codes.XHelp.DE == "" || codes.CodeList != "operation" {
		t.Errorf("recoveryDisposalCodes: %s", content.Properties["recoveryDisposalCodes"])
	}
	if l := doc.Components.Schemas["DecisionType"].XEnumLabels["OBJECTION"]; l.EN != "Objection" || l.DE != "Einwand" {
		t.Errorf("DecisionType x-enum-labels: %+v", doc.Components.Schemas["DecisionType"].XEnumLabels)
	}
	var wc struct {
		XOrder     []string                   `json:"x-order"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	wc.Properties = doc.Components.Schemas["WasteClassification"].Properties
	if !strings.Contains(string(wc.Properties["code"]), `"x-code-list":"wasteCode"`) {
		t.Errorf("WasteClassification.code: %s", wc.Properties["code"])
	}
}
