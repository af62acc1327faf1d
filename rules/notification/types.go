// Package notification holds the prior written notification as values: its
// content (Annex IA of Regulation (EU) 2024/1157), the input blocks of its
// intents, the history they leave, and pure functions over them: content
// validation (business errors), applying a block, and the guards and
// dynamic targets of the state machine. No database, no clock of its own.
package notification

import (
	"time"

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
	OrganisationID string `json:"organisationId" maxLength:"128"`
	PreConsented   bool   `json:"preConsented" doc:"pre-consented facility under Art. 14: consent may last up to 3 years"`
}

// ShipmentPeriod bounds the departures (dates YYYY-MM-DD).
type ShipmentPeriod struct {
	FirstDeparture string `json:"firstDeparture" maxLength:"64" doc:"the first day a shipment may leave (YYYY-MM-DD)"`
	LastDeparture  string `json:"lastDeparture" maxLength:"64" doc:"the last day a shipment may leave (YYYY-MM-DD)"`
}

// Route is the intended itinerary.
type Route struct {
	TransitCountries []string `json:"transitCountries" maxItems:"100" maxLength:"64" doc:"ISO 3166-1 alpha-2 codes in order of passage"`
	EntryExitPoints  []string `json:"entryExitPoints" maxItems:"100" maxLength:"200"`
	MeansOfTransport []string `json:"meansOfTransport" maxItems:"100" maxLength:"64" doc:"ROAD, RAIL, SEA, AIR, INLAND_WATERWAYS"`
}

// Content is the notification as the notifier submits it (Annex IA).
type Content struct {
	Notifier              PartyRef              `json:"notifier"`
	Consignee             PartyRef              `json:"consignee"`
	Facility              Facility              `json:"facility"`
	Producers             []PartyRef            `json:"producers" maxItems:"200"`
	Carriers              []PartyRef            `json:"carriers" maxItems:"100"`
	CompetentAuthorities  CompetentAuthorities  `json:"competentAuthorities"`
	WasteClassifications  []WasteClassification `json:"wasteClassifications" maxItems:"100"`
	WasteDescription      string                `json:"wasteDescription" maxLength:"4000"`
	RecoveryDisposalCodes []string              `json:"recoveryDisposalCodes" maxItems:"100" maxLength:"64" doc:"R1-R13 or D1-D15"`
	TotalQuantity         Quantity              `json:"totalQuantity"`
	NumberOfShipments     int32                 `json:"numberOfShipments" minimum:"1"`
	ShipmentPeriod        ShipmentPeriod        `json:"shipmentPeriod"`
	PackagingTypes        []string              `json:"packagingTypes" maxItems:"100" maxLength:"64" doc:"DRUM, WOODEN_BARREL, JERRICAN, BOX, BAG, COMPOSITE, PRESSURE_RECEPTACLE, BULK, OTHER"`
	Route                 Route                 `json:"route"`
}

// Input blocks of the intents.

// Acknowledgement of receipt (authority of destination).
type Acknowledgement struct {
	Remarks string `json:"remarks" maxLength:"4000"`
}

// RequestInformation asks the notifier for more information.
type RequestInformation struct {
	Questions []string `json:"questions" maxItems:"100" maxLength:"4000"`
}

// ReplyToRequestInformation answers the open request.
type ReplyToRequestInformation struct {
	Answers  []string `json:"answers" maxItems:"100" maxLength:"4000"`
	Complete bool     `json:"complete" doc:"true resumes the suspended decision periods"`
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

// Decision of one competent authority.
type Decision struct {
	Type       DecisionType `json:"type"`
	Conditions []string     `json:"conditions" maxItems:"100" maxLength:"4000"`
	Grounds    string       `json:"grounds" maxLength:"4000" doc:"required for an objection"`
	ValidUntil string       `json:"validUntil" maxLength:"64" doc:"end of the consent (YYYY-MM-DD): after today, at most 1 year after the consent (3 for a pre-consented facility), not after the shipment period's end unless extendsShipmentPeriod; default the earliest of those limits (CONSENT_VALIDITY_INVALID otherwise)"`
	// ExtendsShipmentPeriod lets validUntil pass the notified shipment
	// period's end, and moves that end to the consent's (our design).
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod" doc:"the authority extends the shipment period: validUntil may pass its end, and once every authority consented the shipment period ends with the consent (notification.shipmentPeriod.lastDeparture moves to consentValidUntil when that is later)"`
}

// RequestForChange after consent (Art. 17): the terms as they would be
// after the change, validated like a submission (our design: the whole
// content, which the retrieval document pre-fills with the terms in force,
// so a UI edits what changes and sends the rest back).
type RequestForChange struct {
	Proposed Content  `json:"proposed" doc:"the whole notification content as it would be after the change (carriers, route, quantity, shipment period, ...); pre-filled with the terms in force. The notifier and the competent authorities cannot change (Art. 17(3): a new notification)"`
	Changes  []string `json:"changes" maxItems:"100" maxLength:"4000" doc:"optional remarks on the change; the server lists the changed fields itself (changedFields)"`
	Reason   string   `json:"reason" maxLength:"4000"`
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

// ReplyToRequestForChange of one authority.
type ReplyToRequestForChange struct {
	Result     ChangeResult `json:"result"`
	Conditions []string     `json:"conditions" maxItems:"100" maxLength:"4000"`
	Grounds    string       `json:"grounds" maxLength:"4000"`
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

// NotificationSignal of a concerned authority.
type NotificationSignal struct {
	Type       SignalType `json:"type"`
	ValidUntil string     `json:"validUntil" maxLength:"64" doc:"new end of consent for REVALIDATION (YYYY-MM-DD): after today and after the consent's present end (a revalidation extends; to end the consent sooner, cancel it), within the legal maximum from the consent, not after the shipment period's end unless extendsShipmentPeriod (CONSENT_VALIDITY_INVALID otherwise)"`
	Reason     string     `json:"reason" maxLength:"4000" doc:"the grounds: required for CANCELLATION_OF_CONSENT (REQUIRED_FIELD_MISSING), as an objection's; a remark otherwise"`
	// ExtendsShipmentPeriod: as in Decision.
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod" doc:"REVALIDATION only: the authority extends the shipment period: validUntil may pass its end, and the shipment period then ends with the consent"`
}

// FacilityCompletionArticle15 is a pre-consented facility's statement
// that the operations under the notification are completed (Art. 14 and
// 15): it closes the notification dossier. It follows at least one
// completed movement and none still under way.
type FacilityCompletionArticle15 struct {
	CompletedOn   string `json:"completedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the last movement's completion"`
	OperationCode string `json:"operationCode" maxLength:"64" doc:"one of the notification's R or D codes"`
}

// History records.

// Article15Record is the closure by a pre-consented facility.
type Article15Record struct {
	FacilityOrganisationID string    `json:"facilityOrganisationId"`
	CompletedOn            string    `json:"completedOn"`
	OperationCode          string    `json:"operationCode"`
	At                     time.Time `json:"at"`
}

// AcknowledgementRecord is an acknowledgement given.
type AcknowledgementRecord struct {
	Authority          string    `json:"authority"`
	At                 time.Time `json:"at"`
	Remarks            string    `json:"remarks"`
	AcceptedCorrection bool      `json:"acceptedCorrection" doc:"this acknowledgement accepted a pending correction"`
}

// Reply is one reply to an information request.
type Reply struct {
	At       time.Time `json:"at"`
	Answers  []string  `json:"answers"`
	Complete bool      `json:"complete"`
}

// InformationRequestRecord is a request with its replies.
type InformationRequestRecord struct {
	Authority   string    `json:"authority"`
	At          time.Time `json:"at"`
	Questions   []string  `json:"questions"`
	Replies     []Reply   `json:"replies"`
	Open        bool      `json:"open"`
	ReturnState string    `json:"returnState" doc:"the state a complete reply returns to"`
}

// DecisionRecord is one authority's decision.
type DecisionRecord struct {
	Authority  string       `json:"authority"`
	Role       string       `json:"role"`
	At         time.Time    `json:"at"`
	Type       DecisionType `json:"type"`
	Conditions []string     `json:"conditions"`
	Grounds    string       `json:"grounds"`
	ValidUntil string       `json:"validUntil"`
	Tacit      bool         `json:"tacit" doc:"tacit consent: the decision period expired (transit authorities)"`
	// ExtendsShipmentPeriod: the authority let its validUntil pass the
	// shipment period's end.
	ExtendsShipmentPeriod bool `json:"extendsShipmentPeriod"`
}

// ChangeReply is one authority's reply to a change request.
type ChangeReply struct {
	Authority  string       `json:"authority"`
	At         time.Time    `json:"at"`
	Result     ChangeResult `json:"result"`
	Conditions []string     `json:"conditions"`
	Grounds    string       `json:"grounds"`
}

// ChangeRequestRecord is a change request with its replies.
type ChangeRequestRecord struct {
	At            time.Time     `json:"at"`
	Proposed      *Content      `json:"proposed" doc:"the terms the change proposed"`
	ChangedFields []string      `json:"changedFields" doc:"the content fields the proposed terms change (JSON names)"`
	Changes       []string      `json:"changes"`
	Reason        string        `json:"reason"`
	Replies       []ChangeReply `json:"replies"`
	Open          bool          `json:"open"`
	Outcome       string        `json:"outcome" doc:"AMENDED or UNCHANGED once every authority replied"`
	Replaced      *Content      `json:"replaced" doc:"AMENDED only: the terms in force before the change"`
}

// SignalRecord is a notification signal given.
type SignalRecord struct {
	Authority  string     `json:"authority"`
	At         time.Time  `json:"at"`
	Type       SignalType `json:"type"`
	ValidUntil string     `json:"validUntil"`
	Reason     string     `json:"reason"`
}

// CorrectionRecord is a correction filed after acknowledgement.
type CorrectionRecord struct {
	At         time.Time  `json:"at"`
	Content    Content    `json:"content"`
	Pending    bool       `json:"pending"`
	AcceptedAt *time.Time `json:"acceptedAt"`
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
	Content             Content                    `json:"notification"`
	Acknowledgements    []AcknowledgementRecord    `json:"acknowledgements"`
	InformationRequests []InformationRequestRecord `json:"informationRequests"`
	Decisions           []DecisionRecord           `json:"decisions"`
	ChangeRequests      []ChangeRequestRecord      `json:"changeRequests"`
	Signals             []SignalRecord             `json:"signals"`
	Corrections         []CorrectionRecord         `json:"corrections"`
	ConsentConditions   []string                   `json:"consentConditions"`
	ConsentValidUntil   string                     `json:"consentValidUntil"`
	Metadata            Metadata                   `json:"metadata"`
	Article15           *Article15Record           `json:"article15Completion"`
	Withdrawal          *WithdrawalRecord          `json:"withdrawn"`

	// The parties' details as they were when the document was filed
	// (the runner records them; none while a draft).
	shipment.Recorded `json:",inline"`
}
