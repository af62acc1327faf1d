// Package notifications declares the prior written notification as a
// document kind: its machine, deadline rules, party selectors, and per
// intent the block it takes, how that block is checked and how it is
// recorded. The runner (workflows/documents) executes it; the content and
// its rules are pure functions in rules/notification.
package notifications

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Kind of the document.
const Kind = "NOTIFICATION"

const (
	company   = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
	authority = "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/"
)

// Intents (public contract).
const (
	IntentCreate                = "CREATE"
	IntentSubmission            = "SUBMISSION"
	IntentCorrection            = "CORRECTION"
	IntentAcknowledgement       = "ACKNOWLEDGEMENT"
	IntentRequestInformation    = "REQUEST_INFORMATION"
	IntentReplyToRequestInfo    = "REPLY_TO_REQUEST_INFORMATION"
	IntentDecision              = "DECISION"
	IntentRequestForChange      = "REQUEST_FOR_CHANGE_AFTER_CONSENT"
	IntentReplyToChange         = "REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT"
	IntentNotificationSignal    = "NOTIFICATION_SIGNAL"
	IntentTacitConsent          = "TACIT_CONSENT"
	IntentConsentValidityExpiry = "CONSENT_VALIDITY_EXPIRY"
	IntentCreateMovement        = "CREATE_MOVEMENT"
	IntentArticle15             = "FACILITY_COMPLETION_ARTICLE15"
	IntentWithdrawal            = "WITHDRAWAL"
	IntentGuarantee             = "GUARANTEE"
	IntentGuaranteeApproval     = "GUARANTEE_APPROVAL"
)

// guaranteeStates are where a guarantee is submitted and approved: filed,
// and not yet ended.
var guaranteeStates = []string{n.Submitted, n.Acknowledged, n.InformationRequested, n.Consented, n.ChangeRequested}

// renewalDue: the guarantee in force ends before the shipment period, in
// a state where a guarantee is still given (after the act).
func renewalDue(ev *on) bool {
	return ev.Doc.GuaranteeEndsEarly() && slices.Contains(guaranteeStates, ev.State)
}

// renewalRunning: the notifier's renewal deadline runs (as loaded).
func renewalRunning(ev *on) bool {
	return slices.ContainsFunc(ev.Deadlines, func(d engine.DeadlineView) bool { return d.Rule == ruleGuarantee && d.Open })
}

// guaranteeFollows are the effects that keep the renewal deadline with
// what an act did (guaranteeRenewalToStart/ToEnd): started when a consent,
// revalidation or accepted change extends the shipment period past the
// guarantee's end, cancelled when the period comes back within it or the
// dossier ends (objection, cancellation, closure, expiry, Art. 15). One
// mechanism for every act that can move either; the approval restarts or
// meets the deadline itself, for the new guarantee's end.
var guaranteeFollows = []engine.Effect{
	{Op: engine.Start, Rule: ruleGuarantee, When: "guaranteeRenewalToStart"},
	{Op: engine.Cancel, Rule: ruleGuarantee, When: "guaranteeRenewalToEnd"},
}

// stays is one transition per state that keeps it, under guard.
func stays(states []string, guard string) []engine.Transition {
	out := make([]engine.Transition, 0, len(states))
	for _, s := range states {
		out = append(out, engine.Transition{From: []string{s}, To: s, Guard: guard})
	}
	return out
}

var anyAuthority = []string{n.RoleAuthorityDispatch, n.RoleAuthorityDestination, n.RoleAuthorityTransit}

// Party selectors of deadline rules and effects.
const (
	partyEachAuthority = "EACH_AUTHORITY"
	partyDestination   = "DESTINATION"
	partyNotifier      = "NOTIFIER"
	partyCaller        = "CALLER"
	partyInput         = "INPUT_PARTY" // an automatic trigger's: the party whose deadline ran out
)

// Deadline rules (public contract).
const (
	ruleAcknowledgement = "ACKNOWLEDGEMENT_DUE"
	ruleInformation     = "INFORMATION_REPLY_DUE"
	ruleDecision        = "DECISION_DUE"
	ruleChangeReply     = "CHANGE_REPLY_DUE"
	ruleValidity        = "CONSENT_VALIDITY"
	ruleGuarantee       = "GUARANTEE_RENEWAL_DUE"
)

type (
	on            = engine.On[n.Notification]          // what the kind's functions see
	intent[I any] = engine.IntentOf[n.Notification, I] // an intent taking a block of type I
)

// declaration is the notification machine (docs/reference/workflows.md
// is generated from it).
var declaration = &engine.Declaration[n.Notification]{
	Kind:   Kind,
	Labels: words,
	States: []string{n.Draft, n.Submitted, n.Acknowledged, n.InformationRequested, n.Consented, n.ChangeRequested,
		n.Objected, n.Expired, n.ConsentCancelled, n.Closed, n.Withdrawn},
	Initial: n.Draft,
	Private: []string{n.Draft},
	Final:   []string{n.Objected, n.ConsentCancelled, n.Closed, n.Withdrawn},
	Create: intent[CreateInput]{Name: IntentCreate, Errors: contentErrors,
		Operation: company + "CreateSubmission", Roles: []string{n.RoleNotifier},
		Summary:  "create a notification (DRAFT); the caller's organisation is the notifier",
		Validate: validateCreate,
		Apply: func(ev *on, in *CreateInput) error {
			ev.Doc.Content, ev.Doc.Metadata = in.Content, in.Metadata
			return nil
		}},
	Intents: []engine.Step[n.Notification]{
		intent[n.Content]{Name: IntentSubmission, Errors: submissionErrors,
			Operation: company + "SetSubmission", Block: "notification", Roles: []string{n.RoleNotifier},
			Summary:     "file the notification",
			Transitions: []engine.Transition{{From: []string{n.Draft}, To: n.Submitted}},
			Effects:     []engine.Effect{{Op: engine.Start, Rule: ruleAcknowledgement}}, Validate: validateContent,
			Apply: func(ev *on, in *n.Content) error { ev.Doc.Content = *in; return nil }},
		intent[n.Content]{Name: IntentCorrection, Refreshes: true, Errors: slices.Concat(submissionErrors, []string{n.ErrChangeEmpty, n.ErrNoShipmentPossible}),
			Operation: company + "SetSubmission", Block: "notification", Roles: []string{n.RoleNotifier},
			Summary: "correct a filed notification; after acknowledgement it waits for an authority's acceptance",
			Transitions: []engine.Transition{
				{From: []string{n.Submitted}, To: n.Submitted},
				{From: []string{n.Acknowledged}, To: n.Acknowledged},
				{From: []string{n.InformationRequested}, To: n.InformationRequested},
			}, Validate: validateCorrection,
			Apply: func(ev *on, in *n.Content) error {
				if no := ev.Doc.ApplyCorrection(*in, ev.State, ev.Now); no > 0 {
					ev.Note = fmt.Sprintf("supersedes correction %d of %s, which awaited acknowledgement: the acknowledgement accepts this one",
						ev.Numbered("corrections", no-1), ev.Doc.Corrections[no-1].At.Format(time.DateOnly))
				}
				return nil
			}},
		intent[n.Acknowledgement]{Name: IntentAcknowledgement, Operation: authority + "SubmitAcknowledgement", Block: "acknowledgement", Roles: []string{n.RoleAuthorityDestination},
			Summary: "acknowledge receipt (not consent); in ACKNOWLEDGED it accepts a pending correction",
			Transitions: []engine.Transition{
				{From: []string{n.Submitted}, To: n.Acknowledged},
				{From: []string{n.Acknowledged}, To: n.Acknowledged, Guard: "correctionPending"},
			},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: ruleAcknowledgement, Party: partyCaller},
				{Op: engine.Restart, Rule: ruleDecision},
			},
			Apply: func(ev *on, in *n.Acknowledgement) error {
				ev.Doc.ApplyAcknowledgement(ev.Caller.Org, *in, ev.Now)
				return nil
			}},
		intent[n.RequestInformation]{Name: IntentRequestInformation, Errors: []string{n.ErrRequiredMissing},
			Operation: authority + "SetRequestInformation", Block: "requestInformation", Roles: anyAuthority,
			Summary:     "ask the notifier for information; suspends every running decision period",
			Transitions: []engine.Transition{{From: []string{n.Submitted, n.Acknowledged, n.InformationRequested}, To: n.InformationRequested}},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: ruleAcknowledgement},
				{Op: engine.Suspend, Rule: ruleDecision},
				{Op: engine.Restart, Rule: ruleInformation},
			},
			Validate: func(ev *on, in *n.RequestInformation) ([]engine.BusinessError, error) {
				if len(in.Questions) == 0 {
					return shipment.Missing("requestInformation.questions", "at least one question is required"), nil
				}
				return nil, nil
			},
			Apply: func(ev *on, in *n.RequestInformation) error {
				ev.Doc.ApplyRequestInformation(ev.Caller.Org, *in, ev.State, ev.Now)
				return nil
			}},
		intent[n.ReplyToRequestInformation]{Name: IntentReplyToRequestInfo, Errors: []string{n.ErrRequiredMissing},
			Operation: company + "SetReplyToRequestInformation", Block: "replyToRequestInformation", Roles: []string{n.RoleNotifier},
			Prefill: func(d *n.Notification, b *n.ReplyToRequestInformation) { // an answer per open question
				if open := d.OpenInformationRequest(); open != nil {
					b.Answers = make([]string, len(open.Questions))
				}
			},
			Summary:     "answer the open information request; complete: true resumes the decision periods",
			Transitions: []engine.Transition{{From: []string{n.InformationRequested}, Target: "afterReply", Targets: []string{n.InformationRequested, n.Submitted, n.Acknowledged}}},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: ruleInformation, When: "!informationOpen"},
				{Op: engine.Resume, Rule: ruleDecision, When: "!informationOpen"},
			},
			Validate: func(ev *on, in *n.ReplyToRequestInformation) ([]engine.BusinessError, error) {
				if len(in.Answers) == 0 {
					return shipment.Missing("replyToRequestInformation.answers", "at least one answer is required"), nil
				}
				return nil, nil
			},
			Apply: func(ev *on, in *n.ReplyToRequestInformation) error {
				ev.Doc.ApplyReply(*in, ev.Now)
				return nil
			}},
		intent[n.Decision]{Name: IntentDecision, Errors: decisionErrors,
			Operation: authority + "SetDecision", Block: "decision", Roles: anyAuthority,
			Prefill:     func(d *n.Notification, b *n.Decision) { b.ValidUntil = d.ConsentValidUntil },
			Summary:     "consent, consent with conditions, or object; once per authority",
			Transitions: []engine.Transition{{From: []string{n.Acknowledged}, Target: "afterDecision", Targets: []string{n.Acknowledged, n.Consented, n.Objected}, Guard: "callerMayDecide"}},
			Effects: slices.Concat([]engine.Effect{ // guaranteeFollows: an objection ends the dossier, a consent may extend the period
				{Op: engine.Stop, Rule: ruleDecision, Party: partyCaller},
				{Op: engine.Cancel, Rule: ruleDecision, When: "objected"},
				{Op: engine.Start, Rule: ruleValidity, When: "consented"},
			}, guaranteeFollows), Validate: validateDecision,
			Apply: func(ev *on, in *n.Decision) error {
				role := ""
				for _, r := range ev.Caller.Roles { // the caller's authority role
					if slices.Contains(anyAuthority, r) {
						role = r
					}
				}
				extended := ev.Doc.ApplyDecision(ev.Caller.Org, role, *in, false, ev.Now)
				ev.Note = decisionNote(ev.Doc, extended)
				return nil
			}},
		intent[engine.Party]{Name: IntentTacitConsent, System: true,
			Summary:     "a transit authority's decision period expired: tacit consent",
			Transitions: []engine.Transition{{From: []string{n.Acknowledged}, Target: "afterDecision", Targets: []string{n.Acknowledged, n.Consented}, Guard: "tacitConsentDue"}},
			Effects: []engine.Effect{
				{Op: engine.Lapse, Rule: ruleDecision, Party: partyInput},
				{Op: engine.Start, Rule: ruleValidity, When: "consented"},
			},
			Apply: func(ev *on, in *engine.Party) error {
				extended := ev.Doc.ApplyDecision(in.Org, n.RoleAuthorityTransit, n.Decision{Type: n.DecisionConsent}, true, ev.Now)
				ev.Note = decisionNote(ev.Doc, extended)
				return nil
			}},
		intent[n.RequestForChange]{Name: IntentRequestForChange, Errors: slices.Concat(submissionErrors, []string{n.ErrChangeEmpty, n.ErrChangeNeedsNotification, n.ErrQuantityExceeded, n.ErrShipmentCount}),
			Operation: company + "SetRequestForChangeAfterConsent", Block: "requestForChange", Roles: []string{n.RoleNotifier},
			Prefill:     func(d *n.Notification, b *n.RequestForChange) { b.Proposed = d.Content }, // the terms in force, to change
			Summary:     "ask for a change of the consented terms; shipments go on under the existing terms",
			Transitions: []engine.Transition{{From: []string{n.Consented}, To: n.ChangeRequested}},
			Effects:     []engine.Effect{{Op: engine.Start, Rule: ruleChangeReply}}, Validate: validateChange,
			Apply: func(ev *on, in *n.RequestForChange) error {
				d := ev.Doc
				// A request left open in CONSENTED by the code before issue 46
				// is closed by the new one, never left behind it.
				old := changeClosed(ev, d.CloseChangeRequest(IntentRequestForChange, ev.Now), "a new request replaces it")
				d.ApplyRequestForChange(*in, ev.Now)
				ev.Note = fmt.Sprintf("change request %d proposes new %s; the terms in force stay until every authority accepts",
					ev.Numbered("changeRequests", len(d.ChangeRequests)-1), strings.Join(d.ChangeRequests[len(d.ChangeRequests)-1].ChangedFields, ", "))
				if old != "" {
					ev.Note += "; " + old
				}
				return nil
			}},
		intent[n.ReplyToRequestForChange]{Name: IntentReplyToChange, Errors: []string{n.ErrRequiredMissing},
			Operation: authority + "ReplyToRequestForChangeAfterConsent", Block: "replyToRequestForChange", Roles: anyAuthority,
			Summary:     "accept, accept with conditions, or reject the change; once per authority",
			Transitions: []engine.Transition{{From: []string{n.ChangeRequested}, Target: "afterChangeReply", Targets: []string{n.ChangeRequested, n.Consented}, Guard: "callerNotRepliedToChange"}},
			Effects: slices.Concat([]engine.Effect{ // guaranteeFollows: an accepted change of the shipment period
				{Op: engine.Stop, Rule: ruleChangeReply, Party: partyCaller},
				{Op: engine.Restart, Rule: ruleValidity, When: "consentEndMoved"},
			}, guaranteeFollows), Validate: validateChangeReply,
			Apply: func(ev *on, in *n.ReplyToRequestForChange) error {
				d := ev.Doc
				i := slices.IndexFunc(d.ChangeRequests, func(cr n.ChangeRequestRecord) bool { return cr.Open })
				d.ApplyChangeReply(ev.Caller.Org, *in, ev.Now)
				ev.Note = n.ChangeReplyDetail(*in)
				if i >= 0 && !d.ChangeRequests[i].Open { // this reply closed the request
					ev.Note += "; " + changeOutcome(ev.Numbered("changeRequests", i), &d.ChangeRequests[i])
				}
				return nil
			}},
		intent[engine.None]{Name: IntentCreateMovement, Operation: company + "CreateMovementTemplate", Block: "movementTemplate", Roles: []string{n.RoleNotifier},
			Summary:     "announce a shipment under the consent: creates a movement document (CreateMovementTemplate)",
			Creates:     "MOVEMENT",
			Transitions: []engine.Transition{{From: []string{n.Consented}, To: n.Consented, Guard: "shipmentLeft"}, {From: []string{n.ChangeRequested}, To: n.ChangeRequested, Guard: "shipmentLeft"}}},
		intent[n.FacilityCompletionArticle15]{Name: IntentArticle15, Errors: []string{n.ErrRequiredMissing, shipment.ErrDateOutOfRange, n.ErrOperationCode, n.ErrMovementsOpen, n.ErrNoMovementCompleted},
			Operation: company + "SetFacilityCompletionUnderArticle15", Block: "facilityCompletionArticle15", Roles: []string{n.RoleFacility},
			Summary:     "a pre-consented facility (Art. 14) states the operations completed and closes the dossier (Art. 15)",
			Transitions: []engine.Transition{{From: []string{n.Consented, n.ChangeRequested, n.Expired}, To: n.Closed, Guard: "preConsentedFacility"}},
			Effects: slices.Concat([]engine.Effect{ // guaranteeFollows: the dossier ends
				{Op: engine.Cancel, Rule: ruleChangeReply},
				{Op: engine.Stop, Rule: ruleValidity},
			}, guaranteeFollows),
			Validate: func(ev *on, in *n.FacilityCompletionArticle15) ([]engine.BusinessError, error) {
				var done n.MovementsDone
				for _, c := range ev.Children {
					switch mv, _ := engine.DataOf[*movement.Summary](c); {
					case c.State == movement.Completed:
						done.Completed++
						if mv != nil {
							done.LastCompletedOn = max(done.LastCompletedOn, mv.CompletedOn)
						}
					case c.State != movement.TakenBack:
						done.Open = append(done.Open, c.Number+" ("+c.State+")")
					}
				}
				return n.CheckArticle15(in, &ev.Doc.Content, ev.Today(ev.Caller.Org), done), nil
			},
			Apply: func(ev *on, in *n.FacilityCompletionArticle15) error {
				ev.Doc.Article15 = &n.Article15Record{FacilityOrganisationID: ev.Caller.Org, CompletedOn: in.CompletedOn, OperationCode: in.OperationCode, At: ev.Now}
				ev.Note = changeClosed(ev, ev.Doc.CloseChangeRequest(IntentArticle15, ev.Now), "the dossier is closed")
				return nil
			}},
		intent[n.NotificationSignal]{Name: IntentNotificationSignal, Errors: append(slices.Clip(decisionErrors), n.ErrChangeRequestOpen),
			Operation: authority + "SubmitNotificationSignal", Block: "notificationSignal", Roles: anyAuthority,
			Prefill: func(d *n.Notification, b *n.NotificationSignal) { b.ValidUntil = d.ConsentValidUntil },
			Summary: "cancel the consent, close the notification, or revalidate it with a new validUntil",
			Transitions: []engine.Transition{
				{From: []string{n.Consented, n.Expired}, Target: "afterSignal", Targets: []string{n.ConsentCancelled, n.Closed, n.Consented}},
				// A revalidation carries an open change request forward.
				{From: []string{n.ChangeRequested}, Target: "afterSignal", Targets: []string{n.ConsentCancelled, n.Closed, n.ChangeRequested}},
			},
			Effects: slices.Concat([]engine.Effect{ // guaranteeFollows: a cancellation or closure ends the dossier, a revalidation may extend the period
				{Op: engine.Cancel, Rule: ruleChangeReply, When: "!changeRequested"}, // a revalidation carries an open request forward
				{Op: engine.Stop, Rule: ruleValidity, When: "!revalidated"},
				{Op: engine.Restart, Rule: ruleValidity, When: "revalidated"},
			}, guaranteeFollows), Validate: validateSignal,
			Apply: func(ev *on, in *n.NotificationSignal) error {
				d := ev.Doc
				var notes []string
				if d.ApplySignal(ev.Caller.Org, *in, ev.Now) {
					notes = append(notes, periodExtended(d))
				}
				switch open := slices.IndexFunc(d.ChangeRequests, func(cr n.ChangeRequestRecord) bool { return cr.Open }); {
				case open >= 0 && in.Type == n.SignalRevalidation && ev.State == n.ChangeRequested:
					notes = append(notes, fmt.Sprintf("change request %d stays open: its proposal keeps the terms revalidated", ev.Numbered("changeRequests", open)))
				case open >= 0:
					notes = append(notes, changeClosed(ev, d.CloseChangeRequest(IntentNotificationSignal, ev.Now), "the consent no longer stands as it was"))
				}
				ev.Note = strings.Join(notes, "; ")
				return nil
			}},
		intent[engine.None]{Name: IntentConsentValidityExpiry, System: true,
			Summary:     "the consent's validity ended",
			Transitions: []engine.Transition{{From: []string{n.Consented, n.ChangeRequested}, To: n.Expired, Guard: "consentExpired"}},
			Effects: slices.Concat([]engine.Effect{ // guaranteeFollows: the consent ended
				{Op: engine.Lapse, Rule: ruleValidity},
				{Op: engine.Cancel, Rule: ruleChangeReply},
			}, guaranteeFollows),
			Apply: func(ev *on, _ *engine.None) error {
				ev.Note = changeClosed(ev, ev.Doc.CloseChangeRequest(IntentConsentValidityExpiry, ev.Now), "the consent it would change has expired")
				return nil
			}},
		documents.Withdrawal(n.RoleNotifier, n.Draft, n.Withdrawn, "filed", "filing", func(d *n.Notification) **n.WithdrawalRecord { return &d.Withdrawal }),
		intent[n.Guarantee]{Name: IntentGuarantee, Errors: []string{n.ErrRequiredMissing, n.ErrQuantity, shipment.ErrDateOutOfRange, n.ErrChangeEmpty},
			Operation: company + "SetByIntent", Block: "guarantee", Roles: []string{n.RoleNotifier},
			Prefill: func(d *n.Notification, b *n.Guarantee) { // the last one, to renew
				if len(d.Guarantees) > 0 {
					*b = d.Guarantees[len(d.Guarantees)-1].Guarantee
				}
			},
			Summary:     "submit the financial guarantee or equivalent insurance (Art. 7), or a new one; the authority of dispatch approves it; through SetByIntent",
			Transitions: stays(guaranteeStates, ""),
			Validate: func(ev *on, in *n.Guarantee) ([]engine.BusinessError, error) {
				return n.CheckGuarantee(ev.Doc, in, ev.Today(ev.Caller.Org)), nil
			},
			Apply: func(ev *on, in *n.Guarantee) error {
				ev.Doc.ApplyGuarantee(*in, ev.Now)
				ev.Note = fmt.Sprintf("guarantee %d submitted (%s %s, valid %s to %s); it awaits the approval of the authority of dispatch",
					len(ev.Doc.Guarantees), in.Currency, in.Amount.String(), in.ValidFrom, in.ValidUntil)
				return nil
			}},
		intent[n.GuaranteeApproval]{Name: IntentGuaranteeApproval,
			Operation: authority + "SetByIntent", Block: "guaranteeApproval", Roles: []string{n.RoleAuthorityDispatch},
			Summary:     "the authority of dispatch approves the guarantee submitted, its form, wording and amount (Art. 7(4)); through SetByIntent",
			Transitions: stays(guaranteeStates, "guaranteePending"),
			Effects: []engine.Effect{
				{Op: engine.Restart, Rule: ruleGuarantee, When: "guaranteeEndsEarly"},
				{Op: engine.Stop, Rule: ruleGuarantee, When: "!guaranteeEndsEarly"},
			},
			Apply: func(ev *on, in *n.GuaranteeApproval) error {
				ev.Doc.ApplyGuaranteeApproval(ev.Caller.Org, *in, ev.Now)
				ev.Note = fmt.Sprintf("guarantee %d approved: it is in force until %s", len(ev.Doc.Guarantees), ev.Doc.GuaranteeEnd())
				if ev.Doc.GuaranteeEndsEarly() {
					ev.Note += fmt.Sprintf(", before the shipment period ends (%s): a new one is due before then", ev.Doc.Content.ShipmentPeriod.LastDeparture)
				}
				return nil
			}},
	},
	Guards: map[string]func(*on) bool{
		"correctionPending":        func(ev *on) bool { return ev.Doc.PendingCorrection() != nil },
		"preConsentedFacility":     func(ev *on) bool { return ev.Doc.Content.Facility.PreConsented },
		"callerMayDecide":          func(ev *on) bool { ok, _ := ev.Doc.MayDecide(ev.Caller.Org); return ok },
		"shipmentLeft":             func(ev *on) bool { ok, _ := shipmentLeft(ev); return ok },
		"callerNotRepliedToChange": func(ev *on) bool { return !ev.Doc.HasRepliedToChange(ev.Caller.Org) },
		"informationOpen":          func(ev *on) bool { return ev.Doc.OpenInformationRequest() != nil },
		"consented":                func(ev *on) bool { return ev.State == n.Consented },
		"objected":                 func(ev *on) bool { return ev.State == n.Objected },
		"revalidated": func(ev *on) bool { // the consent stands, with the revalidation's end (in CHANGE_REQUESTED too)
			return ev.State == n.Consented || ev.State == n.ChangeRequested
		},
		"consentEndMoved":  func(ev *on) bool { return ev.Doc.ConsentEndMoved() },
		"changeRequested":  func(ev *on) bool { return ev.State == n.ChangeRequested },
		"guaranteePending": func(ev *on) bool { return ev.Doc.PendingGuarantee() != nil },
		// The renewal deadline follows what an act did to the shipment
		// period or the consent: due and not running (an extension past the
		// guarantee's end), or running and no longer due (a shorter period,
		// the dossier ended). Found by the model-based test.
		"guaranteeRenewalToStart": func(ev *on) bool { return renewalDue(ev) && !renewalRunning(ev) },
		"guaranteeRenewalToEnd":   func(ev *on) bool { return !renewalDue(ev) && renewalRunning(ev) },
		"guaranteeEndsEarly":      func(ev *on) bool { return ev.Doc.GuaranteeEndsEarly() },
		"consentExpired": func(ev *on) bool {
			return ev.Overdue(ruleValidity, ev.Doc.Content.Notifier.OrganisationID) || ev.Doc.ConsentExpired(ev.Now)
		},
		"tacitConsentDue": func(ev *on) bool {
			// The authority whose period ran out is an undecided transit authority.
			p, ok := engine.InputOf[engine.Party](ev.Eval)
			if !ok {
				return false
			}
			d := ev.Doc
			may, _ := d.MayDecide(p.Org) // undecided, and no correction awaits acknowledgement
			return slices.Contains(n.Authorities(&d.Content), n.Party{OrganisationID: p.Org, Role: n.RoleAuthorityTransit}) &&
				may && ev.Overdue(ruleDecision, p.Org)
		},
	},
	// Why a guard blocks an intent, for the caller's refusal (400, code 9).
	Refusals: map[string]func(*on) string{
		"callerMayDecide": func(ev *on) string { _, why := ev.Doc.MayDecide(ev.Caller.Org); return why },
		"shipmentLeft":    func(ev *on) string { _, why := shipmentLeft(ev); return why },
		"correctionPending": func(ev *on) string {
			return "no correction awaits acknowledgement: the notification is acknowledged already"
		},
		"callerNotRepliedToChange": func(ev *on) string {
			return ev.Caller.Org + " has replied to the open change request already; an authority replies once"
		},
		"guaranteePending": func(ev *on) string {
			return "no guarantee awaits approval: the notifier submits one first (GUARANTEE)"
		},
		"preConsentedFacility": func(ev *on) string {
			return "the facility is not pre-consented (Art. 14): the competent authorities close the notification (CLOSURE)"
		},
	},
	Targets: map[string]func(*on) string{
		"afterReply":       func(ev *on) string { return ev.Doc.AfterReply() },
		"afterDecision":    func(ev *on) string { return ev.Doc.AfterDecision() },
		"afterChangeReply": func(ev *on) string { return ev.Doc.AfterChangeReply() },
		"afterSignal": func(ev *on) string {
			if in, ok := engine.InputOf[n.NotificationSignal](ev.Eval); ok {
				return ev.Doc.AfterSignal(in.Type, ev.State)
			}
			return ev.State
		},
	},
	Rules: []engine.Rule{
		{Name: ruleAcknowledgement, LegalBasis: "Art. 8(2) Regulation (EU) 2024/1157", Days: 10, Working: true, Party: partyDestination},
		{Name: ruleInformation, LegalBasis: "Art. 8(3) Regulation (EU) 2024/1157", Days: 10, Working: true, Party: partyNotifier},
		{Name: ruleDecision, LegalBasis: "Art. 9(1) Regulation (EU) 2024/1157", Days: 30, Party: partyEachAuthority, OnExpiry: IntentTacitConsent},
		{Name: ruleChangeReply, LegalBasis: "Art. 17(2) Regulation (EU) 2024/1157", Days: 5, Working: true, Party: partyEachAuthority},
		{Name: ruleValidity, LegalBasis: "Art. 9 and 14 Regulation (EU) 2024/1157", Until: "consentEnd", Party: partyNotifier, OnExpiry: IntentConsentValidityExpiry},
		{Name: ruleGuarantee, LegalBasis: "Art. 7(3) and (5) Regulation (EU) 2024/1157", Until: "guaranteeEnd", Party: partyNotifier},
	},
	Selectors: map[string]func(*on) []engine.Party{
		partyEachAuthority: func(ev *on) []engine.Party { return engine.PartiesOf(n.Authorities(&ev.Doc.Content)) },
		partyDestination: func(ev *on) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Content.CompetentAuthorities.Destination.OrganisationID, Role: n.RoleAuthorityDestination}}
		},
		partyNotifier: func(ev *on) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Content.Notifier.OrganisationID, Role: n.RoleNotifier}}
		},
		partyCaller: callerParties,
		partyInput: func(ev *on) []engine.Party {
			if p, ok := engine.InputOf[engine.Party](ev.Eval); ok {
				return []engine.Party{*p}
			}
			return nil
		},
	},
	Dates: map[string]func(*on) string{
		"consentEnd":   func(ev *on) string { return ev.Doc.ConsentValidUntil },
		"guaranteeEnd": func(ev *on) string { return ev.Doc.GuaranteeEnd() },
	},
}

// shipmentLeft: the movements under the notification leave a shipment and
// some quantity (guard of CREATE_MOVEMENT; the runner gives every
// evaluation of the notification its movements' tally).
func shipmentLeft(ev *on) (bool, string) {
	t, ok := engine.TallyOf[n.Tally](ev.Tally)
	if !ok {
		return false, "the movements under the notification were not counted (a fault of the server: try again, and tell its operators if it persists)"
	}
	return n.ShipmentLeft(&ev.Doc.Content, t)
}

// periodExtended is the audit note of a consent or revalidation that
// moved the shipment period's end.
// decisionNote is a decision's audit detail: the decision taken (type,
// conditions, validity) and, when it extended the shipment period, that.
func decisionNote(d *n.Notification, extended bool) string {
	note := d.DecisionDetail()
	if extended {
		note += "; " + periodExtended(d)
	}
	return note
}

func periodExtended(d *n.Notification) string {
	return "the authorities extended the shipment period: it ends on " + d.Content.ShipmentPeriod.LastDeparture + ", with the consent"
}

func callerParties(ev *on) []engine.Party {
	var out []engine.Party
	for _, r := range ev.Caller.Roles {
		out = append(out, engine.Party{Org: ev.Caller.Org, Role: r})
	}
	return out
}

func validateCreate(ev *on, in *CreateInput) ([]engine.BusinessError, error) {
	if kind, _ := ev.OrgKind(ev.Caller.Org); kind != "company" {
		return nil, status.New(status.PermissionDenied, "only companies file notifications")
	}
	if in.Content.Notifier.OrganisationID == "" {
		in.Content.Notifier.OrganisationID = ev.Caller.Org
	}
	if in.Content.Notifier.OrganisationID != ev.Caller.Org {
		return nil, status.New(status.PermissionDenied, "the notifier must be your organisation %q", ev.Caller.Org)
	}
	return n.ValidateDraft(&in.Content, ev.OrgKind, ev.Now), nil
}

// validateContent checks a filed or corrected notification.
func validateContent(ev *on, c *n.Content) ([]engine.BusinessError, error) {
	notifier := ev.Doc.Content.Notifier.OrganisationID
	var berrs []engine.BusinessError
	if c.Notifier.OrganisationID == "" {
		c.Notifier.OrganisationID = notifier
	}
	if c.Notifier.OrganisationID != notifier {
		berrs = append(berrs, n.BusinessError{Code: n.ErrPartyUnknown, Field: "notification.notifier.organisationId", Message: "the notifier of a notification cannot change"})
	}
	berrs = append(berrs, n.ValidateSubmission(c, ev.OrgKind, ev.Now)...)
	return append(berrs, n.CheckPlaces(c, ev.Country)...), nil
}

// validateCorrection checks a correction like a filing, and that it
// corrects something.
func validateCorrection(ev *on, c *n.Content) ([]engine.BusinessError, error) {
	berrs, err := validateContent(ev, c)
	if err != nil {
		return nil, err
	}
	return append(berrs, n.CheckCorrection(ev.Doc, c)...), nil
}

// changeClosed is the audit note of an act that closed the change request
// at place no (from 1) of ev's list unanswered (0: none was open, no
// note), and why; the note numbers it in the whole list (ev.Numbered).
func changeClosed(ev *on, no int, why string) string {
	if no == 0 {
		return ""
	}
	return fmt.Sprintf("change request %d closed before every authority replied (%s): the terms in force stay", ev.Numbered("changeRequests", no-1), why)
}

// changeOutcome says what closing change request number no did.
func changeOutcome(no int, cr *n.ChangeRequestRecord) string {
	if cr.Outcome == "AMENDED" {
		return fmt.Sprintf("change request %d accepted by every authority: the proposed %s are the terms now; the replaced terms are kept in changeRequests[%d].replaced",
			no, strings.Join(cr.ChangedFields, ", "), no-1)
	}
	var by []string
	for _, r := range cr.Replies {
		if r.Result == n.ChangeRejected {
			by = append(by, r.Authority)
		}
	}
	return fmt.Sprintf("change request %d rejected by %s: the terms in force stay", no, strings.Join(by, ", "))
}

// validateChange checks a change request's proposed terms like a
// submission, and what a change may not do (rules/notification.CheckChange).
func validateChange(ev *on, in *n.RequestForChange) ([]engine.BusinessError, error) {
	d := ev.Doc
	if reflect.ValueOf(in.Proposed).IsZero() {
		return shipment.Missing("requestForChange.proposed", "the proposed terms are required: the notification content as it would be after the change"), nil
	}
	p := &in.Proposed
	if p.Notifier.OrganisationID == "" {
		p.Notifier.OrganisationID = d.Content.Notifier.OrganisationID
	}
	berrs := n.ValidateSubmission(p, ev.OrgKind, ev.Now)
	berrs = append(berrs, n.CheckPlaces(p, ev.Country)...)
	t, ok := engine.TallyOf[n.Tally](ev.Tally)
	if !ok {
		return nil, errors.New("the movements under the notification were not counted")
	}
	return append(n.Refield(berrs, "requestForChange.proposed."), n.CheckChange(&d.Content, p, t)...), nil
}

func validateDecision(ev *on, in *n.Decision) ([]engine.BusinessError, error) {
	switch in.Type {
	case n.DecisionConsent, n.DecisionConsentWithConditions, n.DecisionObjection:
	default:
		return shipment.Missing("decision.type", "CONSENT, CONSENT_WITH_CONDITIONS or OBJECTION is required"), nil
	}
	if in.Type == n.DecisionObjection && strings.TrimSpace(in.Grounds) == "" {
		return shipment.Missing("decision.grounds", "an objection needs grounds"), nil
	}
	if in.Type == n.DecisionConsentWithConditions && len(in.Conditions) == 0 {
		return shipment.Missing("decision.conditions", "a conditional consent needs conditions"), nil
	}
	if in.Type == n.DecisionObjection {
		return nil, nil
	}
	if in.ValidUntil != "" {
		today := ev.Today(ev.Caller.Org)
		if berrs := n.CheckValidUntil("decision.validUntil", in.ValidUntil, &ev.Doc.Content, today, today, in.ExtendsShipmentPeriod); len(berrs) > 0 {
			return berrs, nil
		}
	}
	// A consent never puts terms in force under which no movement is possible.
	return n.CheckShippable("decision", &ev.Doc.Content, in.ValidUntil), nil
}

func validateChangeReply(ev *on, in *n.ReplyToRequestForChange) ([]engine.BusinessError, error) {
	switch in.Result {
	case n.ChangeAccepted, n.ChangeAcceptedWithConditions, n.ChangeRejected:
	default:
		return shipment.Missing("replyToRequestForChange.result", "ACCEPTED, ACCEPTED_WITH_CONDITIONS or REJECTED is required"), nil
	}
	if in.Result == n.ChangeRejected && strings.TrimSpace(in.Grounds) == "" {
		return shipment.Missing("replyToRequestForChange.grounds", "a rejection needs grounds"), nil
	}
	if in.Result == n.ChangeAcceptedWithConditions && len(in.Conditions) == 0 {
		return shipment.Missing("replyToRequestForChange.conditions", "an acceptance with conditions needs conditions"), nil
	}
	return nil, nil
}

func validateSignal(ev *on, in *n.NotificationSignal) ([]engine.BusinessError, error) {
	d := ev.Doc
	switch in.Type {
	case n.SignalCancellationOfConsent:
		// Each authority revokes its own consent: the one cancelling consented.
		if !d.HasConsented(ev.Caller.Org) {
			return nil, status.New(status.PermissionDenied, "only an authority that consented may cancel the consent; %s has no consent recorded", ev.Caller.Org)
		}
		return n.CheckCancellation(in), nil
	case n.SignalClosure:
	case n.SignalRevalidation:
		consented := d.ConsentedOn()
		if consented == "" {
			consented = ev.Today(ev.Caller.Org)
		}
		if berrs := n.CheckValidUntil("notificationSignal.validUntil", in.ValidUntil, &d.Content, consented, ev.Today(ev.Caller.Org), in.ExtendsShipmentPeriod); len(berrs) > 0 {
			return berrs, nil
		}
		if berrs := n.CheckRevalidation("notificationSignal.validUntil", in.ValidUntil, d.ConsentValidUntil); len(berrs) > 0 {
			return berrs, nil
		}
		if berrs := n.CheckExtension("notificationSignal.extendsShipmentPeriod", d, in); len(berrs) > 0 {
			return berrs, nil
		}
		return n.CheckShippable("notificationSignal", &d.Content, in.ValidUntil), nil
	default:
		return shipment.Missing("notificationSignal.type", "CANCELLATION_OF_CONSENT, CLOSURE or REVALIDATION is required"), nil
	}
	return nil, nil
}

// The business errors the intents declare (Intent.Errors): the content of
// a notification, as a draft and as filed; a decision on it.
var (
	contentErrors    = []string{n.ErrWasteCode, n.ErrOperationCode, n.ErrPartyUnknown, n.ErrRequiredMissing, n.ErrQuantity, n.ErrShipmentPeriod, n.ErrPackagingType}
	submissionErrors = slices.Concat(contentErrors, []string{shipment.ErrAuthorityPlace})
	decisionErrors   = []string{n.ErrRequiredMissing, n.ErrConsentValidity, n.ErrNoShipmentPossible}
)

// words are the notification's states, intents and roles as a person
// reads them.
var words = engine.Labels{
	Kind: labels.Text{EN: "Notification", DE: "Notifizierung"},
	States: map[string]labels.Text{
		n.Draft:                {EN: "Draft", DE: "Entwurf"},
		n.Submitted:            {EN: "Submitted", DE: "Eingereicht"},
		n.Acknowledged:         {EN: "Acknowledged", DE: "Eingang bestätigt"},
		n.InformationRequested: {EN: "Information requested", DE: "Auskunft angefordert"},
		n.Consented:            {EN: "Consented", DE: "Zugestimmt"},
		n.ChangeRequested:      {EN: "Change requested", DE: "Änderung beantragt"},
		n.Objected:             {EN: "Objected", DE: "Einwand erhoben"},
		n.Expired:              {EN: "Consent expired", DE: "Zustimmung abgelaufen"},
		n.ConsentCancelled:     {EN: "Consent cancelled", DE: "Zustimmung widerrufen"},
		n.Closed:               {EN: "Closed", DE: "Abgeschlossen"},
		n.Withdrawn:            {EN: "Withdrawn", DE: "Zurückgenommen"},
	},
	Intents: map[string]labels.Text{
		IntentCreate:                {EN: "Create a notification", DE: "Notifizierung anlegen"},
		IntentSubmission:            {EN: "Submit", DE: "Einreichen"},
		IntentCorrection:            {EN: "Correct", DE: "Korrigieren"},
		IntentAcknowledgement:       {EN: "Acknowledge receipt", DE: "Eingang bestätigen"},
		IntentRequestInformation:    {EN: "Request information", DE: "Auskunft anfordern"},
		IntentReplyToRequestInfo:    {EN: "Reply to the request for information", DE: "Auskunftsersuchen beantworten"},
		IntentDecision:              {EN: "Decide", DE: "Entscheiden"},
		IntentRequestForChange:      {EN: "Request a change after consent", DE: "Änderung nach Zustimmung beantragen"},
		IntentReplyToChange:         {EN: "Reply to the request for change", DE: "Änderungsantrag beantworten"},
		IntentNotificationSignal:    {EN: "Cancel, close or revalidate", DE: "Widerrufen, abschließen oder verlängern"},
		IntentTacitConsent:          {EN: "Tacit consent", DE: "Stillschweigende Zustimmung"},
		IntentConsentValidityExpiry: {EN: "Consent expires", DE: "Zustimmung läuft ab"},
		IntentCreateMovement:        {EN: "Create a movement", DE: "Verbringung anlegen"},
		IntentArticle15:             {EN: "Confirm completion (Article 15)", DE: "Abschluss bestätigen (Artikel 15)"},
		IntentWithdrawal:            {EN: "Withdraw the draft", DE: "Entwurf zurücknehmen"},
		IntentGuarantee:             {EN: "Submit the financial guarantee", DE: "Sicherheitsleistung einreichen"},
		IntentGuaranteeApproval:     {EN: "Approve the financial guarantee", DE: "Sicherheitsleistung genehmigen"},
	},
	Roles: shipment.RoleWords(map[string]labels.Text{n.RoleNotifier: {EN: "Notifier", DE: "Notifizierende Person"}}),
	Rules: map[string]labels.Text{
		ruleAcknowledgement: {EN: "Acknowledgement due", DE: "Eingangsbestätigung fällig"},
		ruleInformation:     {EN: "Reply to the request for information due", DE: "Antwort auf das Auskunftsersuchen fällig"},
		ruleDecision:        {EN: "Decision due", DE: "Entscheidung fällig"},
		ruleChangeReply:     {EN: "Reply to the request for change due", DE: "Antwort auf den Änderungsantrag fällig"},
		ruleValidity:        {EN: "Consent valid until", DE: "Zustimmung gültig bis"},
		ruleGuarantee:       {EN: "New financial guarantee due", DE: "Neue Sicherheitsleistung fällig"},
	},
}
