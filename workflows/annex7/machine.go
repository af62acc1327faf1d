// Package annex7 declares the Annex VII document (green-listed waste) as a
// document kind: its machine, deadline rules, party selectors, and per
// intent the block it takes, how it is checked and how it is recorded. The
// runner (workflows/documents) executes it; the content and its rules are
// pure functions in rules/annex7.
package annex7

import (
	"slices"
	"strings"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
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

type (
	on            = engine.On[a.Annex7]          // what the kind's functions see
	intent[I any] = engine.IntentOf[a.Annex7, I] // an intent taking a block of type I
)

// declaration is the Annex VII machine (docs/reference/workflows.md is
// generated from it).
var declaration = &engine.Declaration[a.Annex7]{
	Kind:    Kind,
	Labels:  words,
	States:  []string{a.Draft, a.Announced, a.InTransit, a.ReceivedByConsignee, a.ReceivedByFacility, a.Completed, a.TakeBackInitiated, a.TakenBack, a.Withdrawn},
	Initial: a.Draft,
	Private: []string{a.Draft},
	Final:   []string{a.Completed, a.TakenBack, a.Withdrawn},
	Create: intent[CreateInput]{Name: IntentCreate, Errors: slices.Concat(announcementErrors, []string{a.ErrTakeBackReference}),
		Operation: company + "CreateAnnex7", Roles: []string{a.RoleArranger},
		Summary: "create an Annex VII document (DRAFT); the caller's organisation is the arranger",
		Validate: func(ev *on, in *CreateInput) ([]engine.BusinessError, error) {
			if kind, _ := ev.OrgKind(ev.Caller.Org); kind != "company" {
				return nil, status.New(status.PermissionDenied, "only companies arrange shipments")
			}
			if in.Content.Arranger.OrganisationID == "" {
				in.Content.Arranger.OrganisationID = ev.Caller.Org
			}
			if in.Content.Arranger.OrganisationID != ev.Caller.Org {
				return nil, status.New(status.PermissionDenied, "the arranger must be your organisation %q", ev.Caller.Org)
			}
			return append(a.Check(&in.Content, ev.OrgKind, false, ev.Now), takeBackReference(ev, &in.Content)...), nil
		},
		Apply: func(ev *on, in *CreateInput) error {
			ev.Doc.Content, ev.Doc.Metadata = in.Content, in.Metadata
			return nil
		}},
	Intents: []engine.Step[a.Annex7]{
		intent[a.Content]{Name: IntentSubmission, Errors: slices.Concat(announcementErrors, []string{a.ErrTakeBackReference}),
			Operation: company + "SetAnnex7", Block: "annex7", Roles: []string{a.RoleArranger},
			Summary:     "announce the shipment (at least 2 working days before it starts)",
			Transitions: []engine.Transition{{From: []string{a.Draft}, To: a.Announced}}, Validate: validateAnnouncement,
			Apply: func(ev *on, in *a.Content) error {
				d := ev.Doc
				d.Content, d.AnnouncedAt = *in, &ev.Now
				if ev.Setting != nil && ev.Setting(shipment.SettingDIWASS) == 1 { // the server sends it (docs/diwass.md)
					d.DIWASS = &shipment.DIWASSExchange{State: shipment.DIWASSPending}
				}
				return nil
			}},
		intent[a.Content]{Name: IntentCorrection, Refreshes: true, Errors: slices.Concat(announcementErrors, []string{a.ErrTakeBackReference, shipment.ErrChangeEmpty}),
			Operation: company + "SetAnnex7", Block: "annex7", Roles: []string{a.RoleArranger},
			Summary:     "correct the announcement before a carrier took the waste over",
			Transitions: []engine.Transition{{From: []string{a.Announced}, To: a.Announced}},
			Validate: func(ev *on, in *a.Content) ([]engine.BusinessError, error) {
				berrs, err := validateAnnouncement(ev, in)
				if err != nil {
					return nil, err
				}
				return append(berrs, shipment.NothingChanged("annex7", "the correction", &ev.Doc.Content, in)...), nil
			},
			Apply: func(ev *on, in *a.Content) error {
				d := ev.Doc
				d.Corrections = append(d.Corrections, a.CorrectionRecord{At: ev.Now, Previous: d.Content})
				d.Content = *in
				// DIWASS holds (or may hold) the announcement: its update
				// operation is not public, so the correction stays here. A
				// PENDING or REJECTED document goes with its corrections.
				if x := d.DIWASS; x != nil && (x.State == shipment.DIWASSSent || x.State == shipment.DIWASSUncertain) {
					x.NotSent = append(x.NotSent, shipment.DIWASSNotSent{Intent: IntentCorrection, At: ev.Now, Reason: shipment.NotSentUpdate})
					ev.Note = "correction " + shipment.NotSentUpdate
				}
				return nil
			}},
		intent[a.CarrierTransfer]{Name: IntentCarrierTransfer, Errors: dateErrors,
			Operation: company + "SetAnnex7CarrierTransfer", Block: "carrierTransfer", Roles: []string{shipment.RoleCarrier},
			Summary:     "a carrier takes the waste over (each announced carrier once, in turn)",
			Transitions: []engine.Transition{{From: []string{a.Announced, a.InTransit}, To: a.InTransit, Guard: "callerNotTransferred"}},
			Validate: func(ev *on, in *a.CarrierTransfer) ([]engine.BusinessError, error) {
				if in.CarrierOrganisationID == "" {
					in.CarrierOrganisationID = ev.Caller.Org
				}
				if in.CarrierOrganisationID != ev.Caller.Org {
					return nil, status.New(status.PermissionDenied, "a carrier records its own transfer: carrierOrganisationId must be %q", ev.Caller.Org)
				}
				if in.MeansOfTransport == "" {
					for _, c := range ev.Doc.Content.Carriers {
						if c.OrganisationID == ev.Caller.Org {
							in.MeansOfTransport = c.MeansOfTransport
						}
					}
				}
				return shipment.PastDate("carrierTransfer.transferDate", in.TransferDate, ev.Place(ev.Caller.Org), ev.Now, ev.Doc.LastHandOver(), "the announced date of shipment or the previous transfer"), nil
			},
			Apply: func(ev *on, in *a.CarrierTransfer) error {
				d := ev.Doc
				d.CarrierTransfers = append(d.CarrierTransfers, in.Record(ev.Now))
				return nil
			}},
		intent[a.ReceiptCertificate]{Name: IntentConsigneeCertificate, Errors: slices.Concat(dateErrors, []string{shipment.ErrQuantity}),
			Operation: company + "SetAnnex7ConsigneeCertificate", Block: "consigneeCertificate", Roles: []string{shipment.RoleConsignee},
			Prefill: func(d *a.Annex7, b *a.ReceiptCertificate) { // what was recorded
				if c := d.ConsigneeCertificate; c != nil {
					*b = c.Block()
				}
			},
			Summary:     "the consignee certifies receipt of the waste",
			Transitions: []engine.Transition{{From: []string{a.InTransit}, To: a.ReceivedByConsignee}},
			Effects: []engine.Effect{ // the certificate is due 3 working days after the receipt it states
				{Op: engine.Start, Rule: ruleReceipt, Party: partyConsignee, Since: "consigneeReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyConsignee},
			}, Validate: validateReceipt("consigneeCertificate"),
			Apply: func(ev *on, in *a.ReceiptCertificate) error {
				ev.Doc.ConsigneeCertificate = in.Record(ev.Now)
				return nil
			}},
		intent[a.ReceiptCertificate]{Name: IntentFacilityCertificate, Errors: slices.Concat(dateErrors, []string{shipment.ErrQuantity}),
			Operation: company + "SetAnnex7FacilityCertificate", Block: "facilityCertificate", Roles: []string{shipment.RoleFacility},
			Prefill: func(d *a.Annex7, b *a.ReceiptCertificate) { // what was recorded
				if c := d.FacilityCertificate; c != nil {
					*b = c.Block()
				}
			},
			Summary:     "the recovery facility or laboratory certifies receipt; the certificate of completion falls due",
			Transitions: []engine.Transition{{From: []string{a.InTransit, a.ReceivedByConsignee}, To: a.ReceivedByFacility}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleReceipt, Party: partyFacility, Since: "facilityReceivedOn"},
				{Op: engine.Stop, Rule: ruleReceipt, Party: partyFacility},
				{Op: engine.Start, Rule: ruleCompletion, Since: "facilityReceivedOn"},
			}, Validate: validateReceipt("facilityCertificate"),
			Apply: func(ev *on, in *a.ReceiptCertificate) error {
				ev.Doc.FacilityCertificate = in.Record(ev.Now)
				return nil
			}},
		intent[a.CertificateOfCompletion]{Name: IntentCertificateOfCompletion, Errors: slices.Concat(dateErrors, []string{shipment.ErrOperationCode}),
			Operation: company + "SetAnnex7CertificateOfCompletion", Block: "certificateOfCompletion", Roles: []string{shipment.RoleFacility},
			Prefill: func(d *a.Annex7, b *a.CertificateOfCompletion) { // what was recorded, or the announced recovery code
				b.RecoveryCode = d.Content.RecoveryCode
				if c := d.CertificateOfCompletion; c != nil {
					*b = a.CertificateOfCompletion{CompletedOn: c.CompletedOn, RecoveryCode: c.RecoveryCode}
				}
			},
			Summary:     "the facility certifies that the recovery is completed; closes the document",
			Transitions: []engine.Transition{{From: []string{a.ReceivedByFacility}, To: a.Completed}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleCompletion}},
			Validate: func(ev *on, in *a.CertificateOfCompletion) ([]engine.BusinessError, error) {
				return a.CheckCompletion(in, ev.Doc, ev.Place(ev.Caller.Org), ev.Now), nil
			},
			Apply: func(ev *on, in *a.CertificateOfCompletion) error {
				ev.Doc.CertificateOfCompletion = in.Record(ev.Now)
				return nil
			},
			// A completed take-back shipment marks its original TAKEN_BACK.
			Then: []engine.Chain{{Ref: "takeBackOf", Intent: IntentTakeBackCompleted}}},
		intent[a.TakeBack]{Name: IntentTakeBack, Errors: []string{shipment.ErrRequiredMissing},
			Operation: company + "SetAnnex7TakeBack", Block: "takeBack", Roles: []string{a.RoleArranger},
			Summary:     "initiate the take-back of a shipment that cannot be completed; a new Annex VII document with takeBackOf carries it out",
			Transitions: []engine.Transition{{From: []string{a.InTransit, a.ReceivedByConsignee, a.ReceivedByFacility}, To: a.TakeBackInitiated}},
			Effects: []engine.Effect{
				{Op: engine.Start, Rule: ruleTakeBack},
				{Op: engine.Cancel, Rule: ruleCompletion},
			},
			Validate: func(ev *on, in *a.TakeBack) ([]engine.BusinessError, error) {
				if strings.TrimSpace(in.Reason) == "" {
					return shipment.Missing("takeBack.reason", "a take-back needs a reason"), nil
				}
				return nil, nil
			},
			Apply: func(ev *on, in *a.TakeBack) error {
				d := ev.Doc
				d.TakeBacks = append(d.TakeBacks, a.TakeBackRecord{Reason: in.Reason, At: ev.Now})
				return nil
			}},
		intent[engine.Chained]{Name: IntentTakeBackCompleted, System: true,
			Summary:     "the Annex VII document carrying out the take-back completed (fired by its CERTIFICATE_OF_COMPLETION)",
			Transitions: []engine.Transition{{From: []string{a.TakeBackInitiated}, To: a.TakenBack}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleTakeBack}},
			Apply: func(ev *on, in *engine.Chained) error {
				if tb := ev.Doc.OpenTakeBack(); tb != nil {
					tb.CompletedAt, tb.CompletedBy = ev.Now, in.DocID
				}
				return nil
			}},
		documents.Withdrawal(a.RoleArranger, a.Draft, a.Withdrawn, "announced", "announcement", func(d *a.Annex7) **shipment.WithdrawalRecord { return &d.Withdrawal }),
		diwassIntents[0], diwassIntents[1], diwassIntents[2],
	},
	Guards: map[string]func(*on) bool{
		"callerNotTransferred": func(ev *on) bool { return !ev.Doc.HasTransferred(ev.Caller.Org) },
		"diwassPending":        diwassIs(shipment.DIWASSPending),
		"diwassRejected":       diwassIs(shipment.DIWASSRejected),
		"diwassUncertain":      diwassIs(shipment.DIWASSUncertain),
	},
	Rules: []engine.Rule{
		{Name: ruleReceipt, LegalBasis: "Art. 18 Regulation (EU) 2024/1157 (Annex VII, box 14); service interface section 8", Days: 3, Working: true, Party: partyConsignee},
		{Name: ruleCompletion, LegalBasis: "Art. 15(4) and 18 Regulation (EU) 2024/1157; service interface section 8", Until: "completionCertificateDue", Party: partyFacility},
		{Name: ruleTakeBack, LegalBasis: "Art. 22(2) Regulation (EU) 2024/1157", Days: 90, Party: partyArranger},
	},
	Selectors: map[string]func(*on) []engine.Party{
		partyArranger: func(ev *on) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Content.Arranger.OrganisationID, Role: a.RoleArranger}}
		},
		partyConsignee: func(ev *on) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Content.Consignee.OrganisationID, Role: shipment.RoleConsignee}}
		},
		partyFacility: func(ev *on) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Content.Facility.OrganisationID, Role: shipment.RoleFacility}}
		},
	},
	Dates: map[string]func(*on) string{
		"consigneeReceivedOn":      func(ev *on) string { return ev.Doc.ConsigneeReceivedOn() },
		"facilityReceivedOn":       func(ev *on) string { return ev.Doc.FacilityReceivedOn() },
		"completionCertificateDue": func(ev *on) string { return ev.Doc.CompletionCertificateDue() },
	},
	Refs: map[string]func(*on) string{
		"takeBackOf": func(ev *on) string {
			if in, ok := engine.InputOf[CreateInput](ev.Eval); ok { // on create the data is still empty
				return in.Content.TakeBackOf
			}
			if in, ok := engine.InputOf[a.Content](ev.Eval); ok {
				return in.TakeBackOf
			}
			return ev.Doc.Content.TakeBackOf
		},
	},
}

// arranger is the arranger of a related Annex VII document.
func arranger(r *engine.Related) string {
	if d, ok := engine.DataOf[*a.Annex7](r); ok {
		return d.Content.Arranger.OrganisationID
	}
	return ""
}

// validateAnnouncement checks a SUBMISSION or CORRECTION: the content in
// full, green-listed, for recovery, the arranger unchanged, the prior
// notice (when the date is new), the take-back reference.
func validateAnnouncement(ev *on, c *a.Content) ([]engine.BusinessError, error) {
	d := ev.Doc
	var berrs []engine.BusinessError
	if c.Arranger.OrganisationID == "" {
		c.Arranger.OrganisationID = d.Content.Arranger.OrganisationID
	}
	if c.Arranger.OrganisationID != d.Content.Arranger.OrganisationID {
		berrs = append(berrs, engine.BusinessError{Code: shipment.ErrPartyUnknown, Field: "annex7.arranger.organisationId", Message: "the arranger of an Annex VII document cannot change"})
	}
	berrs = append(berrs, a.Check(c, ev.OrgKind, true, ev.Now)...)
	berrs = append(berrs, a.CheckPlaces(c, ev.Country)...)
	if d.AnnouncedAt == nil || c.ActualDateOfShipment != d.Content.ActualDateOfShipment {
		days := a.PriorInformationDays
		if ev.Setting != nil {
			days = ev.Setting(a.SettingPriorInformationDays)
		}
		berrs = append(berrs, a.PriorNotice(c, ev.Place(c.Arranger.OrganisationID), ev.Now, days)...)
	}
	return append(berrs, takeBackReference(ev, c)...), nil
}

// takeBackReference: takeBackOf must name an Annex VII document of the
// same arranger whose take-back was initiated; it cannot change later.
func takeBackReference(ev *on, c *a.Content) []engine.BusinessError {
	if ev.DocID != "" && c.TakeBackOf != ev.Doc.Content.TakeBackOf {
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "takeBackOf is fixed when the document is created"}}
	}
	if c.TakeBackOf == "" {
		return nil
	}
	orig := ev.Related["takeBackOf"]
	switch {
	case orig == nil || orig.Kind != Kind:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "no Annex VII document " + c.TakeBackOf + " of yours"}}
	case arranger(orig) != c.Arranger.OrganisationID:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "the original shipment has another arranger"}}
	case orig.State != a.TakeBackInitiated:
		return []engine.BusinessError{{Code: a.ErrTakeBackReference, Field: "annex7.takeBackOf", Message: "the take-back of " + c.TakeBackOf + " has not been initiated (state " + orig.State + ")"}}
	}
	return nil
}

// validateReceipt checks a receipt certificate: a date that happened, not
// before the shipment started.
func validateReceipt(block string) func(ev *on, in *a.ReceiptCertificate) ([]engine.BusinessError, error) {
	return func(ev *on, in *a.ReceiptCertificate) ([]engine.BusinessError, error) {
		k := &shipment.Checker{Errors: shipment.PastDate(block+".receivedOn", in.ReceivedOn, ev.Place(ev.Caller.Org), ev.Now, ev.Doc.Content.ActualDateOfShipment, "the announced date of shipment")}
		k.Quantity(block+".quantity", in.Quantity)
		return k.Errors, nil
	}
}

// The business errors the intents declare (Intent.Errors): the content of
// an announcement; a date the document states.
var (
	announcementErrors = []string{shipment.ErrWasteCode, a.ErrNotGreenListed, shipment.ErrOperationCode, shipment.ErrPartyUnknown,
		shipment.ErrRequiredMissing, shipment.ErrQuantity, shipment.ErrPriorNotice, shipment.ErrDateOutOfRange, shipment.ErrAuthorityPlace}
	dateErrors = []string{shipment.ErrRequiredMissing, shipment.ErrDateOutOfRange}
)

// words are the Annex VII document's states, intents and roles as a
// person reads them.
var words = engine.Labels{
	Kind: labels.Text{EN: "Annex VII document", DE: "Anhang-VII-Dokument"},
	States: map[string]labels.Text{
		a.Draft:               {EN: "Draft", DE: "Entwurf"},
		a.Announced:           {EN: "Announced", DE: "Angekündigt"},
		a.InTransit:           {EN: "In transit", DE: "Unterwegs"},
		a.ReceivedByConsignee: {EN: "Received by the consignee", DE: "Beim Empfänger eingegangen"},
		a.ReceivedByFacility:  {EN: "Received by the facility", DE: "Bei der Anlage eingegangen"},
		a.Completed:           {EN: "Completed", DE: "Abgeschlossen"},
		a.TakeBackInitiated:   {EN: "Take-back initiated", DE: "Rücknahme eingeleitet"},
		a.TakenBack:           {EN: "Taken back", DE: "Zurückgenommen"},
		a.Withdrawn:           {EN: "Withdrawn", DE: "Zurückgenommen (Entwurf)"},
	},
	Intents: map[string]labels.Text{
		IntentCreate:                  {EN: "Create an Annex VII document", DE: "Anhang-VII-Dokument anlegen"},
		IntentSubmission:              {EN: "Announce the shipment", DE: "Verbringung ankündigen"},
		IntentCorrection:              {EN: "Correct", DE: "Korrigieren"},
		IntentCarrierTransfer:         {EN: "Take over the waste", DE: "Abfälle übernehmen"},
		IntentConsigneeCertificate:    {EN: "Confirm receipt (consignee)", DE: "Entgegennahme bestätigen (Empfänger)"},
		IntentFacilityCertificate:     {EN: "Confirm receipt (facility)", DE: "Eingang bestätigen (Anlage)"},
		IntentCertificateOfCompletion: {EN: "Certify completion", DE: "Abschluss bescheinigen"},
		IntentTakeBack:                {EN: "Initiate a take-back", DE: "Rücknahme einleiten"},
		IntentWithdrawal:              {EN: "Withdraw the draft", DE: "Entwurf zurücknehmen"},
		IntentTakeBackCompleted:       {EN: "Take-back completed", DE: "Rücknahme abgeschlossen"},
		IntentDIWASSExchange:          {EN: "Exchange with DIWASS", DE: "Austausch mit DIWASS"},
		IntentDIWASSResubmission:      {EN: "Send to DIWASS again", DE: "Erneut an DIWASS senden"},
		IntentDIWASSResolution:        {EN: "Resolve the DIWASS exchange", DE: "DIWASS-Austausch klären"},
	},
	Roles: shipment.RoleWords(map[string]labels.Text{a.RoleArranger: {EN: "Person who arranges the shipment", DE: "Veranlasser der Verbringung"}}),
	Rules: map[string]labels.Text{
		ruleReceipt:    {EN: "Receipt certificate due", DE: "Eingangsbescheinigung fällig"},
		ruleCompletion: {EN: "Certificate of completion due", DE: "Abschlussbescheinigung fällig"},
		ruleTakeBack:   {EN: "Take-back due", DE: "Rücknahme fällig"},
	},
}
