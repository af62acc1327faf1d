package annex7

import (
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// An Annex VII document with its certificates prints its boxes in order,
// in English and German, with every party's name, the codes, dates and
// quantities; pdftotext reads them back.
func TestAnnexVIIPrints(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	q, _ := decimal.Parse("20")
	got, _ := decimal.Parse("19.75")
	announced := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	d := &annex7.Annex7{Content: annex7.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: annex7.Facility{OrganisationID: "recyc"},
		Producers: []shipment.PartyRef{ref("acme")}, Carriers: []annex7.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
		CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("auth-de"), Destination: ref("auth-nl")},
		WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}}, UsualDescription: "PET bottle flakes",
		RecoveryCode: "R3", ActualQuantity: shipment.Quantity{Tonnes: &q}, ActualDateOfShipment: "2026-12-04"},
		AnnouncedAt:             &announced,
		CarrierTransfers:        []annex7.CarrierTransferRecord{{CarrierOrganisationID: "truck", MeansOfTransport: "ROAD", TransferDate: "2026-12-04"}},
		ConsigneeCertificate:    &annex7.CertificateRecord{ReceivedOn: "2026-12-05", Quantity: shipment.Quantity{Tonnes: &got}},
		FacilityCertificate:     &annex7.CertificateRecord{ReceivedOn: "2026-12-05", Quantity: shipment.Quantity{Tonnes: &got}},
		CertificateOfCompletion: &annex7.CompletionRecord{CompletedOn: "2026-12-11", RecoveryCode: "R3"}}
	names := map[string]string{"acme": "ACME Elektronik GmbH", "recyc": "Recyclage Nord SàRL", "truck": "Spedition Schnell GmbH",
		"auth-de": "Landesamt für Umwelt", "auth-nl": "Inspectie Leefomgeving en Transport"}
	dir := printing.Directory(func(id string) (string, string) { return names[id], "" })
	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, lang, dir)
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-A7-2026-000003", Blocks: blocks, Labels: printing.LabelsOf(lang), Printed: announced})
		if err != nil {
			t.Fatal(err)
		}
		_, text := printtest.Text(t, pdf)
		want := []string{"DE-A7-2026-000003", "B3011", "R3", "PET bottle flakes", "2026-12-04", "2026-12-05", "2026-12-11", "19.75", "20"}
		for id, name := range names {
			want = append(want, name+" ("+id+")")
		}
		w := annexVII.In(lang)
		last := -1
		for _, no := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"} {
			want = append(want, no+". "+w(no))
			at := strings.Index(text, no+". "+w(no))
			if at < last {
				t.Errorf("%s: box %s out of order", lang, no)
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
