// Package movement holds the movement document (one shipment under a
// consented notification, Art. 16 of Regulation (EU) 2024/1157) as values:
// its template, the blocks of its intents, the history they leave, and pure
// functions over them. No database, no clock of its own.
package movement

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/labels"

	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/echo"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// States of the movement machine (public contract).
const (
	Submitted           = "SUBMITTED"
	Acknowledged        = "ACKNOWLEDGED"
	InTransit           = "IN_TRANSIT"
	ReceivedByConsignee = "RECEIVED_BY_CONSIGNEE"
	ReceivedByFacility  = "RECEIVED_BY_FACILITY"
	Completed           = "COMPLETED"
	Rejected            = "REJECTED"
	TakeBackOrdered     = "TAKE_BACK_ORDERED"
	TakenBack           = "TAKEN_BACK"
)

// ErrSequenceNumber: a sequence number another movement of the
// notification has, or not positive (our design).
const ErrSequenceNumber = "SEQUENCE_NUMBER_INVALID"

// Carrier is a carrier of this shipment, one of the notified carriers.
type Carrier struct {
	OrganisationID   string `json:"organisationId" maxLength:"128" label:"Carrier|Transportunternehmen" help:"One of the notified carriers.|Eines der notifizierten Transportunternehmen."`
	MeansOfTransport string `json:"meansOfTransport" maxLength:"64" doc:"ROAD, RAIL, SEA, AIR or INLAND_WATERWAYS" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
}

// Template is the movement document as the notifier fills it in.
type Template struct {
	SequenceNumber       int32             `json:"sequenceNumber" doc:"1, 2, ... per notification; assigned by the server when 0 or absent; unique per notification" label:"2. Shipment No.|2. Verbringung Nr." help:"Leave empty: the next number is given.|Leer lassen: die nächste Nummer wird vergeben."`
	ActualQuantity       shipment.Quantity `json:"actualQuantity" doc:"in the notified unit; all movements together at most the notified totalQuantity" label:"5. Actual quantity|5. Tatsächliche Menge" help:"In the unit of the notification.|In der Einheit der Notifizierung."`
	ActualDateOfShipment string            `json:"actualDateOfShipment" maxLength:"64" doc:"YYYY-MM-DD: within the consent's validity and the notified shipment period, at least 2 working days (notifier's country) ahead" label:"6. Actual date of shipment|6. Tatsächliches Datum der Verbringung" help:"Within the consent, at least 2 working days from now.|Innerhalb der Zustimmung, mindestens 2 Arbeitstage ab heute."`
	PackagingTypes       []string          `json:"packagingTypes" maxItems:"100" maxLength:"64" doc:"among the notified packaging types" label:"7. Packaging type(s)|7. Art(en) der Verpackung" help:"Among the notified packaging types.|Aus den notifizierten Verpackungsarten." codeList:"packagingType"`
	Carriers             []Carrier         `json:"carriers" maxItems:"100" doc:"in order; each one of the notified carriers" label:"8. Carriers|8. Transportunternehmen" help:"In the order they carry the waste.|In der Reihenfolge, in der sie die Abfälle befördern."`
}

// Input blocks.

// CarrierTransport is a carrier taking custody (one leg).
type CarrierTransport struct {
	CarrierOrganisationID string `json:"carrierOrganisationId" maxLength:"128" doc:"default the caller's organisation" label:"Carrier|Transportunternehmen" help:"Your organisation unless you record it for another carrier.|Ihre Organisation, es sei denn, Sie erfassen für ein anderes Transportunternehmen."`
	MeansOfTransport      string `json:"meansOfTransport" maxLength:"64" doc:"default the template's for this carrier" label:"Means of transport|Transportart" help:"As planned for this carrier unless you choose another.|Wie für dieses Transportunternehmen geplant, falls Sie keine andere wählen." codeList:"meansOfTransport"`
	VehicleID             string `json:"vehicleId" maxLength:"200" doc:"registration number, wagon or vessel" label:"Vehicle|Fahrzeug" help:"Registration number, wagon or vessel.|Kennzeichen, Waggon oder Schiff."`
	TakenOverOn           string `json:"takenOverOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the shipment date or the previous leg" label:"Date of transfer|Übergabedatum" help:"Not in the future, not before the shipment date.|Nicht in der Zukunft, nicht vor dem Verbringungsdatum."`
}

// ConsigneeReception is the consignee's receipt.
type ConsigneeReception struct {
	ReceivedOn string            `json:"receivedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the shipment date" label:"17. Received on|17. Erhalten am" help:"Not in the future, not before the shipment date.|Nicht in der Zukunft, nicht vor dem Verbringungsdatum."`
	Quantity   shipment.Quantity `json:"quantity" label:"Quantity received|Erhaltene Menge"`
}

// FacilityReception is the facility's receipt or rejection.
type FacilityReception struct {
	ReceivedOn string            `json:"receivedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the shipment date" label:"18. Date of reception|18. Datum des Eingangs" help:"Not in the future, not before the shipment date.|Nicht in der Zukunft, nicht vor dem Verbringungsdatum."`
	Quantity   shipment.Quantity `json:"quantity" label:"Quantity received|Erhaltene Menge"`
	Rejected   bool              `json:"rejected" doc:"the facility refuses the shipment: the movement becomes REJECTED and the authority of destination is told" label:"Shipment rejected|Verbringung abgelehnt" help:"Tick if the facility refuses the shipment; the authorities are told at once.|Ankreuzen, wenn die Anlage die Verbringung ablehnt; die Behörden werden sofort unterrichtet."`
	// RejectedQuantity is the part refused (our design): the rest is
	// accepted and goes on to its completion.
	RejectedQuantity shipment.Quantity `json:"rejectedQuantity" doc:"a part the facility refuses (our design): in the unit of quantity, more than 0 and less than it; the rest is accepted (its completion falls due) and the refused part is taken back or recovered elsewhere under an arrangement of the authority of dispatch (REJECTED_PART_DUE, 90 days or agreed, Art. 22(2)); the whole quantity rejects the shipment" label:"Quantity refused|Abgelehnte Menge" help:"Only if the facility refuses part of the shipment; leave empty when it accepts everything.|Nur wenn die Anlage einen Teil der Lieferung ablehnt; leer lassen, wenn sie alles annimmt."`
	Reason           string            `json:"reason" maxLength:"4000" doc:"required with rejected or a rejectedQuantity" label:"Reason for rejecting|Grund der Ablehnung" help:"Required when all or part of the shipment is rejected.|Erforderlich, wenn die Lieferung ganz oder teilweise abgelehnt wird."`
}

// PartiallyRejected reports whether r refuses a part of the shipment.
func (r *FacilityReception) PartiallyRejected() bool {
	return !r.Rejected && (r.RejectedQuantity.Tonnes != nil || r.RejectedQuantity.CubicMetres != nil)
}

// CheckPartialRejection checks the part r refuses against the quantity
// received: in its unit, more than nothing and less than it (the whole
// quantity is a rejection of the shipment, which Rejected says). A
// refusal needs a reason.
func CheckPartialRejection(r *FacilityReception) []shipment.BusinessError {
	if !r.PartiallyRejected() {
		return nil
	}
	const field = "facilityReception.rejectedQuantity"
	k := &shipment.Checker{Complete: true}
	k.Quantity(field, r.RejectedQuantity)
	if len(k.Errors) > 0 {
		return k.Errors
	}
	part, whole := r.RejectedQuantity.Tonnes, r.Quantity.Tonnes
	if part == nil {
		part, whole = r.RejectedQuantity.CubicMetres, r.Quantity.CubicMetres
	}
	switch {
	case whole == nil:
		k.Add(shipment.ErrQuantity, field, "give the refused part in the unit of the quantity received")
	case part.Cmp(*whole) >= 0:
		k.Add(shipment.ErrQuantity, field, "the refused part must be less than the quantity received: to refuse it all, reject the shipment")
	case strings.TrimSpace(r.Reason) == "":
		k.Add(shipment.ErrRequiredMissing, "facilityReception.reason", "a refused part needs a reason")
	}
	return k.Errors
}

// FacilityCompletion certifies the recovery or disposal completed.
type FacilityCompletion struct {
	CompletedOn   string `json:"completedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the facility's receipt" label:"19. Disposal / recovery completed on|19. Beseitigung / Verwertung abgeschlossen am" help:"Not in the future, not before the receipt.|Nicht in der Zukunft, nicht vor dem Eingang."`
	OperationCode string `json:"operationCode" maxLength:"64" doc:"one of the notification's R or D codes" label:"Operation|Verfahren" help:"One of the notified R or D codes.|Einer der notifizierten R- oder D-Codes." codeList:"operation"`
}

// SignalType of an authority's movement signal.
type SignalType int32

// Signal types.
const (
	SignalUnspecified SignalType = iota
	SignalConfirm
	SignalReject
	SignalRequestCorrection
)

// EnumNames implements the codec's enum contract.
func (SignalType) EnumNames() []string {
	return []string{"MOVEMENT_SIGNAL_TYPE_UNSPECIFIED", "CONFIRM", "REJECT", "REQUEST_CORRECTION"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (SignalType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Confirm", DE: "Bestätigen"},
		{EN: "Reject", DE: "Ablehnen"},
		{EN: "Request a correction", DE: "Korrektur anfordern"},
	}
}

// Signal is an authority's signal on a movement.
type Signal struct {
	Type   SignalType `json:"type" doc:"CONFIRM: recorded (by the authority of dispatch on a TAKE_BACK_ORDERED movement: the waste is back, TAKEN_BACK); REJECT: the movement is REJECTED; REQUEST_CORRECTION: the notifier may change the template once" label:"Action|Maßnahme" codeList:"MovementSignalType"`
	Reason string     `json:"reason" maxLength:"4000" doc:"required for REJECT and REQUEST_CORRECTION" label:"Reason|Begründung" help:"Required when rejecting or asking for a correction.|Bei Ablehnung oder Bitte um Korrektur erforderlich."`
}

// TakeBack is the authority of dispatch ordering the waste back (Art. 22).
type TakeBack struct {
	Reason string `json:"reason" maxLength:"4000" label:"Reason for the take-back|Grund der Rücknahme"`
	DueOn  string `json:"dueOn" maxLength:"64" doc:"YYYY-MM-DD agreed for the take-back; default 90 days after the order" label:"Take back by|Rücknahme bis" help:"Leave empty for 90 days after the order.|Leer lassen für 90 Tage nach der Anordnung."`
}

// History records.

// CorrectionRecord is the template before a change.
type CorrectionRecord struct {
	At       time.Time `json:"at" label:"Corrected at|Korrigiert am"`
	Previous Template  `json:"previous" label:"Before the correction|Vor der Korrektur"`
}

// AcknowledgementRecord is an authority's acknowledgement.
type AcknowledgementRecord struct {
	AuthorityOrganisationID string    `json:"authorityOrganisationId" label:"Authority|Behörde"`
	Remarks                 string    `json:"remarks" label:"Remarks|Bemerkungen"`
	At                      time.Time `json:"at" label:"Acknowledged at|Bestätigt am"`
}

// LegRecord is a carrier's custody.
type LegRecord struct {
	CarrierOrganisationID string    `json:"carrierOrganisationId" label:"Carrier|Transportunternehmen"`
	MeansOfTransport      string    `json:"meansOfTransport" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
	VehicleID             string    `json:"vehicleId" label:"Vehicle|Fahrzeug"`
	TakenOverOn           string    `json:"takenOverOn" label:"Date of transfer|Übergabedatum"`
	At                    time.Time `json:"at" label:"Recorded at|Erfasst am"`
}

// ReceptionRecord is a receipt recorded.
type ReceptionRecord struct {
	ReceivedOn string            `json:"receivedOn" label:"Received on|Erhalten am"`
	Quantity   shipment.Quantity `json:"quantity" label:"Quantity received|Erhaltene Menge"`
	Rejected   bool              `json:"rejected" label:"Rejected|Abgelehnt"`
	// RejectedQuantity is the part refused (our design; none: all of it
	// accepted, or all of it rejected).
	RejectedQuantity shipment.Quantity `json:"rejectedQuantity" label:"Quantity refused|Abgelehnte Menge"`
	Reason           string            `json:"reason" label:"Reason for rejecting|Grund der Ablehnung"`
	At               time.Time         `json:"at" label:"Recorded at|Erfasst am"`
}

// RejectedPartArrangementType is what becomes of a refused part (our design).
type RejectedPartArrangementType int32

// Arrangement types.
const (
	ArrangementUnspecified RejectedPartArrangementType = iota
	ArrangementTakeBack
	ArrangementAlternativeRecovery
)

// EnumNames implements the codec's enum contract.
func (RejectedPartArrangementType) EnumNames() []string {
	return []string{"REJECTED_PART_ARRANGEMENT_TYPE_UNSPECIFIED", "TAKE_BACK", "ALTERNATIVE_RECOVERY"}
}

// EnumLabels are the words a person sees for the values, by number.
func (RejectedPartArrangementType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Taken back", DE: "Rücknahme"},
		{EN: "Recovered/disposed of elsewhere", DE: "Anderswo verwertet/beseitigt"},
	}
}

// RejectedPartArrangement is the authority of dispatch's arrangement for a
// part the facility refused (Art. 22: taken back, or recovered or disposed
// of in an alternative way; our design of the act).
type RejectedPartArrangement struct {
	Arrangement            RejectedPartArrangementType `json:"arrangement" doc:"TAKE_BACK: the notifier takes the part back; ALTERNATIVE_RECOVERY: it goes to the facility named" label:"What becomes of the refused part|Verbleib der abgelehnten Menge" codeList:"RejectedPartArrangementType"`
	FacilityOrganisationID string                      `json:"facilityOrganisationId" maxLength:"128" doc:"with ALTERNATIVE_RECOVERY: the facility that takes the part (an organisation of the directory)" label:"Other facility|Andere Anlage" help:"Only for recovery or disposal elsewhere.|Nur bei anderweitiger Verwertung oder Beseitigung."`
	DueOn                  string                      `json:"dueOn" maxLength:"64" doc:"YYYY-MM-DD agreed; default 90 days after the facility's reception (Art. 22(2))" label:"Done by|Erledigt bis" help:"Leave empty for 90 days after the reception.|Leer lassen für 90 Tage nach dem Eingang."`
	Remarks                string                      `json:"remarks" maxLength:"4000" label:"Remarks|Bemerkungen"`
}

// RejectedPartResolution confirms the refused part taken back or
// recovered elsewhere as arranged.
type RejectedPartResolution struct {
	ResolvedOn string `json:"resolvedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the reception" label:"Done on|Erledigt am" help:"Not in the future, not before the reception.|Nicht in der Zukunft, nicht vor dem Eingang."`
	Remarks    string `json:"remarks" maxLength:"4000" label:"Remarks|Bemerkungen"`
}

// RejectedPartRecord is a part of the shipment the facility refused, and
// what became of it.
type RejectedPartRecord struct {
	Quantity               shipment.Quantity           `json:"quantity" label:"Quantity refused|Abgelehnte Menge"`
	Reason                 string                      `json:"reason" label:"Reason|Grund"`
	RejectedOn             string                      `json:"rejectedOn" label:"Refused on|Abgelehnt am"`
	Arrangement            RejectedPartArrangementType `json:"arrangement" label:"What becomes of it|Verbleib" codeList:"RejectedPartArrangementType"`
	FacilityOrganisationID string                      `json:"facilityOrganisationId" label:"Other facility|Andere Anlage"`
	DueOn                  string                      `json:"dueOn" label:"Due by|Fällig bis"`
	ArrangedBy             string                      `json:"arrangedBy" label:"Arranged by|Veranlasst von"`
	Remarks                string                      `json:"remarks" label:"Remarks|Bemerkungen"`
	ResolvedOn             string                      `json:"resolvedOn" doc:"\"\" while open" label:"Done on|Erledigt am"`
	ResolvedBy             string                      `json:"resolvedBy" label:"Confirmed by|Bestätigt von"`
}

// RejectedPartOpen reports whether a refused part waits for its
// arrangement or its resolution.
func (m *Movement) RejectedPartOpen() bool {
	return m.RejectedPart != nil && m.RejectedPart.ResolvedOn == ""
}

// RejectedPartDue is the date the refused part must be taken back or
// recovered elsewhere by: the agreed date, or 90 days after the reception
// (Art. 22(2)); "" without a refused part.
func (m *Movement) RejectedPartDue() string {
	p := m.RejectedPart
	if p == nil {
		return ""
	}
	if p.DueOn != "" {
		return p.DueOn
	}
	on, err := time.Parse(time.DateOnly, p.RejectedOn)
	if err != nil {
		return ""
	}
	return on.AddDate(0, 0, 90).Format(time.DateOnly)
}

// Refusal implements shipment.Refused.
func (m *Movement) Refusal() shipment.Quantity { return m.RefusedQuantity() }

// RefusedQuantity is what the facility refused of the shipment: all of it
// on a rejection, the refused part, or nothing.
func (m *Movement) RefusedQuantity() shipment.Quantity {
	switch f := m.Facility; {
	case f == nil:
		return shipment.Quantity{}
	case f.Rejected:
		return f.Quantity
	case m.RejectedPart != nil:
		return m.RejectedPart.Quantity
	}
	return shipment.Quantity{}
}

// CompletionRecord is the completion certificate recorded.
type CompletionRecord struct {
	CompletedOn   string    `json:"completedOn" label:"Completed on|Abgeschlossen am"`
	OperationCode string    `json:"operationCode" label:"Operation|Verfahren" codeList:"operation"`
	At            time.Time `json:"at" label:"Recorded at|Erfasst am"`
}

// SignalRecord is an authority's signal recorded.
type SignalRecord struct {
	AuthorityOrganisationID string     `json:"authorityOrganisationId" label:"Authority|Behörde"`
	Type                    SignalType `json:"type" label:"Action|Maßnahme"`
	Reason                  string     `json:"reason" label:"Reason|Begründung"`
	At                      time.Time  `json:"at" label:"At|Am"`
}

// TakeBackRecord is the take-back order recorded.
type TakeBackRecord struct {
	AuthorityOrganisationID string    `json:"authorityOrganisationId" label:"Ordered by|Angeordnet von"`
	Reason                  string    `json:"reason" label:"Reason|Grund"`
	DueOn                   string    `json:"dueOn" label:"Take back by|Rücknahme bis"`
	At                      time.Time `json:"at" label:"Ordered at|Angeordnet am"`
	ReturnedAt              time.Time `json:"returnedAt" doc:"when the authority of dispatch confirmed the waste is back; null while open" label:"Returned at|Zurückgenommen am"`
}

// Movement is the whole aggregate stored for a movement document.
type Movement struct {
	NotificationID string   `json:"notificationId" label:"Notification|Notifizierung"`
	Template       Template `json:"movementTemplate" label:"Movement|Verbringung"`
	// The notification's parties and operation codes when the movement was
	// created: the movement's parties are the notification's.
	NotifiedParties  []shipment.Party        `json:"notifiedParties" label:"Notified parties|Notifizierte Beteiligte"`
	OperationCodes   []string                `json:"operationCodes" label:"Notified operations|Notifizierte Verfahren" codeList:"operation"`
	CorrectionOpen   bool                    `json:"correctionOpen" label:"Correction allowed|Korrektur zulässig"`
	Corrections      []CorrectionRecord      `json:"corrections" maxItems:"100" label:"Corrections|Korrekturen"`
	Acknowledgements []AcknowledgementRecord `json:"acknowledgements" maxItems:"200" label:"Acknowledgements|Eingangsbestätigungen"`
	Legs             []LegRecord             `json:"legs" maxItems:"100" label:"Carriers' transfers|Übergaben an Transportunternehmen"`
	Consignee        *ReceptionRecord        `json:"consigneeReception" label:"17. Receipt by the consignee|17. Eingang beim Empfänger"`
	Facility         *ReceptionRecord        `json:"facilityReception" label:"18. Receipt at the facility|18. Eingang bei der Anlage"`
	Completion       *CompletionRecord       `json:"facilityCompletion" label:"19. Completion of disposal / recovery|19. Abschluss der Beseitigung / Verwertung"`
	Signals          []SignalRecord          `json:"signals" maxItems:"100" label:"Authorities' actions|Maßnahmen der Behörden"`
	TakeBack         *TakeBackRecord         `json:"takeBack" label:"Take-back|Rücknahme"`
	RejectedPart     *RejectedPartRecord     `json:"rejectedPart" doc:"a part the facility refused and what becomes of it (our design); null when none" label:"Part refused by the facility|Von der Anlage abgelehnte Teilmenge"`
	Metadata         shipment.Metadata       `json:"metadata" label:"Additional information|Weitere Angaben"`

	// The parties' details as they were when the document was filed
	// (the runner records them; none while a draft).
	shipment.Recorded `json:",inline"`
}

// Shipment implements shipment.Shipped.
func (m *Movement) Shipment() (int32, string, shipment.Quantity) {
	return m.Template.SequenceNumber, m.Template.ActualDateOfShipment, m.Template.ActualQuantity
}

// Quantity is the shipment's quantity as last corrected (what it counts
// against the notified total).
func (m *Movement) Quantity() shipment.Quantity { return m.Template.ActualQuantity }

// Summary is what a movement's notification and its other movements see
// of it: the runner keeps it beside the movement, so that a notification
// with a thousand movements reads a thousand summaries, not a thousand
// aggregates.
type Summary struct {
	SequenceNumber       int32             `json:"sequenceNumber" label:"Shipment No.|Verbringung Nr."`
	ActualDateOfShipment string            `json:"actualDateOfShipment" label:"Actual date of shipment|Tatsächliches Datum der Verbringung"`
	ActualQuantity       shipment.Quantity `json:"actualQuantity" label:"Actual quantity|Tatsächliche Menge"`
	// CompletedOn is the facility's completion date ("" until completed).
	CompletedOn string `json:"completedOn,omitempty" label:"Completed on|Abgeschlossen am"`
	// Refused is what the facility refused of it (RefusedQuantity).
	Refused *shipment.Quantity `json:"refused,omitempty" label:"Quantity refused|Abgelehnte Menge"`
}

// Refusal implements shipment.Refused.
func (s Summary) Refusal() shipment.Quantity {
	if s.Refused == nil {
		return shipment.Quantity{}
	}
	return *s.Refused
}

// Summary of the movement.
func (m *Movement) Summary() Summary {
	s := Summary{SequenceNumber: m.Template.SequenceNumber, ActualDateOfShipment: m.Template.ActualDateOfShipment, ActualQuantity: m.Template.ActualQuantity}
	if m.Completion != nil {
		s.CompletedOn = m.Completion.CompletedOn
	}
	if r := m.RefusedQuantity(); r.Tonnes != nil || r.CubicMetres != nil {
		s.Refused = &r
	}
	return s
}

// Shipment implements shipment.Shipped.
func (s Summary) Shipment() (int32, string, shipment.Quantity) {
	return s.SequenceNumber, s.ActualDateOfShipment, s.ActualQuantity
}

// Parties: the notification's parties as notified, and this shipment's
// carriers.
func (m *Movement) Parties() []shipment.Party {
	out := slices.Clone(m.NotifiedParties)
	for _, c := range m.Template.Carriers {
		out = append(out, shipment.Party{OrganisationID: c.OrganisationID, Role: shipment.RoleCarrier})
	}
	return out
}

// Org is the organisation holding role on the movement ("" when none).
func (m *Movement) Org(role string) string {
	for _, p := range m.NotifiedParties {
		if p.Role == role {
			return p.OrganisationID
		}
	}
	return ""
}

// HasCustody reports whether a carrier took the waste over.
func (m *Movement) HasCustody() bool { return len(m.Legs) > 0 }

// HasLeg reports whether org recorded a leg.
func (m *Movement) HasLeg(org string) bool {
	return slices.ContainsFunc(m.Legs, func(l LegRecord) bool { return l.CarrierOrganisationID == org })
}

// LastHandOver is the earliest date of the next leg.
func (m *Movement) LastHandOver() string {
	last := m.Template.ActualDateOfShipment
	for _, l := range m.Legs {
		last = max(last, l.TakenOverOn)
	}
	return last
}

// Snapshot records the notification's parties and codes on a new movement.
func (m *Movement) Snapshot(notificationID string, nf *n.Notification) {
	m.NotificationID = notificationID
	m.NotifiedParties = nil
	for _, p := range n.Parties(&nf.Content) {
		if p.Role != shipment.RoleCarrier { // the movement's carriers are its own
			m.NotifiedParties = append(m.NotifiedParties, p)
		}
	}
	m.OperationCodes = slices.Clone(nf.Content.RecoveryDisposalCodes)
}

// Under is what a template is checked against: the notification, the
// tally of the other movements under it, and whether this is a new movement or a
// change of the template whose shipment date was before.
type Under struct {
	Notification *n.Notification
	Others       n.Tally
	Dir          shipment.Directory
	Notifier     calendar.Place
	Now          time.Time
	// PreviousDate is the template's date before a change ("" on create):
	// the prior notice is checked again only when the date moves.
	PreviousDate string
	Create       bool
}

// CheckTemplate checks a template against the notification and its other
// movements: parties, packaging, quantity and count within the notified
// totals, the date within the consent and the shipment period, the prior
// notice. It assigns the sequence number when the template has none.
func CheckTemplate(t *Template, u Under) []shipment.BusinessError {
	c := &u.Notification.Content
	k := &shipment.Checker{Dir: u.Dir, Complete: true, On: u.Now}
	const f = "movementTemplate."
	// Sequence number.
	highest := u.Others.Highest()
	switch {
	case t.SequenceNumber == 0:
		t.SequenceNumber = highest + 1
	case t.SequenceNumber < 0 || u.Others.Uses(t.SequenceNumber):
		k.Add(ErrSequenceNumber, f+"sequenceNumber", "sequence number %d is taken or not positive; omit it to get the next one (%d)", t.SequenceNumber, highest+1)
	}
	// Count: every movement created counts, whatever its state.
	if u.Create && u.Others.Count >= c.NumberOfShipments {
		k.Add(n.ErrShipmentCount, f+"sequenceNumber", "the notification allows %d shipments and all of them have been made", c.NumberOfShipments)
	}
	// Carriers.
	if len(t.Carriers) == 0 {
		k.Add(n.ErrRequiredMissing, f+"carriers", "at least one carrier is required")
	}
	for i, cr := range t.Carriers {
		field := fmt.Sprintf(f+"carriers[%d]", i)
		if !slices.ContainsFunc(c.Carriers, func(p shipment.PartyRef) bool { return p.OrganisationID == cr.OrganisationID }) {
			k.Add(n.ErrPartyUnknown, field+".organisationId", "%q is not a carrier of the notification", cr.OrganisationID)
		}
		if !slices.Contains(shipment.MeansOfTransport, cr.MeansOfTransport) {
			k.Add(n.ErrRequiredMissing, field+".meansOfTransport", "%q is not a means of transport (%s)", cr.MeansOfTransport, strings.Join(shipment.MeansOfTransport, ", "))
		}
	}
	for i, p := range t.PackagingTypes {
		if !slices.Contains(c.PackagingTypes, p) {
			k.Add(n.ErrPackagingType, fmt.Sprintf(f+"packagingTypes[%d]", i), "%q is not among the notified packaging types (%s)", p, strings.Join(c.PackagingTypes, ", "))
		}
	}
	checkQuantity(k, t.ActualQuantity, u)
	checkDate(k, t.ActualDateOfShipment, u)
	return k.Errors
}

func checkQuantity(k *shipment.Checker, q shipment.Quantity, u Under) {
	const field = "movementTemplate.actualQuantity"
	total := u.Notification.Content.TotalQuantity
	if q.Tonnes == nil && q.CubicMetres == nil {
		k.Add(n.ErrRequiredMissing, field, "the actual quantity is required")
		return
	}
	k.Quantity(field, q)
	if (q.Tonnes == nil) != (total.Tonnes == nil) {
		k.Add(n.ErrQuantity, field, "give the quantity in the notified unit (%s)", unit(total))
		return
	}
	sum := amount(q).Add(u.Others.Used(q))
	if sum.Cmp(amount(total)) > 0 {
		k.Add(n.ErrQuantityExceeded, field, "all movements together would carry %s %s; the notification allows %s", sum, unit(total), amount(total))
	}
}

func amount(q shipment.Quantity) shipment.Decimal {
	if q.Tonnes != nil {
		return *q.Tonnes
	}
	if q.CubicMetres != nil {
		return *q.CubicMetres
	}
	return shipment.Decimal{}
}

func unit(q shipment.Quantity) string {
	if q.CubicMetres != nil {
		return "cubic metres"
	}
	return "tonnes"
}

func checkDate(k *shipment.Checker, date string, u Under) {
	const field = "movementTemplate.actualDateOfShipment"
	nf := u.Notification
	if date == "" {
		k.Add(n.ErrRequiredMissing, field, "the date of shipment is required")
		return
	}
	if _, err := shipment.ParseDate(date); err != nil {
		k.Add(shipment.ErrDateOutOfRange, field, "dates must be YYYY-MM-DD")
		return
	}
	period := nf.Content.ShipmentPeriod
	refused := len(k.Errors)
	switch {
	case nf.ConsentValidUntil != "" && date > nf.ConsentValidUntil:
		k.Add(n.ErrConsentNotValid, field, "the consent is valid until %s", nf.ConsentValidUntil)
	case date < period.FirstDeparture || date > period.LastDeparture:
		k.Add(n.ErrConsentNotValid, field, "%s lies outside the notified shipment period %s to %s", date, period.FirstDeparture, period.LastDeparture)
	}
	if u.Create || date != u.PreviousDate {
		loc := calendar.Location(u.Notifier.Country)
		earliest := calendar.AddWorkingDays(u.Notifier, u.Now, 2).In(loc).Format(time.DateOnly)
		if date < earliest {
			k.Add(n.ErrPriorNotice, field, "a shipment must be announced at least 2 working days before it starts: %s is the earliest date now", earliest)
		}
		// Art. 7(3): the guarantee takes effect at the latest when the
		// movement document is completed, and covers the shipment (a date
		// the consent does not cover is refused for that already).
		if len(k.Errors) == refused {
			k.Errors = append(k.Errors, n.CheckGuaranteeCovers(nf, field, date)...)
		}
	}
}

// CheckCompletion: the date, and an operation code among the notified ones.
func CheckCompletion(in *FacilityCompletion, m *Movement, place calendar.Place, now time.Time) []shipment.BusinessError {
	received := ""
	if m.Facility != nil {
		received = m.Facility.ReceivedOn
	}
	errs := shipment.PastDate("facilityCompletion.completedOn", in.CompletedOn, place, now, received, "the facility's receipt")
	if _, ok := wastecodes.LookupOperation(in.OperationCode); !ok || !slices.Contains(m.OperationCodes, in.OperationCode) {
		errs = append(errs, shipment.BusinessError{Code: n.ErrOperationCode, Field: "facilityCompletion.operationCode",
			Message: echo.Sprintf("%q is not one of the notified operations (%s)", in.OperationCode, strings.Join(m.OperationCodes, ", "))})
	}
	return errs
}

// CompletionCertificateDue is the last day for the completion certificate
// (shipment.CompletionCertificateDue); empty before the facility's receipt
// or after its rejection.
func (m *Movement) CompletionCertificateDue() string {
	if m.Facility == nil || m.Facility.Rejected {
		return ""
	}
	var completedOn string
	if c := m.Completion; c != nil {
		completedOn = c.CompletedOn
	}
	return shipment.CompletionCertificateDue(m.Facility.ReceivedOn, completedOn)
}

// ConsigneeReceivedOn is the receipt date the consignee certified, or "".
func (m *Movement) ConsigneeReceivedOn() string { return receivedOn(m.Consignee) }

// FacilityReceivedOn is the receipt date the facility certified (or its
// rejection's), or "".
func (m *Movement) FacilityReceivedOn() string { return receivedOn(m.Facility) }

func receivedOn(r *ReceptionRecord) string {
	if r == nil {
		return ""
	}
	return r.ReceivedOn
}

// TakeBackDue is the agreed take-back date, or 90 days after the order.
func (m *Movement) TakeBackDue() string {
	if m.TakeBack == nil {
		return ""
	}
	if m.TakeBack.DueOn != "" {
		return m.TakeBack.DueOn
	}
	return m.TakeBack.At.AddDate(0, 0, 90).Format(time.DateOnly)
}
