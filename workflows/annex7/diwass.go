package annex7

import (
	"fmt"
	"strings"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
)

// Intents of the exchange with DIWASS (our design: docs/diwass.md). The
// server records each outcome of sending the document (DIWASS_EXCHANGE);
// the arranger sends it again after a rejection, or resolves an exchange
// whose request may have arrived.
const (
	IntentDIWASSExchange     = "DIWASS_EXCHANGE"
	IntentDIWASSResubmission = "DIWASS_RESUBMISSION"
	IntentDIWASSResolution   = "DIWASS_RESOLUTION"
)

// DIWASSResubmission is the block of DIWASS_RESUBMISSION.
type DIWASSResubmission struct {
	Comment string `json:"comment" maxLength:"4000" doc:"what was corrected or why it is sent again (recorded in the history)" label:"What was changed|Was geändert wurde" help:"For the history: what you corrected after DIWASS's rejection.|Für die Historie: was Sie nach der Ablehnung durch DIWASS korrigiert haben."`
}

const setByIntent = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetByIntent"

// filed are the states of a document that may have been exchanged with
// DIWASS: every state after the announcement. The exchange goes on after
// the shipment ended, so the intents keep the state (a final one too).
var filed = []string{a.Announced, a.InTransit, a.ReceivedByConsignee, a.ReceivedByFacility, a.Completed, a.TakeBackInitiated, a.TakenBack}

func stay(guard string) []engine.Transition {
	out := make([]engine.Transition, len(filed))
	for i, s := range filed {
		out[i] = engine.Transition{From: []string{s}, To: s, Guard: guard}
	}
	return out
}

func diwassIs(state string) func(ev *on) bool {
	return func(ev *on) bool { return ev.Doc.DIWASS != nil && ev.Doc.DIWASS.State == state }
}

var diwassIntents = []engine.Step[a.Annex7]{
	intent[shipment.DIWASSOutcome]{Name: IntentDIWASSExchange, System: true,
		Summary: "the server's attempt to send the document to DIWASS came to an outcome: SENT with DIWASS's number, REJECTED with DIWASS's fault, UNCERTAIN, or PENDING (not reached: tried again); fired by the submission job",
		Keeps:   true, Transitions: stay("diwassPending"),
		Apply: func(ev *on, in *shipment.DIWASSOutcome) error {
			d := ev.Doc
			x := d.DIWASS
			before := x.State
			x.State, x.Attempts, x.LastError = in.State, in.Attempts, in.Error
			switch in.State {
			case shipment.DIWASSSent:
				x.DocumentNumber, x.SentAt, x.LastError = in.DocumentNumber, in.SentAt, ""
				notSentSince(d, in.Corrections)
				ev.Note = "sent to DIWASS: " + in.DocumentNumber
			case shipment.DIWASSUncertain:
				notSentSince(d, in.Corrections)
				ev.Note = "DIWASS may have received it: " + in.Error
			case shipment.DIWASSRejected:
				ev.Note = "DIWASS did not take it: " + in.Error
			default:
				ev.Note = fmt.Sprintf("attempt %d did not reach DIWASS, tried again later: %s", in.Attempts, in.Error)
			}
			tell(ev, IntentDIWASSExchange, before)
			return nil
		}},
	intent[DIWASSResubmission]{Name: IntentDIWASSResubmission, Operation: setByIntent, Block: "diwassResubmission", Roles: []string{a.RoleArranger},
		Summary: "send the document to DIWASS again after DIWASS rejected it (correct it first when the fault is about its content, or the parties' data in the directory); through SetByIntent",
		Keeps:   true, Transitions: stay("diwassRejected"),
		Apply: func(ev *on, in *DIWASSResubmission) error {
			x := ev.Doc.DIWASS
			x.State, x.LastError = shipment.DIWASSPending, ""
			ev.Note = strings.TrimSpace("sent to DIWASS again after its rejection. " + in.Comment)
			tell(ev, IntentDIWASSResubmission, shipment.DIWASSRejected)
			return nil
		}},
	intent[shipment.DIWASSResolution]{Name: IntentDIWASSResolution, Operation: setByIntent, Block: "diwassResolution", Roles: []string{a.RoleArranger},
		Errors:  []string{shipment.ErrRequiredMissing},
		Summary: "resolve an exchange whose request may have reached DIWASS: the number DIWASS shows for the document, or sendAgain when DIWASS does not hold it; through SetByIntent",
		Keeps:   true, Transitions: stay("diwassUncertain"),
		Validate: func(ev *on, in *shipment.DIWASSResolution) ([]engine.BusinessError, error) {
			in.DocumentNumber = strings.TrimSpace(in.DocumentNumber)
			switch {
			case in.DocumentNumber == "" && !in.SendAgain:
				return shipment.Missing("diwassResolution.documentNumber", "give the number DIWASS shows for the document, or set sendAgain when DIWASS does not hold it"), nil
			case in.DocumentNumber != "" && in.SendAgain:
				return []engine.BusinessError{{Code: shipment.ErrRequiredMissing, Field: "diwassResolution.sendAgain",
					Message: "a document DIWASS holds (documentNumber) is not sent again: give one of documentNumber and sendAgain"}}, nil
			case strings.ContainsAny(in.DocumentNumber, " \t\r\n"):
				return []engine.BusinessError{{Code: shipment.ErrRequiredMissing, Field: "diwassResolution.documentNumber",
					Message: "a DIWASS number has no spaces, e.g. GLW.BE260000000019i"}}, nil
			}
			return nil, nil
		},
		Apply: func(ev *on, in *shipment.DIWASSResolution) error {
			x := ev.Doc.DIWASS
			if in.SendAgain {
				x.State, x.LastError, x.NotSent = shipment.DIWASSPending, "", nil
				ev.Note = "not found in DIWASS: sent again"
			} else {
				at := ev.Now
				x.State, x.DocumentNumber, x.SentAt, x.LastError = shipment.DIWASSSent, in.DocumentNumber, &at, ""
				ev.Note = "found in DIWASS as " + in.DocumentNumber
			}
			tell(ev, IntentDIWASSResolution, shipment.DIWASSUncertain)
			return nil
		}},
}

// notSentSince records the corrections after the first n as not sent
// (the request carried the content of the n-th; a negative n: unknown,
// taken as all of them).
func notSentSince(d *a.Annex7, n int) {
	if n < 0 {
		return
	}
	for _, c := range d.Corrections[min(n, len(d.Corrections)):] {
		d.DIWASS.NotSent = append(d.DIWASS.NotSent, shipment.DIWASSNotSent{Intent: IntentCorrection, At: c.At, Reason: shipment.NotSentUpdate})
	}
}

// tell the parties when the exchange's state changed.
func tell(ev *on, intent, before string) {
	x := ev.Doc.DIWASS
	if x.State == before {
		return
	}
	ev.Events = append(ev.Events, engine.Event{Kind: eventkinds.DIWASSExchanged, Payload: eventkinds.DIWASSExchange{
		DIWASSNumber: x.DocumentNumber, DocumentKind: Kind, DocumentNumber: ev.Number, Error: x.LastError, Intent: intent, Previous: before, State: x.State}})
}
