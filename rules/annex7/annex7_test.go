package annex7_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

func content() annex7.Content {
	return annex7.Content{
		Arranger:  shipment.PartyRef{OrganisationID: "acme"},
		Consignee: shipment.PartyRef{OrganisationID: "recyc"},
		Facility:  annex7.Facility{OrganisationID: "recyc"},
		Producers: []shipment.PartyRef{{OrganisationID: "acme"}},
		Carriers:  []annex7.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
		CompetentAuthorities: shipment.CompetentAuthorities{
			Dispatch: shipment.PartyRef{OrganisationID: "auth-de"}, Destination: shipment.PartyRef{OrganisationID: "auth-nl"}},
		WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}},
		UsualDescription:     "PET flakes",
		RecoveryCode:         "R3",
		ActualQuantity:       shipment.Quantity{Tonnes: &shipment.Decimal{Units: 20}},
		ActualDateOfShipment: "2026-12-04",
	}
}

func dir(id string) (string, bool) {
	switch id {
	case "acme", "recyc", "truck":
		return "company", true
	case "auth-de", "auth-nl":
		return "authority", true
	}
	return "", false
}

func codes(errs []shipment.BusinessError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Code+" "+e.Field)
	}
	return out
}

func TestCheck(t *testing.T) {
	on := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		mutate func(c *annex7.Content)
		on     time.Time
		want   []string
	}{
		{"valid", func(*annex7.Content) {}, on, nil},
		{"hazardous Basel code", func(c *annex7.Content) {
			c.WasteClassifications[0] = shipment.WasteClassification{List: "BASEL_ANNEX_VIII", Code: "A1010"}
		}, on, []string{"WASTE_NOT_GREEN_LISTED annex7.wasteClassifications[0]"}},
		{"hazardous EU entry", func(c *annex7.Content) {
			c.WasteClassifications[0] = shipment.WasteClassification{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}
		}, on, []string{"WASTE_NOT_GREEN_LISTED annex7.wasteClassifications[0]"}},
		{"B3011 before it entered into force", func(*annex7.Content) {}, time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC),
			[]string{"WASTE_CLASSIFICATION_INVALID_CODE annex7.wasteClassifications[0]"}},
		{"B3010 after its deletion", func(c *annex7.Content) { c.WasteClassifications[0].Code = "B3010" }, on,
			[]string{"WASTE_CLASSIFICATION_INVALID_CODE annex7.wasteClassifications[0]"}},
		{"disposal", func(c *annex7.Content) { c.RecoveryCode = "D10" }, on, []string{"RECOVERY_DISPOSAL_CODE_INVALID annex7.recoveryCode"}},
		{"no carrier", func(c *annex7.Content) { c.Carriers = nil }, on, []string{"REQUIRED_FIELD_MISSING annex7.carriers"}},
		{"bad means of transport", func(c *annex7.Content) { c.Carriers[0].MeansOfTransport = "PIPELINE" }, on,
			[]string{"REQUIRED_FIELD_MISSING annex7.carriers[0].meansOfTransport"}},
		{"unknown consignee", func(c *annex7.Content) { c.Consignee.OrganisationID = "nobody" }, on, []string{"PARTY_UNKNOWN annex7.consignee.organisationId"}},
		{"bad date", func(c *annex7.Content) { c.ActualDateOfShipment = "4.12.2026" }, on, []string{"DATE_OUT_OF_RANGE annex7.actualDateOfShipment"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := content()
			tc.mutate(&c)
			if got := codes(annex7.Check(&c, dir, true, tc.on)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// A draft may be incomplete; what it has must be right.
	if got := codes(annex7.Check(&annex7.Content{RecoveryCode: "D1"}, dir, false, on)); !slices.Equal(got, []string{"RECOVERY_DISPOSAL_CODE_INVALID annex7.recoveryCode"}) {
		t.Fatalf("draft: %v", got)
	}
}

func TestPriorNotice(t *testing.T) {
	de := calendar.Place{Country: "DE", Region: "BY"}
	c := content()
	for _, tc := range []struct {
		now  time.Time
		date string
		ok   bool
	}{
		{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), "2026-12-03", true}, // Tue -> Thu
		{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), "2026-12-02", false},
		{time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC), "2026-12-07", false}, // Fri -> Mon is one working day
		{time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC), "2026-12-08", true},
		{time.Date(2026, 12, 23, 9, 0, 0, 0, time.UTC), "2026-12-24", false}, // Christmas and a Sunday in between
		{time.Date(2026, 12, 23, 9, 0, 0, 0, time.UTC), "2026-12-27", false},
		{time.Date(2026, 12, 23, 9, 0, 0, 0, time.UTC), "2026-12-28", true},
	} {
		c.ActualDateOfShipment = tc.date
		if errs := annex7.PriorNotice(&c, de, tc.now, annex7.PriorInformationDays); (len(errs) == 0) != tc.ok {
			t.Errorf("announced %s for %s: %v", tc.now.Format(time.DateOnly), tc.date, errs)
		}
	}
	// A provider's period (Art. 18(5)'s two working days unless it set
	// another): three working days from Tuesday is Friday, and the refusal
	// names the setting beside the law; the law's own refusal names the law
	// alone.
	tue := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	c.ActualDateOfShipment = "2026-12-03"
	errs := annex7.PriorNotice(&c, de, tue, 3)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "at least 3 working days") ||
		!strings.Contains(errs[0].Message, "this provider's setting annex7PriorInformationWorkingDays: 3; Art. 18(5) Regulation (EU) 2024/1157: 2") ||
		!strings.Contains(errs[0].Message, "2026-12-04 is the earliest") {
		t.Fatalf("three working days, Thursday: %v", errs)
	}
	c.ActualDateOfShipment = "2026-12-04"
	if errs := annex7.PriorNotice(&c, de, tue, 3); errs != nil {
		t.Fatalf("three working days, Friday: %v", errs)
	}
	c.ActualDateOfShipment = "2026-12-02"
	if errs := annex7.PriorNotice(&c, de, tue, 2); len(errs) != 1 || !strings.Contains(errs[0].Message, "(Art. 18(5) Regulation (EU) 2024/1157)") {
		t.Fatalf("the law's period names the law: %v", errs)
	}
	c.ActualDateOfShipment = "2026-12-01"
	if errs := annex7.PriorNotice(&c, de, tue, 0); errs != nil {
		t.Fatalf("a period of 0: the same day: %v", errs)
	}
}

func TestPastDate(t *testing.T) {
	nl := calendar.Place{Country: "NL"}
	late := time.Date(2026, 12, 4, 23, 30, 0, 0, time.UTC) // already the 5th in the Netherlands
	for _, tc := range []struct {
		date, notBefore, want string
	}{
		{"2026-12-05", "", ""},
		{"2026-12-06", "", "DATE_OUT_OF_RANGE"},
		{"2026-12-01", "2026-12-02", "DATE_OUT_OF_RANGE"},
		{"", "", "REQUIRED_FIELD_MISSING"},
		{"05.12.2026", "", "DATE_OUT_OF_RANGE"},
	} {
		errs := shipment.PastDate("f", tc.date, nl, late, tc.notBefore, "the start")
		if got := ""; len(errs) > 0 {
			got = errs[0].Code
			if got != tc.want {
				t.Errorf("%q: %v, want %s", tc.date, errs, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%q accepted, want %s", tc.date, tc.want)
		}
	}
}

func TestCompletionCertificateDue(t *testing.T) {
	d := &annex7.Annex7{}
	if d.CompletionCertificateDue() != "" {
		t.Fatal("due without a receipt")
	}
	d.FacilityCertificate = annex7.ReceiptCertificate{ReceivedOn: "2026-12-04"}.Record(time.Now())
	if got := d.CompletionCertificateDue(); got != "2027-12-04" {
		t.Fatalf("a year after receipt: %s", got)
	}
	d.CertificateOfCompletion = annex7.CertificateOfCompletion{CompletedOn: "2027-01-10"}.Record(time.Now())
	if got := d.CompletionCertificateDue(); got != "2027-02-09" {
		t.Fatalf("30 days after completion: %s", got)
	}
	d.CertificateOfCompletion.CompletedOn = "2027-11-30"
	if got := d.CompletionCertificateDue(); got != "2027-12-04" {
		t.Fatalf("never beyond a year after receipt: %s", got)
	}
}

func TestLastHandOverAndTakeBack(t *testing.T) {
	d := &annex7.Annex7{Content: content()}
	if d.LastHandOver() != "2026-12-04" {
		t.Fatalf("first hand-over: %s", d.LastHandOver())
	}
	d.CarrierTransfers = append(d.CarrierTransfers, annex7.CarrierTransfer{CarrierOrganisationID: "truck", TransferDate: "2026-12-06"}.Record(time.Now()))
	if d.LastHandOver() != "2026-12-06" || !d.HasTransferred("truck") || d.HasTransferred("ship") {
		t.Fatalf("after a transfer: %s", d.LastHandOver())
	}
	if d.OpenTakeBack() != nil {
		t.Fatal("open take-back without one")
	}
	d.TakeBacks = []annex7.TakeBackRecord{{Reason: "x", CompletedBy: "a7_1"}, {Reason: "y"}}
	if tb := d.OpenTakeBack(); tb == nil || tb.Reason != "y" {
		t.Fatalf("open take-back: %v", tb)
	}
}

func TestParties(t *testing.T) {
	c := content()
	var got []string
	for _, p := range annex7.Parties(&c) {
		got = append(got, p.OrganisationID+":"+p.Role)
	}
	want := []string{"acme:ARRANGER", "recyc:CONSIGNEE", "recyc:FACILITY", "acme:PRODUCER", "truck:CARRIER", "auth-de:AUTHORITY_DISPATCH", "auth-nl:AUTHORITY_DESTINATION"}
	if !slices.Equal(got, want) {
		t.Fatalf("parties %v, want %v", got, want)
	}
}

// The operation completed is the one announced, as a movement's is one of
// the notified.
func TestCompletionIsTheAnnouncedOperation(t *testing.T) {
	d := &annex7.Annex7{Content: content(), FacilityCertificate: &annex7.CertificateRecord{ReceivedOn: "2026-12-04"}}
	nl, now := calendar.Place{Country: "NL"}, time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	for code, want := range map[string][]string{
		"":   nil, // the announced one by default
		"R3": nil,
		"R4": {"RECOVERY_DISPOSAL_CODE_INVALID certificateOfCompletion.recoveryCode"},
		"D1": {"RECOVERY_DISPOSAL_CODE_INVALID certificateOfCompletion.recoveryCode"},
	} {
		in := &annex7.CertificateOfCompletion{CompletedOn: "2026-12-07", RecoveryCode: code}
		if got := codes(annex7.CheckCompletion(in, d, nl, now)); !slices.Equal(got, want) {
			t.Errorf("completion with %q: %v, want %v", code, got, want)
		}
	}
}
