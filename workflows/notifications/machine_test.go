package notifications

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// sampleInput is a valid block for each intent.
func sampleInput(intent string, r *rand.Rand) any {
	switch intent {
	case IntentSubmission, IntentCorrection:
		c := sampleContent()
		return &c
	case IntentAcknowledgement:
		return &n.Acknowledgement{}
	case IntentRequestInformation:
		return &n.RequestInformation{Questions: []string{"q"}}
	case IntentReplyToRequestInfo:
		return &n.ReplyToRequestInformation{Answers: []string{"a"}, Complete: r.IntN(2) == 0}
	case IntentDecision:
		return &n.Decision{Type: []n.DecisionType{n.DecisionConsent, n.DecisionObjection}[r.IntN(2)], Grounds: "g"}
	case IntentRequestForChange:
		c := sampleContent()
		c.NumberOfShipments++
		return &n.RequestForChange{Proposed: c}
	case IntentReplyToChange:
		return &n.ReplyToRequestForChange{Result: []n.ChangeResult{n.ChangeAccepted, n.ChangeRejected}[r.IntN(2)], Grounds: "g"}
	case IntentNotificationSignal:
		return &n.NotificationSignal{Type: n.SignalType(1 + r.IntN(3)), ValidUntil: "2028-01-01"}
	case IntentArticle15:
		return &n.FacilityCompletionArticle15{CompletedOn: "2027-02-01", OperationCode: "R4"}
	case IntentWithdrawal:
		return &n.Withdrawal{Reason: "misspelt"}
	case IntentGuarantee:
		return &n.Guarantee{Kind: n.GuaranteeFinancial, Amount: n.Decimal{Units: 1000}, Currency: "EUR", Guarantor: "Bank", ValidFrom: "2027-01-01", ValidUntil: "2027-12-31"}
	case IntentGuaranteeApproval:
		return &n.GuaranteeApproval{}
	}
	return nil
}

func sampleContent() n.Content {
	return n.Content{
		Notifier: n.PartyRef{OrganisationID: "acme"}, Consignee: n.PartyRef{OrganisationID: "recyc"},
		Facility: n.Facility{OrganisationID: "recyc"}, NumberOfShipments: 2, TotalQuantity: n.Quantity{Tonnes: &n.Decimal{Units: 10}},
		CompetentAuthorities: n.CompetentAuthorities{Dispatch: n.PartyRef{OrganisationID: "de"},
			Destination: n.PartyRef{OrganisationID: "nl"}, Transit: []n.PartyRef{{OrganisationID: "be"}}},
	}
}

// randomDocument builds a document in a random state with random history.
func randomDocument(r *rand.Rand, now time.Time) (string, *n.Notification, []engine.DeadlineView) {
	d := &n.Notification{Content: sampleContent()}
	d.Content.Facility.PreConsented = r.IntN(2) == 0
	def := declaration.Build()
	state := def.States[r.IntN(len(def.States))]
	auths := []string{"de", "nl", "be"}
	for _, a := range auths {
		if r.IntN(3) == 0 {
			d.Decisions = append(d.Decisions, n.DecisionRecord{Authority: a, Type: n.DecisionConsent})
		}
	}
	if r.IntN(3) == 0 {
		d.Corrections = append(d.Corrections, n.CorrectionRecord{Pending: true, Content: sampleContent()})
	}
	if state == n.InformationRequested || r.IntN(4) == 0 {
		d.InformationRequests = append(d.InformationRequests, n.InformationRequestRecord{Open: true, ReturnState: n.Acknowledged})
	}
	if r.IntN(3) == 0 { // a guarantee awaiting approval
		d.Guarantees = append(d.Guarantees, n.GuaranteeRecord{Guarantee: n.Guarantee{Kind: n.GuaranteeInsurance, ValidFrom: "2027-01-01", ValidUntil: "2027-06-30"}})
	}
	if state == n.ChangeRequested || r.IntN(4) == 0 {
		cr := n.ChangeRequestRecord{Open: true}
		if r.IntN(2) == 0 {
			cr.Replies = append(cr.Replies, n.ChangeReply{Authority: auths[r.IntN(3)], Result: n.ChangeAccepted})
		}
		d.ChangeRequests = append(d.ChangeRequests, cr)
	}
	if r.IntN(2) == 0 {
		d.ConsentValidUntil = now.AddDate(0, 0, r.IntN(20)-10).Format(time.DateOnly)
	}
	var dls []engine.DeadlineView
	for _, a := range auths {
		dls = append(dls, engine.DeadlineView{Rule: "DECISION_DUE", PartyOrg: a, State: "OPEN", Open: true, DueAt: now.Add(time.Duration(r.IntN(20)-10) * 24 * time.Hour)})
	}
	return state, d, dls
}

// The property: for any document and caller, the follow-up intents are
// exactly the intents that Check admits, and each of them fires.
func TestFollowUpIntentsAreExactlyTheFireableOnes(t *testing.T) {
	m, err := engine.Build(declaration.Build())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	callers := []string{"acme", "recyc", "de", "nl", "be", "stranger"}
	fired := map[string]int{}
	for i := 0; i < 3000; i++ {
		now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
		state, data, dls := randomDocument(r, now)
		var c engine.Caller
		if r.IntN(8) == 0 {
			c = engine.Caller{Actor: engine.System, System: true}
		} else {
			org := callers[r.IntN(len(callers))]
			c = engine.Caller{Actor: "1", Org: org, Roles: NewKind().RolesOf(data, org)}
		}
		// Zero to two movements of 3 to 5 tonnes: some leave no shipment or quantity.
		var children []*engine.Related
		for range r.IntN(3) {
			q := n.Decimal{Units: 3 + int64(r.IntN(3))}
			children = append(children, &engine.Related{Kind: "MOVEMENT", State: movement.Submitted,
				Data: &movement.Movement{Template: movement.Template{ActualQuantity: n.Quantity{Tonnes: &q}}}})
		}
		var tally n.Tally // as the runner keeps it
		for _, ch := range children {
			tally.Add(ch.Data.(n.Shipped), 1)
		}
		ev := &engine.Eval{State: state, Data: data, Caller: c, Now: now, Deadlines: dls, Children: children, Tally: &tally}
		if c.System { // an automatic trigger names the party whose deadline ran out
			ev.Input = engine.Party{Org: "be", Role: n.RoleAuthorityTransit}
		}
		follow, err := m.FollowUp(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, in := range follow {
			listed[in.Name] = true
		}
		for _, in := range declaration.Build().Intents {
			err := m.Check(context.Background(), ev, in.Name)
			if listed[in.Name] != (err == nil) {
				t.Fatalf("state %s caller %+v: intent %s listed=%v but Check=%v", state, c, in.Name, listed[in.Name], err)
			}
			var np *engine.NotPermittedError
			if err != nil && !errors.As(err, &np) && !errors.Is(err, engine.ErrRole) {
				t.Fatalf("unexpected error %v", err)
			}
			if np != nil && declaration.Build().Refusals[np.Guard] != nil && np.Reason == "" {
				t.Fatalf("state %s: %s refused by guard %s without saying why", state, in.Name, np.Guard)
			}
		}
		for _, in := range follow {
			// Fire on a copy: each listed intent must fire to a declared state.
			_, copyData, _ := randomDocument(rand.New(rand.NewPCG(0, 0)), now)
			*copyData = cloneData(data)
			input := sampleInput(in.Name, r)
			if in.System {
				input = engine.Party{Org: "be", Role: n.RoleAuthorityTransit}
			}
			fe := &engine.Eval{State: state, Data: copyData, Caller: c, Now: now, Deadlines: dls, Input: input, Children: children, Tally: &tally}
			if in.Apply != nil {
				fe.Apply = func() error { return in.Apply(fe) }
			}
			if err := m.Fire(context.Background(), fe, in.Name); err != nil {
				t.Fatalf("listed intent %s from %s failed to fire: %v", in.Name, state, err)
			}
			if !slices.Contains(declaration.Build().States, fe.State) {
				t.Fatalf("%s led to undeclared state %s", in.Name, fe.State)
			}
			// A change request is closed, answered or carried forward
			// whenever the notification leaves CHANGE_REQUESTED: never
			// left open behind it (issue 46.1).
			if state == n.ChangeRequested && fe.State != n.ChangeRequested && copyData.OpenChangeRequest() != nil {
				t.Fatalf("%s left CHANGE_REQUESTED for %s with the change request still open", in.Name, fe.State)
			}
			if fe.State == n.ChangeRequested && copyData.OpenChangeRequest() == nil {
				t.Fatalf("%s led to CHANGE_REQUESTED without an open change request", in.Name)
			}
			fired[in.Name]++
		}
	}
	for _, in := range declaration.Build().Intents {
		if fired[in.Name] == 0 {
			t.Errorf("intent %s was never listed: the generator misses its states", in.Name)
		}
	}
}

func cloneData(d *n.Notification) n.Notification {
	c := *d
	c.Decisions = slices.Clone(d.Decisions)
	c.Corrections = slices.Clone(d.Corrections)
	c.InformationRequests = slices.Clone(d.InformationRequests)
	c.ChangeRequests = nil
	for _, cr := range d.ChangeRequests {
		cr.Replies = slices.Clone(cr.Replies)
		c.ChangeRequests = append(c.ChangeRequests, cr)
	}
	return c
}

// Each authority cancels its own consent: one with no consent recorded
// may not (403); one that consented states its grounds.
func TestCancellationIsByAConsentingAuthorityWithGrounds(t *testing.T) {
	var signal *engine.Intent
	for i := range declaration.Build().Intents {
		if declaration.Build().Intents[i].Name == IntentNotificationSignal {
			signal = &declaration.Build().Intents[i]
		}
	}
	d := &n.Notification{Content: sampleContent(), Decisions: []n.DecisionRecord{{Authority: "de", Type: n.DecisionConsent}, {Authority: "nl", Type: n.DecisionConsent}}}
	validate := func(org, reason string) ([]engine.BusinessError, error) {
		return signal.Validate(&engine.Eval{State: n.Consented, Data: d, Caller: engine.Caller{Org: org, Roles: NewKind().RolesOf(d, org)},
			Input: &n.NotificationSignal{Type: n.SignalCancellationOfConsent, Reason: reason}})
	}
	var se *status.Error
	if _, err := validate("be", "grounds"); !errors.As(err, &se) || se.Code != status.PermissionDenied {
		t.Fatalf("a cancellation by an authority without consent: %v", err)
	}
	if berrs, err := validate("de", ""); err != nil || len(berrs) != 1 || berrs[0].Field != "notificationSignal.reason" {
		t.Fatalf("a cancellation without grounds: %v %v", berrs, err)
	}
	if berrs, err := validate("de", "Art. 13(1)(b)"); err != nil || len(berrs) != 0 {
		t.Fatalf("a cancellation with grounds by a consenting authority: %v %v", berrs, err)
	}
}
