// Package movements declares the movement document (one shipment under a
// consented notification) as a child kind of the notification: its
// machine, deadline rules, party selectors, and per intent the block it
// takes, how it is checked and recorded. The runner (workflows/documents)
// executes it and locks the notification while it does, so the shipments
// and quantity stay within the notified totals; the rules are pure
// functions in rules/movement.
package movements

import (
	"errors"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/rules/labels"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Kind of the document.
const Kind = "MOVEMENT"

const (
	company   = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
	authority = "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/"
)

// Intents (public contract).
const (
	IntentCreate             = "CREATE"
	IntentTemplate           = "MOVEMENT_TEMPLATE"
	IntentAcknowledgement    = "ACKNOWLEDGEMENT"
	IntentCarrierTransport   = "CARRIER_TRANSPORT"
	IntentConsigneeReception = "CONSIGNEE_RECEPTION"
	IntentFacilityReception  = "FACILITY_RECEPTION"
	IntentFacilityCompletion = "FACILITY_COMPLETION"
	IntentSignal             = "MOVEMENT_SIGNAL"
	IntentTakeBack           = "MOVEMENT_TAKE_BACK"
	// A part the facility refused (our design).
	IntentPartArrangement = "REJECTED_PART_ARRANGEMENT"
	IntentPartResolution  = "REJECTED_PART_RESOLUTION"
)

const (
	ruleReceipt    = "RECEIPT_CERTIFICATE_DUE"
	ruleCompletion = "COMPLETION_CERTIFICATE_DUE"
	ruleTakeBack   = "TAKE_BACK_DUE"
	rulePart       = "REJECTED_PART_DUE"

	partyNotifier  = "NOTIFIER"
	partyConsignee = "CONSIGNEE"
	partyFacility  = "FACILITY"
)

var (
	authorities = []string{shipment.RoleAuthorityDispatch, shipment.RoleAuthorityDestination, shipment.RoleAuthorityTransit}
	nonFinal    = []string{m.Submitted, m.Acknowledged, m.InTransit, m.ReceivedByConsignee, m.ReceivedByFacility, m.Rejected, m.TakeBackOrdered}
)

type (
	on            = engine.On[m.Movement]          // what the kind's functions see
	intent[I any] = engine.IntentOf[m.Movement, I] // an intent taking a block of type I
)

// declaration is the movement machine (docs/reference/workflows.md is
// generated from it).
var declaration = &engine.Declaration[m.Movement]{
	Kind:    Kind,
	Labels:  words,
	States:  []string{m.Submitted, m.Acknowledged, m.InTransit, m.ReceivedByConsignee, m.ReceivedByFacility, m.Completed, m.Rejected, m.TakeBackOrdered, m.TakenBack},
	Initial: m.Submitted,
	Final:   []string{m.Completed, m.TakenBack},
	Create: intent[CreateInput]{Name: IntentCreate, Errors: templateErrors,
		Operation: company + "CreateMovementTemplate", Roles: []string{n.RoleNotifier},
		Summary: "announce one shipment under a consented notification (SUBMITTED)",
		Validate: func(ev *on, in *CreateInput) ([]engine.BusinessError, error) {
			u, err := under(ev, true, "")
			if err != nil {
				return nil, err
			}
			return m.CheckTemplate(&in.Template, u), nil
		},
		Apply: func(ev *on, in *CreateInput) error {
			d := ev.Doc
			d.Snapshot(ev.Parent.ID, notification(ev))
			d.Template, d.Metadata = in.Template, in.Metadata
			return nil
		}},
	Intents: []engine.Step[m.Movement]{
		intent[m.Template]{Name: IntentTemplate, Refreshes: true, Errors: append(slices.Clip(templateErrors), shipment.ErrChangeEmpty),
			Operation: company + "SetMovementTemplate", Block: "movementTemplate", Roles: []string{n.RoleNotifier},
			Summary: "change the template: before a carrier took the waste over, afterwards once per correction an authority requested",
			Transitions: []engine.Transition{
				{From: []string{m.Submitted}, To: m.Submitted, Guard: "underConsent"}, {From: []string{m.Acknowledged}, To: m.Acknowledged, Guard: "underConsent"},
				{From: []string{m.InTransit}, To: m.InTransit, Guard: "correctionOpen"},
				{From: []string{m.ReceivedByConsignee}, To: m.ReceivedByConsignee, Guard: "correctionOpen"},
				{From: []string{m.ReceivedByFacility}, To: m.ReceivedByFacility, Guard: "correctionOpen"},
			},
			Validate: func(ev *on, in *m.Template) ([]engine.BusinessError, error) {
				t, d := in, ev.Doc
				if t.SequenceNumber == 0 {
					t.SequenceNumber = d.Template.SequenceNumber
				}
				if t.SequenceNumber != d.Template.SequenceNumber {
					return []engine.BusinessError{{Code: m.ErrSequenceNumber, Field: "movementTemplate.sequenceNumber", Message: "the sequence number is fixed when the movement is created"}}, nil
				}
				u, err := under(ev, false, d.Template.ActualDateOfShipment)
				if err != nil {
					return nil, err
				}
				return append(m.CheckTemplate(t, u),
					shipment.NothingChanged("movementTemplate", "the template", &d.Template, t)...), nil
			},
			Apply: func(ev *on, in *m.Template) error {
				d := ev.Doc
				d.Corrections = append(d.Corrections, m.CorrectionRecord{At: ev.Now, Previous: d.Template})
				d.Template, d.CorrectionOpen = *in, false
				return nil
			}},
		intent[n.Acknowledgement]{Name: IntentAcknowledgement, Operation: authority + "SubmitAcknowledgement", Block: "acknowledgement", Roles: authorities,
			Summary:     "a concerned authority acknowledges the movement document",
			Transitions: []engine.Transition{{From: []string{m.Submitted}, To: m.Acknowledged}},
			Apply: func(ev *on, in *n.Acknowledgement) error {
				d := ev.Doc
				d.Acknowledgements = append(d.Acknowledgements, m.AcknowledgementRecord{AuthorityOrganisationID: ev.Caller.Org, Remarks: in.Remarks, At: ev.Now})
				return nil
			}},
		intent[m.CarrierTransport]{Name: IntentCarrierTransport, Errors: dateErrors,
			Operation: company + "SetCarrierTransport", Block: "carrierTransport", Roles: []string{shipment.RoleCarrier},
			Summary: "a carrier of the movement takes custody (each carrier once, in turn)",
			Transitions: []engine.Transition{
				// The first carrier starts the shipment: only under a consent in force.
				{From: []string{m.Submitted, m.Acknowledged}, To: m.InTransit, Guard: "startUnderConsent"},
				{From: []string{m.InTransit}, To: m.InTransit, Guard: "callerNoLeg"},
			},
			Validate: func(ev *on, in *m.CarrierTransport) ([]engine.BusinessError, error) {
				d := ev.Doc
				if in.CarrierOrganisationID == "" {
					in.CarrierOrganisationID = ev.Caller.Org
				}
				if in.CarrierOrganisationID != ev.Caller.Org {
					return nil, status.New(status.PermissionDenied, "a carrier records its own transport: carrierOrganisationId must be %q", ev.Caller.Org)
				}
				for _, c := range d.Template.Carriers {
					if c.OrganisationID == ev.Caller.Org && in.MeansOfTransport == "" {
						in.MeansOfTransport = c.MeansOfTransport
					}
				}
				return shipment.PastDate("carrierTransport.takenOverOn", in.TakenOverOn, ev.Place(ev.Caller.Org), ev.Now, d.LastHandOver(), "the shipment date or the previous leg"), nil
			},
			Apply: func(ev *on, in *m.CarrierTransport) error {
				d := ev.Doc
				d.Legs = append(d.Legs, m.LegRecord{CarrierOrganisationID: in.CarrierOrganisationID, MeansOfTransport: in.MeansOfTransport, VehicleID: in.VehicleID, TakenOverOn: in.TakenOverOn, At: ev.Now})
				return nil
			}},
		intent[m.ConsigneeReception]{Name: IntentConsigneeReception, Errors: slices.Concat(dateErrors, []string{shipment.ErrQuantity}),
			Operation: company + "SetConsigneeReception", Block: "consigneeReception", Roles: []string{shipment.RoleConsignee},
			Prefill: func(d *m.Movement, b *m.ConsigneeReception) { // what was recorded, or the quantity shipped
				if r := d.Consignee; r != nil {
					*b = m.ConsigneeReception{ReceivedOn: r.ReceivedOn, Quantity: r.Quantity}
				} else {
					b.Quantity = d.Template.ActualQuantity
				}
			},
			Summary:     "the consignee certifies receipt",
			Transitions: []engine.Transition{{From: []string{m.InTransit}, To: m.ReceivedByConsignee}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleReceipt, Party: partyConsignee, Since: "consigneeReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyConsignee},
			},
			Validate: func(ev *on, in *m.ConsigneeReception) ([]engine.BusinessError, error) {
				return receipt(ev, "consigneeReception", in.ReceivedOn, in.Quantity), nil
			},
			Apply: func(ev *on, in *m.ConsigneeReception) error {
				ev.Doc.Consignee = &m.ReceptionRecord{ReceivedOn: in.ReceivedOn, Quantity: in.Quantity, At: ev.Now}
				return nil
			}},
		intent[m.FacilityReception]{Name: IntentFacilityReception, Errors: slices.Concat(dateErrors, []string{shipment.ErrQuantity}),
			Operation: company + "SetFacilityReception", Block: "facilityReception", Roles: []string{shipment.RoleFacility},
			Prefill: func(d *m.Movement, b *m.FacilityReception) { // what was recorded, or the quantity shipped
				if r := d.Facility; r != nil {
					*b = m.FacilityReception{ReceivedOn: r.ReceivedOn, Quantity: r.Quantity, Rejected: r.Rejected, RejectedQuantity: r.RejectedQuantity, Reason: r.Reason}
				} else {
					b.Quantity = d.Template.ActualQuantity
				}
			},
			Summary:     "the facility certifies receipt (the completion certificate falls due), rejects the shipment (REJECTED), or accepts it but a part it refuses (our design: REJECTED_PART_DUE starts for that part)",
			Transitions: []engine.Transition{{From: []string{m.InTransit, m.ReceivedByConsignee}, Target: "facilityOutcome", Targets: []string{m.ReceivedByFacility, m.Rejected}}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleReceipt, Party: partyFacility, Since: "facilityReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyFacility},
				{Op: engine.Start, Rule: ruleCompletion, Since: "facilityReceivedOn", When: "!facilityRejected"},
				{Op: engine.Start, Rule: rulePart, When: "rejectedPartOpen"},
			},
			Validate: func(ev *on, in *m.FacilityReception) ([]engine.BusinessError, error) {
				if in.Rejected && strings.TrimSpace(in.Reason) == "" {
					return shipment.Missing("facilityReception.reason", "a rejection needs a reason"), nil
				}
				return append(receipt(ev, "facilityReception", in.ReceivedOn, in.Quantity), m.CheckPartialRejection(in)...), nil
			},
			Apply: func(ev *on, in *m.FacilityReception) error {
				d := ev.Doc
				d.Facility = &m.ReceptionRecord{ReceivedOn: in.ReceivedOn, Quantity: in.Quantity, Rejected: in.Rejected, Reason: in.Reason, At: ev.Now}
				if in.PartiallyRejected() {
					d.Facility.RejectedQuantity = in.RejectedQuantity
					d.RejectedPart = &m.RejectedPartRecord{Quantity: in.RejectedQuantity, Reason: in.Reason, RejectedOn: in.ReceivedOn}
					ev.Note = "part of the shipment refused: " + in.RejectedQuantity.String() + " of " + in.Quantity.String()
				}
				return nil
			}},
		intent[m.FacilityCompletion]{Name: IntentFacilityCompletion, Errors: slices.Concat(dateErrors, []string{shipment.ErrOperationCode}),
			Operation: company + "SetFacilityCompletion", Block: "facilityCompletion", Roles: []string{shipment.RoleFacility},
			Prefill: func(d *m.Movement, b *m.FacilityCompletion) { // what was recorded, or the one operation code
				if c := d.Completion; c != nil {
					*b = m.FacilityCompletion{CompletedOn: c.CompletedOn, OperationCode: c.OperationCode}
				} else if len(d.OperationCodes) == 1 {
					b.OperationCode = d.OperationCodes[0]
				}
			},
			Summary:     "the facility certifies the recovery or disposal completed, with one of the notified operations (COMPLETED; with a refused part still open, the movement waits for it)",
			Transitions: []engine.Transition{{From: []string{m.ReceivedByFacility}, Guard: "notCompleted", Target: "completionOutcome", Targets: []string{m.Completed, m.ReceivedByFacility}}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleCompletion}},
			Validate: func(ev *on, in *m.FacilityCompletion) ([]engine.BusinessError, error) {
				return m.CheckCompletion(in, ev.Doc, ev.Place(ev.Caller.Org), ev.Now), nil
			},
			Apply: func(ev *on, in *m.FacilityCompletion) error {
				ev.Doc.Completion = &m.CompletionRecord{CompletedOn: in.CompletedOn, OperationCode: in.OperationCode, At: ev.Now}
				return nil
			}},
		intent[m.Signal]{Name: IntentSignal, Errors: []string{shipment.ErrRequiredMissing},
			Operation: authority + "SubmitMovementSignal", Block: "movementSignal", Roles: authorities,
			Summary:     "CONFIRM (recorded; the authority of dispatch's on a TAKE_BACK_ORDERED movement: the waste is back), REJECT, or REQUEST_CORRECTION of the template",
			Transitions: signalTransitions(),
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: ruleTakeBack, When: "takenBack"},
				{Op: engine.Cancel, Rule: ruleCompletion, When: "rejected"}, // no completion for a rejected shipment
				{Op: engine.Cancel, Rule: rulePart, When: "rejected"},       // nor a refused part's arrangement: all of it goes back
			},
			Validate: func(ev *on, in *m.Signal) ([]engine.BusinessError, error) {
				switch {
				case in.Type == m.SignalUnspecified:
					return shipment.Missing("movementSignal.type", "CONFIRM, REJECT or REQUEST_CORRECTION"), nil
				case in.Type != m.SignalConfirm && strings.TrimSpace(in.Reason) == "":
					return shipment.Missing("movementSignal.reason", "a rejection or a correction request needs a reason"), nil
				}
				return nil, nil
			},
			Apply: func(ev *on, in *m.Signal) error {
				d := ev.Doc
				d.Signals = append(d.Signals, m.SignalRecord{AuthorityOrganisationID: ev.Caller.Org, Type: in.Type, Reason: in.Reason, At: ev.Now})
				switch {
				case in.Type == m.SignalRequestCorrection:
					d.CorrectionOpen = true
				case confirmsReturn(ev):
					d.TakeBack.ReturnedAt = ev.Now
				}
				return nil
			}},
		intent[m.TakeBack]{Name: IntentTakeBack, Errors: []string{shipment.ErrRequiredMissing, shipment.ErrDateOutOfRange},
			Operation: authority + "SetMovementTakeBack", Block: "takeBack", Roles: []string{shipment.RoleAuthorityDispatch},
			Summary:     "the authority of dispatch orders the waste back (90 days or the agreed date)",
			Transitions: []engine.Transition{{From: []string{m.InTransit, m.ReceivedByConsignee, m.ReceivedByFacility, m.Rejected}, To: m.TakeBackOrdered}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleTakeBack},
				{Op: engine.Cancel, Rule: ruleCompletion},
				{Op: engine.Cancel, Rule: rulePart}, // all of it goes back
			},
			Validate: func(ev *on, in *m.TakeBack) ([]engine.BusinessError, error) {
				if strings.TrimSpace(in.Reason) == "" {
					return shipment.Missing("takeBack.reason", "a take-back order needs a reason"), nil
				}
				if in.DueOn != "" {
					today := ev.Today(ev.Caller.Org)
					if _, err := shipment.ParseDate(in.DueOn); err != nil || in.DueOn <= today {
						return []engine.BusinessError{{Code: shipment.ErrDateOutOfRange, Field: "takeBack.dueOn", Message: "the agreed date must be a YYYY-MM-DD date after today"}}, nil
					}
				}
				return nil, nil
			},
			Apply: func(ev *on, in *m.TakeBack) error {
				ev.Doc.TakeBack = &m.TakeBackRecord{AuthorityOrganisationID: ev.Caller.Org, Reason: in.Reason, DueOn: in.DueOn, At: ev.Now}
				return nil
			}},
		intent[m.RejectedPartArrangement]{Name: IntentPartArrangement, Errors: []string{shipment.ErrRequiredMissing, shipment.ErrDateOutOfRange, shipment.ErrPartyUnknown},
			Operation: authority + "SetRejectedPartArrangement", Block: "rejectedPartArrangement", Roles: []string{shipment.RoleAuthorityDispatch},
			Summary:     "the authority of dispatch arranges what becomes of a part the facility refused: taken back, or recovered elsewhere, by the agreed date or within 90 days of the reception (Art. 22(2); our design of the act); again to change it",
			Transitions: []engine.Transition{{From: []string{m.ReceivedByFacility}, To: m.ReceivedByFacility, Guard: "rejectedPartOpen"}},
			Effects:     []engine.Effect{{Op: engine.Restart, Rule: rulePart}},
			Validate: func(ev *on, in *m.RejectedPartArrangement) ([]engine.BusinessError, error) {
				switch in.Arrangement {
				case m.ArrangementTakeBack:
					in.FacilityOrganisationID = ""
				case m.ArrangementAlternativeRecovery:
					if in.FacilityOrganisationID == "" {
						return shipment.Missing("rejectedPartArrangement.facilityOrganisationId", "the facility that takes the refused part"), nil
					}
					if o, ok := ev.Dir(in.FacilityOrganisationID); !ok || o.Kind != "company" {
						return []engine.BusinessError{{Code: shipment.ErrPartyUnknown, Field: "rejectedPartArrangement.facilityOrganisationId", Message: "no company of the directory has this id"}}, nil
					}
				default:
					return shipment.Missing("rejectedPartArrangement.arrangement", "TAKE_BACK or ALTERNATIVE_RECOVERY"), nil
				}
				if in.DueOn != "" {
					if _, err := shipment.ParseDate(in.DueOn); err != nil || in.DueOn <= ev.Today(ev.Caller.Org) {
						return []engine.BusinessError{{Code: shipment.ErrDateOutOfRange, Field: "rejectedPartArrangement.dueOn", Message: "the agreed date must be a YYYY-MM-DD date after today"}}, nil
					}
				}
				return nil, nil
			},
			Apply: func(ev *on, in *m.RejectedPartArrangement) error {
				p := ev.Doc.RejectedPart
				p.Arrangement, p.FacilityOrganisationID, p.DueOn, p.Remarks, p.ArrangedBy = in.Arrangement, in.FacilityOrganisationID, in.DueOn, in.Remarks, ev.Caller.Org
				ev.Note = "refused part: " + arrangementWords(in.Arrangement) + ", by " + ev.Doc.RejectedPartDue()
				return nil
			}},
		intent[m.RejectedPartResolution]{Name: IntentPartResolution, Errors: dateErrors,
			Operation: authority + "SetRejectedPartResolution", Block: "rejectedPartResolution", Roles: []string{shipment.RoleAuthorityDispatch},
			Summary:     "the authority of dispatch confirms the refused part taken back or recovered elsewhere as arranged (COMPLETED when the accepted part's completion is certified)",
			Transitions: []engine.Transition{{From: []string{m.ReceivedByFacility}, Guard: "rejectedPartArranged", Target: "completionOutcome", Targets: []string{m.Completed, m.ReceivedByFacility}}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: rulePart}},
			Validate: func(ev *on, in *m.RejectedPartResolution) ([]engine.BusinessError, error) {
				return shipment.PastDate("rejectedPartResolution.resolvedOn", in.ResolvedOn, ev.Place(ev.Caller.Org), ev.Now, ev.Doc.FacilityReceivedOn(), "the facility's reception"), nil
			},
			Apply: func(ev *on, in *m.RejectedPartResolution) error {
				p := ev.Doc.RejectedPart
				p.ResolvedOn, p.ResolvedBy = in.ResolvedOn, ev.Caller.Org
				if in.Remarks != "" {
					p.Remarks = strings.TrimSpace(p.Remarks + "\n" + in.Remarks)
				}
				ev.Note = "refused part " + arrangementWords(p.Arrangement) + " on " + in.ResolvedOn
				return nil
			}},
	},
	Guards: map[string]func(*on) bool{
		"rejectedPartOpen": func(ev *on) bool { return ev.Doc.RejectedPartOpen() },
		"rejectedPartArranged": func(ev *on) bool {
			return ev.Doc.RejectedPartOpen() && ev.Doc.RejectedPart.Arrangement != m.ArrangementUnspecified
		},
		"notCompleted":   func(ev *on) bool { return ev.Doc.Completion == nil },
		"correctionOpen": func(ev *on) bool { return ev.Doc.CorrectionOpen },
		// The notification is still consented (CONSENTED, or CHANGE_REQUESTED,
		// when shipments go on under the terms in force): not expired,
		// cancelled or closed.
		"underConsent":      underConsent,
		"startUnderConsent": func(ev *on) bool { return underConsent(ev) && !ev.Doc.HasLeg(ev.Caller.Org) },
		"callerNoLeg":       func(ev *on) bool { return !ev.Doc.HasLeg(ev.Caller.Org) },
		"facilityRejected":  func(ev *on) bool { f := ev.Doc.Facility; return f != nil && f.Rejected },
		"takenBack":         func(ev *on) bool { return ev.State == m.TakenBack },
		"rejected":          func(ev *on) bool { return ev.State == m.Rejected },
	},
	Targets: map[string]func(*on) string{
		// The accepted part's completion and a refused part's resolution,
		// in either order: the movement is COMPLETED when both are done.
		"completionOutcome": func(ev *on) string {
			if ev.Doc.Completion != nil && !ev.Doc.RejectedPartOpen() {
				return m.Completed
			}
			return m.ReceivedByFacility
		},
		"facilityOutcome": func(ev *on) string {
			if f := ev.Doc.Facility; f != nil && f.Rejected {
				return m.Rejected
			}
			return m.ReceivedByFacility
		},
		"signalOutcome": func(ev *on) string {
			in, _ := engine.InputOf[m.Signal](ev.Eval)
			switch {
			case in != nil && in.Type == m.SignalReject && ev.State != m.TakeBackOrdered:
				return m.Rejected
			case confirmsReturn(ev):
				return m.TakenBack
			}
			return ev.State
		},
	},
	Rules: []engine.Rule{
		{Name: ruleReceipt, LegalBasis: "Art. 16(1)(d) and (e) Regulation (EU) 2024/1157; service interface section 8", Days: 3, Working: true, Party: partyConsignee},
		{Name: ruleCompletion, LegalBasis: "Art. 15(4) and 16(1)(f) Regulation (EU) 2024/1157; service interface section 8", Until: "completionCertificateDue", Party: partyFacility},
		{Name: ruleTakeBack, LegalBasis: "Art. 22(2) Regulation (EU) 2024/1157", Until: "takeBackDue", Party: partyNotifier},
		{Name: rulePart, LegalBasis: "Art. 22(2) Regulation (EU) 2024/1157: a part the facility refused, taken back or recovered elsewhere (our design of the partial refusal)", Until: "rejectedPartDue", Party: partyNotifier},
	},
	Selectors: map[string]func(*on) []engine.Party{
		partyNotifier:  func(ev *on) []engine.Party { return role(ev, n.RoleNotifier) },
		partyConsignee: func(ev *on) []engine.Party { return role(ev, shipment.RoleConsignee) },
		partyFacility:  func(ev *on) []engine.Party { return role(ev, shipment.RoleFacility) },
	},
	Dates: map[string]func(*on) string{
		"consigneeReceivedOn":      func(ev *on) string { return ev.Doc.ConsigneeReceivedOn() },
		"facilityReceivedOn":       func(ev *on) string { return ev.Doc.FacilityReceivedOn() },
		"completionCertificateDue": func(ev *on) string { return ev.Doc.CompletionCertificateDue() },
		"takeBackDue":              func(ev *on) string { return ev.Doc.TakeBackDue() },
		"rejectedPartDue":          func(ev *on) string { return ev.Doc.RejectedPartDue() },
	},
}

// arrangementWords say what becomes of a refused part, for the audit.
func arrangementWords(a m.RejectedPartArrangementType) string {
	switch a {
	case m.ArrangementTakeBack:
		return "taken back by the notifier"
	case m.ArrangementAlternativeRecovery:
		return "recovered or disposed of elsewhere"
	}
	return "not arranged"
}

// signalTransitions: a signal keeps the state or rejects the movement; on
// a TAKE_BACK_ORDERED movement the dispatch authority's CONFIRM closes it.
func signalTransitions() []engine.Transition {
	var out []engine.Transition
	for _, s := range nonFinal {
		switch s {
		case m.Rejected:
			out = append(out, engine.Transition{From: []string{s}, To: s})
		case m.TakeBackOrdered:
			out = append(out, engine.Transition{From: []string{s}, Target: "signalOutcome", Targets: []string{s, m.TakenBack}})
		default:
			out = append(out, engine.Transition{From: []string{s}, Target: "signalOutcome", Targets: []string{s, m.Rejected}})
		}
	}
	return out
}

// confirmsReturn: the authority of dispatch confirms a take-back done.
func confirmsReturn(ev *on) bool {
	in, _ := engine.InputOf[m.Signal](ev.Eval)
	d := ev.Doc
	return in != nil && in.Type == m.SignalConfirm && d.TakeBack != nil && ev.State == m.TakeBackOrdered &&
		slices.Contains(ev.Caller.Roles, shipment.RoleAuthorityDispatch)
}

func underConsent(ev *on) bool {
	return ev.Parent != nil && (ev.Parent.State == n.Consented || ev.Parent.State == n.ChangeRequested)
}

// notification is the movement's notification (the runner loads it with
// every evaluation of a movement).
func notification(ev *on) *n.Notification {
	nf, _ := engine.DataOf[*n.Notification](ev.Parent)
	return nf
}

func role(ev *on, r string) []engine.Party {
	return []engine.Party{{Org: ev.Doc.Org(r), Role: r}}
}

// under gathers what a template is checked against: the notification and
// the tally of the other movements under it (the runner fills both).
func under(ev *on, create bool, previousDate string) (m.Under, error) {
	nf := notification(ev)
	others, ok := engine.TallyOf[n.Tally](ev.SiblingsTally)
	if !ok {
		return m.Under{}, errors.New("the other movements under the notification were not counted")
	}
	return m.Under{Notification: nf, Others: others, Dir: ev.OrgKind,
		Notifier: ev.Place(nf.Content.Notifier.OrganisationID), Now: ev.Now, PreviousDate: previousDate, Create: create}, nil
}

// receipt: a date that happened, not before the shipment date, and a quantity.
func receipt(ev *on, block, date string, q shipment.Quantity) []engine.BusinessError {
	k := &shipment.Checker{Errors: shipment.PastDate(block+".receivedOn", date, ev.Place(ev.Caller.Org), ev.Now, ev.Doc.Template.ActualDateOfShipment, "the shipment date")}
	k.Quantity(block+".quantity", q)
	return k.Errors
}

// The business errors the intents declare (Intent.Errors): a movement's
// template; a date the document states.
var (
	templateErrors = []string{m.ErrSequenceNumber, n.ErrShipmentCount, n.ErrRequiredMissing, n.ErrPartyUnknown, n.ErrPackagingType,
		n.ErrQuantity, n.ErrQuantityExceeded, n.ErrConsentNotValid, shipment.ErrDateOutOfRange, n.ErrPriorNotice, n.ErrGuaranteeNotValid}
	dateErrors = []string{shipment.ErrRequiredMissing, shipment.ErrDateOutOfRange}
)

// words are the movement's states, intents and roles as a person reads
// them.
var words = engine.Labels{
	Kind: labels.Text{EN: "Movement", DE: "Verbringung"},
	States: map[string]labels.Text{
		m.Submitted:           {EN: "Submitted", DE: "Eingereicht"},
		m.Acknowledged:        {EN: "Acknowledged", DE: "Eingang bestätigt"},
		m.InTransit:           {EN: "In transit", DE: "Unterwegs"},
		m.ReceivedByConsignee: {EN: "Received by the consignee", DE: "Beim Empfänger eingegangen"},
		m.ReceivedByFacility:  {EN: "Received by the facility", DE: "Bei der Anlage eingegangen"},
		m.Completed:           {EN: "Recovery/disposal completed", DE: "Verwertung/Beseitigung abgeschlossen"},
		m.Rejected:            {EN: "Rejected", DE: "Abgelehnt"},
		m.TakeBackOrdered:     {EN: "Take-back ordered", DE: "Rücknahme angeordnet"},
		m.TakenBack:           {EN: "Taken back", DE: "Zurückgenommen"},
	},
	Intents: map[string]labels.Text{
		IntentCreate:             {EN: "Create a movement", DE: "Verbringung anlegen"},
		IntentTemplate:           {EN: "Change the movement", DE: "Verbringung ändern"},
		IntentAcknowledgement:    {EN: "Acknowledge", DE: "Eingang bestätigen"},
		IntentCarrierTransport:   {EN: "Take over the waste", DE: "Abfälle übernehmen"},
		IntentConsigneeReception: {EN: "Confirm receipt (consignee)", DE: "Eingang bestätigen (Empfänger)"},
		IntentFacilityReception:  {EN: "Confirm receipt (facility)", DE: "Eingang bestätigen (Anlage)"},
		IntentFacilityCompletion: {EN: "Certify completion", DE: "Abschluss bescheinigen"},
		IntentSignal:             {EN: "Confirm, reject or ask for a correction", DE: "Bestätigen, ablehnen oder Korrektur anfordern"},
		IntentTakeBack:           {EN: "Order the take-back", DE: "Rücknahme anordnen"},
		IntentPartArrangement:    {EN: "Arrange for the refused part", DE: "Verbleib der abgelehnten Teilmenge regeln"},
		IntentPartResolution:     {EN: "Confirm the refused part dealt with", DE: "Erledigung der abgelehnten Teilmenge bestätigen"},
	},
	Roles: shipment.RoleWords(map[string]labels.Text{n.RoleNotifier: {EN: "Notifier", DE: "Notifizierende Person"}}),
	Rules: map[string]labels.Text{
		ruleReceipt:    {EN: "Receipt certificate due", DE: "Eingangsbescheinigung fällig"},
		ruleCompletion: {EN: "Certificate of completion due", DE: "Abschlussbescheinigung fällig"},
		ruleTakeBack:   {EN: "Take-back due", DE: "Rücknahme fällig"},
		rulePart:       {EN: "Refused part to be taken back or recovered", DE: "Abgelehnte Teilmenge zurückzunehmen oder zu verwerten"},
	},
}
