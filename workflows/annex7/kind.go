package annex7

import (
	"fmt"
	"time"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Certificates are the certificates given so far (Annex VII, box 14).
type Certificates struct {
	Consignee  *a.CertificateRecord `json:"consignee" doc:"the consignee's receipt certificate" label:"13. Receipt by the consignee|13. Entgegennahme durch den Empfänger"`
	Facility   *a.CertificateRecord `json:"facility" doc:"the recovery facility's or laboratory's receipt certificate" label:"14. Receipt at the recovery facility / laboratory|14. Eingang bei der Verwertungsanlage / beim Labor"`
	Completion *a.CompletionRecord  `json:"completion" doc:"the certificate of completion of the recovery" label:"Certificate of completion|Bescheinigung über den Abschluss"`
}

// Annex7Document is the retrieval document of an Annex VII document:
// identifiers, state, the announcement, what happened since, metadata,
// deadlines; the kind's document type adds one input block per intent
// (what SetByIntent executes), pre-filled by the intents (machine.go) with
// what was recorded.
type Annex7Document struct {
	documents.Header  `json:",inline"`
	Annex7            a.Content                  `json:"annex7" doc:"the announcement (Annex VII boxes 1-12); also the block of SUBMISSION and CORRECTION"`
	AnnouncedAt       *time.Time                 `json:"announcedAt"`
	Corrections       []a.CorrectionRecord       `json:"corrections" doc:"earlier versions of the announcement"`
	CarrierTransfers  []a.CarrierTransferRecord  `json:"carrierTransfers"`
	Certificates      Certificates               `json:"certificates" label:"Certificates|Bescheinigungen"`
	TakeBacks         []a.TakeBackRecord         `json:"takeBacks"`
	Metadata          Metadata                   `json:"metadata"`
	Withdrawn         *shipment.WithdrawalRecord `json:"withdrawn" doc:"the withdrawal of the draft, if withdrawn"`
	documents.Trailer `json:",inline"`
}

// Metadata is an Annex VII document's metadata: what every kind keeps
// beside its content, and the exchange with DIWASS.
type Metadata struct {
	shipment.Metadata `json:",inline"`
	DIWASS            shipment.DIWASSExchange `json:"diwass" doc:"the document's exchange with DIWASS, the EU's hub (our design: docs/diwass.md); state NOT_CONNECTED when it was not exchanged" label:"Exchange with DIWASS|Austausch mit DIWASS"`
}

// CreateInput is what CreateAnnex7 takes.
type CreateInput struct {
	Content  a.Content
	Metadata shipment.Metadata
}

// NewKind registers the Annex VII document with the runner.
func NewKind() *documents.Kind {
	return documents.KindOf[a.Annex7, Annex7Document]{
		Declaration:  declaration,
		IDPrefix:     "a7_",
		NumberPrefix: func(country string, at time.Time) string { return fmt.Sprintf("%s-A7-%d", country, at.Year()) },
		NumberFormat: "country of the arranger, A7, year, sequence: DE-A7-2026-000001",
		ContainerKey: "annex7",
		Parties:      func(d *a.Annex7) []engine.Party { return engine.PartiesOf(a.Parties(&d.Content)) },
		Document:     document,
		Face:         face,
		Register:     register,
		Print: func(p *documents.PrintRequest, d *a.Annex7) documents.Printout {
			title, basis, blocks := Form(d, p.Lang, p.Dir)
			return documents.Printout{Title: title, Basis: basis, Blocks: blocks, ShipmentEnd: d.Content.ActualDateOfShipment, Facts: diwassFacts(d, p.Lang)}
		},
	}.Kind()
}

func document(v *documents.View, d *a.Annex7) *Annex7Document {
	doc := &Annex7Document{
		Header: v.Header(), Trailer: v.Trailer(),
		Annex7: d.Content, AnnouncedAt: d.AnnouncedAt, Corrections: d.Corrections, CarrierTransfers: d.CarrierTransfers,
		Certificates: Certificates{Consignee: d.ConsigneeCertificate, Facility: d.FacilityCertificate, Completion: d.CertificateOfCompletion},
		TakeBacks:    d.TakeBacks, Metadata: Metadata{Metadata: d.Metadata, DIWASS: shipment.DIWASSExchange{State: shipment.DIWASSNotConnected}}, Withdrawn: d.Withdrawal,
	}
	if d.DIWASS != nil {
		doc.Metadata.DIWASS = *d.DIWASS
	}
	return doc
}
