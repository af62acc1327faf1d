package diwass_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/diwass"
)

func annex7Input() diwass.Annex7Input {
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	twenty, _ := decimal.Parse("20.5")
	party := func(id, name, country string) shipment.PartyDetails {
		return shipment.PartyDetails{OrganisationID: id, Name: name, ContactPerson: "Contact of " + name, Telephone: "+1 " + id, Email: id + "@example.org",
			Address: shipment.Address{Country: country}}
	}
	return diwass.Annex7Input{
		Content: a.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: a.Facility{OrganisationID: "recyc"}, Producers: []shipment.PartyRef{ref("gen")},
			Carriers:             []a.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}, {OrganisationID: "barge", MeansOfTransport: "INLAND_WATERWAYS"}},
			CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("auth-de"), Destination: ref("auth-be"), Transit: []shipment.PartyRef{ref("auth-nl")}},
			WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}, {List: "EU_LIST_OF_WASTE", Code: "19 12 04"}},
			UsualDescription:     "PET flakes", RecoveryCode: "R3", ActualQuantity: shipment.Quantity{Tonnes: &twenty}, ActualDateOfShipment: "2026-12-04"},
		Parties: map[string]shipment.PartyDetails{"acme": party("acme", "ACME", "DE"), "recyc": party("recyc", "Recyc", "BE"), "gen": party("gen", "Generator", "DE"),
			"truck": party("truck", "Truck", "DE"), "barge": party("barge", "Barge", "NL"),
			"auth-de": party("auth-de", "LfU", "DE"), "auth-be": party("auth-be", "OVAM", "BE"), "auth-nl": party("auth-nl", "ILT", "NL")},
		Operators:   map[string]string{"acme": "1001", "recyc": "1002", "gen": "1003", "truck": "1004", "barge": "1005"},
		AnnouncedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600)), Declarant: "Anna Huber",
	}
}

// An announced Annex VII document reaches DIWASS (the fake) with every
// field mapped, compared field by field with what the fake read, and comes
// back with DIWASS's number; what DIWASS could not take is named before
// anything is sent, and a document the fake's rules refuse is a rejection.
func TestAnnex7ReachesDIWASSFieldByField(t *testing.T) {
	fake, url := startFake(t)
	c := client(url)
	req, err := diwass.BuildAnnex7(annex7Input())
	if err != nil {
		t.Fatal(err)
	}
	number, err := c.CreateAnnex7(context.Background(), req)
	if err != nil || !strings.HasPrefix(number, "GLW.") || !strings.HasSuffix(number, "i") {
		t.Fatalf("sent: %q %v", number, err)
	}
	d := fake.Documents()[0]
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: DIWASS read %v, want %v", what, got, want)
		}
	}
	check("number", d.Number, number)
	check("takeBackIndication", d.TakeBack, false)
	check("arranger is producer", d.ArrangerIsProducer, false)
	check("arranger's operator", d.Arranger.OperatorID, "1001")
	check("arranger's contact", d.Arranger.Name, "Contact of ACME")
	check("arranger's e-mail", d.Arranger.Email, "acme@example.org")
	check("consignee's operator", d.Consignee.OperatorID, "1002")
	check("mass", d.Mass.Value+" "+d.Mass.Unit, "20.5 TNE")
	check("no volume", d.Volume == nil, true)
	check("date", d.Date, "2026-12-04")
	check("carriers", len(d.Carriers), 2)
	check("first carrier", d.Carriers[0].OperatorID+" "+d.Carriers[0].Means, "1004 R")
	check("second carrier", d.Carriers[1].OperatorID+" "+d.Carriers[1].Means, "1005 W")
	check("producer", d.Producer != nil && d.Producer.OperatorID == "1003", true)
	check("facility", d.Facility.OperatorID+" "+d.Facility.TypeCode, "1002 R")
	check("recovery code", strings.Join(d.RecoveryCodes, ","), "R3")
	check("description", d.Description.Language+" "+d.Description.Value, "en PET flakes")
	check("waste codes", len(d.WasteCodes), 2)
	check("first waste code", d.WasteCodes[0].ListID+" "+d.WasteCodes[0].Value, "BASEL B3011")
	check("second waste code", d.WasteCodes[1].ListID+" "+d.WasteCodes[1].Value, "EWC 19 12 04")
	check("export (UN M49)", d.Export, "276")
	check("import (UN M49)", d.Import, "056")
	check("transit (UN M49)", strings.Join(d.Transit, ","), "528")
	check("declaration", d.Declaration.Name+" / "+d.Declaration.Role+" / "+d.Declaration.Timestamp, "Anna Huber (ACME) / arranger / 2026-12-01T10:00:00+01:00")

	// A take-back names the original's DIWASS number.
	in := annex7Input()
	in.Content.TakeBackOf, in.TakeBackOf = "a7_original", "GLW.BE260000000019i"
	in.Content.Producers = []shipment.PartyRef{{OrganisationID: "acme"}}
	req, _ = diwass.BuildAnnex7(in)
	if _, err := c.CreateAnnex7(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	d = fake.Documents()[1]
	check("take-back", d.TakeBack, true)
	check("reference", d.Reference, "GLW.BE260000000019i")
	check("arranger is producer (no wasteProducer)", d.ArrangerIsProducer && d.Producer == nil, true)

	// A party without an operator is named; nothing is sent.
	in = annex7Input()
	delete(in.Operators, "barge")
	if _, err := diwass.BuildAnnex7(in); err == nil || !strings.Contains(err.Error(), "no DIWASS operator for Barge (barge): it needs an EORI or VAT number in the directory") {
		t.Errorf("a party without an operator: %v", err)
	}
	// A document the rules refuse (no carrier) is DIWASS's rejection.
	in = annex7Input()
	in.Content.Carriers = nil
	req, _ = diwass.BuildAnnex7(in)
	_, err = c.CreateAnnex7(context.Background(), req)
	var f *diwass.Fault
	if !errors.As(err, &f) || !f.Rejection() || !strings.Contains(f.Message, "at least one carrier") || len(fake.Documents()) != 2 {
		t.Errorf("no carrier: %v", err)
	}
}
