package notification

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// BusinessError is a business rejection: reported in an HTTP 200 answer,
// nothing changed.
type BusinessError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// Business error codes (public contract).
const (
	ErrWasteCode        = "WASTE_CLASSIFICATION_INVALID_CODE"
	ErrOperationCode    = "RECOVERY_DISPOSAL_CODE_INVALID"
	ErrPartyUnknown     = "PARTY_UNKNOWN"
	ErrRequiredMissing  = "REQUIRED_FIELD_MISSING"
	ErrShipmentPeriod   = "SHIPMENT_PERIOD_INVALID"
	ErrPackagingType    = "PACKAGING_TYPE_INVALID"
	ErrQuantity         = "QUANTITY_INVALID"
	ErrConsentNotValid  = "CONSENT_NOT_VALID_ON_DATE"
	ErrQuantityExceeded = "QUANTITY_EXCEEDS_NOTIFIED_TOTAL"
	ErrShipmentCount    = "SHIPMENT_COUNT_EXCEEDED"
	ErrPriorNotice      = "PRIOR_NOTICE_TOO_LATE"
)

// BusinessErrorCodes lists every code for the API description.
var BusinessErrorCodes = []string{ErrWasteCode, ErrOperationCode, ErrPartyUnknown, ErrRequiredMissing, ErrShipmentPeriod,
	ErrPackagingType, ErrQuantity, ErrConsentNotValid, ErrQuantityExceeded, ErrShipmentCount, ErrPriorNotice}

// PackagingTypes of Annex IA, point 7.
var PackagingTypes = []string{"DRUM", "WOODEN_BARREL", "JERRICAN", "BOX", "BAG", "COMPOSITE", "PRESSURE_RECEPTACLE", "BULK", "OTHER"}

// Party is an organisation named in a role.
type Party struct{ OrganisationID, Role string }

// Parties lists every organisation of the content with its roles.
func Parties(c *Content) []Party {
	var out []Party
	add := func(org, role string) {
		if org != "" && !slices.Contains(out, Party{org, role}) {
			out = append(out, Party{org, role})
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
func Authorities(c *Content) []Party {
	var out []Party
	if id := c.CompetentAuthorities.Dispatch.OrganisationID; id != "" {
		out = append(out, Party{id, RoleAuthorityDispatch})
	}
	if id := c.CompetentAuthorities.Destination.OrganisationID; id != "" {
		out = append(out, Party{id, RoleAuthorityDestination})
	}
	for _, t := range c.CompetentAuthorities.Transit {
		if t.OrganisationID != "" {
			out = append(out, Party{t.OrganisationID, RoleAuthorityTransit})
		}
	}
	return out
}

// Directory answers what kind an organisation of the provider is.
type Directory func(organisationID string) (kind string, ok bool)

// ValidateDraft checks what is present; a draft may be incomplete.
func ValidateDraft(c *Content, dir Directory) []BusinessError {
	return validate(c, dir, false)
}

// ValidateSubmission checks a complete notification.
func ValidateSubmission(c *Content, dir Directory) []BusinessError {
	return validate(c, dir, true)
}

func validate(c *Content, dir Directory, complete bool) []BusinessError {
	var errs []BusinessError
	add := func(code, field, format string, args ...any) {
		errs = append(errs, BusinessError{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	party := func(field, org, kind string, required bool) {
		if org == "" {
			if required && complete {
				add(ErrRequiredMissing, field, "%s is required", field)
			}
			return
		}
		k, ok := dir(org)
		switch {
		case !ok:
			add(ErrPartyUnknown, field, "organisation %q is not registered with this provider", org)
		case k != kind:
			add(ErrPartyUnknown, field, "organisation %q is a %s, not a %s", org, k, kind)
		}
	}
	party("notification.notifier.organisationId", c.Notifier.OrganisationID, "company", true)
	party("notification.consignee.organisationId", c.Consignee.OrganisationID, "company", true)
	party("notification.facility.organisationId", c.Facility.OrganisationID, "company", true)
	for i, p := range c.Producers {
		party(fmt.Sprintf("notification.producers[%d].organisationId", i), p.OrganisationID, "company", true)
	}
	for i, p := range c.Carriers {
		party(fmt.Sprintf("notification.carriers[%d].organisationId", i), p.OrganisationID, "company", true)
	}
	party("notification.competentAuthorities.dispatch.organisationId", c.CompetentAuthorities.Dispatch.OrganisationID, "authority", true)
	party("notification.competentAuthorities.destination.organisationId", c.CompetentAuthorities.Destination.OrganisationID, "authority", true)
	for i, p := range c.CompetentAuthorities.Transit {
		party(fmt.Sprintf("notification.competentAuthorities.transit[%d].organisationId", i), p.OrganisationID, "authority", true)
	}

	if complete && len(c.WasteClassifications) == 0 {
		add(ErrRequiredMissing, "notification.wasteClassifications", "at least one waste classification is required")
	}
	for i, w := range c.WasteClassifications {
		field := fmt.Sprintf("notification.wasteClassifications[%d]", i)
		if _, ok, reason := wastecodes.Lookup(w.List, w.Code); !ok {
			add(ErrWasteCode, field, "%s", reason)
		}
	}
	if complete && len(c.RecoveryDisposalCodes) == 0 {
		add(ErrRequiredMissing, "notification.recoveryDisposalCodes", "at least one recovery or disposal code is required")
	}
	for i, code := range c.RecoveryDisposalCodes {
		if _, ok := wastecodes.LookupOperation(code); !ok {
			add(ErrOperationCode, fmt.Sprintf("notification.recoveryDisposalCodes[%d]", i), "%q is not a recovery (R1-R13) or disposal (D1-D15) operation", code)
		}
	}
	for i, p := range c.PackagingTypes {
		if !slices.Contains(PackagingTypes, p) {
			add(ErrPackagingType, fmt.Sprintf("notification.packagingTypes[%d]", i), "%q is not a packaging type (%s)", p, strings.Join(PackagingTypes, ", "))
		}
	}
	q := c.TotalQuantity
	switch {
	case q.Tonnes != nil && q.CubicMetres != nil:
		add(ErrQuantity, "notification.totalQuantity", "give the quantity in tonnes or in cubic metres, not both")
	case q.Tonnes == nil && q.CubicMetres == nil:
		if complete {
			add(ErrRequiredMissing, "notification.totalQuantity", "the total quantity is required")
		}
	default:
		d := q.Tonnes
		if d == nil {
			d = q.CubicMetres
		}
		if d.Units < 0 || d.Nanos < 0 || d.Nanos >= 1e9 || (d.Units == 0 && d.Nanos == 0) {
			add(ErrQuantity, "notification.totalQuantity", "the quantity must be positive")
		}
	}
	if c.NumberOfShipments < 0 || (complete && c.NumberOfShipments == 0) {
		add(ErrRequiredMissing, "notification.numberOfShipments", "the number of shipments must be at least 1")
	}
	first, err1 := parseDate(c.ShipmentPeriod.FirstDeparture)
	last, err2 := parseDate(c.ShipmentPeriod.LastDeparture)
	switch {
	case c.ShipmentPeriod.FirstDeparture == "" || c.ShipmentPeriod.LastDeparture == "":
		if complete {
			add(ErrRequiredMissing, "notification.shipmentPeriod", "first and last departure dates are required")
		}
	case err1 != nil || err2 != nil:
		add(ErrShipmentPeriod, "notification.shipmentPeriod", "dates must be YYYY-MM-DD")
	case last.Before(first):
		add(ErrShipmentPeriod, "notification.shipmentPeriod", "the last departure is before the first")
	case last.After(first.AddDate(maxYears(c), 0, 0)):
		add(ErrShipmentPeriod, "notification.shipmentPeriod", "the shipment period may not exceed %d year(s)", maxYears(c))
	}
	return errs
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

// AfterSignal is the state a signal leads to.
func AfterSignal(t SignalType) string {
	switch t {
	case SignalCancellationOfConsent:
		return ConsentCancelled
	case SignalClosure:
		return Closed
	default:
		return Consented
	}
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
