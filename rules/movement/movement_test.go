package movement_test

import (
	"slices"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/calendar"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

func tonnes(u int64) shipment.Quantity { return shipment.Quantity{Tonnes: &shipment.Decimal{Units: u}} }

func notified() *n.Notification {
	return &n.Notification{
		Content: n.Content{
			Notifier: n.PartyRef{OrganisationID: "acme"}, Consignee: n.PartyRef{OrganisationID: "recyc"},
			Facility: n.Facility{OrganisationID: "recyc"}, Carriers: []n.PartyRef{{OrganisationID: "truck"}},
			CompetentAuthorities:  n.CompetentAuthorities{Dispatch: n.PartyRef{OrganisationID: "de"}, Destination: n.PartyRef{OrganisationID: "nl"}},
			RecoveryDisposalCodes: []string{"R4"}, TotalQuantity: tonnes(100), NumberOfShipments: 2,
			ShipmentPeriod: n.ShipmentPeriod{FirstDeparture: "2026-12-01", LastDeparture: "2027-06-30"}, PackagingTypes: []string{"DRUM"},
		},
		ConsentValidUntil: "2027-05-31",
		Guarantees: []n.GuaranteeRecord{{Guarantee: n.Guarantee{Kind: n.GuaranteeFinancial, Amount: n.Decimal{Units: 50000}, Currency: "EUR",
			Guarantor: "Bank", Reference: "G-1", ValidFrom: "2026-11-01", ValidUntil: "2027-03-31"}, ApprovedBy: "de", ApprovedAt: &approved}},
	}
}

var approved = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func tmpl(date string, t int64) m.Template {
	return m.Template{ActualDateOfShipment: date, ActualQuantity: tonnes(t), PackagingTypes: []string{"DRUM"},
		Carriers: []m.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}}}
}

func codes(errs []shipment.BusinessError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Code)
	}
	return out
}

func TestCheckTemplate(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // Tuesday
	one := &m.Movement{Template: tmpl("2026-12-07", 60)}
	one.Template.SequenceNumber = 1
	under := func(others ...*m.Movement) m.Under {
		var summaries []m.Summary
		for _, o := range others {
			summaries = append(summaries, o.Summary())
		}
		return m.Under{Notification: notified(), Others: n.TallyOf(summaries...), Notifier: calendar.Place{Country: "DE", Region: "BY"}, Now: now, Create: true,
			Dir: func(string) (string, bool) { return "company", true }}
	}
	for _, tc := range []struct {
		name   string
		t      m.Template
		others []*m.Movement
		want   []string
	}{
		{"first", tmpl("2026-12-03", 100), nil, nil},
		{"the rest of the quantity", tmpl("2026-12-03", 40), []*m.Movement{one}, nil},
		{"over the total", tmpl("2026-12-03", 41), []*m.Movement{one}, []string{n.ErrQuantityExceeded}},
		{"all shipments made", tmpl("2026-12-03", 1), []*m.Movement{one, one}, []string{n.ErrShipmentCount, n.ErrQuantityExceeded}},
		{"another unit", m.Template{ActualDateOfShipment: "2026-12-03", Carriers: tmpl("", 0).Carriers, ActualQuantity: shipment.Quantity{CubicMetres: &shipment.Decimal{Units: 1}}}, nil, []string{n.ErrQuantity}},
		{"too soon", tmpl("2026-12-02", 1), nil, []string{n.ErrPriorNotice}},
		{"after the consent", tmpl("2027-06-01", 1), nil, []string{n.ErrConsentNotValid}},
		{"after the period", tmpl("2027-07-01", 1), nil, []string{n.ErrConsentNotValid}},
		{"not a notified carrier", func() m.Template { x := tmpl("2026-12-03", 1); x.Carriers[0].OrganisationID = "ship"; return x }(), nil, []string{n.ErrPartyUnknown}},
		{"not notified packaging", func() m.Template { x := tmpl("2026-12-03", 1); x.PackagingTypes = []string{"BAG"}; return x }(), nil, []string{n.ErrPackagingType}},
		{"sequence taken", func() m.Template { x := tmpl("2026-12-03", 1); x.SequenceNumber = 1; return x }(), []*m.Movement{one}, []string{m.ErrSequenceNumber}},
		{"after the guarantee", tmpl("2027-04-01", 1), nil, []string{n.ErrGuaranteeNotValid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tt := tc.t
			if got := codes(m.CheckTemplate(&tt, under(tc.others...))); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// The next free sequence number is assigned.
	x := tmpl("2026-12-03", 1)
	m.CheckTemplate(&x, under(one))
	if x.SequenceNumber != 2 {
		t.Fatalf("assigned sequence %d", x.SequenceNumber)
	}
	// A change keeps an old date without a new prior notice.
	u := under(one)
	u.Create, u.PreviousDate, u.Now = false, "2026-12-03", time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	late := tmpl("2026-12-03", 10)
	if got := codes(m.CheckTemplate(&late, u)); len(got) != 0 {
		t.Fatalf("a change that keeps the date: %v", got)
	}
}

func TestDeadlineDates(t *testing.T) {
	d := &m.Movement{}
	if d.CompletionCertificateDue() != "" || d.TakeBackDue() != "" {
		t.Fatal("dates without their events")
	}
	d.Facility = &m.ReceptionRecord{ReceivedOn: "2026-12-08"}
	if got := d.CompletionCertificateDue(); got != "2027-12-08" {
		t.Fatalf("a year after receipt: %s", got)
	}
	d.Completion = &m.CompletionRecord{CompletedOn: "2027-01-05"}
	if got := d.CompletionCertificateDue(); got != "2027-02-04" {
		t.Fatalf("30 days after completion: %s", got)
	}
	d.Facility.Rejected = true
	if d.CompletionCertificateDue() != "" {
		t.Fatal("a rejected shipment has no completion certificate due")
	}
	d.TakeBack = &m.TakeBackRecord{At: time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)}
	if got := d.TakeBackDue(); got != "2027-03-08" {
		t.Fatalf("90 days: %s", got)
	}
	d.TakeBack.DueOn = "2027-01-31"
	if got := d.TakeBackDue(); got != "2027-01-31" {
		t.Fatalf("agreed date: %s", got)
	}
}

func TestPartiesAndCompletion(t *testing.T) {
	d := &m.Movement{Template: tmpl("2026-12-07", 1)}
	d.Snapshot("ntf_1", notified())
	var got []string
	for _, p := range d.Parties() {
		got = append(got, p.OrganisationID+":"+p.Role)
	}
	want := []string{"acme:NOTIFIER", "recyc:CONSIGNEE", "recyc:FACILITY", "de:AUTHORITY_DISPATCH", "nl:AUTHORITY_DESTINATION", "truck:CARRIER"}
	if !slices.Equal(got, want) {
		t.Fatalf("parties %v, want %v", got, want)
	}
	d.Facility = &m.ReceptionRecord{ReceivedOn: "2026-12-08"}
	now := time.Date(2026, 12, 9, 9, 0, 0, 0, time.UTC)
	nl := calendar.Place{Country: "NL"}
	if errs := m.CheckCompletion(&m.FacilityCompletion{CompletedOn: "2026-12-09", OperationCode: "R4"}, d, nl, now); len(errs) != 0 {
		t.Fatalf("valid completion: %v", errs)
	}
	errs := m.CheckCompletion(&m.FacilityCompletion{CompletedOn: "2026-12-07", OperationCode: "R5"}, d, nl, now)
	if got := codes(errs); !slices.Equal(got, []string{shipment.ErrDateOutOfRange, n.ErrOperationCode}) {
		t.Fatalf("before receipt, not notified: %v", got)
	}
}
