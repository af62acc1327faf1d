// Package notifications runs the prior written notification: its machine
// declared as data, its deadline rules, and the transactions that fire it.
package notifications

import (
	"slices"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Kind of the document.
const Kind = "NOTIFICATION"

const (
	company   = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
	authority = "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/"
)

// Intents (public contract).
const (
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
)

var anyAuthority = []string{n.RoleAuthorityDispatch, n.RoleAuthorityDestination, n.RoleAuthorityTransit}

// Party selectors of deadline effects.
const (
	partyEachAuthority = "EACH_AUTHORITY"
	partyDestination   = "DESTINATION"
	partyNotifier      = "NOTIFIER"
	partyCaller        = "CALLER"
	partyInput         = "INPUT_AUTHORITY" // tacit consent: the authority named by the system trigger
)

// Definition is the notification machine (domain/workflows.md section 3).
var Definition = &engine.Definition{
	Kind: Kind,
	States: []string{n.Draft, n.Submitted, n.Acknowledged, n.InformationRequested, n.Consented, n.ChangeRequested,
		n.Objected, n.Expired, n.ConsentCancelled, n.Closed},
	Initial: n.Draft,
	Final:   []string{n.Objected, n.ConsentCancelled, n.Closed},
	Intents: []engine.Intent{
		{Name: IntentSubmission, Operation: company + "SetSubmission", Block: "notification", Roles: []string{n.RoleNotifier},
			Summary:     "file the notification",
			Transitions: []engine.Transition{{From: []string{n.Draft}, To: n.Submitted}},
			Effects:     []engine.Effect{{Op: engine.Start, Rule: "ACKNOWLEDGEMENT_DUE", Party: partyDestination}}},
		{Name: IntentCorrection, Operation: company + "SetSubmission", Block: "notification", Roles: []string{n.RoleNotifier},
			Summary: "correct a filed notification; after acknowledgement it waits for an authority's acceptance",
			Transitions: []engine.Transition{
				{From: []string{n.Submitted}, To: n.Submitted},
				{From: []string{n.Acknowledged}, To: n.Acknowledged},
				{From: []string{n.InformationRequested}, To: n.InformationRequested},
			}},
		{Name: IntentAcknowledgement, Operation: authority + "SubmitAcknowledgement", Block: "acknowledgement", Roles: []string{n.RoleAuthorityDestination},
			Summary: "acknowledge receipt (not consent); in ACKNOWLEDGED it accepts a pending correction",
			Transitions: []engine.Transition{
				{From: []string{n.Submitted}, To: n.Acknowledged},
				{From: []string{n.Acknowledged}, To: n.Acknowledged, Guard: "correctionPending"},
			},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: "ACKNOWLEDGEMENT_DUE", Party: partyCaller},
				{Op: engine.Restart, Rule: "DECISION_DUE", Party: partyEachAuthority},
			}},
		{Name: IntentRequestInformation, Operation: authority + "SetRequestInformation", Block: "requestInformation", Roles: anyAuthority,
			Summary:     "ask the notifier for information; suspends every running decision period",
			Transitions: []engine.Transition{{From: []string{n.Submitted, n.Acknowledged, n.InformationRequested}, To: n.InformationRequested}},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: "ACKNOWLEDGEMENT_DUE", Party: partyDestination},
				{Op: engine.Suspend, Rule: "DECISION_DUE", Party: partyEachAuthority},
				{Op: engine.Restart, Rule: "INFORMATION_REPLY_DUE", Party: partyNotifier},
			}},
		{Name: IntentReplyToRequestInfo, Operation: company + "SetReplyToRequestInformation", Block: "replyToRequestInformation", Roles: []string{n.RoleNotifier},
			Summary:     "answer the open information request; complete: true resumes the decision periods",
			Transitions: []engine.Transition{{From: []string{n.InformationRequested}, Target: "afterReply", Targets: []string{n.InformationRequested, n.Submitted, n.Acknowledged}}},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: "INFORMATION_REPLY_DUE", Party: partyNotifier, When: "!informationOpen"},
				{Op: engine.Resume, Rule: "DECISION_DUE", Party: partyEachAuthority, When: "!informationOpen"},
			}},
		{Name: IntentDecision, Operation: authority + "SetDecision", Block: "decision", Roles: anyAuthority,
			Summary:     "consent, consent with conditions, or object; once per authority",
			Transitions: []engine.Transition{{From: []string{n.Acknowledged}, Target: "afterDecision", Targets: []string{n.Acknowledged, n.Consented, n.Objected}, Guard: "callerUndecided"}},
			Effects: []engine.Effect{
				{Op: engine.Stop, Rule: "DECISION_DUE", Party: partyCaller},
				{Op: engine.Cancel, Rule: "DECISION_DUE", Party: partyEachAuthority, When: "objected"},
				{Op: engine.Start, Rule: "CONSENT_VALIDITY", Party: partyNotifier, When: "consented"},
			}},
		{Name: IntentTacitConsent, System: true,
			Summary:     "a transit authority's decision period expired: tacit consent",
			Transitions: []engine.Transition{{From: []string{n.Acknowledged}, Target: "afterDecision", Targets: []string{n.Acknowledged, n.Consented}, Guard: "tacitConsentDue"}},
			Effects: []engine.Effect{
				{Op: engine.Lapse, Rule: "DECISION_DUE", Party: partyInput},
				{Op: engine.Start, Rule: "CONSENT_VALIDITY", Party: partyNotifier, When: "consented"},
			}},
		{Name: IntentRequestForChange, Operation: company + "SetRequestForChangeAfterConsent", Block: "requestForChange", Roles: []string{n.RoleNotifier},
			Summary:     "ask for a change of the consented terms; shipments go on under the existing terms",
			Transitions: []engine.Transition{{From: []string{n.Consented}, To: n.ChangeRequested}},
			Effects:     []engine.Effect{{Op: engine.Start, Rule: "CHANGE_REPLY_DUE", Party: partyEachAuthority}}},
		{Name: IntentReplyToChange, Operation: authority + "ReplyToRequestForChangeAfterConsent", Block: "replyToRequestForChange", Roles: anyAuthority,
			Summary:     "accept, accept with conditions, or reject the change; once per authority",
			Transitions: []engine.Transition{{From: []string{n.ChangeRequested}, Target: "afterChangeReply", Targets: []string{n.ChangeRequested, n.Consented}, Guard: "callerNotRepliedToChange"}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: "CHANGE_REPLY_DUE", Party: partyCaller}}},
		{Name: IntentNotificationSignal, Operation: authority + "SubmitNotificationSignal", Block: "notificationSignal", Roles: anyAuthority,
			Summary:     "cancel the consent, close the notification, or revalidate it with a new validUntil",
			Transitions: []engine.Transition{{From: []string{n.Consented, n.ChangeRequested, n.Expired}, Target: "afterSignal", Targets: []string{n.ConsentCancelled, n.Closed, n.Consented}}},
			Effects: []engine.Effect{
				{Op: engine.Cancel, Rule: "CHANGE_REPLY_DUE", Party: partyEachAuthority},
				{Op: engine.Stop, Rule: "CONSENT_VALIDITY", Party: partyNotifier, When: "!revalidated"},
				{Op: engine.Restart, Rule: "CONSENT_VALIDITY", Party: partyNotifier, When: "revalidated"},
			}},
		{Name: IntentConsentValidityExpiry, System: true,
			Summary:     "the consent's validity ended",
			Transitions: []engine.Transition{{From: []string{n.Consented, n.ChangeRequested}, To: n.Expired, Guard: "consentExpired"}},
			Effects: []engine.Effect{
				{Op: engine.Lapse, Rule: "CONSENT_VALIDITY", Party: partyNotifier},
				{Op: engine.Cancel, Rule: "CHANGE_REPLY_DUE", Party: partyEachAuthority},
			}},
	},
	Guards: map[string]func(*engine.Eval) bool{
		"correctionPending":        func(ev *engine.Eval) bool { return doc(ev).PendingCorrection() != nil },
		"callerUndecided":          func(ev *engine.Eval) bool { return !doc(ev).HasDecided(ev.Caller.Org) },
		"callerNotRepliedToChange": func(ev *engine.Eval) bool { return !doc(ev).HasRepliedToChange(ev.Caller.Org) },
		"informationOpen":          func(ev *engine.Eval) bool { return doc(ev).OpenInformationRequest() != nil },
		"consented":                func(ev *engine.Eval) bool { return ev.State == n.Consented },
		"objected":                 func(ev *engine.Eval) bool { return ev.State == n.Objected },
		"revalidated":              func(ev *engine.Eval) bool { return ev.State == n.Consented },
		"consentExpired": func(ev *engine.Eval) bool {
			return overdue(ev, "CONSENT_VALIDITY", doc(ev).Content.Notifier.OrganisationID) || doc(ev).ConsentExpired(ev.Now)
		},
		"tacitConsentDue": func(ev *engine.Eval) bool {
			// Some transit authority has not decided and its decision period is over.
			d := doc(ev)
			for _, a := range n.Authorities(&d.Content) {
				if a.Role == n.RoleAuthorityTransit && !d.HasDecided(a.OrganisationID) && overdue(ev, "DECISION_DUE", a.OrganisationID) {
					return true
				}
			}
			return false
		},
	},
	Targets: map[string]func(*engine.Eval) string{
		"afterReply":       func(ev *engine.Eval) string { return doc(ev).AfterReply() },
		"afterDecision":    func(ev *engine.Eval) string { return doc(ev).AfterDecision() },
		"afterChangeReply": func(ev *engine.Eval) string { return doc(ev).AfterChangeReply() },
		"afterSignal": func(ev *engine.Eval) string {
			return n.AfterSignal(ev.Input.(*n.NotificationSignal).Type)
		},
	},
}

func doc(ev *engine.Eval) *n.Notification { return ev.Data.(*n.Notification) }

// overdue reports whether the party's running deadline of rule is past due.
func overdue(ev *engine.Eval, rule, org string) bool {
	return slices.ContainsFunc(ev.Deadlines, func(d engine.DeadlineView) bool {
		return d.Rule == rule && d.PartyOrg == org && d.Open && ev.Now.After(d.DueAt)
	})
}
