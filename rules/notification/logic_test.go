package notification_test

import (
	"slices"
	"testing"
	"time"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

func complete() n.Content {
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	return n.Content{
		Notifier: ref("acme"), Consignee: ref("recyc"), Facility: n.Facility{OrganisationID: "recyc"},
		Producers: []shipment.PartyRef{ref("acme")}, Carriers: []shipment.PartyRef{ref("truck")},
		CompetentAuthorities:  shipment.CompetentAuthorities{Dispatch: ref("auth-de"), Destination: ref("auth-nl")},
		WasteClassifications:  []shipment.WasteClassification{{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}},
		RecoveryDisposalCodes: []string{"R4"},
		TotalQuantity:         shipment.Quantity{Tonnes: &n.Decimal{Units: 100}},
		NumberOfShipments:     5,
		ShipmentPeriod:        n.ShipmentPeriod{FirstDeparture: "2027-01-10", LastDeparture: "2027-12-20"},
		PackagingTypes:        []string{"DRUM"},
	}
}

func dir(id string) (string, bool) {
	if len(id) > 5 && id[:5] == "auth-" {
		return "authority", true
	}
	return "company", true
}

func fields(berrs []n.BusinessError, code string) []string {
	var out []string
	for _, b := range berrs {
		if b.Code == code {
			out = append(out, b.Field)
		}
	}
	return out
}

func TestSubmissionNeedsWhatEveryMovementDeclares(t *testing.T) {
	on := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if berrs := n.ValidateSubmission(ptr(complete()), dir, on); len(berrs) != 0 {
		t.Fatalf("a complete notification: %v", berrs)
	}
	for _, tc := range []struct {
		name  string
		edit  func(c *n.Content)
		field string
	}{
		{"no packaging types", func(c *n.Content) { c.PackagingTypes = nil }, "notification.packagingTypes"},
		{"no carriers", func(c *n.Content) { c.Carriers = nil }, "notification.carriers"},
	} {
		c := complete()
		tc.edit(&c)
		if got := fields(n.ValidateSubmission(&c, dir, on), n.ErrRequiredMissing); !slices.Equal(got, []string{tc.field}) {
			t.Errorf("%s: %s at %v, want %s", tc.name, n.ErrRequiredMissing, got, tc.field)
		}
		if berrs := n.ValidateDraft(&c, dir, on); len(berrs) != 0 {
			t.Errorf("%s: a draft may lack it, got %v", tc.name, berrs)
		}
	}
}

func TestConsentNeverLeavesTermsUnderWhichNothingShips(t *testing.T) {
	if berrs := n.CheckShippable("decision", ptr(complete()), ""); berrs != nil {
		t.Fatalf("complete terms without an end: %v", berrs)
	}
	if berrs := n.CheckShippable("decision", ptr(complete()), "2027-01-10"); berrs != nil {
		t.Fatalf("a consent ending on the first day of the period still allows one: %v", berrs)
	}
	for _, tc := range []struct {
		name       string
		edit       func(c *n.Content)
		validUntil string
	}{
		{"no packaging types", func(c *n.Content) { c.PackagingTypes = nil }, ""},
		{"no carriers", func(c *n.Content) { c.Carriers = nil }, ""},
		{"no shipments", func(c *n.Content) { c.NumberOfShipments = 0 }, ""},
		{"no quantity", func(c *n.Content) { c.TotalQuantity = shipment.Quantity{} }, ""},
		{"validity ends before the period begins", func(c *n.Content) {}, "2027-01-09"},
	} {
		c := complete()
		tc.edit(&c)
		berrs := n.CheckShippable("decision", &c, tc.validUntil)
		if len(berrs) != 1 || berrs[0].Code != n.ErrNoShipmentPossible || berrs[0].Field != "decision" {
			t.Errorf("%s: %v", tc.name, berrs)
		}
	}
}

func ptr[T any](v T) *T { return &v }
