// Package annex7 declares the Annex VII document (green-listed waste) as a
// document kind: its machine, deadline rules, party selectors, and per
// intent the block it takes, how it is checked and how it is recorded. The
// runner (workflows/documents) executes it; the content and its rules are
// pure functions in rules/annex7.
package annex7

import (
	"strings"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Kind of the document.
const Kind = "ANNEX_VII"

const company = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"

// Intents (public contract).
const (
	IntentCreate                  = "CREATE"
	IntentSubmission              = "SUBMISSION"
	IntentCorrection              = "CORRECTION"
	IntentCarrierTransfer         = "CARRIER_TRANSFER"
	IntentConsigneeCertificate    = "CONSIGNEE_CERTIFICATE"
	IntentFacilityCertificate     = "FACILITY_CERTIFICATE"
	IntentCertificateOfCompletion = "CERTIFICATE_OF_COMPLETION"
	IntentTakeBack                = "TAKE_BACK"
	IntentWithdrawal              = "WITHDRAWAL"
	IntentTakeBackCompleted       = "TAKE_BACK_COMPLETED"
)

// Deadline rules (public contract).
const (
	ruleReceipt    = "RECEIPT_CERTIFICATE_DUE"
	ruleCompletion = "COMPLETION_CERTIFICATE_DUE"
	ruleTakeBack   = "TAKE_BACK_DUE"
)

// Party selectors.
const (
	partyArranger  = "ARRANGER"
	partyConsignee = "CONSIGNEE"
	partyFacility  = "FACILITY"
)

// CreateInput is what CreateAnnex7 takes.
type CreateInput struct {
	Content  a.Content
	Metadata shipment.Metadata
}

// Definition is the Annex VII machine (domain/workflows.md section 4).
var Definition = &engine.Definition{
	Kind:    Kind,
	States:  []string{a.Draft, a.Announced, a.InTransit, a.ReceivedByConsignee, a.ReceivedByFacility, a.Completed, a.TakeBackInitiated, a.TakenBack, a.Withdrawn},
	Initial: a.Draft,
	Private: []string{a.Draft},
	Final:   []string{a.Completed, a.TakenBack, a.Withdrawn},
	Create: &engine.Intent{Name: IntentCreate, Operation: company + "CreateAnnex7", Roles: []string{a.RoleArranger},
		Summary: "create an Annex VII document (DRAFT); the caller's organisation is the arranger",
		Input:   func() any { return new(CreateInput) },
		Validate: func(ev *engine.Eval) ([]engine.BusinessError, error) {
			in := ev.Input.(*CreateInput)
			if o, _ := ev.Dir(ev.Caller.Org); o.Kind != "company" {
				return nil, status.New(status.PermissionDenied, "only companies arrange shipments")
			}
			if in.Content.Arranger.OrganisationID == "" {
				in.Content.Arranger.OrganisationID = ev.Caller.Org
			}
			if in.Content.Arranger.OrganisationID != ev.Caller.Org {
				return nil, status.New(status.PermissionDenied, "the arranger must be your organisation %q", ev.Caller.Org)
			}
			return append(a.Check(&in.Content, kindOf(ev.Dir), false, ev.Now), takeBackReference(ev, &in.Content)...), nil
		},
		Apply: func(ev *engine.Eval) error {
			in := ev.Input.(*CreateInput)
			doc(ev).Content, doc(ev).Metadata = in.Content, in.Metadata
			return nil
		}},
	Intents: []engine.Intent{
		{Name: IntentSubmission, Operation: company + "SetAnnex7", Block: "annex7", Roles: []string{a.RoleArranger},
			Summary:     "announce the shipment (at least 2 working days before it starts)",
			Transitions: []engine.Transition{{From: []string{a.Draft}, To: a.Announced}},
			Input:       func() any { return new(a.Content) }, Validate: validateAnnouncement,
			Apply: func(ev *engine.Eval) error {
				d := doc(ev)
				d.Content, d.AnnouncedAt = *ev.Input.(*a.Content), &ev.Now
				return nil
			}},
		{Name: IntentCorrection, Operation: company + "SetAnnex7", Block: "annex7", Roles: []string{a.RoleArranger},
			Summary:     "correct the announcement before a carrier took the waste over",
			Transitions: []engine.Transition{{From: []string{a.Announced}, To: a.Announced}},
			Input:       func() any { return new(a.Content) }, Validate: validateAnnouncement,
			Apply: func(ev *engine.Eval) error {
				d := doc(ev)
				d.Corrections = append(d.Corrections, a.CorrectionRecord{At: ev.Now, Previous: d.Content})
				d.Content = *ev.Input.(*a.Content)
				return nil
			}},
		{Name: IntentCarrierTransfer, Operation: company + "SetAnnex7CarrierTransfer", Block: "carrierTransfer", Roles: []string{shipment.RoleCarrier},
			Summary:     "a carrier takes the waste over (each announced carrier once, in turn)",
			Transitions: []engine.Transition{{From: []string{a.Announced, a.InTransit}, To: a.InTransit, Guard: "callerNotTransferred"}},
			Input:       func() any { return new(a.CarrierTransfer) },
			Validate: func(ev *engine.Eval) ([]engine.BusinessError, error) {
				in := ev.Input.(*a.CarrierTransfer)
				if in.CarrierOrganisationID == "" {
					in.CarrierOrganisationID = ev.Caller.Org
				}
				if in.CarrierOrganisationID != ev.Caller.Org {
					return nil, status.New(status.PermissionDenied, "a carrier records its own transfer: carrierOrganisationId must be %q", ev.Caller.Org)
				}
				if in.MeansOfTransport == "" {
					for _, c := range doc(ev).Content.Carriers {
						if c.OrganisationID == ev.Caller.Org {
							in.MeansOfTransport = c.MeansOfTransport
						}
					}
				}
				return shipment.PastDate("carrierTransfer.transferDate", in.TransferDate, place(ev, ev.Caller.Org), ev.Now, doc(ev).LastHandOver(), "the announced date of shipment or the previous transfer"), nil
			},
			Apply: func(ev *engine.Eval) error {
				d := doc(ev)
				d.CarrierTransfers = append(d.CarrierTransfers, ev.Input.(*a.CarrierTransfer).Record(ev.Now))
				return nil
			}},
		{Name: IntentConsigneeCertificate, Operation: company + "SetAnnex7ConsigneeCertificate", Block: "consigneeCertificate", Roles: []string{shipment.RoleConsignee},
			Summary:     "the consignee certifies receipt of the waste",
			Transitions: []engine.Transition{{From: []string{a.InTransit}, To: a.ReceivedByConsignee}},
			Effects: []engine.Effect{ // the certificate is due 3 working days after the receipt it states
				{Op: engine.Start, Rule: ruleReceipt, Party: partyConsignee, Since: "consigneeReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyConsignee},
			},
			Input: func() any { return new(a.ReceiptCertificate) }, Validate: validateReceipt("consigneeCertificate"),
			Apply: func(ev *engine.Eval) error {
				doc(ev).ConsigneeCertificate = ev.Input.(*a.ReceiptCertificate).Record(ev.Now)
				return nil
			}},
		{Name: IntentFacilityCertificate, Operation: company + "SetAnnex7FacilityCertificate", Block: "facilityCertificate", Roles: []string{shipment.RoleFacility},
			Summary:     "the recovery facility or laboratory certifies receipt; the certificate of completion falls due",
			Transitions: []engine.Transition{{From: []string{a.InTransit, a.ReceivedByConsignee}, To: a.ReceivedByFacility}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleReceipt, Party: partyFacility, Since: "facilityReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyFacility},
				{Op: engine.Start, Rule: ruleCompletion, Since: "facilityReceivedOn"},
			},
			Input: func() any { return new(a.ReceiptCertificate) }, Validate: validateReceipt("facilityCertificate"),
			Apply: func(ev *engine.Eval) error {
				doc(ev).FacilityCertificate = ev.Input.(*a.ReceiptCertificate).Record(ev.Now)
				return nil
			}},
		{Name: IntentCertificateOfCompletion, Operation: company + "SetAnnex7CertificateOfCompletion", Block: "certificateOfCompletion", Roles: []string{shipment.RoleFacility},
			Summary:     "the facility certifies that the recovery is completed; closes the document",
			Transitions: []engine.Transition{{From: []string{a.ReceivedByFacility}, To: a.Completed}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleCompletion}},
			Input:       func() any { return new(a.CertificateOfCompletion) },
			Validate: func(ev *engine.Eval) ([]engine.BusinessError, error) {
				return a.CheckCompletion(ev.Input.(*a.CertificateOfCompletion), doc(ev), place(ev, ev.Caller.Org), ev.Now), nil
			},
			Apply: func(ev *engine.Eval) error {
				doc(ev).CertificateOfCompletion = ev.Input.(*a.CertificateOfCompletion).Record(ev.Now)
				return nil
			},
			// A completed take-back shipment marks its original TAKEN_BACK.
			Then: []engine.Chain{{Ref: "takeBackOf", Intent: IntentTakeBackCompleted}}},
		{Name: IntentTakeBack, Operation: company + "SetAnnex7TakeBack", Block: "takeBack", Roles: []string{a.RoleArranger},
			Summary:     "initiate the take-back of a shipment that cannot be completed; a new Annex VII document with takeBackOf carries it out",
			Transitions: []engine.Transition{{From: []string{a.InTransit, a.ReceivedByConsignee, a.ReceivedByFacility}, To: a.TakeBackInitiated}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleTakeBack},
				{Op: engine.Cancel, Rule: ruleCompletion},
			},
			Input: func() any { return new(a.TakeBack) },
			Validate: func(ev *engine.Eval) ([]engine.BusinessError, error) {
				if strings.TrimSpace(ev.Input.(*a.TakeBack).Reason) == "" {
					return shipment.Missing("takeBack.reason", "a take-back needs a reason"), nil
				}
				return nil, nil
			},
			Apply: func(ev *engine.Eval) error {
				d := doc(ev)
				d.TakeBacks = append(d.TakeBacks, a.TakeBackRecord{Reason: ev.Input.(*a.TakeBack).Reason, At: ev.Now})
				return nil
			}},
		{Name: IntentTakeBackCompleted, System: true,
			Summary:     "the Annex VII document carrying out the take-back completed (fired by its CERTIFICATE_OF_COMPLETION)",
			Transitions: []engine.Transition{{From: []string{a.TakeBackInitiated}, To: a.TakenBack}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleTakeBack}},
			Apply: func(ev *engine.Eval) error {
				if tb, by := doc(ev).OpenTakeBack(), ev.Input.(engine.Chained); tb != nil {
					tb.CompletedAt, tb.CompletedBy = ev.Now, by.DocID
				}
				return nil
			}},
		{Name: IntentWithdrawal, Operation: company + "SetByIntent", Block: "withdrawal", Roles: []string{a.RoleArranger},
			Summary:     "withdraw a draft never announced (our design): it keeps its number and audit trail and leaves the lists; through SetByIntent",
			Transitions: []engine.Transition{{From: []string{a.Draft}, To: a.Withdrawn}},
			Input:       func() any { return new(shipment.Withdrawal) },
			Apply: func(ev *engine.Eval) error {
				doc(ev).Withdrawal = &shipment.WithdrawalRecord{OrganisationID: ev.Caller.Org, At: ev.Now, Reason: ev.Input.(*shipment.Withdrawal).Reason}
				ev.Note = strings.TrimSpace("draft withdrawn before announcement. " + ev.Input.(*shipment.Withdrawal).Reason)
				return nil
			}},
	},
	Guards: map[string]func(*engine.Eval) bool{
		"callerNotTransferred": func(ev *engine.Eval) bool { return !doc(ev).HasTransferred(ev.Caller.Org) },
	},
	Rules: []engine.Rule{
		{Name: ruleReceipt, LegalBasis: "Art. 18 Regulation (EU) 2024/1157 (Annex VII, box 14); service interface section 8", Days: 3, Working: true, Party: partyConsignee},
		{Name: ruleCompletion, LegalBasis: "Art. 15(4) and 18 Regulation (EU) 2024/1157; service interface section 8", Until: "completionCertificateDue", Party: partyFacility},
		{Name: ruleTakeBack, LegalBasis: "Art. 22(2) Regulation (EU) 2024/1157", Days: 90, Party: partyArranger},
	},
	Selectors: map[string]func(*engine.Eval) []engine.Party{
		partyArranger: func(ev *engine.Eval) []engine.Party {
			return []engine.Party{{Org: doc(ev).Content.Arranger.OrganisationID, Role: a.RoleArranger}}
		},
		partyConsignee: func(ev *engine.Eval) []engine.Party {
			return []engine.Party{{Org: doc(ev).Content.Consignee.OrganisationID, Role: shipment.RoleConsignee}}
		},
		partyFacility: func(ev *engine.Eval) []engine.Party {
			return []engine.Party{{Org: doc(ev).Content.Facility.OrganisationID, Role: shipment.RoleFacility}}
		},
	},
	Dates: map[string]func(*engine.Eval) string{
		"consigneeReceivedOn": func(ev *engine.Eval) string {
			if c := doc(ev).ConsigneeCertificate; c != nil {
				return c.ReceivedOn
			}
			return ""
		},
		"facilityReceivedOn": func(ev *engine.Eval) string {
			if c := doc(ev).FacilityCertificate; c != nil {
				return c.ReceivedOn
			}
			return ""
		},
		"completionCertificateDue": func(ev *engine.Eval) string { return doc(ev).CompletionCertificateDue() },
	},
	Refs: map[string]func(*engine.Eval) string{
		"takeBackOf": func(ev *engine.Eval) string {
			if in, ok := ev.Input.(*CreateInput); ok { // on create the data is still empty
				return in.Content.TakeBackOf
			}
			if in, ok := ev.Input.(*a.Content); ok {
				return in.TakeBackOf
			}
			return doc(ev).Content.TakeBackOf
		},
	},
}

func doc(ev *engine.Eval) *a.Annex7 { return ev.Data.(*a.Annex7) }

func kindOf(dir engine.Directory) shipment.Directory {
	return func(id string) (string, bool) { o, ok := dir(id); return o.Kind, ok }
}

func place(ev *engine.Eval, org string) calendar.Place {
	o, _ := ev.Dir(org)
	return calendar.Place{Country: o.Country, Region: o.Region}
}

// validateAnnouncement checks a SUBMISSION or CORRECTION: the content in
// full, green-listed, for recovery, the arranger unchanged, the prior
// notice (when the date is new), the take-back reference.
func validateAnnouncement(ev *engine.Eval) ([]engine.BusinessError, error) {
	c, d := ev.Input.(*a.Content), doc(ev)
	var berrs []engine.BusinessError
	if c.Arranger.OrganisationID == "" {
		c.Arranger.OrganisationID = d.Content.Arranger.OrganisationID
	}
	if c.Arranger.OrganisationID != d.Content.Arranger.OrganisationID {
		berrs = append(berrs, engine.BusinessError{Code: shipment.ErrPartyUnknown, Field: "annex7.arranger.organisationId", Message: "the arranger of an Annex VII document cannot change"})
	}
	berrs = append(berrs, a.Check(c, kindOf(ev.Dir), true, ev.Now)...)
	berrs = append(berrs, a.CheckPlaces(c, func(id string) string { o, _ := ev.Dir(id); return o.Country })...)
	if d.AnnouncedAt == nil || c.ActualDateOfShipment != d.Content.ActualDateOfShipment {
		berrs = append(berrs, a.PriorNotice(c, place(ev, c.Arranger.OrganisationID), ev.Now)...)
	}
	return append(berrs, takeBackReference(ev, c)...), nil
}

// takeBackReference: takeBackOf must name an Annex VII document of the
// same arranger whose take-back was initiated; it cannot change later.
func takeBackReference(ev *engine.Eval, c *a.Content) []engine.BusinessError {
	if ev.DocID != "" && c.TakeBackOf != doc(ev).Content.TakeBackOf {
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "takeBackOf is fixed when the document is created"}}
	}
	if c.TakeBackOf == "" {
		return nil
	}
	orig := ev.Related["takeBackOf"]
	switch {
	case orig == nil || orig.Kind != Kind:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "no Annex VII document " + c.TakeBackOf + " of yours"}}
	case orig.Data.(*a.Annex7).Content.Arranger.OrganisationID != c.Arranger.OrganisationID:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "the original shipment has another arranger"}}
	case orig.State != a.TakeBackInitiated:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "the take-back of " + c.TakeBackOf + " has not been initiated (state " + orig.State + ")"}}
	}
	return nil
}

// validateReceipt checks a receipt certificate: a date that happened, not
// before the shipment started.
func validateReceipt(block string) func(ev *engine.Eval) ([]engine.BusinessError, error) {
	return func(ev *engine.Eval) ([]engine.BusinessError, error) {
		in := ev.Input.(*a.ReceiptCertificate)
		k := &shipment.Checker{Errors: shipment.PastDate(block+".receivedOn", in.ReceivedOn, place(ev, ev.Caller.Org), ev.Now, doc(ev).Content.ActualDateOfShipment, "the announced date of shipment")}
		k.Quantity(block+".quantity", in.Quantity)
		return k.Errors, nil
	}
}
