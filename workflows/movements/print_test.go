package movements

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/decimal"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// A completed movement prints Annex IB's blocks in order, in English and
// German: the notification's number and waste, the shipment, each
// carrier's leg, the receipts and the completion; pdftotext reads them.
func TestAnnexIBPrints(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	ten, _ := decimal.Parse("10")
	got, _ := decimal.Parse("9.8")
	parent := &n.Notification{Content: n.Content{Notifier: ref("acme"), Consignee: ref("recyc"), Facility: n.Facility{OrganisationID: "recyc"},
		Producers: []shipment.PartyRef{ref("acme")}, Carriers: []shipment.PartyRef{ref("truck")}, NumberOfShipments: 3,
		WasteClassifications: []shipment.WasteClassification{{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}},
		WasteDescription:     "CRT monitors", RecoveryDisposalCodes: []string{"R4"}}}
	d := &m.Movement{Template: m.Template{SequenceNumber: 2, ActualDateOfShipment: "2026-12-07", ActualQuantity: shipment.Quantity{Tonnes: &ten},
		PackagingTypes: []string{"DRUM"}, Carriers: []m.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}}}, OperationCodes: []string{"R4"},
		Legs:       []m.LegRecord{{CarrierOrganisationID: "truck", MeansOfTransport: "ROAD", VehicleID: "M-WF 2026", TakenOverOn: "2026-12-07"}},
		Consignee:  &m.ReceptionRecord{ReceivedOn: "2026-12-08", Quantity: shipment.Quantity{Tonnes: &got}},
		Facility:   &m.ReceptionRecord{ReceivedOn: "2026-12-08", Quantity: shipment.Quantity{Tonnes: &got}},
		Completion: &m.CompletionRecord{CompletedOn: "2026-12-15", OperationCode: "R4"}}
	names := map[string]string{"acme": "ACME Elektronik GmbH", "recyc": "Recyclage Nord SàRL", "truck": "Spedition Schnell GmbH"}
	dir := printing.Directory(func(id string) shipment.PartyDetails {
		p := shipment.PartyDetails{OrganisationID: id, Name: names[id]}
		if id == "recyc" {
			p.Address, p.ContactPerson, p.Telephone, p.Email = shipment.Address{Street: "Havenweg 7", PostalCode: "5928 PM", City: "Venlo", Country: "NL"},
				"Jan de Vries", "+31 77 123 45 67", "jan@recyc.example"
		}
		return p
	})
	dates := map[string][]string{"en": {"7 December 2026", "8 December 2026", "15 December 2026", "9.8 t"}, "de": {"07.12.2026", "08.12.2026", "15.12.2026", "9,8 t"}}
	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, parent, "DE-2026-000004", lang, dir)
		var order []string
		for _, b := range blocks {
			order = append(order, b.No+"/"+b.Title)
		}
		w := annexIB.In(lang)
		want := []string{"1/" + w("1"), "2/" + w("2"), "3/" + w("3"), "4/" + w("4"), "5/" + w("5"), "6/" + w("6"), "7/" + w("7"), "8/" + w("8"), "/" + w("8b"), "/" + w("8c"),
			"9/" + w("9"), "12/" + w("12"), "13/" + w("13"), "10/" + w("10"), "11/" + w("11"), "14/" + w("14"), "15/" + w("15"), "16/" + w("16"), "17/" + w("17"),
			"18/" + w("18"), "19/" + w("19"), "20/" + w("20"), "21/" + w("21"), "22/" + w("22")}
		if strings.Join(order, "|") != strings.Join(want, "|") {
			t.Errorf("%s: boxes\n%v\nwant the form's\n%v", lang, order, want)
		}
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000004-M002", Blocks: blocks, Labels: printing.LabelsOf(lang),
			Printed: time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		text := printtest.Raw(t, pdf)
		want = append([]string{"DE-2026-000004-M002", "DE-2026-000004", "16 02 13*", "CRT monitors", "M-WF 2026", "R4", printing.For(lang).Enum("meansOfTransport", "ROAD"), "Havenweg 7", "5928 PM Venlo",
			"Jan de Vries", "+31 77 123 45 67", "jan@recyc.example"}, dates[lang]...)
		for _, name := range names {
			want = append(want, name)
		}
		if !regexp.MustCompile(`2 / 3`).MatchString(text) {
			t.Errorf("%s: shipment 2 of 3 not found", lang)
		}
		for _, no := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22"} {
			want = append(want, no+". "+w(no))
		}
		for _, raw := range []string{"ROAD", "DRUM", "EU_LIST_OF_WASTE", "(truck)"} {
			if strings.Contains(text, raw) {
				t.Errorf("%s: the print shows %q", lang, raw)
			}
		}
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("%s: pdftotext does not find %q", lang, s)
			}
		}
	}
}

// A shipment refused in part prints box 18 as accepted in part, with the
// quantity refused, the reason, the arrangement of the authority of
// dispatch, its date and whether it is done (issue 46.5), in English and
// German, in words.
func TestAnnexIBShowsARefusedPart(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	forty, _ := decimal.Parse("40")
	part, _ := decimal.Parse("2.5")
	parent := &n.Notification{Content: n.Content{Notifier: ref("acme"), Consignee: ref("recyc"), Facility: n.Facility{OrganisationID: "recyc"},
		NumberOfShipments: 3, RecoveryDisposalCodes: []string{"R4"}}}
	d := &m.Movement{Template: m.Template{SequenceNumber: 1, ActualDateOfShipment: "2026-12-07", ActualQuantity: shipment.Quantity{Tonnes: &forty}}, OperationCodes: []string{"R4"},
		Facility: &m.ReceptionRecord{ReceivedOn: "2026-12-08", Quantity: shipment.Quantity{Tonnes: &forty}, RejectedQuantity: shipment.Quantity{Tonnes: &part}, Reason: "drums leaking"},
		RejectedPart: &m.RejectedPartRecord{Quantity: shipment.Quantity{Tonnes: &part}, Reason: "drums leaking", RejectedOn: "2026-12-08",
			Arrangement: m.ArrangementAlternativeRecovery, FacilityOrganisationID: "other", DueOn: "2027-01-15", ArrangedBy: "auth-de"}}
	names := map[string]string{"acme": "ACME", "recyc": "Recycling", "other": "Verwertung Süd GmbH"}
	dir := printing.Directory(func(id string) shipment.PartyDetails {
		return shipment.PartyDetails{OrganisationID: id, Name: names[id]}
	})
	want := map[string][]string{
		"en": {"accepted in part", "Quantity accepted", "37.5 t", "Quantity refused", "2.5 t", "drums leaking", "Recovered/disposed of elsewhere: Verwertung Süd GmbH", "15 January 2027", "Refused part dealt with on", "open"},
		"de": {"teilweise angenommen", "Angenommene Menge", "37,5 t", "Abgelehnte Menge", "2,5 t", "Anderswo verwertet/beseitigt: Verwertung Süd GmbH", "15.01.2027", "offen"},
	}
	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, parent, "DE-2026-000004", lang, dir)
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000004-M001", Blocks: blocks, Labels: printing.LabelsOf(lang),
			Printed: time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if dir := os.Getenv("WASTEFLOW_PRINT_DIR"); dir != "" { // to look at it
			_ = os.WriteFile(filepath.Join(dir, "movement-refused-part-"+lang+".pdf"), pdf, 0o644)
		}
		text := printtest.Raw(t, pdf)
		for _, s := range want[lang] {
			if !strings.Contains(text, s) {
				t.Errorf("%s: pdftotext does not find %q", lang, s)
			}
		}
		if strings.Contains(text, "ALTERNATIVE_RECOVERY") {
			t.Errorf("%s: a raw name on the print", lang)
		}
	}
}
