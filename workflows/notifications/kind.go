package notifications

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// NotificationDocument is the retrieval document of a prior written
// notification: identifiers, state, content, history, metadata, deadlines;
// the kind's document type adds one input block per intent (what
// SetByIntent executes), pre-filled by the intents (machine.go).
type NotificationDocument struct {
	documents.Header    `json:",inline"`
	Notification        n.Content                    `json:"notification" doc:"the submitted content; also the block of SUBMISSION and CORRECTION"`
	ProposedTerms       *n.Content                   `json:"proposedTerms" doc:"while a change request is open: the terms it proposes (notification holds the terms in force until every authority accepted)" label:"Proposed changes|Beantragte Änderungen"`
	PendingCorrections  []n.CorrectionRecord         `json:"corrections"`
	Acknowledgements    []n.AcknowledgementRecord    `json:"acknowledgements"`
	InformationRequests []n.InformationRequestRecord `json:"informationRequests"`
	Decisions           []n.DecisionRecord           `json:"decisions"`
	ChangeRequests      []n.ChangeRequestRecord      `json:"changeRequests"`
	Signals             []n.SignalRecord             `json:"signals"`
	ConsentConditions   []string                     `json:"consentConditions"`
	ConsentValidUntil   string                       `json:"consentValidUntil"`
	Metadata            n.Metadata                   `json:"metadata"`
	Movements           n.Movements                  `json:"movements" doc:"the shipments made under the notification and what may still be shipped" label:"Shipments|Verbringungen"`
	Article15Completion *n.Article15Record           `json:"article15Completion" doc:"the pre-consented facility's closure of the dossier (Art. 15), if any"`
	Withdrawn           *n.WithdrawalRecord          `json:"withdrawn" doc:"the withdrawal of the draft, if withdrawn"`
	Guarantees          []n.GuaranteeRecord          `json:"guarantees" doc:"the financial guarantees or insurances submitted (Art. 7 Regulation (EU) 2024/1157), oldest first: the last one approved is in force; a movement needs one that covers its date of shipment (GUARANTEE_NOT_VALID)" label:"Financial guarantee or insurance|Sicherheitsleistung oder Versicherung"`
	ExchangesOmitted    ExchangesOmitted             `json:"exchangesOmitted" doc:"how many closed exchanges each list leaves out: a list carries its open items, then the 10 latest closed ones, oldest first; GetDocument with fullHistory returns every list whole. Our design (issue 49)." label:"Earlier exchanges not listed|Nicht aufgeführte frühere Vorgänge"`
	documents.Trailer   `json:",inline"`
}

// ExchangesOmitted counts, for each list of past exchanges that a
// notification's retrieval document bounds, the closed items it leaves
// out (documents.Latest): 0 when the list is whole.
type ExchangesOmitted struct {
	Corrections         int32 `json:"corrections" label:"Corrections|Korrekturen"`
	Acknowledgements    int32 `json:"acknowledgements" label:"Acknowledgements|Eingangsbestätigungen"`
	InformationRequests int32 `json:"informationRequests" label:"Requests for information|Auskunftsersuchen"`
	ChangeRequests      int32 `json:"changeRequests" label:"Requests for change|Änderungsanträge"`
	Signals             int32 `json:"signals" label:"Cancellations, closures, revalidations|Widerrufe, Abschlüsse, Verlängerungen"`
}

// CreateInput is what CreateSubmission takes.
type CreateInput struct {
	Content  n.Content
	Metadata n.Metadata
}

// NewKind registers the notification with the runner.
func NewKind() *documents.Kind {
	return documents.KindOf[n.Notification, NotificationDocument]{
		Declaration:  declaration,
		IDPrefix:     "ntf_",
		NumberPrefix: func(country string, at time.Time) string { return fmt.Sprintf("%s-%d", country, at.Year()) },
		NumberFormat: "country of the notifier, year, sequence: DE-2026-000001",
		ContainerKey: "notification",
		Parties:      func(d *n.Notification) []engine.Party { return engine.PartiesOf(n.Parties(&d.Content)) },
		Document:     document,
		Face:         face,
		Register:     register,
		Print: func(p *documents.PrintRequest, d *n.Notification) documents.Printout {
			title, basis, blocks := Form(d, p.Number, p.Lang, p.Dir)
			return documents.Printout{Title: title, Basis: basis, Blocks: blocks}
		},
		// the oldest closed exchanges, kept apart from what an act rewrites
		Archive: []documents.ArchiveList[n.Notification]{
			documents.Archived("corrections", func(d *n.Notification) []n.CorrectionRecord { return d.Corrections }, pendingCorrection),
			documents.Archived("acknowledgements", func(d *n.Notification) []n.AcknowledgementRecord { return d.Acknowledgements }, documents.AllClosed),
			documents.Archived("informationRequests", func(d *n.Notification) []n.InformationRequestRecord { return d.InformationRequests }, openRequest),
			documents.Archived("changeRequests", func(d *n.Notification) []n.ChangeRequestRecord { return d.ChangeRequests }, openChangeRequest),
			documents.Archived("signals", func(d *n.Notification) []n.SignalRecord { return d.Signals }, documents.AllClosed),
		},
		// the blocks' order in the document: ARTICLE15's follows the signal's
		BlockOrder: []string{"acknowledgement", "requestInformation", "replyToRequestInformation", "decision",
			"requestForChange", "replyToRequestForChange", "notificationSignal", "facilityCompletionArticle15", "withdrawal", "guarantee", "guaranteeApproval"},
	}.Kind()
}

// The exchanges still open: listed whatever their age, never kept apart.
func pendingCorrection(c *n.CorrectionRecord) bool    { return c.Pending }
func openRequest(r *n.InformationRequestRecord) bool  { return r.Open }
func openChangeRequest(r *n.ChangeRequestRecord) bool { return r.Open }

func document(v *documents.View, d *n.Notification) *NotificationDocument {
	doc := &NotificationDocument{
		Header: v.Header(), Trailer: v.Trailer(),
		Notification: d.Content, PendingCorrections: d.Corrections, Acknowledgements: d.Acknowledgements,
		InformationRequests: d.InformationRequests, Decisions: d.Decisions, ChangeRequests: d.ChangeRequests,
		Signals: d.Signals, ConsentConditions: d.ConsentConditions, ConsentValidUntil: d.ConsentValidUntil, Metadata: d.Metadata,
		Article15Completion: d.Article15, Withdrawn: d.Withdrawal, Guarantees: d.Guarantees,
	}
	if !v.FullHistory { // with those the view's data lacks: kept apart, not read
		o := &doc.ExchangesOmitted
		doc.PendingCorrections, o.Corrections = documents.Latest(d.Corrections, pendingCorrection, documents.ClosedListed)
		doc.Acknowledgements, o.Acknowledgements = documents.Latest(d.Acknowledgements, documents.AllClosed, documents.ClosedListed)
		doc.InformationRequests, o.InformationRequests = documents.Latest(d.InformationRequests, openRequest, documents.ClosedListed)
		doc.ChangeRequests, o.ChangeRequests = documents.Latest(d.ChangeRequests, openChangeRequest, documents.ClosedListed)
		doc.Signals, o.Signals = documents.Latest(d.Signals, documents.AllClosed, documents.ClosedListed)
		o.Corrections += v.KeptApart("corrections")
		o.Acknowledgements += v.KeptApart("acknowledgements")
		o.InformationRequests += v.KeptApart("informationRequests")
		o.ChangeRequests += v.KeptApart("changeRequests")
		o.Signals += v.KeptApart("signals")
	}
	var shipped []n.Shipped
	for _, c := range v.Children {
		s, ok := engine.DataOf[n.Shipped](&c.Related)
		if !ok {
			continue
		}
		shipped = append(shipped, s)
		if c.Visible {
			seq, date, q := s.Shipment()
			e := n.MovementEntry{ID: c.ID, Number: c.Number, State: c.State, SequenceNumber: seq, ActualDateOfShipment: date, ActualQuantity: q}
			if r, ok := s.(shipment.Refused); ok {
				e.RefusedQuantity = r.Refusal()
			}
			doc.Movements.Entries = append(doc.Movements.Entries, e)
		}
	}
	entries := doc.Movements.Entries
	t, ok := engine.TallyOf[n.Tally](v.Tally) // the movements' totals, kept beside the notification
	if !ok {
		t = n.TallyOf(shipped...)
	}
	doc.Movements = n.CountMovements(&d.Content, t)
	if entries != nil {
		doc.Movements.Entries = entries
	}
	doc.Movements.EntriesOmitted = int32(v.ChildrenOmitted)
	slices.SortStableFunc(doc.Movements.Entries, func(a, b n.MovementEntry) int { return cmp.Compare(a.SequenceNumber, b.SequenceNumber) })
	if cr := d.OpenChangeRequest(); cr != nil {
		doc.ProposedTerms = cr.Proposed
	}
	return doc
}
