package shipment

import "time"

// States of a document's exchange with DIWASS (metadata.diwass.state;
// public contract of our design).
const (
	DIWASSNotConnected = "NOT_CONNECTED"
	DIWASSPending      = "PENDING"
	DIWASSSent         = "SENT"
	DIWASSRejected     = "REJECTED"
	DIWASSUncertain    = "UNCERTAIN"
)

// SettingDIWASS is the server fact an announcement reads: 1 when the
// server exchanges documents with DIWASS (its URLs are set), 0 otherwise.
// It is recorded with the act like a provider setting, so the audit
// trail replays to the same document.
const SettingDIWASS = "server.diwassConnected"

// DIWASSExchange is a document's exchange with DIWASS as the document
// records it: the state of its submission, DIWASS's number, the attempts,
// and what was filed here but not sent there (our design; the exchange
// itself is the server's: docs/diwass.md).
type DIWASSExchange struct {
	State          string          `json:"state" doc:"NOT_CONNECTED (not exchanged: a draft, or filed while the server had no DIWASS connection), PENDING (queued or being sent; retried while DIWASS cannot be reached), SENT (DIWASS numbered it), REJECTED (DIWASS refused it, or it cannot be sent as it is: lastError says why), UNCERTAIN (the request may have arrived: never sent again by itself)" label:"State|Stand" codeList:"diwassState"`
	DocumentNumber string          `json:"documentNumber" doc:"DIWASS's number of the document, e.g. GLW.BE260000000019i" label:"DIWASS number|DIWASS-Nummer"`
	SentAt         *time.Time      `json:"sentAt" doc:"when DIWASS numbered it (or when the number was recorded on resolving an UNCERTAIN exchange)" label:"Sent at|Gesendet am"`
	Attempts       int             `json:"attempts" doc:"requests made so far (a request DIWASS surely did not receive is made again)" label:"Attempts|Versuche"`
	LastError      string          `json:"lastError" doc:"DIWASS's fault, or why the last attempt failed; empty once sent" label:"Last error|Letzter Fehler"`
	NotSent        []DIWASSNotSent `json:"notSent" maxItems:"100" doc:"acts filed here after the document went to DIWASS and not sent there (a correction: DIWASS's update operation is not public)" label:"Not sent to DIWASS|Nicht an DIWASS gesendet"`
}

// DIWASSNotSent is an act not sent to DIWASS.
type DIWASSNotSent struct {
	Intent string    `json:"intent" doc:"the act, e.g. CORRECTION" label:"Act|Handlung"`
	At     time.Time `json:"at" doc:"when it was filed here" label:"Filed at|Erfasst am"`
	Reason string    `json:"reason" label:"Reason|Grund"`
}

// NotSentUpdate is why a correction is not sent to DIWASS.
const NotSentUpdate = "not sent: update not supported (DIWASS's update operation is not public)"

// DIWASSOutcome is what one attempt to send a document came to: the
// input of the server's DIWASS_EXCHANGE act.
type DIWASSOutcome struct {
	State          string     // PENDING (not reached: tried again), SENT, REJECTED, UNCERTAIN
	DocumentNumber string     // DIWASS's number (SENT)
	Error          string     // why not SENT
	Attempts       int        // requests made so far
	SentAt         *time.Time // SENT
	// Corrections is how many corrections the document had when the
	// request was built: later ones did not go with it.
	Corrections int
}

// DIWASSResolution resolves an UNCERTAIN exchange (our design): the
// number DIWASS gave the document (found in DIWASS's own user
// interface), or sendAgain when DIWASS holds no such document.
type DIWASSResolution struct {
	DocumentNumber string `json:"documentNumber" maxLength:"64" doc:"DIWASS's number of the document, as DIWASS shows it (GLW.…); or leave empty and set sendAgain" label:"DIWASS number found in DIWASS|In DIWASS gefundene DIWASS-Nummer" help:"Look the document up in DIWASS. If it is there, enter its number.|Suchen Sie das Dokument in DIWASS. Ist es dort, tragen Sie seine Nummer ein."`
	SendAgain      bool   `json:"sendAgain" doc:"DIWASS holds no such document: send it again (a second document in DIWASS if it did arrive)" label:"Not in DIWASS: send it again|Nicht in DIWASS: erneut senden" help:"Only if DIWASS does not have the document: otherwise it would be there twice.|Nur wenn DIWASS das Dokument nicht hat: sonst wäre es doppelt dort."`
}
