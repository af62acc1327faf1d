package notifications

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/decimal"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// annexIAOrder is Annex IA's boxes as a reader of the form meets them:
// left column 1 beside 3 and 4, 2 beside 5–7, 8 beside 11 and 12, 9
// beside 13, 10 beside 14, then 15–18 and the authorities' 19–21.
var annexIAOrder = []string{"1", "3", "4", "2", "5", "6", "7", "8", "11", "12", "9", "13", "10", "14", "15", "16", "17", "18", "19", "20", "21"}

// A consented notification with as many producers, carriers and transit
// authorities as the content allows prints as Annex IA on several pages,
// in English and German: its boxes in the form's arrangement with their
// numbers and titles, pdftotext finds its number on every page, every
// party's name, the waste codes, the dates and quantities in the
// language's format, the decisions in words and their conditions; nothing
// is cut.
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
	approvedAt := at.Add(24 * time.Hour)
	d.Guarantees = []n.GuaranteeRecord{{Guarantee: n.Guarantee{Kind: n.GuaranteeInsurance, Amount: n.Decimal{Units: 250000, Nanos: 500_000_000}, Currency: "EUR",
		Guarantor: "Allianz Versicherungs-AG", Reference: "P-77-1203", ValidFrom: "2026-12-01", ValidUntil: "2027-11-30"}, At: at, ApprovedBy: "auth-de", ApprovedAt: &approvedAt}}
	names["auth-de"] = "LfU Bayern"
	dir := printing.Directory(func(id string) shipment.PartyDetails {
		return shipment.PartyDetails{OrganisationID: id, Name: names[id], Address: shipment.Address{Country: "DE"}}
	})

	for _, c := range []struct{ lang, quantity, first, until, page string }{
		{"en", "1,234.5 t", "1 December 2026", "30 November 2027", "page %d of %d"},
		{"de", "1.234,5 t", "01.12.2026", "30.11.2027", "Seite %d von %d"},
	} {
		p := printing.For(c.lang) // enum values in the words of rules/labels
		consent, packaging := p.Enum("DecisionType", "CONSENT_WITH_CONDITIONS"), p.Enums("packagingType", []string{"DRUM", "BULK"})
		title, basis, blocks := Form(d, "DE-2026-000042", c.lang, dir)
		var order []string
		for _, b := range blocks {
			order = append(order, b.No)
		}
		if fmt.Sprint(order) != fmt.Sprint(append(slices.Clip(annexIAOrder), "")) { // the guarantee follows 21, unnumbered
			t.Errorf("%s: boxes %v, want the form's %v", c.lang, order, annexIAOrder)
		}
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000042", Blocks: blocks, Labels: printing.LabelsOf(c.lang),
			Printed: at, AuditHead: strings.Repeat("0f", 32)})
		if err != nil {
			t.Fatal(err)
		}
		pages, _ := printtest.Text(t, pdf)
		text := printtest.Raw(t, pdf)
		if len(pages) < 3 {
			t.Fatalf("%s: %d pages for 200 producers and 100 carriers", c.lang, len(pages))
		}
		for i, p := range pages {
			if !strings.Contains(p, "DE-2026-000042") || !strings.Contains(p, fmt.Sprintf(c.page, i+1, len(pages))) {
				t.Errorf("%s page %d lacks the number or its page count", c.lang, i+1)
			}
		}
		want := []string{"16 02 13*", "A1180", c.first, c.until, c.quantity, "R4", "Sealed containers only.", "Venlo (exit DE)", consent, packaging,
			annexIA.In(c.lang)("guarantee"), p.Enum("GuaranteeKind", "INSURANCE"), "Allianz Versicherungs-AG", "P-77-1203", p.Number(n.Decimal{Units: 250000, Nanos: 500_000_000}) + " EUR"}
		for _, name := range names {
			want = append(want, name)
		}
		w := annexIA.In(c.lang)
		for _, no := range annexIAOrder {
			want = append(want, no+". "+w(no))
		}
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("%s: pdftotext does not find %q", c.lang, s)
			}
		}
		for _, raw := range []string{"CONSENT_WITH_CONDITIONS", "EU_LIST_OF_WASTE", "BASEL_ANNEX_VIII", "DRUM", "RAIL", "(acme)", "INSURANCE", "GUARANTEE"} {
			if strings.Contains(text, raw) {
				t.Errorf("%s: the print shows %q", c.lang, raw)
			}
		}
		t.Logf("%s: %d pages, %d bytes", c.lang, len(pages), len(pdf))
	}
}

// Box 19 is each authority's receipt: an authority that acknowledged
// again (each correction it accepted) has one row, its receipt's date and
// how often and when last it acknowledged again, not one row per
// acknowledgement; authorities stay in the order they first acknowledged.
func TestAnnexIABox19OneRowPerAuthority(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 12, d, 10, 0, 0, 0, time.UTC) }
	d := &n.Notification{}
	for i := range 22 {
		d.Acknowledgements = append(d.Acknowledgements, n.AcknowledgementRecord{Authority: "auth-nl", At: day(1 + i)})
		if i == 0 {
			d.Acknowledgements = append(d.Acknowledgements, n.AcknowledgementRecord{Authority: "auth-de", At: day(2)},
				n.AcknowledgementRecord{Authority: "auth-be", At: day(2)}, n.AcknowledgementRecord{Authority: "auth-be", At: day(5)})
		}
	}
	dir := printing.Directory(func(id string) shipment.PartyDetails { return shipment.PartyDetails{OrganisationID: id, Name: id} })
	for _, c := range []struct{ lang, want string }{
		{"en", "[auth-nl: received on 1 December 2026 | acknowledged again 21 times, the last on 22 December 2026] " +
			"[auth-de: received on 2 December 2026] [auth-be: received on 2 December 2026 | acknowledged again on 5 December 2026]"},
		{"de", "[auth-nl: eingegangen am 01.12.2026 | 21-mal erneut bestätigt, zuletzt am 22.12.2026] " +
			"[auth-de: eingegangen am 02.12.2026] [auth-be: eingegangen am 02.12.2026 | erneut bestätigt am 05.12.2026]"},
	} {
		_, _, blocks := Form(d, "DE-2026-000042", c.lang, dir)
		var got []string
		for _, b := range blocks {
			if b.No != "19" {
				continue
			}
			for _, r := range b.Rows {
				got = append(got, "["+r.Label+": "+strings.ReplaceAll(r.Value, "\n", " | ")+"]")
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: box 19 holds\n%s\nwant\n%s", c.lang, strings.Join(got, " "), c.want)
		}
		// and on paper: each authority's words as pdftotext reads them
		title, basis, blocks := Form(d, "DE-2026-000042", c.lang, dir)
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000042", Blocks: blocks, Labels: printing.LabelsOf(c.lang),
			Printed: day(23)})
		if err != nil {
			t.Fatal(err)
		}
		if out := os.Getenv("WASTEFLOW_PRINT_DIR"); out != "" { // to look at it
			_ = os.WriteFile(filepath.Join(out, "notification-box19-"+c.lang+".pdf"), pdf, 0o644)
		}
		text := printtest.Raw(t, pdf)
		for _, line := range strings.Split(strings.Trim(c.want, "[]"), "] [") {
			for _, part := range strings.Split(strings.SplitN(line, ": ", 2)[1], " | ") {
				if !strings.Contains(text, part) {
					t.Errorf("%s: pdftotext does not find %q", c.lang, part)
				}
			}
		}
	}
}
