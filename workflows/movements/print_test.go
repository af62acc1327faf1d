package movements

import (
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
	dir := printing.Directory(func(id string) (string, string) { return names[id], "" })
	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, parent, "DE-2026-000004", lang, dir)
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-2026-000004-M002", Blocks: blocks, Labels: printing.LabelsOf(lang),
			Printed: time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		_, text := printtest.Text(t, pdf)
		want := []string{"DE-2026-000004-M002", "DE-2026-000004", "16 02 13*", "CRT monitors", "2026-12-07", "2026-12-08", "2026-12-15", "M-WF 2026", "9.8", "R4"}
		for id, name := range names {
			want = append(want, name+" ("+id+")")
		}
		if !regexp.MustCompile(`of shipments 2 ?/ ?3|der Verbringungen 2 ?/ ?3|2 ?/ ?3 (shipments|der Verbringungen)`).MatchString(text) {
			t.Errorf("%s: shipment 2 of 3 not found", lang)
		}
		w := annexIB.In(lang)
		last := -1
		for _, no := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"} {
			want = append(want, no+". "+w(no))
			at := strings.Index(text, no+". "+w(no))
			if at < last {
				t.Errorf("%s: block %s out of order", lang, no)
			}
			last = at
		}
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("%s: pdftotext does not find %q", lang, s)
			}
		}
	}
}
