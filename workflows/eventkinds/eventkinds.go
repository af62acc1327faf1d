// Package eventkinds declares the kinds of events an organisation's
// notifier groups and webhook endpoints receive, each with its payload
// type: the producers fill these types, the API lists the names, and the
// reference (docs/reference/events.md) is generated from them. The fields
// are in the order of their JSON names, so a payload's bytes are what a
// map of the same keys marshals to.
package eventkinds

import "reflect"

// Kind is an event kind: its name (public contract), when it happens and
// its payload's type.
type Kind struct {
	Name    string
	When    string
	Payload reflect.Type
}

// Names of the event kinds (public contract).
const (
	StateChanged    = "DOCUMENT_STATE_CHANGED"
	InboxEntryAdded = "INBOX_ENTRY_ADDED"
	DueSoon         = "DEADLINE_DUE_SOON"
	Overdue         = "DEADLINE_OVERDUE"
	MetLate         = "DEADLINE_MET_LATE"
	WebhookDisabled = "WEBHOOK_ENDPOINT_DISABLED"
	DIWASSExchanged = "DIWASS_EXCHANGE_CHANGED"
)

// All lists every kind, in the order the API and the reference name them
// (a new kind goes last: the proto's enum numbers follow the order).
var All = []Kind{
	{StateChanged, "A document the organisation is a party to (and sees in its new state) changed state: one event per party organisation and transition.", reflect.TypeFor[DocumentStateChanged]()},
	{InboxEntryAdded, "A transport document version reached one of the organisation's inboxes (sent to it, delivered as a party, or reported to it as the authority).", reflect.TypeFor[InboxEntry]()},
	{DueSoon, "A deadline on which the organisation must act entered its warning window (WASTEFLOW_DUE_SOON_WORKING_DAYS working days before it falls due).", reflect.TypeFor[Deadline]()},
	{Overdue, "A deadline on which the organisation must act passed without the act.", reflect.TypeFor[Deadline]()},
	{MetLate, "The organisation acted after its deadline had passed: the act is recorded and the deadline is MET_LATE.", reflect.TypeFor[Deadline]()},
	{WebhookDisabled, "One of the organisation's webhook endpoints failed every attempt for WASTEFLOW_WEBHOOK_DISABLE_AFTER and was disabled.", reflect.TypeFor[EndpointDisabled]()},
	{DIWASSExchanged, "The exchange with DIWASS of an Annex VII document the organisation is a party to changed state: SENT (DIWASS numbered it), REJECTED (DIWASS refused it, or it cannot be sent as it is: the arranger corrects it and sends it again), UNCERTAIN (the request may have arrived: it is not sent again until someone resolves it) or PENDING again (sent again deliberately). Our design.", reflect.TypeFor[DIWASSExchange]()},
}

// Names lists the names of All.
func Names() []string {
	names := make([]string, len(All))
	for i, k := range All {
		names[i] = k.Name
	}
	return names
}

// DocumentStateChanged is the payload of DOCUMENT_STATE_CHANGED.
type DocumentStateChanged struct {
	Actor          string `json:"actor" doc:"the account that acted, or system (the deadline sweep, a chained intent)"`
	DocumentKind   string `json:"documentKind" doc:"the document's kind: NOTIFICATION, ANNEX_VII, MOVEMENT"`
	DocumentNumber string `json:"documentNumber" doc:"the document's number"`
	From           string `json:"from" doc:"the state before"`
	Intent         string `json:"intent" doc:"the intent that fired"`
	To             string `json:"to" doc:"the state after"`
}

// DIWASSExchange is the payload of DIWASS_EXCHANGE_CHANGED.
type DIWASSExchange struct {
	DIWASSNumber   string `json:"diwassNumber" doc:"DIWASS's number of the document, e.g. GLW.BE260000000019i (SENT)"`
	DocumentKind   string `json:"documentKind" doc:"the document's kind: ANNEX_VII"`
	DocumentNumber string `json:"documentNumber" doc:"the document's number"`
	Error          string `json:"error" doc:"DIWASS's fault, or why the request was not sent or may not have arrived (REJECTED, UNCERTAIN)"`
	Intent         string `json:"intent" doc:"the act that changed it: DIWASS_EXCHANGE (the server's exchange), DIWASS_RESUBMISSION or DIWASS_RESOLUTION"`
	Previous       string `json:"previous" doc:"the exchange's state before"`
	State          string `json:"state" doc:"the exchange's state now: PENDING, SENT, REJECTED or UNCERTAIN"`
}

// Deadline is the payload of the DEADLINE_ kinds.
type Deadline struct {
	DocumentKind   string `json:"documentKind" doc:"the document's kind"`
	DocumentNumber string `json:"documentNumber" doc:"the document's number"`
	DueAt          string `json:"dueAt" doc:"when the deadline falls due (RFC 3339, UTC): the end of its last day at the acting party's place"`
	LegalBasis     string `json:"legalBasis" doc:"the rule's legal basis, e.g. Art. 9(1) Regulation (EU) 2024/1157"`
	Party          string `json:"party" doc:"the organisation that must act"`
	Rule           string `json:"rule" doc:"the deadline rule, e.g. DECISION_DUE"`
	State          string `json:"state" doc:"the deadline's new state: DUE_SOON, OVERDUE or MET_LATE"`
}

// InboxEntry is the payload of INBOX_ENTRY_ADDED.
type InboxEntry struct {
	Cancelled    bool   `json:"cancelled" doc:"the version cancels the note"`
	DocumentType string `json:"documentType" doc:"the BMU document type, e.g. BGS (consignment note)"`
	InboxEntryID string `json:"inboxEntryId" doc:"the entry (TransportDocumentApi inbox operations)"`
	Kind         string `json:"kind" doc:"why it came: SENDING (sent to the organisation), DELIVERY (a version of another party's note) or DEKADENMELDUNG (a ten-day report to an authority)"`
	Number       string `json:"number" doc:"the note's number"`
	Sender       string `json:"sender" doc:"the sending organisation"`
	Version      int64  `json:"version" doc:"the note's version"`
}

// EndpointDisabled is the payload of WEBHOOK_ENDPOINT_DISABLED.
type EndpointDisabled struct {
	EndpointID   string `json:"endpointId" doc:"the disabled endpoint"`
	FailingSince string `json:"failingSince" doc:"the first failed attempt of the run (RFC 3339)"`
	Reason       string `json:"reason" doc:"why it was disabled"`
	URL          string `json:"url" doc:"its URL"`
}
