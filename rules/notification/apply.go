package notification

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The Apply functions record an intent's block in the aggregate. They run
// after the machine found the intent permitted and before it computes the
// target state, which the dynamic targets read from the updated aggregate.

// ApplyCorrection replaces the content before acknowledgement and records a
// pending correction afterwards. Either way a correction still pending
// from before (filed after an acknowledgement, when a request for
// information then took the notification back to SUBMITTED) is
// superseded: the acknowledgement accepts the latest correction, never an
// older one over it. It returns the place (from 1) in n.Corrections of
// the correction it superseded, 0 for none: its number when the list is
// whole (an act may read it without its oldest closed items:
// engine.Eval.Numbered).
func (n *Notification) ApplyCorrection(c Content, state string, now time.Time) int {
	superseded := 0
	for i := range n.Corrections {
		if n.Corrections[i].Pending {
			n.Corrections[i].Pending = false
			n.Corrections[i].SupersededAt = &now
			superseded = i + 1
		}
	}
	if state == Submitted {
		n.Content = c
		return superseded
	}
	n.Corrections = append(n.Corrections, CorrectionRecord{At: now, Content: c, Pending: true})
	return superseded
}

// ApplyAcknowledgement records an acknowledgement; one given while a
// correction is pending accepts it. It reports whether it did.
func (n *Notification) ApplyAcknowledgement(authority string, a Acknowledgement, now time.Time) bool {
	rec := AcknowledgementRecord{Authority: authority, At: now, Remarks: a.Remarks}
	if pc := n.PendingCorrection(); pc != nil {
		n.Content = pc.Content
		pc.Pending = false
		pc.AcceptedAt = &now
		rec.AcceptedCorrection = true
		n.Decisions = nil // the decision period restarts for the corrected content
	}
	n.Acknowledgements = append(n.Acknowledgements, rec)
	return rec.AcceptedCorrection
}

// ApplyRequestInformation opens an information request.
func (n *Notification) ApplyRequestInformation(authority string, r RequestInformation, state string, now time.Time) {
	ret := state
	if open := n.OpenInformationRequest(); open != nil { // repeated request: keep where to return
		ret = open.ReturnState
		open.Open = false
	}
	n.InformationRequests = append(n.InformationRequests, InformationRequestRecord{
		Authority: authority, At: now, Questions: r.Questions, Open: true, ReturnState: ret})
}

// ApplyReply records a reply; a complete one closes the request.
func (n *Notification) ApplyReply(r ReplyToRequestInformation, now time.Time) {
	open := n.OpenInformationRequest()
	if open == nil {
		return
	}
	open.Replies = append(open.Replies, Reply{At: now, Answers: r.Answers, Complete: r.Complete})
	if r.Complete {
		open.Open = false
	}
}

// ApplyDecision records an authority's decision; consent by every
// authority fixes the consent's conditions and validity. A consent an
// authority gave with extendsShipmentPeriod moves the shipment period's
// end to the consent's end when that is later (it reports whether it did).
func (n *Notification) ApplyDecision(authority, role string, d Decision, tacit bool, now time.Time) bool {
	n.Decisions = append(n.Decisions, DecisionRecord{Authority: authority, Role: role, At: now, Type: d.Type,
		Conditions: d.Conditions, Grounds: d.Grounds, ValidUntil: d.ValidUntil, Tacit: tacit, ExtendsShipmentPeriod: d.ExtendsShipmentPeriod})
	if n.AfterDecision() != Consented {
		return false
	}
	n.ConsentConditions = nil
	// The legal maximum, and the shipment period's end unless an authority
	// extended it; then the earliest date an authority set.
	extended := slices.ContainsFunc(n.Decisions, func(r DecisionRecord) bool { return r.ExtendsShipmentPeriod })
	valid := n.defaultValidUntil(now, extended)
	for _, rec := range n.Decisions {
		n.ConsentConditions = append(n.ConsentConditions, rec.Conditions...)
		if rec.ValidUntil != "" && rec.ValidUntil < valid {
			valid = rec.ValidUntil
		}
	}
	n.ConsentValidUntil = valid
	return extended && n.extendShipmentPeriod(valid)
}

// defaultValidUntil is the end of a consent given at now that sets no
// date: the legal maximum, and the shipment period's end unless extended.
func (n *Notification) defaultValidUntil(now time.Time, extended bool) string {
	valid := now.AddDate(maxYears(&n.Content), 0, 0).Format(time.DateOnly)
	if last := n.Content.ShipmentPeriod.LastDeparture; last != "" && last < valid && !extended {
		valid = last
	}
	return valid
}

// DecisionDetail says in words what the last recorded decision was, for
// its audit row: its type (tacit or not), how many conditions it sets and
// until when it consents (its own date, or the default it leaves to), and,
// when it completed the consent, the consent in force.
func (n *Notification) DecisionDetail() string {
	if len(n.Decisions) == 0 {
		return ""
	}
	rec := n.Decisions[len(n.Decisions)-1]
	var b strings.Builder
	b.WriteString(enumName(rec.Type.EnumNames(), int(rec.Type)))
	if rec.Tacit {
		b.WriteString(" (tacit: the decision period expired)")
	}
	fmt.Fprintf(&b, ", %s", count(len(rec.Conditions), "condition"))
	switch {
	case rec.Type == DecisionObjection:
		b.WriteString(", no validity (an objection)")
	case rec.ValidUntil != "":
		fmt.Fprintf(&b, ", valid until %s", rec.ValidUntil)
	default:
		fmt.Fprintf(&b, ", valid until %s (the default)", n.defaultValidUntil(rec.At, rec.ExtendsShipmentPeriod))
	}
	if n.AfterDecision() == Consented && n.ConsentValidUntil != "" {
		fmt.Fprintf(&b, "; every authority consented: the consent is valid until %s with %s", n.ConsentValidUntil, count(len(n.ConsentConditions), "condition"))
	}
	return b.String()
}

// ChangeReplyDetail says in words what reply r was, for its audit row:
// its result and how many conditions it sets.
func ChangeReplyDetail(r ReplyToRequestForChange) string {
	return enumName(r.Result.EnumNames(), int(r.Result)) + ", " + count(len(r.Conditions), "condition")
}

func enumName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return fmt.Sprint(i)
	}
	return names[i]
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// extendShipmentPeriod moves the shipment period's end to until when that
// is later: the authorities extended it (extendsShipmentPeriod).
func (n *Notification) extendShipmentPeriod(until string) bool {
	if until <= n.Content.ShipmentPeriod.LastDeparture {
		return false
	}
	n.Content.ShipmentPeriod.LastDeparture = until
	return true
}

// ApplyRequestForChange opens a change request; the terms in force stay
// until every authority accepted it.
func (n *Notification) ApplyRequestForChange(r RequestForChange, now time.Time) {
	proposed := r.Proposed
	n.ChangeRequests = append(n.ChangeRequests, ChangeRequestRecord{At: now, Proposed: &proposed,
		ChangedFields: ChangedFields(&n.Content, &proposed), Changes: r.Changes, Reason: r.Reason, Open: true})
}

// ApplyChangeReply records a reply; when every authority replied, the
// request closes: amended if all accepted (the proposed terms replace the
// terms in force, conditions attached), unchanged on any rejection. An
// amended shipment period moves the consent's end to the new last
// departure, within the legal maximum from the consent (Art. 9 and 14).
func (n *Notification) ApplyChangeReply(authority string, r ReplyToRequestForChange, now time.Time) {
	cr := n.OpenChangeRequest()
	if cr == nil {
		return
	}
	cr.Replies = append(cr.Replies, ChangeReply{Authority: authority, At: now, Result: r.Result, Conditions: r.Conditions, Grounds: r.Grounds})
	for _, a := range Authorities(&n.Content) {
		if !slices.ContainsFunc(cr.Replies, func(x ChangeReply) bool { return x.Authority == a.OrganisationID }) {
			return
		}
	}
	cr.Open = false
	cr.Outcome = "AMENDED"
	var conds []string
	for _, x := range cr.Replies {
		if x.Result == ChangeRejected {
			cr.Outcome = "UNCHANGED"
			return
		}
		conds = append(conds, x.Conditions...)
	}
	n.ConsentConditions = append(n.ConsentConditions, conds...)
	if cr.Proposed == nil { // a request from before proposed terms existed
		return
	}
	replaced := n.Content
	cr.Replaced = &replaced
	n.Content = Rebase(&n.Content, cr.Proposed, cr.ChangedFields)
	if slices.Contains(cr.ChangedFields, "shipmentPeriod") {
		valid := n.Content.ShipmentPeriod.LastDeparture
		if on, err := parseDate(n.ConsentedOn()); err == nil {
			valid = min(valid, on.AddDate(maxYears(&n.Content), 0, 0).Format(time.DateOnly))
		}
		n.ConsentValidUntil = valid
	}
}

// ConsentEndMoved reports whether the change request closed last moved
// the consent's end (the CONSENT_VALIDITY deadline follows it).
func (n *Notification) ConsentEndMoved() bool {
	if len(n.ChangeRequests) == 0 {
		return false
	}
	cr := n.ChangeRequests[len(n.ChangeRequests)-1]
	return !cr.Open && cr.Replaced != nil && slices.Contains(cr.ChangedFields, "shipmentPeriod")
}

// ApplySignal records a signal; a revalidation moves the consent's end,
// and with extendsShipmentPeriod the shipment period's end to it (it
// reports whether it did). A change request open meanwhile is carried
// forward: its proposal takes the extended period, so that the terms it
// puts in force on acceptance keep the extension (CheckSignal refuses an
// extension when the open request proposes a shipment period of its own).
// A cancellation or closure leaves the open request to the act's caller,
// which closes it (CloseChangeRequest).
func (n *Notification) ApplySignal(authority string, s NotificationSignal, now time.Time) (extended bool) {
	n.Signals = append(n.Signals, SignalRecord{Authority: authority, At: now, Type: s.Type, ValidUntil: s.ValidUntil, Reason: s.Reason})
	if s.Type != SignalRevalidation {
		return false
	}
	n.ConsentValidUntil = s.ValidUntil
	extended = s.ExtendsShipmentPeriod && n.extendShipmentPeriod(s.ValidUntil)
	if cr := n.OpenChangeRequest(); extended && cr != nil && cr.Proposed != nil && !slices.Contains(cr.ChangedFields, "shipmentPeriod") {
		cr.Proposed.ShipmentPeriod = n.Content.ShipmentPeriod
	}
	return extended
}

// CloseChangeRequest closes the open change request unanswered, if there
// is one: the notification leaves CHANGE_REQUESTED by intent by (a
// cancellation or closure, the consent's expiry, the facility's
// completion) before every authority replied, and the terms in force
// stay. It returns the request's place (from 1) in n.ChangeRequests, 0
// when none was open: its number when the list is whole (an act may read
// it without its oldest closed items: engine.Eval.Numbered).
func (n *Notification) CloseChangeRequest(by string, now time.Time) int {
	for i := len(n.ChangeRequests) - 1; i >= 0; i-- {
		if cr := &n.ChangeRequests[i]; cr.Open {
			cr.Open, cr.Outcome, cr.ClosedBy, cr.ClosedAt = false, "UNCHANGED", by, &now
			return i + 1
		}
	}
	return 0
}
