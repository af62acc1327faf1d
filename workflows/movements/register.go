package movements

import (
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// register is a movement's part of its register row: its notification's
// codes, parties and total, its own shipment, carriers, acknowledgement,
// receipts and completion.
func register(p *documents.RegisterRequest, d *m.Movement) documents.RegisterRow {
	row := documents.RegisterRow{Shipped: d.Template.ActualQuantity, ShipmentFrom: d.Template.ActualDateOfShipment}
	if parent := documents.ParentData[n.Notification](p.Parent); parent != nil {
		c := &parent.Content
		row.Codes, row.Notified = c.WasteClassifications, c.TotalQuantity
		row.Notifier, row.Consignee, row.Facility = c.Notifier.OrganisationID, c.Consignee.OrganisationID, c.Facility.OrganisationID
		row.Producers, row.Authorities = shipment.OrganisationIDs(c.Producers), &c.CompetentAuthorities
		row.ValidUntil = parent.ConsentValidUntil
	}
	for _, c := range d.Template.Carriers {
		row.Carriers = append(row.Carriers, c.OrganisationID)
	}
	if len(d.Acknowledgements) > 0 {
		row.AcknowledgedOn = documents.Day(d.Acknowledgements[0].At)
	}
	for _, r := range []*m.ReceptionRecord{d.Consignee, d.Facility} { // the facility's, when there is one, counts
		if r != nil {
			row.ReceivedOn, row.Received = r.ReceivedOn, r.Quantity
		}
	}
	if d.Completion != nil {
		row.CompletedOn = d.Completion.CompletedOn
	}
	return row
}
