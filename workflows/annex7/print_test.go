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
		CertificateOfCompletion: &annex7.CompletionRecord{CompletedOn: "2026-12-11", RecoveryCode: "R3"},
		DIWASS:                  &shipment.DIWASSExchange{State: "SENT", DocumentNumber: "GLW.BE260000000019i", Attempts: 1}}
	names := map[string]string{"acme": "ACME Elektronik GmbH", "recyc": "Recyclage Nord SàRL", "truck": "Spedition Schnell GmbH",
		"auth-de": "Landesamt für Umwelt", "auth-nl": "Inspectie Leefomgeving en Transport"}
	dir := printing.Directory(func(id string) shipment.PartyDetails {
		return shipment.PartyDetails{OrganisationID: id, Name: names[id], Address: shipment.Address{Country: "NL"}}
	})
	values := map[string][]string{"en": {"4 December 2026", "5 December 2026", "11 December 2026", "19.75 t", "20 t"}, "de": {"04.12.2026", "05.12.2026", "11.12.2026", "19,75 t", "20 t"}}
	for _, lang := range []string{"en", "de"} {
		title, basis, blocks := Form(d, lang, dir)
		var order []string
		for _, b := range blocks {
			order = append(order, b.No)
		}
		if got := strings.Join(order, ","); got != "1,2,3,4,5,,,6,7,8,9,10,11,12,13,14," {
			t.Errorf("%s: boxes %s, not the form's arrangement", lang, got)
		}
		pdf, err := printing.Render(&printing.Form{Title: title, Basis: basis, Number: "DE-A7-2026-000003", Blocks: blocks, Labels: printing.LabelsOf(lang), Printed: announced,
			Facts: diwassFacts(d, lang)})
		if err != nil {
			t.Fatal(err)
		}
		text := printtest.Raw(t, pdf)
		want := append([]string{"DE-A7-2026-000003", annexVII.In(lang)("diwass"), "GLW.BE260000000019i", "B3011", "R3", "PET bottle flakes", printing.For(lang).Enum("meansOfTransport", "ROAD")}, values[lang]...)
		for _, name := range names {
			want = append(want, name)
		}
		w := annexVII.In(lang)
		for _, no := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"} {
			want = append(want, no+". "+w(no))
		}
		for _, raw := range []string{"ROAD", "BASEL_ANNEX_IX", "(acme)", "SENT"} {
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

// Before DIWASS numbered it, the form says where the exchange stands, in
// words; a document never exchanged says nothing of DIWASS.
func TestAnnexVIIPrintsTheDIWASSState(t *testing.T) {
	if got := diwassFacts(&annex7.Annex7{}, "en"); got != nil {
		t.Errorf("never exchanged: %v", got)
	}
	got := diwassFacts(&annex7.Annex7{DIWASS: &shipment.DIWASSExchange{State: "REJECTED"}}, "de")
	if len(got) != 1 || got[0].Value != "Abgelehnt: korrigieren und erneut senden" {
		t.Errorf("rejected, in German: %v", got)
	}
}
