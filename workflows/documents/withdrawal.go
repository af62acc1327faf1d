package documents

import (
	"strings"

	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Withdrawal is the WITHDRAWAL intent a kind with a private draft offers
// its author (our design): through SetByIntent, from draft to withdrawn,
// the withdrawal recorded in the field record points to; the document keeps
// its number and audit trail and leaves the lists. never says what the
// draft never was ("filed"), and event the step it was withdrawn before
// ("filing").
func Withdrawal[D any](role, draft, withdrawn, never, event string, record func(*D) **shipment.WithdrawalRecord) engine.IntentOf[D, shipment.Withdrawal] {
	return engine.IntentOf[D, shipment.Withdrawal]{
		Name: "WITHDRAWAL", Operation: "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetByIntent", Block: "withdrawal", Roles: []string{role},
		Summary:     "withdraw a draft never " + never + " (our design): it keeps its number and audit trail and leaves the lists; through SetByIntent",
		Transitions: []engine.Transition{{From: []string{draft}, To: withdrawn}},
		Apply: func(ev *engine.On[D], in *shipment.Withdrawal) error {
			*record(ev.Doc) = &shipment.WithdrawalRecord{OrganisationID: ev.Caller.Org, At: ev.Now, Reason: in.Reason}
			ev.Note = strings.TrimSpace("draft withdrawn before " + event + ". " + in.Reason)
			return nil
		},
	}
}
