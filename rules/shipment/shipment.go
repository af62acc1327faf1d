// Package shipment holds what every waste-shipment document kind shares:
// parties by organisation, competent authorities, waste classifications,
// quantities, business errors and the checks over them. The kinds
// (rules/notification, rules/annex7) build on it; it knows none of them.
package shipment

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// Party roles shared by the kinds (public contract).
const (
	RoleConsignee            = "CONSIGNEE"
	RoleFacility             = "FACILITY"
	RoleProducer             = "PRODUCER"
	RoleCarrier              = "CARRIER"
	RoleAuthorityDispatch    = "AUTHORITY_DISPATCH"
	RoleAuthorityDestination = "AUTHORITY_DESTINATION"
	RoleAuthorityTransit     = "AUTHORITY_TRANSIT"
)

// AuthorityRoles are the roles of concerned authorities.
var AuthorityRoles = []string{RoleAuthorityDispatch, RoleAuthorityDestination, RoleAuthorityTransit}

// PartyRef names an organisation of the document's provider.
type PartyRef struct {
	OrganisationID string `json:"organisationId" maxLength:"128" label:"Organisation|Organisation" help:"Choose the organisation as registered with the provider.|Wählen Sie die Organisation, wie sie beim Anbieter registriert ist."`
}

// CompetentAuthorities of dispatch, destination and transit.
type CompetentAuthorities struct {
	Dispatch    PartyRef   `json:"dispatch" label:"Competent authority of dispatch|Zuständige Behörde am Versandort" help:"The authority of the country the waste leaves.|Die Behörde des Staates, aus dem die Abfälle verbracht werden."`
	Destination PartyRef   `json:"destination" label:"Competent authority of destination|Zuständige Behörde am Bestimmungsort" help:"The authority of the country the waste goes to.|Die Behörde des Staates, in den die Abfälle verbracht werden."`
	Transit     []PartyRef `json:"transit" maxItems:"100" label:"Competent authorities of transit|Zuständige Behörden für die Durchfuhr" help:"One for each country the shipment passes through, in order.|Eine je Staat, durch den die Verbringung führt, in der Reihenfolge der Durchfuhr."`
}

// WasteClassification is one code with the list it belongs to.
type WasteClassification struct {
	List string `json:"list" maxLength:"64" doc:"EU_LIST_OF_WASTE, BASEL_ANNEX_VIII, BASEL_ANNEX_IX, OECD or NATIONAL" label:"Code list|Verzeichnis" help:"The list the code comes from, e.g. the European List of Waste or Basel Annex IX.|Das Verzeichnis, aus dem der Code stammt, z. B. das Europäische Abfallverzeichnis oder Basel Anlage IX." codeList:"wasteClassificationList"`
	Code string `json:"code" maxLength:"64" doc:"e.g. 16 02 13* (EU list, * for hazardous entries) or B3011 (Basel)" label:"Waste code|Abfallschlüssel" help:"As written in the list, e.g. 16 02 13* (a star marks hazardous waste) or B3011.|Wie im Verzeichnis geschrieben, z. B. 16 02 13* (der Stern kennzeichnet gefährliche Abfälle) oder B3011." codeList:"wasteCode"`
}

// Decimal is units plus nanos (10^-9), like google.type.Money without currency.
type Decimal = decimal.Decimal

// MeansOfTransport are the means a carrier may use.
var MeansOfTransport = []string{"ROAD", "RAIL", "SEA", "AIR", "INLAND_WATERWAYS"}

// Quantity is given in tonnes or in cubic metres.
type Quantity struct {
	Tonnes      *Decimal `json:"tonnes" label:"Tonnes (Mg)|Tonnen (Mg)" help:"Give the quantity in tonnes or in cubic metres, not both.|Geben Sie die Menge in Tonnen oder in Kubikmetern an, nicht beides."`
	CubicMetres *Decimal `json:"cubicMetres" label:"Cubic metres (m³)|Kubikmeter (m³)" help:"Give the quantity in tonnes or in cubic metres, not both.|Geben Sie die Menge in Tonnen oder in Kubikmetern an, nicht beides."`
}

// String is q in words for an audit note: "12.5 t", "3 m³", "" when
// empty.
func (q Quantity) String() string {
	switch {
	case q.Tonnes != nil:
		return q.Tonnes.String() + " t"
	case q.CubicMetres != nil:
		return q.CubicMetres.String() + " m³"
	}
	return ""
}

// Shipped is one shipment made under a notification, as its notification
// counts it.
type Shipped interface {
	Shipment() (sequence int32, date string, quantity Quantity)
}

// Refused is a shipment part or all of which its facility refused: what
// it refused (none: nothing).
type Refused interface {
	Refusal() Quantity
}

// Party is an organisation named in a role.
type Party struct{ OrganisationID, Role string }

// OrganisationIDs are the organisations ps name, in order.
func OrganisationIDs(ps []PartyRef) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.OrganisationID)
	}
	return out
}

// Authorities lists the concerned authorities: dispatch, destination, transits.
func (c *CompetentAuthorities) Authorities() []Party {
	var out []Party
	if id := c.Dispatch.OrganisationID; id != "" {
		out = append(out, Party{OrganisationID: id, Role: RoleAuthorityDispatch})
	}
	if id := c.Destination.OrganisationID; id != "" {
		out = append(out, Party{OrganisationID: id, Role: RoleAuthorityDestination})
	}
	for _, t := range c.Transit {
		if t.OrganisationID != "" {
			out = append(out, Party{OrganisationID: t.OrganisationID, Role: RoleAuthorityTransit})
		}
	}
	return out
}

// Directory answers what kind an organisation of the provider is.
type Directory func(organisationID string) (kind string, ok bool)

// BusinessError is a business rejection: reported in an HTTP 200 answer,
// nothing changed.
type BusinessError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// Business error codes shared by the kinds (public contract).
const (
	ErrWasteCode       = "WASTE_CLASSIFICATION_INVALID_CODE"
	ErrOperationCode   = "RECOVERY_DISPOSAL_CODE_INVALID"
	ErrPartyUnknown    = "PARTY_UNKNOWN"
	ErrRequiredMissing = "REQUIRED_FIELD_MISSING"
	ErrQuantity        = "QUANTITY_INVALID"
	ErrPriorNotice     = "PRIOR_NOTICE_TOO_LATE"
	ErrDateOutOfRange  = "DATE_OUT_OF_RANGE"
)

// Checker collects business errors of one block. Complete says whether
// required fields must be present (a draft may be incomplete).
type Checker struct {
	Dir      Directory
	Complete bool
	// On is the date the document is dated: code lists are checked as in
	// force on it.
	On     time.Time
	Errors []BusinessError
}

// Add records a business error; a value quoted with %q is cut to
// echo.Max characters.
func (c *Checker) Add(code, field, format string, args ...any) {
	c.Errors = append(c.Errors, BusinessError{Code: code, Field: field, Message: echo.Sprintf(format, args...)})
}

// Party checks that org, when given (or required), is a registered
// organisation of kind ("company" or "authority").
func (c *Checker) Party(field, org, kind string) {
	if org == "" {
		if c.Complete {
			c.Add(ErrRequiredMissing, field, "%s is required", field)
		}
		return
	}
	k, ok := c.Dir(org)
	switch {
	case !ok:
		c.Add(ErrPartyUnknown, field, "organisation %q is not registered with this provider", org)
	case k != kind:
		c.Add(ErrPartyUnknown, field, "organisation %q is a %s, not a %s", org, k, kind)
	}
}

// Authorities checks the competent authorities.
func (c *Checker) Authorities(field string, a *CompetentAuthorities) {
	c.Party(field+".dispatch.organisationId", a.Dispatch.OrganisationID, "authority")
	c.Party(field+".destination.organisationId", a.Destination.OrganisationID, "authority")
	for i, p := range a.Transit {
		c.Party(fmt.Sprintf("%s.transit[%d].organisationId", field, i), p.OrganisationID, "authority")
	}
}

// Classifications checks that there is at least one code (when complete)
// and that each is in the list it claims, in force on the document's date.
func (c *Checker) Classifications(field string, ws []WasteClassification) {
	if c.Complete && len(ws) == 0 {
		c.Add(ErrRequiredMissing, field, "at least one waste classification is required")
	}
	for i, w := range ws {
		if _, ok, reason := wastecodes.LookupOn(w.List, w.Code, c.On); !ok {
			c.Add(ErrWasteCode, fmt.Sprintf("%s[%d]", field, i), "%s", reason)
		}
	}
}

// Quantity checks a quantity: one unit, positive.
func (c *Checker) Quantity(field string, q Quantity) {
	switch {
	case q.Tonnes != nil && q.CubicMetres != nil:
		c.Add(ErrQuantity, field, "give the quantity in tonnes or in cubic metres, not both")
	case q.Tonnes == nil && q.CubicMetres == nil:
		if c.Complete {
			c.Add(ErrRequiredMissing, field, "the quantity is required")
		}
	default:
		d := q.Tonnes
		if d == nil {
			d = q.CubicMetres
		}
		if d.Units < 0 || d.Nanos < 0 || d.Nanos >= 1e9 || (d.Units == 0 && d.Nanos == 0) {
			c.Add(ErrQuantity, field, "the quantity must be positive")
		}
	}
}

// Attachment is a file referenced by the document.
type Attachment struct {
	Name      string `json:"name" maxLength:"200" label:"File name|Dateiname"`
	MediaType string `json:"mediaType" maxLength:"200" label:"File type|Dateityp"`
	Reference string `json:"reference" maxLength:"2048" doc:"where the file is stored (URI)" label:"Where the file is stored|Speicherort der Datei"`
	Size      int64  `json:"size" minimum:"0" label:"Size (bytes)|Größe (Bytes)"`
}

// Metadata is service-side data beside the content.
type Metadata struct {
	Addresses       map[string]string `json:"addresses" maxProperties:"100" maxKeyLength:"100" maxLength:"500" doc:"postal or electronic addresses by party role" label:"Addresses by role|Anschriften nach Rolle" help:"Postal or e-mail addresses, one per role.|Post- oder E-Mail-Anschriften, eine je Rolle."`
	AdditionalData  map[string]string `json:"additionalData" maxProperties:"100" maxKeyLength:"100" maxLength:"4000" label:"Additional information|Weitere Angaben" help:"Anything else the parties should know, as name and value.|Was die Beteiligten sonst wissen sollten, als Name und Wert."`
	FileAttachments []Attachment      `json:"fileAttachments" maxItems:"100" label:"Attachments|Anlagen"`
}

// ParseDate reads a YYYY-MM-DD date.
func ParseDate(s string) (time.Time, error) { return time.Parse(time.DateOnly, s) }

// CompletionCertificateDue is the last day for the certificate that the
// recovery or disposal was completed: one year after the facility received
// the waste and, once the completion date is known, 30 days after it,
// whichever is earlier (Art. 15(4) and 16(1)(f) Regulation (EU) 2024/1157;
// service interface section 8). Empty without a valid receipt date.
func CompletionCertificateDue(receivedOn, completedOn string) string {
	received, err := ParseDate(receivedOn)
	if err != nil {
		return ""
	}
	due := received.AddDate(1, 0, 0)
	if done, err := ParseDate(completedOn); err == nil && done.AddDate(0, 0, 30).Before(due) {
		due = done.AddDate(0, 0, 30)
	}
	return due.Format(time.DateOnly)
}

// PastDate checks a date the acting party states about what happened (a
// transfer, a receipt, a completion): required, YYYY-MM-DD, not after today
// at place, and not before notBefore when given (what names it for the
// message).
func PastDate(field, date string, place calendar.Place, now time.Time, notBefore, what string) []BusinessError {
	if date == "" {
		return []BusinessError{{Code: ErrRequiredMissing, Field: field, Message: field + " is required"}}
	}
	if _, err := ParseDate(date); err != nil {
		return []BusinessError{{Code: ErrDateOutOfRange, Field: field, Message: "dates must be YYYY-MM-DD"}}
	}
	if today := now.In(calendar.Location(place.Country)).Format(time.DateOnly); date > today {
		return []BusinessError{{Code: ErrDateOutOfRange, Field: field, Message: fmt.Sprintf("%s is in the future (today is %s where you are)", date, today)}}
	}
	if notBefore != "" && date < notBefore {
		return []BusinessError{{Code: ErrDateOutOfRange, Field: field, Message: fmt.Sprintf("%s is before %s (%s)", date, what, notBefore)}}
	}
	return nil
}

// ErrAuthorityPlace: competent authorities that do not match the places of
// the shipment (our design).
const ErrAuthorityPlace = "COMPETENT_AUTHORITY_MISMATCH"

// Places are the countries of a shipment's sites: where it may start (the
// notifier's or arranger's and the producers'), where it ends (the
// facility's), and the transit countries its route names, if any.
type Places struct {
	Dispatch    []string
	Destination string
	Route       []string
}

// CheckAuthorities checks that the competent authorities match the places
// (dispatch: a country of dispatch; destination: the facility's country;
// transit: neither, and on the route when it names countries) and that the
// shipment crosses a border. countryOf tells an organisation's country ("":
// unknown, reported elsewhere).
func CheckAuthorities(field string, a *CompetentAuthorities, p Places, countryOf func(string) string) []BusinessError {
	k := &Checker{}
	dispatch, destination := countryOf(a.Dispatch.OrganisationID), countryOf(a.Destination.OrganisationID)
	if a.Dispatch.OrganisationID != "" && a.Dispatch.OrganisationID == a.Destination.OrganisationID {
		k.Add(ErrAuthorityPlace, field+".destination.organisationId", "the same authority cannot be the authority of dispatch and of destination")
	}
	if dispatch != "" && len(p.Dispatch) > 0 && !slices.Contains(p.Dispatch, dispatch) {
		k.Add(ErrAuthorityPlace, field+".dispatch.organisationId", "the authority of dispatch is in %s; the shipment starts in %s", dispatch, strings.Join(p.Dispatch, " or "))
	}
	if destination != "" && p.Destination != "" && destination != p.Destination {
		k.Add(ErrAuthorityPlace, field+".destination.organisationId", "the authority of destination is in %s; the facility is in %s", destination, p.Destination)
	}
	if dispatch != "" && dispatch == destination {
		k.Add(ErrAuthorityPlace, field, "dispatch and destination are both in %s: a shipment within one country is not transboundary", dispatch)
	}
	for i, t := range a.Transit {
		c := countryOf(t.OrganisationID)
		f := fmt.Sprintf("%s.transit[%d].organisationId", field, i)
		switch {
		case c == "":
		case c == dispatch || c == destination:
			k.Add(ErrAuthorityPlace, f, "a transit authority cannot be in the country of dispatch or destination (%s)", c)
		case len(p.Route) > 0 && !slices.Contains(p.Route, c):
			k.Add(ErrAuthorityPlace, f, "the route does not pass %s (transit countries: %s)", c, strings.Join(p.Route, ", "))
		}
	}
	return k.Errors
}

// Missing is the business error of a block that lacks what its rule needs
// (a reason, grounds, a type): content, not transport, so HTTP 200 with
// nothing changed.
func Missing(field, format string, args ...any) []BusinessError {
	return []BusinessError{{Code: ErrRequiredMissing, Field: field, Message: echo.Sprintf(format, args...)}}
}

// Withdrawal is the block of WITHDRAWAL (our design): the author withdraws
// a draft that was never filed, a misspelt one say. The document keeps its
// number and audit trail and leaves the lists of open work.
type Withdrawal struct {
	Reason string `json:"reason" maxLength:"4000" doc:"optional: why the draft is withdrawn" label:"Reason for withdrawing|Grund der Rücknahme" help:"Optional: why the draft is withdrawn.|Optional: warum der Entwurf zurückgenommen wird."`
}

// WithdrawalRecord is a withdrawal made.
type WithdrawalRecord struct {
	OrganisationID string    `json:"organisationId" label:"Withdrawn by|Zurückgenommen von"`
	At             time.Time `json:"at" label:"Withdrawn on|Zurückgenommen am"`
	Reason         string    `json:"reason" label:"Reason|Grund"`
}
