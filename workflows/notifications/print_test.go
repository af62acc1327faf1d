package notifications

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/decimal"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// A consented notification with as many producers, carriers and transit
// authorities as the content allows prints as Annex IA on several pages,
// in English and German: pdftotext finds its number on every page, every
// party's name, the waste codes, the dates, the decisions and conditions,
// and each block's title in its order; nothing is cut.
func TestAnnexIAPrintsEverything(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	names := map[string]string{"acme": "ACME Elektronik GmbH", "recyc": "Recyclage Nord SàRL", "auth-de": "Landesamt für Umwelt Bayern",
		"auth-nl": "Inspectie Leefomgeving en Transport", "auth-pl": "Główny Inspektorat Ochrony Środowiska"}
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	tonnes, _ := decimal.Parse("1234.5")
	d := &n.Notification{Content: n.Content{Notifier: ref("acme"), Consignee: ref("recyc"), Facility: n.Facility{OrganisationID: "recyc"},
		CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("auth-de"), Destination: ref("auth-nl")},
		WasteClassifications: []shipment.WasteClassification{{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}, {List: "BASEL_ANNEX_VIII", Code: "A1180"}},
		WasteDescription:     "discarded equipment containing hazardous components (CRT monitors)", RecoveryDisposalCodes: []string{"R4"},
		TotalQuantity: shipment.Quantity{Tonnes: &tonnes}, NumberOfShipments: 12,
		ShipmentPeriod: n.ShipmentPeriod{FirstDeparture: "2026-12-01", LastDeparture: "2027-11-30"}, PackagingTypes: []string{"DRUM", "BULK"},
		Route: n.Route{MeansOfTransport: []string{"ROAD", "RAIL"}, EntryExitPoints: []string{"Venlo (exit DE)"}}},
		ConsentValidUntil: "2027-11-30"}
	for i := range 200 { // the content's limits
		id := fmt.Sprintf("prod-%03d", i)
		names[id] = fmt.Sprintf("Erzeuger Nr. %03d Müller & Søn", i)
		d.Content.Producers = append(d.Content.Producers, ref(id))
	}
	for i := range 100 {
		id := fmt.Sprintf("carr-%03d", i)
		names[id] = fmt.Sprintf("Přepravce %03d s.r.o.", i)
		d.Content.Carriers = append(d.Content.Carriers, ref(id))
		tid := fmt.Sprintf("tra-%03d", i)
		names[tid] = fmt.Sprintf("Transit Authority %03d", i)
		d.Content.CompetentAuthorities.Transit = append(d.Content.CompetentAuthorities.Transit, ref(tid))
		d.Content.Route.TransitCountries = append(d.Content.Route.TransitCountries, "PL")
	}
	d.Content.CompetentAuthorities.Transit[0] = ref("auth-pl") // a Polish authority's name
	delete(names, "tra-000")
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	d.Acknowledgements = []n.AcknowledgementRecord{{Authority: "auth-nl", At: at}}
	d.Decisions = []n.DecisionRecord{{Authority: "auth-de", At: at, Type: n.DecisionConsent},
		{Authority: "auth-nl", At: at, Type: n.DecisionConsentWithConditions, Conditions: []string{"Sealed containers only."}, ValidUntil: "2027-11-30"}}
	dir := printing.Directory(func(id string) (string, string) { return names[id], "DE" })

	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, "DE-2026-000042", lang, dir)
		labels := printing.English
		if lang == "de" {
			labels = printing.German
		}
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000042", Blocks: blocks, Labels: labels,
			Printed: at, AuditHead: strings.Repeat("0f", 32)})
		if err != nil {
			t.Fatal(err)
		}
		pages, text := printtest.Text(t, pdf)
		page := "page %d of %d"
		if lang == "de" {
			page = "Seite %d von %d"
		}
		if len(pages) < 3 {
			t.Fatalf("%s: %d pages for 200 producers and 100 carriers", lang, len(pages))
		}
		for i, p := range pages {
			if !strings.Contains(p, "DE-2026-000042") || !strings.Contains(p, fmt.Sprintf(page, i+1, len(pages))) {
				t.Errorf("%s page %d lacks the number or its page count", lang, i+1)
			}
		}
		want := []string{"16 02 13*", "A1180", "2026-12-01", "2027-11-30", "1234.5", "R4", "Sealed containers only.", "CONSENT_WITH_CONDITIONS", "Venlo (exit DE)"}
		for id, name := range names {
			want = append(want, name+" ("+id+")")
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: pdftotext does not find %q", lang, w)
			}
		}
		// every block's title, in the annex's order
		last := -1
		for i := 1; i <= 21; i++ {
			title := fmt.Sprintf("%d. %s", i, annexIA[fmt.Sprint(i)][map[string]int{"en": 0, "de": 1}[lang]])
			at := strings.Index(text, title)
			if at < 0 || at < last {
				t.Errorf("%s: block %q missing or out of order", lang, title)
			}
			last = at
		}
		t.Logf("%s: %d pages, %d bytes", lang, len(pages), len(pdf))
	}
}
