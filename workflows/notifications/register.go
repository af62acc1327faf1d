package notifications

import (
	"github.com/wasteflow/wasteflow/workflows/printing"
	"strings"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// register is a notification's part of its register row: its codes and
// parties, the notified total and what its movements shipped, the
// acknowledgement, each authority's decision and the consent's validity.
func register(p *documents.RegisterRequest, d *n.Notification) documents.RegisterRow {
	c := &d.Content
	row := documents.RegisterRow{Codes: c.WasteClassifications, Notified: c.TotalQuantity,
		Notifier: c.Notifier.OrganisationID, Consignee: c.Consignee.OrganisationID, Facility: c.Facility.OrganisationID,
		Producers: shipment.OrganisationIDs(c.Producers), Carriers: shipment.OrganisationIDs(c.Carriers), Authorities: &c.CompetentAuthorities,
		ValidUntil: d.ConsentValidUntil, ShipmentFrom: c.ShipmentPeriod.FirstDeparture, ShipmentTo: c.ShipmentPeriod.LastDeparture}
	var shipped []n.Shipped
	for i := range p.Children {
		if s, ok := engine.DataOf[n.Shipped](&p.Children[i]); ok {
			shipped = append(shipped, s)
		}
	}
	if len(shipped) > 0 {
		row.Shipped = n.CountMovements(c, n.TallyOf(shipped...)).QuantityUsed
	}
	if len(d.Acknowledgements) > 0 {
		row.AcknowledgedOn = documents.Day(d.Acknowledgements[0].At)
	}
	var decisions []string
	for _, dc := range d.Decisions {
		tacit := "tacit"
		if p.Lang == "de" {
			tacit = "stillschweigend"
		}
		decisions = append(decisions, dc.Authority+": "+decisionWords(printing.For(p.Lang), &dc, tacit))
		row.DecidedOn = documents.Day(dc.At)
	}
	row.Decision = strings.Join(decisions, "; ")
	if a := d.Article15; a != nil {
		row.CompletedOn = a.CompletedOn
	}
	return row
}
