package annex7

import (
	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// register is an Annex VII document's part of its register row: codes,
// parties, the shipment, the receipts, the completion and the exchange
// with DIWASS.
func register(_ *documents.RegisterRequest, d *a.Annex7) documents.RegisterRow {
	c := &d.Content
	row := documents.RegisterRow{Codes: c.WasteClassifications, Shipped: c.ActualQuantity, ShipmentFrom: c.ActualDateOfShipment,
		Notifier: c.Arranger.OrganisationID, Consignee: c.Consignee.OrganisationID, Facility: c.Facility.OrganisationID,
		Producers: shipment.OrganisationIDs(c.Producers), Authorities: &c.CompetentAuthorities}
	for _, cr := range c.Carriers {
		row.Carriers = append(row.Carriers, cr.OrganisationID)
	}
	for _, cert := range []*a.CertificateRecord{d.ConsigneeCertificate, d.FacilityCertificate} {
		if cert != nil {
			row.ReceivedOn, row.Received = cert.ReceivedOn, cert.Quantity
		}
	}
	if cc := d.CertificateOfCompletion; cc != nil {
		row.CompletedOn = cc.CompletedOn
	}
	row.DIWASS = d.DIWASS
	return row
}
