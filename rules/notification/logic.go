package notification

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/rules/wastecodes"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// BusinessError is a business rejection: reported in an HTTP 200 answer,
// nothing changed.
type BusinessError = shipment.BusinessError

// Business error codes (public contract).
const (
	ErrWasteCode        = shipment.ErrWasteCode
	ErrOperationCode    = shipment.ErrOperationCode
	ErrPartyUnknown     = shipment.ErrPartyUnknown
	ErrRequiredMissing  = shipment.ErrRequiredMissing
	ErrShipmentPeriod   = "SHIPMENT_PERIOD_INVALID"
	ErrPackagingType    = "PACKAGING_TYPE_INVALID"
	ErrQuantity         = shipment.ErrQuantity
	ErrConsentNotValid  = "CONSENT_NOT_VALID_ON_DATE"
	ErrQuantityExceeded = "QUANTITY_EXCEEDS_NOTIFIED_TOTAL"
	ErrShipmentCount    = "SHIPMENT_COUNT_EXCEEDED"
	ErrPriorNotice      = shipment.ErrPriorNotice
)

// ErrConsentValidity: a consent's or a revalidation's end (validUntil)
// that is not a date after today, lies more than the law allows after the
// consent (1 year, 3 for a pre-consented facility: Art. 9 and 14), or after
// the notified shipment period without extendsShipmentPeriod (our design).
const ErrConsentValidity = "CONSENT_VALIDITY_INVALID"

// CheckValidUntil checks the end of a consent an authority sets (field):
// after today, at most the legal maximum after consentedOn, and not after
// the shipment period unless the authority extends it (dates YYYY-MM-DD
// at the authority's place).
func CheckValidUntil(field, validUntil string, c *Content, consentedOn, today string, extends bool) []BusinessError {
	bad := func(format string, args ...any) []BusinessError {
		return []BusinessError{{Code: ErrConsentValidity, Field: field, Message: echo.Sprintf(format, args...)}}
	}
	end, err := parseDate(validUntil)
	if err != nil {
		return bad("a date YYYY-MM-DD is required")
	}
	if validUntil <= today {
		return bad("the consent must last beyond today (%s)", today)
	}
	if from, err := parseDate(consentedOn); err == nil {
		if latest := from.AddDate(maxYears(c), 0, 0); end.After(latest) {
			return bad("a consent lasts at most %d year(s) from the consent of %s: %s at the latest", maxYears(c), consentedOn, latest.Format(time.DateOnly))
		}
	}
	if last := c.ShipmentPeriod.LastDeparture; last != "" && validUntil > last && !extends {
		return bad("%s is after the notified shipment period's end (%s); set extendsShipmentPeriod to extend it", validUntil, last)
	}
	return nil
}

// CheckRevalidation checks a revalidation's new end (after
// CheckValidUntil): a revalidation extends the consent. A new end on or
// before the present one would end the consent sooner, a cancellation in
// part, which is made with grounds as a cancellation.
func CheckRevalidation(field, validUntil, current string) []BusinessError {
	if current == "" || validUntil > current {
		return nil
	}
	return []BusinessError{{Code: ErrConsentValidity, Field: field, Message: fmt.Sprintf(
		"a revalidation extends the consent beyond its present end (%s); to end it sooner, cancel the consent with its grounds (CANCELLATION_OF_CONSENT)", current)}}
}

// CheckExtension refuses a revalidation that extends the shipment period
// while an open change request proposes a shipment period of its own:
// the two would disagree on the period, and which one the authorities
// meant is theirs to say (reply to the request first, or revalidate
// without extending). Any other open request takes the extension into
// its proposal (ApplySignal).
func CheckExtension(field string, n *Notification, s *NotificationSignal) []BusinessError {
	cr := n.OpenChangeRequest()
	if !s.ExtendsShipmentPeriod || cr == nil || !slices.Contains(cr.ChangedFields, "shipmentPeriod") {
		return nil
	}
	proposed := ""
	if cr.Proposed != nil {
		proposed = cr.Proposed.ShipmentPeriod.LastDeparture
	}
	return []BusinessError{{Code: ErrChangeRequestOpen, Field: field, Message: fmt.Sprintf(
		"the change request filed on %s proposes its own shipment period (last departure %s): reply to it first, or revalidate without extending the shipment period",
		cr.At.Format(time.DateOnly), proposed)}}
}

// CheckCancellation checks a cancellation of consent: it states its
// grounds (in reason), as an objection does.
func CheckCancellation(s *NotificationSignal) []BusinessError {
	if strings.TrimSpace(s.Reason) == "" {
		return shipment.Missing("notificationSignal.reason", "a cancellation of consent states its grounds (reason), as an objection does")
	}
	return nil
}

// CheckCorrection checks that a correction corrects something: it differs
// from the content it would replace (the pending correction, if any, or
// the content filed). An identical one would be an act that does nothing
// but restart the acknowledgement and the decision periods.
func CheckCorrection(n *Notification, c *Content) []BusinessError {
	latest, what := &n.Content, "the content filed"
	if pc := n.PendingCorrection(); pc != nil {
		latest, what = &pc.Content, "the correction awaiting acknowledgement"
	}
	if len(ChangedFields(latest, c)) > 0 {
		return nil
	}
	return []BusinessError{{Code: ErrChangeEmpty, Field: "notification",
		Message: "the correction is " + what + ": change what the correction is for"}}
}

// ErrNoShipmentPossible: the terms a consent would put in force allow no
// movement at all (our design): no packaging type or carrier to declare,
// no shipment or quantity, or a validity that ends before the shipment
// period begins. Submission requires the fields, so this catches what was
// filed before they were required and consent ends that fall short.
const ErrNoShipmentPossible = "NO_SHIPMENT_POSSIBLE"

// CheckShippable reports why the terms c, in force until validUntil (a
// date YYYY-MM-DD; "" when the consent sets none), would make every
// movement under them impossible; field names the block that would put
// them in force.
func CheckShippable(field string, c *Content, validUntil string) []BusinessError {
	var reasons []string
	if len(c.PackagingTypes) == 0 {
		reasons = append(reasons, "no packaging type is notified")
	}
	if len(c.Carriers) == 0 {
		reasons = append(reasons, "no carrier is notified")
	}
	if c.NumberOfShipments < 1 {
		reasons = append(reasons, "no shipment is notified")
	}
	if q := c.TotalQuantity; q.Tonnes == nil && q.CubicMetres == nil {
		reasons = append(reasons, "no quantity is notified")
	}
	if first := c.ShipmentPeriod.FirstDeparture; validUntil != "" && first != "" && validUntil < first {
		reasons = append(reasons, fmt.Sprintf("the consent would end on %s, before the shipment period begins (%s)", validUntil, first))
	}
	if len(reasons) == 0 {
		return nil
	}
	return []BusinessError{{Code: ErrNoShipmentPossible, Field: field,
		Message: "under these terms no movement could ever be made: " + strings.Join(reasons, "; ") + "; the notifier corrects the notification (SetSubmission) or the consent's end moves"}}
}

// ErrMovementsOpen: the dossier cannot close while a movement under it is
// neither completed nor taken back (our design).
const ErrMovementsOpen = "MOVEMENTS_NOT_COMPLETED"

// ErrNoMovementCompleted: a completion under Art. 15 states the operations
// carried out under the notification; with no movement under it completed
// there is none to state (our design).
const ErrNoMovementCompleted = "NO_MOVEMENT_COMPLETED"

// PackagingTypes of Annex IA, point 7.
var PackagingTypes = []string{"DRUM", "WOODEN_BARREL", "JERRICAN", "BOX", "BAG", "COMPOSITE", "PRESSURE_RECEPTACLE", "BULK", "OTHER"}

// Party is an organisation named in a role.
type Party = shipment.Party

// Parties lists every organisation of the content with its roles.
func Parties(c *Content) []Party {
	var out []Party
	add := func(org, role string) {
		if org != "" && !slices.Contains(out, Party{OrganisationID: org, Role: role}) {
			out = append(out, Party{OrganisationID: org, Role: role})
		}
	}
	add(c.Notifier.OrganisationID, RoleNotifier)
	add(c.Consignee.OrganisationID, RoleConsignee)
	add(c.Facility.OrganisationID, RoleFacility)
	for _, p := range c.Producers {
		add(p.OrganisationID, RoleProducer)
	}
	for _, p := range c.Carriers {
		add(p.OrganisationID, RoleCarrier)
	}
	for _, a := range Authorities(c) {
		add(a.OrganisationID, a.Role)
	}
	return out
}

// Authorities lists the concerned authorities: dispatch, destination, transits.
func Authorities(c *Content) []Party { return c.CompetentAuthorities.Authorities() }

// Directory answers what kind an organisation of the provider is.
type Directory = shipment.Directory

// ValidateDraft checks what is present; a draft may be incomplete. Codes
// are checked as in force on the document's date on.
func ValidateDraft(c *Content, dir Directory, on time.Time) []BusinessError {
	return validate(c, dir, false, on)
}

// ValidateSubmission checks a complete notification dated on.
func ValidateSubmission(c *Content, dir Directory, on time.Time) []BusinessError {
	return validate(c, dir, true, on)
}

func validate(c *Content, dir Directory, complete bool, on time.Time) []BusinessError {
	k := &shipment.Checker{Dir: dir, Complete: complete, On: on}
	k.Party("notification.notifier.organisationId", c.Notifier.OrganisationID, "company")
	k.Party("notification.consignee.organisationId", c.Consignee.OrganisationID, "company")
	k.Party("notification.facility.organisationId", c.Facility.OrganisationID, "company")
	for i, p := range c.Producers {
		k.Party(fmt.Sprintf("notification.producers[%d].organisationId", i), p.OrganisationID, "company")
	}
	for i, p := range c.Carriers {
		k.Party(fmt.Sprintf("notification.carriers[%d].organisationId", i), p.OrganisationID, "company")
	}
	k.Authorities("notification.competentAuthorities", &c.CompetentAuthorities)
	k.Classifications("notification.wasteClassifications", c.WasteClassifications)
	if complete && len(c.RecoveryDisposalCodes) == 0 {
		k.Add(ErrRequiredMissing, "notification.recoveryDisposalCodes", "at least one recovery or disposal code is required")
	}
	for i, code := range c.RecoveryDisposalCodes {
		if _, ok := wastecodes.LookupOperation(code); !ok {
			k.Add(ErrOperationCode, fmt.Sprintf("notification.recoveryDisposalCodes[%d]", i), "%q is not a recovery (R1-R13) or disposal (D1-D15) operation", code)
		}
	}
	if complete && len(c.PackagingTypes) == 0 {
		k.Add(ErrRequiredMissing, "notification.packagingTypes", "at least one packaging type is required (Annex IA, point 7): every movement declares its packaging among the notified types (%s)", strings.Join(PackagingTypes, ", "))
	}
	if complete && len(c.Carriers) == 0 {
		k.Add(ErrRequiredMissing, "notification.carriers", "at least one carrier is required (Annex IA, point 8): every movement's carriers are among the notified ones")
	}
	for i, p := range c.PackagingTypes {
		if !slices.Contains(PackagingTypes, p) {
			k.Add(ErrPackagingType, fmt.Sprintf("notification.packagingTypes[%d]", i), "%q is not a packaging type (%s)", p, strings.Join(PackagingTypes, ", "))
		}
	}
	k.Quantity("notification.totalQuantity", c.TotalQuantity)
	if c.NumberOfShipments < 0 || (complete && c.NumberOfShipments == 0) {
		k.Add(ErrRequiredMissing, "notification.numberOfShipments", "the number of shipments must be at least 1")
	}
	first, err1 := parseDate(c.ShipmentPeriod.FirstDeparture)
	last, err2 := parseDate(c.ShipmentPeriod.LastDeparture)
	switch {
	case c.ShipmentPeriod.FirstDeparture == "" || c.ShipmentPeriod.LastDeparture == "":
		if complete {
			k.Add(ErrRequiredMissing, "notification.shipmentPeriod", "first and last departure dates are required")
		}
	case err1 != nil || err2 != nil:
		k.Add(ErrShipmentPeriod, "notification.shipmentPeriod", "dates must be YYYY-MM-DD")
	case last.Before(first):
		k.Add(ErrShipmentPeriod, "notification.shipmentPeriod", "the last departure is before the first")
	case last.After(first.AddDate(maxYears(c), 0, 0)):
		k.Add(ErrShipmentPeriod, "notification.shipmentPeriod", "the shipment period may not exceed %d year(s)", maxYears(c))
	case complete && !on.IsZero() && c.ShipmentPeriod.LastDeparture < on.Format(time.DateOnly):
		k.Add(ErrShipmentPeriod, "notification.shipmentPeriod", "the shipment period ended on %s, before today (%s)", c.ShipmentPeriod.LastDeparture, on.Format(time.DateOnly))
	}
	return k.Errors
}

// maxYears is the longest consent: 3 years for a pre-consented facility
// (Art. 14), 1 year otherwise (Art. 9).
func maxYears(c *Content) int {
	if c.Facility.PreConsented {
		return 3
	}
	return 1
}

func parseDate(s string) (time.Time, error) { return time.Parse(time.DateOnly, s) }

// Guards and dynamic targets.

// OpenInformationRequest returns the open request, if any.
func (n *Notification) OpenInformationRequest() *InformationRequestRecord {
	for i := len(n.InformationRequests) - 1; i >= 0; i-- {
		if n.InformationRequests[i].Open {
			return &n.InformationRequests[i]
		}
	}
	return nil
}

// PendingCorrection returns the correction awaiting acceptance, if any.
func (n *Notification) PendingCorrection() *CorrectionRecord {
	for i := len(n.Corrections) - 1; i >= 0; i-- {
		if n.Corrections[i].Pending {
			return &n.Corrections[i]
		}
	}
	return nil
}

// OpenChangeRequest returns the change request awaiting replies, if any.
func (n *Notification) OpenChangeRequest() *ChangeRequestRecord {
	for i := len(n.ChangeRequests) - 1; i >= 0; i-- {
		if n.ChangeRequests[i].Open {
			return &n.ChangeRequests[i]
		}
	}
	return nil
}

// HasDecided reports whether the authority has decided (or consented tacitly)
// since the last acknowledgement that restarted the decision period.
func (n *Notification) HasDecided(org string) bool {
	return n.decisionOf(org) != nil
}

func (n *Notification) decisionOf(org string) *DecisionRecord {
	for i := range n.Decisions {
		if n.Decisions[i].Authority == org {
			return &n.Decisions[i]
		}
	}
	return nil
}

// MayDecide reports whether the authority org may decide now: it has not
// decided since the decision period (re)started, and no correction awaits
// acknowledgement (its acceptance restarts every decision period, so a
// decision would be on content about to change). Otherwise it says why.
func (n *Notification) MayDecide(org string) (bool, string) {
	if d := n.decisionOf(org); d != nil {
		how := "decided"
		if d.Tacit {
			how = "consented tacitly (its decision period expired)"
		}
		return false, fmt.Sprintf("%s has %s already: %s on %s; an authority decides once (its decision stands until an accepted correction restarts the decision periods)",
			org, how, d.Type.EnumNames()[d.Type], d.At.Format(time.DateOnly))
	}
	if pc := n.PendingCorrection(); pc != nil {
		return false, fmt.Sprintf("a correction filed on %s awaits the acknowledgement of the authority of destination, which restarts the decision periods: decisions wait for it", pc.At.Format(time.DateOnly))
	}
	return true, ""
}

// HasConsented reports whether the authority org consented (expressly,
// with conditions or tacitly) in the decisions recorded.
func (n *Notification) HasConsented(org string) bool {
	d := n.decisionOf(org)
	return d != nil && d.Type != DecisionObjection
}

// HasRepliedToChange reports whether the authority replied to the open change request.
func (n *Notification) HasRepliedToChange(org string) bool {
	cr := n.OpenChangeRequest()
	if cr == nil {
		return false
	}
	return slices.ContainsFunc(cr.Replies, func(r ChangeReply) bool { return r.Authority == org })
}

// AfterReply is the state after a reply to an information request.
func (n *Notification) AfterReply() string {
	if len(n.InformationRequests) == 0 {
		return InformationRequested
	}
	last := &n.InformationRequests[len(n.InformationRequests)-1]
	if last.Open {
		return InformationRequested
	}
	return last.ReturnState
}

// AfterDecision is the state after a decision: OBJECTED on any objection,
// CONSENTED once dispatch and destination consented and every transit
// authority consented or let its period expire, ACKNOWLEDGED meanwhile.
func (n *Notification) AfterDecision() string {
	all := true
	for _, a := range Authorities(&n.Content) {
		d := n.decisionOf(a.OrganisationID)
		if d == nil {
			all = false
			continue
		}
		if d.Type == DecisionObjection {
			return Objected
		}
	}
	if all {
		return Consented
	}
	return Acknowledged
}

// AfterChangeReply is the state after an authority's reply to a change request.
func (n *Notification) AfterChangeReply() string {
	if n.OpenChangeRequest() != nil {
		return ChangeRequested
	}
	return Consented
}

// AfterSignal is the state a signal given in state leads to: a
// revalidation in CHANGE_REQUESTED stays there, its open change request
// carried forward (ApplySignal); elsewhere it consents again.
func (n *Notification) AfterSignal(t SignalType, state string) string {
	switch t {
	case SignalCancellationOfConsent:
		return ConsentCancelled
	case SignalClosure:
		return Closed
	}
	if state == ChangeRequested {
		return ChangeRequested
	}
	return Consented
}

// ConsentExpired reports whether the consent's validity ended before now
// (the end of its last day in UTC+14 is the latest it can be anywhere).
func (n *Notification) ConsentExpired(now time.Time) bool {
	d, err := parseDate(n.ConsentValidUntil)
	if err != nil {
		return false
	}
	return now.After(d.Add(24*time.Hour + 14*time.Hour))
}

// MovementEntry is one movement as its notification lists it.
type MovementEntry struct {
	ID                   string   `json:"id" label:"Document|Dokument"`
	Number               string   `json:"number" label:"Number|Nummer"`
	State                string   `json:"state" label:"State|Status" codeList:"state/movement"`
	SequenceNumber       int32    `json:"sequenceNumber" label:"Shipment No.|Verbringung Nr."`
	ActualDateOfShipment string   `json:"actualDateOfShipment" label:"Actual date of shipment|Tatsächliches Datum der Verbringung"`
	ActualQuantity       Quantity `json:"actualQuantity" label:"Actual quantity|Tatsächliche Menge"`
	RefusedQuantity      Quantity `json:"refusedQuantity" doc:"what the facility refused of it (all of it on a rejection, a refused part; our design); empty when nothing" label:"Quantity refused|Abgelehnte Menge"`
}

// Movements is what has been shipped under a notification and what may
// still be: every movement created counts, whatever its state.
type Movements struct {
	Count         int32    `json:"count" doc:"movements created" label:"Shipments made|Durchgeführte Verbringungen"`
	ShipmentsLeft int32    `json:"shipmentsLeft" doc:"numberOfShipments minus count" label:"Shipments left|Verbleibende Verbringungen"`
	QuantityUsed  Quantity `json:"quantityUsed" doc:"the movements' quantities as last corrected, in the notified unit" label:"Quantity shipped|Verbrachte Menge"`
	QuantityLeft  Quantity `json:"quantityLeft" doc:"totalQuantity minus quantityUsed" label:"Quantity left|Verbleibende Menge"`
	// QuantityRefused is our design: what the facilities refused.
	QuantityRefused Quantity        `json:"quantityRefused" doc:"of quantityUsed, what the facilities refused (rejected shipments and refused parts, taken back or recovered elsewhere; our design): it was shipped under the consent, so it stays counted in quantityUsed" label:"Of which refused by the facility|Davon von der Anlage abgelehnt"`
	Entries         []MovementEntry `json:"entries" maxItems:"50" doc:"the movements the caller is a party to, at most 50 (our design): those not yet completed or taken back first, then the latest; listed by sequence number. entriesOmitted counts the rest: ListDocuments with a filter on notification_id pages through all of them" label:"Movements|Verbringungen"`
	// EntriesOmitted is our design: how many of the caller's movements
	// Entries leaves out.
	EntriesOmitted int32 `json:"entriesOmitted" doc:"how many of the movements the caller is a party to entries leaves out (our design; count covers every movement)" label:"Movements not listed|Nicht aufgeführte Verbringungen"`
}

// CountMovements is what the movements t tallies leave of the terms c:
// the count and the quantities in the notified unit (no entries).
func CountMovements(c *Content, t Tally) Movements {
	out := Movements{Count: t.Count, Entries: []MovementEntry{}}
	out.ShipmentsLeft = max(c.NumberOfShipments-out.Count, 0)
	neg := func(d Decimal) Decimal { return Decimal{Units: -d.Units, Nanos: -d.Nanos} }
	switch {
	case c.TotalQuantity.Tonnes != nil:
		used, refused := t.Tonnes, t.RefusedTonnes
		left := c.TotalQuantity.Tonnes.Add(neg(used))
		out.QuantityUsed, out.QuantityLeft, out.QuantityRefused = Quantity{Tonnes: &used}, Quantity{Tonnes: &left}, Quantity{Tonnes: &refused}
	case c.TotalQuantity.CubicMetres != nil:
		used, refused := t.CubicMetres, t.RefusedCubicMetres
		left := c.TotalQuantity.CubicMetres.Add(neg(used))
		out.QuantityUsed, out.QuantityLeft, out.QuantityRefused = Quantity{CubicMetres: &used}, Quantity{CubicMetres: &left}, Quantity{CubicMetres: &refused}
	}
	return out
}

// Shipped is a movement as its notification counts it.
type Shipped = shipment.Shipped

// MovementsDone is what the movements under a notification tell its
// closure under Art. 15.
type MovementsDone struct {
	// Open names the movements neither completed nor taken back (number
	// and state).
	Open []string
	// Completed counts the movements completed; LastCompletedOn is the
	// latest completion date they certify (YYYY-MM-DD).
	Completed       int
	LastCompletedOn string
}

// CheckArticle15 checks a pre-consented facility's closure: operations to
// state (at least one movement completed) and none still under way, a
// date that happened (today given at the facility's place) and not before
// the last movement's completion, and one of the notified operations.
func CheckArticle15(in *FacilityCompletionArticle15, c *Content, today string, done MovementsDone) []BusinessError {
	k := &shipment.Checker{}
	const f = "facilityCompletionArticle15"
	switch _, err := shipment.ParseDate(in.CompletedOn); {
	case in.CompletedOn == "":
		k.Add(ErrRequiredMissing, f+".completedOn", "the completion date is required")
	case err != nil:
		k.Add(shipment.ErrDateOutOfRange, f+".completedOn", "dates must be YYYY-MM-DD")
	case in.CompletedOn > today:
		k.Add(shipment.ErrDateOutOfRange, f+".completedOn", "%s is in the future (today is %s where you are)", in.CompletedOn, today)
	case in.CompletedOn < done.LastCompletedOn:
		k.Add(shipment.ErrDateOutOfRange, f+".completedOn", "%s is before the completion of the last movement (%s): the operations under the notification were completed on that day at the earliest", in.CompletedOn, done.LastCompletedOn)
	}
	if !slices.Contains(c.RecoveryDisposalCodes, in.OperationCode) {
		k.Add(ErrOperationCode, f+".operationCode", "%q is not one of the notified operations (%s)", in.OperationCode, strings.Join(c.RecoveryDisposalCodes, ", "))
	}
	switch {
	case len(done.Open) > 0:
		k.Add(ErrMovementsOpen, f, "movements still under way: %s", strings.Join(done.Open, ", "))
	case done.Completed == 0:
		k.Add(ErrNoMovementCompleted, f, "no movement under the notification has been completed: the completion under Art. 15 states the operations carried out under it, so it follows at least one completed movement; while the consent runs the notifier may still ship, and the authorities end a notification under which nothing was shipped (CLOSURE)")
	}
	return k.Errors
}

// ShipmentLeft reports whether a movement may still be made under the
// terms c after the shipments made: a shipment of the notified number and
// some of the notified quantity left; otherwise why not (the guard of
// CREATE_MOVEMENT: the intent is offered only when it can pass).
func ShipmentLeft(c *Content, t Tally) (bool, string) {
	m := CountMovements(c, t)
	if m.ShipmentsLeft <= 0 {
		return false, fmt.Sprintf("all %d notified shipments have been made (%s): a further shipment needs a change of the notification (REQUEST_FOR_CHANGE_AFTER_CONSENT)", c.NumberOfShipments, ErrShipmentCount)
	}
	for _, left := range []*Decimal{m.QuantityLeft.Tonnes, m.QuantityLeft.CubicMetres} {
		if left != nil && left.Cmp(Decimal{}) <= 0 {
			return false, fmt.Sprintf("the movements made carry the whole notified quantity (%s): a further shipment needs a change of the notification (REQUEST_FOR_CHANGE_AFTER_CONSENT)", ErrQuantityExceeded)
		}
	}
	return true, ""
}

// ConsentedOn is the day the notification was consented: the latest
// consenting decision (express or tacit), "" before any.
func (n *Notification) ConsentedOn() string {
	var last time.Time
	for _, d := range n.Decisions {
		if d.Type != DecisionObjection && d.At.After(last) {
			last = d.At
		}
	}
	if last.IsZero() {
		return ""
	}
	return last.Format(time.DateOnly)
}

// CheckPlaces checks the competent authorities and the route against the
// notification's sites (countryOf tells an organisation's country).
func CheckPlaces(c *Content, countryOf func(string) string) []BusinessError {
	p := shipment.Places{Destination: countryOf(c.Facility.OrganisationID), Route: c.Route.TransitCountries}
	for _, id := range append([]string{c.Notifier.OrganisationID}, shipment.OrganisationIDs(c.Producers)...) {
		if cc := countryOf(id); cc != "" && !slices.Contains(p.Dispatch, cc) {
			p.Dispatch = append(p.Dispatch, cc)
		}
	}
	errs := shipment.CheckAuthorities("notification.competentAuthorities", &c.CompetentAuthorities, p, countryOf)
	for i, rc := range c.Route.TransitCountries {
		if slices.Contains(p.Dispatch, rc) || rc == p.Destination {
			errs = append(errs, BusinessError{Code: shipment.ErrAuthorityPlace, Field: fmt.Sprintf("notification.route.transitCountries[%d]", i),
				Message: fmt.Sprintf("%s is a country of dispatch or destination, not of transit", rc)})
		}
	}
	return errs
}

// Business errors of a change request (our design, public contract).
const (
	// ErrChangeEmpty: the proposed terms equal the terms in force.
	ErrChangeEmpty = shipment.ErrChangeEmpty
	// ErrChangeNeedsNotification: the change concerns the notifier or
	// other competent authorities than the consented ones; Art. 17(3) asks
	// for a new notification instead.
	ErrChangeNeedsNotification = "CHANGE_NEEDS_NEW_NOTIFICATION"
	// ErrChangeRequestOpen: an act would change what the open change
	// request proposes to change (CheckExtension).
	ErrChangeRequestOpen = "CHANGE_REQUEST_OPEN"
)

// Rebase is the content a change request puts in force: the terms in
// force now, with the fields the request changes (JSON names) taken from
// its proposal. What changed meanwhile in other fields (a revalidation's
// extension of the shipment period) stays.
func Rebase(current, proposed *Content, fields []string) Content {
	out := *current
	vo, vp := reflect.ValueOf(&out).Elem(), reflect.ValueOf(proposed).Elem()
	for i := range vo.NumField() {
		name, _, _ := strings.Cut(vo.Type().Field(i).Tag.Get("json"), ",")
		if slices.Contains(fields, name) {
			vo.Field(i).Set(vp.Field(i))
		}
	}
	return out
}

// ChangedFields lists the top-level content fields (JSON names) in which
// b differs from a; an empty list and a missing one are alike.
func ChangedFields(a, b *Content) []string { return shipment.ChangedFields(a, b) }

// CheckChange checks a change request's proposed terms against the terms
// in force, beyond the checks of a submission: something changes, the
// notifier and the competent authorities stay (Art. 17(3)), and the totals
// still cover the movements made (t, the tally of the movements made).
func CheckChange(inForce, proposed *Content, t Tally) []BusinessError {
	k := &shipment.Checker{}
	const f = "requestForChange.proposed."
	if proposed.Notifier.OrganisationID != inForce.Notifier.OrganisationID {
		k.Add(ErrChangeNeedsNotification, f+"notifier.organisationId", "the notifier cannot change: file a new notification")
	}
	ia, pa := inForce.CompetentAuthorities, proposed.CompetentAuthorities
	if ia.Dispatch.OrganisationID != pa.Dispatch.OrganisationID || ia.Destination.OrganisationID != pa.Destination.OrganisationID ||
		!sameSet(shipment.OrganisationIDs(ia.Transit), shipment.OrganisationIDs(pa.Transit)) {
		k.Add(ErrChangeNeedsNotification, f+"competentAuthorities",
			"a change concerning other competent authorities than the consented ones needs a new notification (Art. 17(3) Regulation (EU) 2024/1157)")
	}
	if len(ChangedFields(inForce, proposed)) == 0 {
		k.Add(ErrChangeEmpty, "requestForChange.proposed", "the proposed terms are the terms in force: change what the request is for")
	}
	m := CountMovements(proposed, t)
	if m.Count > proposed.NumberOfShipments && proposed.NumberOfShipments > 0 {
		k.Add(ErrShipmentCount, f+"numberOfShipments", "%d movements were already made under the notification", m.Count)
	}
	for _, left := range []*Decimal{m.QuantityLeft.Tonnes, m.QuantityLeft.CubicMetres} {
		if left != nil && left.Cmp(Decimal{}) < 0 {
			k.Add(ErrQuantityExceeded, f+"totalQuantity", "the movements made already carry more than the proposed total")
		}
	}
	return k.Errors
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Refield moves business errors reported for a notification's content
// (fields "notification.…") to where the content sits in another block.
func Refield(errs []BusinessError, prefix string) []BusinessError {
	for i := range errs {
		if rest, ok := strings.CutPrefix(errs[i].Field, "notification."); ok {
			errs[i].Field = prefix + rest
		} else if errs[i].Field == "notification" {
			errs[i].Field = strings.TrimSuffix(prefix, ".")
		}
	}
	return errs
}
