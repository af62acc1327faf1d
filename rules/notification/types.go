// Package notification holds the prior written notification as values: its
// content (Annex IA of Regulation (EU) 2024/1157), the input blocks of its
// intents, the history they leave, and pure functions over them: content
// validation (business errors), applying a block, and the guards and
// dynamic targets of the state machine. No database, no clock of its own.
package notification

import (
	"reflect"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// States of the notification machine (public contract).
const (
	Draft                = "DRAFT"
	Submitted            = "SUBMITTED"
	Acknowledged         = "ACKNOWLEDGED"
	InformationRequested = "INFORMATION_REQUESTED"
	Consented            = "CONSENTED"
	ChangeRequested      = "CHANGE_REQUESTED"
	Objected             = "OBJECTED"
	Expired              = "EXPIRED"
	ConsentCancelled     = "CONSENT_CANCELLED"
	Closed               = "CLOSED"
	Withdrawn            = "WITHDRAWN"
)

// Party roles on a notification.
const (
	RoleNotifier             = "NOTIFIER"
	RoleConsignee            = shipment.RoleConsignee
	RoleFacility             = shipment.RoleFacility
	RoleProducer             = shipment.RoleProducer
	RoleCarrier              = shipment.RoleCarrier
	RoleAuthorityDispatch    = shipment.RoleAuthorityDispatch
	RoleAuthorityDestination = shipment.RoleAuthorityDestination
	RoleAuthorityTransit     = shipment.RoleAuthorityTransit
)

// Shared shipment types.
type (
	PartyRef             = shipment.PartyRef
	CompetentAuthorities = shipment.CompetentAuthorities
	WasteClassification  = shipment.WasteClassification
	Decimal              = shipment.Decimal
	Quantity             = shipment.Quantity
)

// Facility is the recovery or disposal facility.
type Facility struct {
	OrganisationID string `json:"organisationId" maxLength:"128" label:"Disposal or recovery facility|Beseitigungs- oder Verwertungsanlage" help:"Choose the organisation as registered with the provider.|Wählen Sie die Organisation, wie sie beim Anbieter registriert ist."`
	PreConsented   bool   `json:"preConsented" doc:"pre-consented facility under Art. 14: consent may last up to 3 years" label:"Pre-consented recovery facility|Verwertungsanlage mit Vorabzustimmung" help:"Tick if the facility holds a pre-consent (Article 14): the consent may then last up to 3 years.|Ankreuzen, wenn für die Anlage eine Vorabzustimmung besteht (Artikel 14): die Zustimmung kann dann bis zu 3 Jahre gelten."`
}

// ShipmentPeriod bounds the departures (dates YYYY-MM-DD).
type ShipmentPeriod struct {
	FirstDeparture string `json:"firstDeparture" maxLength:"64" doc:"the first day a shipment may leave (YYYY-MM-DD)" label:"First departure|Erste Abfahrt" help:"The first day a shipment may leave.|Der erste Tag, an dem eine Verbringung beginnen darf."`
	LastDeparture  string `json:"lastDeparture" maxLength:"64" doc:"the last day a shipment may leave (YYYY-MM-DD)" label:"Last departure|Letzte Abfahrt" help:"The last day a shipment may leave; at most 1 year after the first (3 for a pre-consented facility).|Der letzte Tag, an dem eine Verbringung beginnen darf; höchstens 1 Jahr nach der ersten (3 bei Vorabzustimmung)."`
}

// Route is the intended itinerary.
type Route struct {
	TransitCountries []string `json:"transitCountries" maxItems:"100" maxLength:"64" doc:"ISO 3166-1 alpha-2 codes in order of passage" label:"Countries of transit|Durchfuhrstaaten" help:"In the order the shipment passes them.|In der Reihenfolge, in der die Verbringung sie durchquert." codeList:"country"`
	EntryExitPoints  []string `json:"entryExitPoints" maxItems:"100" maxLength:"200" label:"Points of exit and entry|Ausgangs- und Eingangsstellen" help:"The border crossings or ports, e.g. 'Aachen/Heerlen'.|Die Grenzübergänge oder Häfen, z. B. „Aachen/Heerlen“."`
	MeansOfTransport []string `json:"meansOfTransport" maxItems:"100" maxLength:"64" doc:"ROAD, RAIL, SEA, AIR, INLAND_WATERWAYS" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
}

// Content is the notification as the notifier submits it (Annex IA).
type Content struct {
	Notifier              PartyRef              `json:"notifier" label:"1. Exporter – notifier|1. Exporteur – notifizierende Person" help:"Your organisation, which notifies the shipment.|Ihre Organisation, die die Verbringung notifiziert."`
	Consignee             PartyRef              `json:"consignee" label:"2. Importer – consignee|2. Importeur – Empfänger" help:"Who receives the waste in the country of destination.|Wer die Abfälle im Bestimmungsstaat übernimmt."`
	NumberOfShipments     int32                 `json:"numberOfShipments" minimum:"1" label:"4. Total intended number of shipments|4. Vorgesehene Anzahl der Verbringungen insgesamt" help:"1 for a single shipment.|1 bei einer einzelnen Verbringung."`
	TotalQuantity         Quantity              `json:"totalQuantity" label:"5. Total intended quantity|5. Vorgesehene Gesamtmenge" help:"For all shipments together.|Für alle Verbringungen zusammen."`
	ShipmentPeriod        ShipmentPeriod        `json:"shipmentPeriod" label:"6. Intended period of time for shipment(s)|6. Vorgesehener Zeitraum für die Verbringung(en)"`
	PackagingTypes        []string              `json:"packagingTypes" maxItems:"100" maxLength:"64" doc:"DRUM, WOODEN_BARREL, JERRICAN, BOX, BAG, COMPOSITE, PRESSURE_RECEPTACLE, BULK, OTHER" label:"7. Packaging type(s)|7. Art(en) der Verpackung" help:"Every packaging the shipments may use.|Jede Verpackung, die bei den Verbringungen verwendet werden kann." codeList:"packagingType"`
	Carriers              []PartyRef            `json:"carriers" maxItems:"100" label:"8. Intended carrier(s)|8. Vorgesehene(s) Transportunternehmen" help:"In the order they carry the waste.|In der Reihenfolge, in der sie die Abfälle befördern."`
	Producers             []PartyRef            `json:"producers" maxItems:"200" label:"9. Waste generator(s) – producer(s)|9. Abfallerzeuger" help:"Who produced the waste.|Wer die Abfälle erzeugt hat."`
	Facility              Facility              `json:"facility" label:"10. Disposal facility / recovery facility|10. Beseitigungsanlage / Verwertungsanlage"`
	RecoveryDisposalCodes []string              `json:"recoveryDisposalCodes" maxItems:"100" maxLength:"64" doc:"R1-R13 or D1-D15" label:"11. Disposal / recovery operation(s)|11. Beseitigungs- / Verwertungsverfahren" help:"The R or D codes of the operations at the facility.|Die R- oder D-Codes der Verfahren in der Anlage." codeList:"operation"`
	WasteDescription      string                `json:"wasteDescription" maxLength:"4000" label:"12. Designation and composition of the waste|12. Bezeichnung und Zusammensetzung der Abfälle" help:"What the waste is and what it contains.|Was die Abfälle sind und woraus sie bestehen."`
	WasteClassifications  []WasteClassification `json:"wasteClassifications" maxItems:"100" label:"14. Waste identification|14. Abfallidentifizierung" help:"Every code that applies, each with its list.|Jeder zutreffende Code, jeweils mit seinem Verzeichnis."`
	CompetentAuthorities  CompetentAuthorities  `json:"competentAuthorities" label:"15. Competent authorities|15. Zuständige Behörden"`
	Route                 Route                 `json:"route" label:"15. Route: transit, points of exit and entry, transport|15. Route: Durchfuhr, Ausgangs- und Eingangsstellen, Transport"`
}

// Input blocks of the intents.

// Acknowledgement of receipt (authority of destination).
type Acknowledgement struct {
	Remarks string `json:"remarks" maxLength:"4000" label:"Remarks|Bemerkungen" help:"Optional remarks to the notifier.|Optionale Bemerkungen an die notifizierende Person."`
}

// RequestInformation asks the notifier for more information.
type RequestInformation struct {
	Questions []string `json:"questions" maxItems:"100" maxLength:"4000" label:"Questions|Fragen" help:"What the notifier must answer or send; one question per line.|Was die notifizierende Person beantworten oder nachreichen muss; eine Frage je Zeile."`
}

// ReplyToRequestInformation answers the open request.
type ReplyToRequestInformation struct {
	Answers  []string `json:"answers" maxItems:"100" maxLength:"4000" label:"Answers|Antworten" help:"One answer per question.|Eine Antwort je Frage."`
	Complete bool     `json:"complete" doc:"true resumes the suspended decision periods" label:"The information is complete|Die Angaben sind vollständig" help:"Tick when nothing more will follow: the decision periods run again.|Ankreuzen, wenn nichts mehr folgt: die Entscheidungsfristen laufen dann weiter."`
}

// DecisionType of an authority's decision.
type DecisionType int32

// Decision types.
const (
	DecisionUnspecified DecisionType = iota
	DecisionConsent
	DecisionConsentWithConditions
	DecisionObjection
)

// EnumNames implements the codec's enum contract.
func (DecisionType) EnumNames() []string {
	return []string{"DECISION_TYPE_UNSPECIFIED", "CONSENT", "CONSENT_WITH_CONDITIONS", "OBJECTION"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (DecisionType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Consent", DE: "Zustimmung"},
		{EN: "Consent with conditions", DE: "Zustimmung mit Auflagen"},
		{EN: "Objection", DE: "Einwand"},
	}
}

// Decision of one competent authority.
type Decision struct {
	Type       DecisionType `json:"type" label:"Decision|Entscheidung" codeList:"DecisionType"`
	Conditions []string     `json:"conditions" maxItems:"100" maxLength:"4000" label:"Conditions|Auflagen" help:"One condition per line; only with a consent with conditions.|Eine Auflage je Zeile; nur bei einer Zustimmung mit Auflagen."`
	Grounds    string       `json:"grounds" maxLength:"4000" doc:"required for an objection" label:"Grounds|Begründung" help:"Required for an objection.|Für einen Einwand erforderlich."`
	ValidUntil string       `json:"validUntil" maxLength:"64" doc:"end of the consent (YYYY-MM-DD): after today, at most 1 year after the consent (3 for a pre-consented facility), not after the shipment period's end unless extendsShipmentPeriod; default the earliest of those limits (CONSENT_VALIDITY_INVALID otherwise)" label:"Consent valid until|Zustimmung gültig bis" help:"Leave empty for the longest period the law allows.|Leer lassen für den längsten gesetzlich zulässigen Zeitraum."`
	// ExtendsShipmentPeriod lets validUntil pass the notified shipment
	// period's end, and moves that end to the consent's (our design).
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod" doc:"the authority extends the shipment period: validUntil may pass its end, and once every authority consented the shipment period ends with the consent (notification.shipmentPeriod.lastDeparture moves to consentValidUntil when that is later)" label:"Extend the shipment period|Verbringungszeitraum verlängern" help:"Tick to let the consent run past the notified shipment period.|Ankreuzen, damit die Zustimmung über den notifizierten Verbringungszeitraum hinaus gilt."`
}

// RequestForChange after consent (Art. 17): the terms as they would be
// after the change, validated like a submission (our design: the whole
// content, which the retrieval document pre-fills with the terms in force,
// so a UI edits what changes and sends the rest back).
type RequestForChange struct {
	Proposed Content  `json:"proposed" doc:"the whole notification content as it would be after the change (carriers, route, quantity, shipment period, ...); pre-filled with the terms in force. The notifier and the competent authorities cannot change (Art. 17(3): a new notification)" label:"Proposed terms|Vorgeschlagene Angaben" help:"The notification as it would be after the change; it starts with the terms in force.|Die Notifizierung, wie sie nach der Änderung wäre; sie beginnt mit den geltenden Angaben."`
	Changes  []string `json:"changes" maxItems:"100" maxLength:"4000" doc:"optional remarks on the change; the server lists the changed fields itself (changedFields)" label:"Remarks on the change|Bemerkungen zur Änderung" help:"Optional; the changed fields are listed for you.|Optional; die geänderten Felder werden für Sie aufgeführt."`
	Reason   string   `json:"reason" maxLength:"4000" label:"Reason for the change|Grund der Änderung"`
}

// ChangeResult of an authority's reply to a change request.
type ChangeResult int32

// Change results.
const (
	ChangeUnspecified ChangeResult = iota
	ChangeAccepted
	ChangeAcceptedWithConditions
	ChangeRejected
)

// EnumNames implements the codec's enum contract.
func (ChangeResult) EnumNames() []string {
	return []string{"CHANGE_RESULT_UNSPECIFIED", "ACCEPTED", "ACCEPTED_WITH_CONDITIONS", "REJECTED"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (ChangeResult) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Accepted", DE: "Angenommen"},
		{EN: "Accepted with conditions", DE: "Mit Auflagen angenommen"},
		{EN: "Rejected", DE: "Abgelehnt"},
	}
}

// ReplyToRequestForChange of one authority.
type ReplyToRequestForChange struct {
	Result     ChangeResult `json:"result" label:"Reply|Antwort" codeList:"ChangeResult"`
	Conditions []string     `json:"conditions" maxItems:"100" maxLength:"4000" label:"Conditions|Auflagen" help:"One condition per line; only when accepting with conditions.|Eine Auflage je Zeile; nur bei Annahme mit Auflagen."`
	Grounds    string       `json:"grounds" maxLength:"4000" label:"Grounds|Begründung" help:"Required when rejecting.|Bei Ablehnung erforderlich."`
}

// SignalType of a notification-level signal.
type SignalType int32

// Signal types.
const (
	SignalUnspecified SignalType = iota
	SignalCancellationOfConsent
	SignalClosure
	SignalRevalidation
)

// EnumNames implements the codec's enum contract.
func (SignalType) EnumNames() []string {
	return []string{"SIGNAL_TYPE_UNSPECIFIED", "CANCELLATION_OF_CONSENT", "CLOSURE", "REVALIDATION"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (SignalType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Cancellation of consent", DE: "Widerruf der Zustimmung"},
		{EN: "Closure", DE: "Abschluss"},
		{EN: "Revalidation", DE: "Verlängerung der Zustimmung"},
	}
}

// NotificationSignal of a concerned authority.
type NotificationSignal struct {
	Type       SignalType `json:"type" label:"Action|Maßnahme" codeList:"NotificationSignalType"`
	ValidUntil string     `json:"validUntil" maxLength:"64" doc:"new end of consent for REVALIDATION (YYYY-MM-DD): after today and after the consent's present end (a revalidation extends; to end the consent sooner, cancel it), within the legal maximum from the consent, not after the shipment period's end unless extendsShipmentPeriod (CONSENT_VALIDITY_INVALID otherwise)" label:"New end of consent|Neues Ende der Zustimmung" help:"For a revalidation only: the day the consent now ends.|Nur bei einer Verlängerung: der Tag, an dem die Zustimmung nun endet."`
	Reason     string     `json:"reason" maxLength:"4000" doc:"the grounds: required for CANCELLATION_OF_CONSENT (REQUIRED_FIELD_MISSING), as an objection's; a remark otherwise" label:"Reason|Begründung" help:"Required when cancelling the consent.|Beim Widerruf der Zustimmung erforderlich."`
	// ExtendsShipmentPeriod: as in Decision.
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod" doc:"REVALIDATION only: the authority extends the shipment period: validUntil may pass its end, and the shipment period then ends with the consent" label:"Extend the shipment period|Verbringungszeitraum verlängern" help:"For a revalidation only: the shipment period then ends with the consent.|Nur bei einer Verlängerung: der Verbringungszeitraum endet dann mit der Zustimmung."`
}

// FacilityCompletionArticle15 is a pre-consented facility's statement
// that the operations under the notification are completed (Art. 14 and
// 15): it closes the notification dossier. It follows at least one
// completed movement and none still under way.
type FacilityCompletionArticle15 struct {
	CompletedOn   string `json:"completedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the last movement's completion" label:"Completed on|Abgeschlossen am" help:"The day the last operation was completed; not in the future.|Der Tag, an dem das letzte Verfahren abgeschlossen wurde; nicht in der Zukunft."`
	OperationCode string `json:"operationCode" maxLength:"64" doc:"one of the notification's R or D codes" label:"Operation carried out|Durchgeführtes Verfahren" help:"One of the notified R or D codes.|Einer der notifizierten R- oder D-Codes." codeList:"operation"`
}

// History records.

// Article15Record is the closure by a pre-consented facility.
type Article15Record struct {
	FacilityOrganisationID string    `json:"facilityOrganisationId" label:"Facility|Anlage"`
	CompletedOn            string    `json:"completedOn" label:"Completed on|Abgeschlossen am"`
	OperationCode          string    `json:"operationCode" label:"Operation carried out|Durchgeführtes Verfahren" codeList:"operation"`
	At                     time.Time `json:"at" label:"Recorded at|Erfasst am"`
}

// AcknowledgementRecord is an acknowledgement given.
type AcknowledgementRecord struct {
	Authority          string    `json:"authority" label:"Authority|Behörde"`
	At                 time.Time `json:"at" label:"Acknowledged at|Bestätigt am"`
	Remarks            string    `json:"remarks" label:"Remarks|Bemerkungen"`
	AcceptedCorrection bool      `json:"acceptedCorrection" doc:"this acknowledgement accepted a pending correction" label:"Accepted a correction|Korrektur angenommen"`
}

// Reply is one reply to an information request.
type Reply struct {
	At       time.Time `json:"at" label:"Replied at|Beantwortet am"`
	Answers  []string  `json:"answers" label:"Answers|Antworten"`
	Complete bool      `json:"complete" label:"Information complete|Angaben vollständig"`
}

// InformationRequestRecord is a request with its replies.
type InformationRequestRecord struct {
	Authority   string    `json:"authority" label:"Authority|Behörde"`
	At          time.Time `json:"at" label:"Requested at|Angefordert am"`
	Questions   []string  `json:"questions" label:"Questions|Fragen"`
	Replies     []Reply   `json:"replies" maxItems:"100" label:"Replies|Antworten"`
	Open        bool      `json:"open" label:"Open|Offen"`
	ReturnState string    `json:"returnState" doc:"the state a complete reply returns to" label:"State after the reply|Status nach der Antwort" codeList:"state/notification"`
}

// DecisionRecord is one authority's decision.
type DecisionRecord struct {
	Authority  string       `json:"authority" label:"Authority|Behörde"`
	Role       string       `json:"role" label:"Role|Rolle" codeList:"role"`
	At         time.Time    `json:"at" label:"Decided at|Entschieden am"`
	Type       DecisionType `json:"type" label:"Decision|Entscheidung"`
	Conditions []string     `json:"conditions" label:"Conditions|Auflagen"`
	Grounds    string       `json:"grounds" label:"Grounds|Begründung"`
	ValidUntil string       `json:"validUntil" label:"Consent valid until|Zustimmung gültig bis"`
	Tacit      bool         `json:"tacit" doc:"tacit consent: the decision period expired (transit authorities)" label:"Tacit consent|Stillschweigende Zustimmung"`
	// ExtendsShipmentPeriod: the authority let its validUntil pass the
	// shipment period's end.
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod" label:"Extends the shipment period|Verlängert den Verbringungszeitraum"`
}

// ChangeReply is one authority's reply to a change request.
type ChangeReply struct {
	Authority  string       `json:"authority" label:"Authority|Behörde"`
	At         time.Time    `json:"at" label:"Replied at|Beantwortet am"`
	Result     ChangeResult `json:"result" label:"Reply|Antwort"`
	Conditions []string     `json:"conditions" label:"Conditions|Auflagen"`
	Grounds    string       `json:"grounds" label:"Grounds|Begründung"`
}

// ChangeRequestRecord is a change request with its replies.
type ChangeRequestRecord struct {
	At            time.Time     `json:"at" label:"Requested at|Beantragt am"`
	Proposed      *Content      `json:"proposed" doc:"the terms the change proposed" label:"Proposed terms|Vorgeschlagene Angaben"`
	ChangedFields []string      `json:"changedFields" codeList:"contentField/notification" doc:"the content fields the proposed terms change (JSON names)" label:"Changed fields|Geänderte Felder"`
	Changes       []string      `json:"changes" label:"Remarks on the change|Bemerkungen zur Änderung"`
	Reason        string        `json:"reason" label:"Reason|Grund"`
	Replies       []ChangeReply `json:"replies" maxItems:"100" label:"Replies|Antworten"`
	Open          bool          `json:"open" label:"Open|Offen"`
	Outcome       string        `json:"outcome" codeList:"changeOutcome" doc:"AMENDED or UNCHANGED once every authority replied; UNCHANGED when the notification left CHANGE_REQUESTED before (closedBy says how)" label:"Outcome|Ergebnis"`
	// ClosedBy is the act that closed the request before every authority
	// replied: the notification left CHANGE_REQUESTED by it, and the terms
	// in force stayed. Empty when the replies closed it.
	ClosedBy string     `json:"closedBy" doc:"the intent that closed the request before every authority replied (NOTIFICATION_SIGNAL: the consent cancelled or the notification closed; CONSENT_VALIDITY_EXPIRY; FACILITY_COMPLETION_ARTICLE15); empty when the replies closed it" label:"Closed by|Geschlossen durch" codeList:"intent/notification"`
	ClosedAt *time.Time `json:"closedAt" doc:"when closedBy closed the request" label:"Closed at|Geschlossen am"`
	Replaced *Content   `json:"replaced" doc:"AMENDED only: the terms in force before the change" label:"Terms before the change|Angaben vor der Änderung"`
}

// SignalRecord is a notification signal given.
type SignalRecord struct {
	Authority  string     `json:"authority" label:"Authority|Behörde"`
	At         time.Time  `json:"at" label:"At|Am"`
	Type       SignalType `json:"type" label:"Action|Maßnahme"`
	ValidUntil string     `json:"validUntil" label:"New end of consent|Neues Ende der Zustimmung"`
	Reason     string     `json:"reason" label:"Reason|Begründung"`
}

// CorrectionRecord is a correction filed after acknowledgement.
type CorrectionRecord struct {
	At         time.Time  `json:"at" label:"Corrected at|Korrigiert am"`
	Content    Content    `json:"content" label:"Corrected notification|Korrigierte Notifizierung"`
	Pending    bool       `json:"pending" label:"Awaiting acknowledgement|Bestätigung ausstehend"`
	AcceptedAt *time.Time `json:"acceptedAt" label:"Accepted at|Angenommen am"`
	// SupersededAt: a later correction replaced this one while it awaited
	// acknowledgement; it was never accepted.
	SupersededAt *time.Time `json:"supersededAt" doc:"a later correction replaced this one while it awaited acknowledgement: it was never accepted" label:"Superseded at|Ersetzt am"`
}

// Attachment and Metadata are the shared service-side data; Withdrawal
// the block that withdraws a draft.
type (
	Withdrawal       = shipment.Withdrawal
	WithdrawalRecord = shipment.WithdrawalRecord
	Attachment       = shipment.Attachment
	Metadata         = shipment.Metadata
)

// Notification is the whole aggregate stored for a document.
type Notification struct {
	Content             Content                    `json:"notification" label:"Notification|Notifizierung"`
	Acknowledgements    []AcknowledgementRecord    `json:"acknowledgements" maxItems:"200" label:"Acknowledgements|Eingangsbestätigungen"`
	InformationRequests []InformationRequestRecord `json:"informationRequests" maxItems:"100" label:"Requests for information|Auskunftsersuchen"`
	Decisions           []DecisionRecord           `json:"decisions" maxItems:"100" label:"Decisions|Entscheidungen"`
	ChangeRequests      []ChangeRequestRecord      `json:"changeRequests" maxItems:"100" label:"Requests for change|Änderungsanträge"`
	Signals             []SignalRecord             `json:"signals" maxItems:"100" label:"Cancellations, closures, revalidations|Widerrufe, Abschlüsse, Verlängerungen"`
	Corrections         []CorrectionRecord         `json:"corrections" maxItems:"100" label:"Corrections|Korrekturen"`
	ConsentConditions   []string                   `json:"consentConditions" label:"Conditions of consent|Auflagen der Zustimmung"`
	ConsentValidUntil   string                     `json:"consentValidUntil" label:"Consent valid until|Zustimmung gültig bis"`
	Metadata            Metadata                   `json:"metadata" label:"Additional information|Weitere Angaben"`
	Article15           *Article15Record           `json:"article15Completion" label:"Completion (Article 15)|Abschluss (Artikel 15)"`
	Withdrawal          *WithdrawalRecord          `json:"withdrawn" label:"Withdrawal|Rücknahme"`
	Guarantees          []GuaranteeRecord          `json:"guarantees" maxItems:"100" doc:"the financial guarantees or insurances submitted (Art. 7), the last approved one in force" label:"Financial guarantee or insurance|Sicherheitsleistung oder Versicherung"`

	// The parties' details as they were when the document was filed
	// (the runner records them; none while a draft).
	shipment.Recorded `json:",inline"`
}

// ListChangeOutcome is the label list of a change request's outcome.
const ListChangeOutcome = "changeOutcome"

// ListContentField is the label list of the notification's content
// fields by JSON name (a change request's changedFields), from their
// labels.
const ListContentField = "contentField/notification"

func init() {
	fields := map[string]labels.Text{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Content]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if l := f.Tag.Get("label"); name != "" && l != "" {
			fields[name] = labels.Parse(l)
		}
	}
	labels.Register(ListContentField, fields)
	labels.Register(ListChangeOutcome, map[string]labels.Text{
		"AMENDED":   {EN: "Amended: the proposed terms are in force", DE: "Geändert: die vorgeschlagenen Angaben gelten"},
		"UNCHANGED": {EN: "Unchanged: the terms in force stay", DE: "Unverändert: die geltenden Angaben bleiben"},
	})
}
