package notification_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

func codes(berrs []n.BusinessError) []string {
	var out []string
	for _, b := range berrs {
		out = append(out, b.Code)
	}
	return out
}

// shipped is a movement as its notification counts it.
type shipped struct{ tonnes int64 }

func (s shipped) Shipment() (int32, string, shipment.Quantity) {
	return 1, "2027-02-01", shipment.Quantity{Tonnes: &n.Decimal{Units: s.tonnes}}
}

func (s shipped) Quantity() shipment.Quantity { _, _, q := s.Shipment(); return q }

func TestArticle15NeedsCompletedMovements(t *testing.T) {
	in := &n.FacilityCompletionArticle15{CompletedOn: "2027-03-01", OperationCode: "R4"}
	c := complete()
	done := n.MovementsDone{Completed: 2, LastCompletedOn: "2027-02-20"}
	if berrs := n.CheckArticle15(in, &c, "2027-03-02", done); berrs != nil {
		t.Fatalf("completed movements, a date after the last: %v", berrs)
	}
	for _, tc := range []struct {
		name        string
		completedOn string
		done        n.MovementsDone
		want        []string
	}{
		{"no movement at all", "2027-03-01", n.MovementsDone{}, []string{n.ErrNoMovementCompleted}},
		{"every movement taken back", "2027-03-01", n.MovementsDone{Completed: 0}, []string{n.ErrNoMovementCompleted}},
		{"one still under way", "2027-03-01", n.MovementsDone{Completed: 1, LastCompletedOn: "2027-02-01", Open: []string{"M002 (IN_TRANSIT)"}}, []string{n.ErrMovementsOpen}},
		{"before the last movement's completion", "2027-02-19", done, []string{shipment.ErrDateOutOfRange}},
		{"in the future", "2027-03-03", done, []string{shipment.ErrDateOutOfRange}},
	} {
		in := &n.FacilityCompletionArticle15{CompletedOn: tc.completedOn, OperationCode: "R4"}
		if got := codes(n.CheckArticle15(in, &c, "2027-03-02", tc.done)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestShipmentLeft(t *testing.T) {
	c := complete() // 5 shipments, 100 tonnes
	if ok, why := n.ShipmentLeft(&c, n.TallyOf(shipped{60}, shipped{30})); !ok || why != "" {
		t.Fatalf("two of five shipments, 90 of 100 tonnes: %v %q", ok, why)
	}
	if ok, why := n.ShipmentLeft(&c, n.TallyOf(shipped{60}, shipped{40})); ok || !strings.Contains(why, n.ErrQuantityExceeded) {
		t.Fatalf("the quantity used up: %v %q", ok, why)
	}
	c.NumberOfShipments = 2
	if ok, why := n.ShipmentLeft(&c, n.TallyOf(shipped{10}, shipped{10})); ok || !strings.Contains(why, "all 2 notified shipments") {
		t.Fatalf("every shipment made: %v %q", ok, why)
	}
}

func TestDecisionsOnceAndNotWhileACorrectionWaits(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	d := &n.Notification{Content: complete()}
	if ok, _ := d.MayDecide("auth-de"); !ok {
		t.Fatal("an undecided authority may decide")
	}
	d.ApplyDecision("auth-de", n.RoleAuthorityDispatch, n.Decision{Type: n.DecisionConsent}, false, at)
	if ok, why := d.MayDecide("auth-de"); ok || !strings.Contains(why, "auth-de has decided already: CONSENT on 2026-12-03") {
		t.Fatalf("a second decision: %v %q", ok, why)
	}
	d.ApplyCorrection(complete(), n.Acknowledged, at)
	if ok, why := d.MayDecide("auth-nl"); ok || !strings.Contains(why, "awaits the acknowledgement") {
		t.Fatalf("while a correction waits: %v %q", ok, why)
	}
	d.ApplyAcknowledgement("auth-nl", n.Acknowledgement{}, at)
	if ok, _ := d.MayDecide("auth-de"); !ok {
		t.Fatal("the accepted correction restarts the decisions")
	}
}

func TestCancellationAndRevalidation(t *testing.T) {
	if got := codes(n.CheckCancellation(&n.NotificationSignal{Type: n.SignalCancellationOfConsent, Reason: "  "})); !slices.Equal(got, []string{n.ErrRequiredMissing}) {
		t.Fatalf("a cancellation without grounds: %v", got)
	}
	if berrs := n.CheckCancellation(&n.NotificationSignal{Type: n.SignalCancellationOfConsent, Reason: "Art. 13: false information"}); berrs != nil {
		t.Fatalf("with grounds: %v", berrs)
	}
	for until, want := range map[string][]string{"2027-06-01": {n.ErrConsentValidity}, "2027-06-30": {n.ErrConsentValidity}, "2027-07-01": nil} {
		if got := codes(n.CheckRevalidation("notificationSignal.validUntil", until, "2027-06-30")); !slices.Equal(got, want) {
			t.Errorf("revalidation to %s of a consent until 2027-06-30: %v, want %v", until, got, want)
		}
	}
	d := &n.Notification{Content: complete()}
	d.ApplyDecision("auth-de", n.RoleAuthorityDispatch, n.Decision{Type: n.DecisionConsent}, true, time.Now())
	if !d.HasConsented("auth-de") || d.HasConsented("auth-nl") {
		t.Fatal("consenting authorities")
	}
}

func TestACorrectionCorrectsSomething(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	d := &n.Notification{Content: complete()}
	if got := codes(n.CheckCorrection(d, ptr(complete()))); !slices.Equal(got, []string{n.ErrChangeEmpty}) {
		t.Fatalf("the content filed again: %v", got)
	}
	c := complete()
	c.NumberOfShipments = 7
	if berrs := n.CheckCorrection(d, &c); berrs != nil {
		t.Fatalf("a real correction: %v", berrs)
	}
	d.ApplyCorrection(c, n.Acknowledged, at)
	if got := codes(n.CheckCorrection(d, &c)); !slices.Equal(got, []string{n.ErrChangeEmpty}) {
		t.Fatalf("the pending correction again: %v", got)
	}
}

func TestExtendsShipmentPeriod(t *testing.T) {
	at := time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)
	c := complete()
	c.CompetentAuthorities.Transit = nil
	c.ShipmentPeriod = n.ShipmentPeriod{FirstDeparture: "2027-01-10", LastDeparture: "2027-06-30"}
	d := &n.Notification{Content: c}
	d.ApplyDecision("auth-de", n.RoleAuthorityDispatch, n.Decision{Type: n.DecisionConsent, ValidUntil: "2027-09-30", ExtendsShipmentPeriod: true}, false, at)
	if d.ApplyDecision("auth-nl", n.RoleAuthorityDestination, n.Decision{Type: n.DecisionConsent}, false, at) != true ||
		d.ConsentValidUntil != "2027-09-30" || d.Content.ShipmentPeriod.LastDeparture != "2027-09-30" {
		t.Fatalf("consent until %s, period until %s", d.ConsentValidUntil, d.Content.ShipmentPeriod.LastDeparture)
	}
	if !d.ApplySignal("auth-de", n.NotificationSignal{Type: n.SignalRevalidation, ValidUntil: "2027-12-31", ExtendsShipmentPeriod: true}, at) ||
		d.Content.ShipmentPeriod.LastDeparture != "2027-12-31" {
		t.Fatalf("revalidated: period until %s", d.Content.ShipmentPeriod.LastDeparture)
	}
	// Without the extension the period stays.
	plain := &n.Notification{Content: c}
	plain.ApplyDecision("auth-de", n.RoleAuthorityDispatch, n.Decision{Type: n.DecisionConsent}, false, at)
	if plain.ApplyDecision("auth-nl", n.RoleAuthorityDestination, n.Decision{Type: n.DecisionConsent}, false, at) ||
		plain.Content.ShipmentPeriod.LastDeparture != "2027-06-30" || plain.ConsentValidUntil != "2027-06-30" {
		t.Fatalf("unextended: consent %s, period %s", plain.ConsentValidUntil, plain.Content.ShipmentPeriod.LastDeparture)
	}
}

// Issue 46.1, the correction order: a correction filed while a request
// for information took the notification from ACKNOWLEDGED is pending; the
// reply returns it to SUBMITTED, where a second correction replaces the
// content at once. The acknowledgement then must not apply the older,
// pending one over it (it applied 90 t over the 80 t filed last).
func TestALaterCorrectionSupersedesAPendingOne(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	d := &n.Notification{Content: complete()}
	first, second := complete(), complete()
	first.NumberOfShipments, second.NumberOfShipments = 7, 8
	d.ApplyCorrection(first, n.Acknowledged, at)
	if d.PendingCorrection() == nil {
		t.Fatal("a correction after the acknowledgement waits for the next one")
	}
	if no := d.ApplyCorrection(second, n.Submitted, at.Add(time.Hour)); no != 1 {
		t.Fatalf("the correction filed in SUBMITTED says it superseded correction %d, want 1", no)
	}
	if pc := d.PendingCorrection(); pc != nil {
		t.Fatalf("the correction filed in SUBMITTED left the older one pending (%d shipments)", pc.Content.NumberOfShipments)
	}
	if d.ApplyAcknowledgement("auth-nl", n.Acknowledgement{}, at.Add(2*time.Hour)) || d.Content.NumberOfShipments != 8 {
		t.Fatalf("after the acknowledgement: %d shipments, the latest correction said 8", d.Content.NumberOfShipments)
	}
	if len(d.Corrections) != 1 || d.Corrections[0].AcceptedAt != nil || d.Corrections[0].SupersededAt == nil || !d.Corrections[0].SupersededAt.Equal(at.Add(time.Hour)) {
		t.Fatalf("the older correction's record (never accepted, superseded at the second's time): %+v", d.Corrections)
	}
	// A correction after the acknowledgement supersedes a pending one too,
	// and only a pending one.
	third := complete()
	third.NumberOfShipments = 9
	if no := d.ApplyCorrection(third, n.Acknowledged, at.Add(3*time.Hour)); no != 0 {
		t.Fatalf("nothing was pending, yet correction %d was superseded", no)
	}
	fourth := complete()
	fourth.NumberOfShipments = 10
	if no := d.ApplyCorrection(fourth, n.Acknowledged, at.Add(4*time.Hour)); no != 2 || d.PendingCorrection().Content.NumberOfShipments != 10 {
		t.Fatalf("the fourth correction superseded %d, pending %+v", no, d.PendingCorrection())
	}
}
