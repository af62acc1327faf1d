package movements

import (
	"fmt"

	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// IntentCreateMovement is the notification's intent that offers a new
// movement to its notifier (CONSENTED or CHANGE_REQUESTED).
const IntentCreateMovement = "CREATE_MOVEMENT"

// Receptions are the receipts certified so far.
type Receptions struct {
	Consignee *m.ReceptionRecord `json:"consignee" label:"17. Receipt by the consignee|17. Eingang beim Empfänger"`
	Facility  *m.ReceptionRecord `json:"facility" doc:"with rejected and reason when the facility refused the shipment" label:"18. Receipt at the facility|18. Eingang bei der Anlage"`
}

// MovementDocument is the retrieval document of a movement: identifiers,
// state, its notification, the template, what happened since, deadlines;
// the kind's document type adds one input block per intent, pre-filled by
// the intents (machine.go) with what was recorded.
type MovementDocument struct {
	documents.Header  `json:",inline"`
	NotificationID    string                    `json:"notificationId"`
	MovementTemplate  m.Template                `json:"movementTemplate" doc:"the shipment as announced and last corrected; also the block of MOVEMENT_TEMPLATE"`
	CorrectionOpen    bool                      `json:"correctionOpen" doc:"an authority requested a correction: the notifier may change the template once"`
	Corrections       []m.CorrectionRecord      `json:"corrections" doc:"earlier versions of the template"`
	Acknowledgements  []m.AcknowledgementRecord `json:"acknowledgements"`
	Legs              []m.LegRecord             `json:"legs" doc:"carrier custody in order"`
	Receptions        Receptions                `json:"receptions" label:"Receipts|Eingänge"`
	Completion        *m.CompletionRecord       `json:"completion" label:"19. Completion of disposal / recovery|19. Abschluss der Beseitigung / Verwertung"`
	Signals           []m.SignalRecord          `json:"signals"`
	TakeBackOrder     *m.TakeBackRecord         `json:"takeBackOrder" label:"Take-back order|Rücknahmeanordnung"`
	RejectedPart      *m.RejectedPartRecord     `json:"rejectedPart" doc:"a part the facility refused and what becomes of it (our design); null when none" label:"Part refused by the facility|Von der Anlage abgelehnte Teilmenge"`
	Metadata          shipment.Metadata         `json:"metadata"`
	documents.Trailer `json:",inline"`
}

// CreateInput is what CreateMovementTemplate takes.
type CreateInput struct {
	NotificationID string
	Template       m.Template
	Metadata       shipment.Metadata
}

// NewKind registers the movement with the runner, as a child of the
// notification.
func NewKind() *documents.Kind {
	return documents.KindOf[m.Movement, MovementDocument]{
		Declaration:  declaration,
		IDPrefix:     "mvt_",
		NumberFormat: "the notification's number, M and the sequence number: DE-2026-000001-M001",
		ContainerKey: "movement",
		Parties:      func(d *m.Movement) []engine.Party { return engine.PartiesOf(d.Parties()) },
		Document:     document,
		NotByIntent:  true,
		Face:         face,
		Print:        print,
		Register:     register,
		Parent: documents.ParentOf("NOTIFICATION", IntentCreateMovement,
			func(in *CreateInput) *string { return &in.NotificationID },
			func(parent string, d *m.Movement) string {
				return fmt.Sprintf("%s-M%03d", parent, d.Template.SequenceNumber)
			}).Summarised(documents.SummaryOf(func(d *m.Movement) m.Summary { return d.Summary() })).
			Tallied(documents.TallyOf(func(t *n.Tally, s *m.Summary, sign int) { t.Add(s, sign) })),
	}.Kind()
}

func document(v *documents.View, d *m.Movement) *MovementDocument {
	doc := &MovementDocument{
		Header: v.Header(), Trailer: v.Trailer(),
		NotificationID: d.NotificationID, MovementTemplate: d.Template, CorrectionOpen: d.CorrectionOpen, Corrections: d.Corrections,
		Acknowledgements: d.Acknowledgements, Legs: d.Legs, Receptions: Receptions{Consignee: d.Consignee, Facility: d.Facility},
		Completion: d.Completion, Signals: d.Signals, TakeBackOrder: d.TakeBack, RejectedPart: d.RejectedPart, Metadata: d.Metadata,
	}
	return doc
}

// print lays out a movement as Annex IB under its notification. The
// shipment period ends with the consent's validity (or the notification's
// last departure, or the shipment's own date when neither is known).
func print(p *documents.PrintRequest, d *m.Movement) documents.Printout {
	parent := documents.ParentData[n.Notification](p.Parent)
	if parent == nil {
		parent = &n.Notification{}
	}
	title, basis, blocks := Form(d, parent, p.ParentNumber, p.Lang, p.Dir)
	end := d.Template.ActualDateOfShipment
	for _, e := range []string{parent.ConsentValidUntil, parent.Content.ShipmentPeriod.LastDeparture} {
		if e > end {
			end = e
		}
	}
	return documents.Printout{Title: title, Basis: basis, Blocks: blocks, ShipmentEnd: end}
}
