package annex7

import (
	"fmt"
	"strings"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The information accompanying shipments of Annex VII: the boxes of the
// 1013/2006 layout (a stand-in until the 2024/1157 annex is verified, see
// docs/compliance.md) with their English and German titles; the certificates
// recorded so far (carrier transfers, the consignee's and the facility's
// receipts, the completion, take-backs) fill boxes 5, 13 and 14 and an
// unnumbered section of ours.
var annexVII = printing.Words{
	"title": {"Information accompanying shipments of waste as referred to in Article 3(2) and (4)", "Mitzuführende Informationen für die Verbringung der in Artikel 3 Absätze 2 und 4 genannten Abfälle"},
	"basis": {"Regulation (EU) 2024/1157, Annex VII; boxes in the layout of Regulation (EC) No 1013/2006 (stand-in until the 2024 annex is verified). Consignment information",
		"Verordnung (EU) 2024/1157, Anhang VII; Felder in der Anordnung der Verordnung (EG) Nr. 1013/2006 (Platzhalter, bis der Anhang von 2024 geprüft ist). Versandinformationen"},
	"1":               {"Person who arranges the shipment", "Person, die die Verbringung veranlasst"},
	"2":               {"Importer/consignee", "Importeur/Empfänger"},
	"3":               {"Actual quantity", "Tatsächliche Menge"},
	"4":               {"Actual date of shipment", "Tatsächliches Datum der Verbringung"},
	"5":               {"Carriers", "Transportunternehmen"},
	"6":               {"Waste generator: original producer(s), new producer(s) or collector", "Abfallerzeuger: Ersterzeuger, Neuerzeuger oder Einsammler"},
	"7":               {"Recovery facility / Laboratory", "Verwertungsanlage / Labor"},
	"8":               {"Recovery operation (or disposal operation for Art. 3(4) waste)", "Verwertungsverfahren (oder gegebenenfalls Beseitigungsverfahren bei in Artikel 3 Absatz 4 genannten Abfällen)"},
	"9":               {"Usual description of the waste", "Übliche Bezeichnung der Abfälle"},
	"10":              {"Waste identification", "Abfallidentifizierung"},
	"11":              {"Countries/States concerned", "Betroffene Staaten"},
	"12":              {"Declaration of the person who arranges the shipment", "Erklärung der die Verbringung veranlassenden Person"},
	"13":              {"Signature upon receipt of the waste by the consignee", "Unterschrift des Empfängers bei Entgegennahme der Abfälle"},
	"14":              {"Shipment received at recovery facility / laboratory", "Eingang bei der Verwertungsanlage / beim Labor"},
	"facilityHeading": {"To be completed by the recovery facility or by the laboratory", "Von der Verwertungsanlage oder vom Labor auszufüllen"},
	"completion":      {"Certificate of completion (ours)", "Bescheinigung des Abschlusses (unsere Ergänzung)"},
	"takeBack":        {"Take-back (ours)", "Rücknahme (unsere Ergänzung)"},
	"org":             {"Organisation", "Organisation"}, "tonnes": {"Tonnes (Mg)", "Tonnen (Mg)"}, "m3": {"m³", "m³"},
	"date": {"Date", "Datum"}, "means": {"Means of transport", "Transportart"}, "transfer": {"Date of transfer", "Übergabedatum"},
	"kind": {"Kind", "Art"}, "facility": {"recovery facility", "Verwertungsanlage"}, "lab": {"laboratory", "Labor"},
	"code": {"Code", "Code"}, "dispatch": {"Export/dispatch", "Ausfuhrstaat/Versandstaat"}, "transit": {"Transit", "Durchfuhrstaat(en)"},
	"destination": {"Import/destination", "Einfuhrstaat/Empfängerstaat"},
	"declared":    {"Announced electronically through the arranger's account on", "Elektronisch über das Konto der veranlassenden Person angekündigt am"},
	"received":    {"Received on", "Eingegangen am"}, "completedOn": {"Completed on", "Abgeschlossen am"},
	"reason": {"Reason", "Grund"}, "initiated": {"Initiated", "Eingeleitet"}, "done": {"Completed by", "Durchgeführt mit"},
}

// Form lays out Annex VII document d as its boxes in lang ("en" or "de");
// dir names the organisations.
func Form(d *a.Annex7, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, org := annexVII.In(lang), dir.Party
	c := &d.Content
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	block := func(no string, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(no), Rows: rows}
	}
	var producers, codes []string
	for _, p := range c.Producers {
		producers = append(producers, org(p.OrganisationID))
	}
	for _, wc := range c.WasteClassifications {
		codes = append(codes, wc.List+": "+wc.Code)
	}
	carriers := block("5")
	for i, cr := range c.Carriers {
		n := fmt.Sprintf("(%c)", 'a'+rune(min(i, 25)))
		carriers.Rows = append(carriers.Rows, r(n+" "+w("org"), org(cr.OrganisationID)), r(n+" "+w("means"), cr.MeansOfTransport))
		for _, t := range d.CarrierTransfers {
			if t.CarrierOrganisationID == cr.OrganisationID {
				carriers.Rows = append(carriers.Rows, r(n+" "+w("transfer"), t.TransferDate))
			}
		}
	}
	kind := w("facility")
	if c.Facility.Laboratory {
		kind = w("lab")
	}
	var transit []string
	for _, t := range c.CompetentAuthorities.Transit {
		transit = append(transit, org(t.OrganisationID))
	}
	declared := block("12", r(w("org"), org(c.Arranger.OrganisationID)))
	if d.AnnouncedAt != nil {
		declared.Rows = append(declared.Rows, r(w("declared"), d.AnnouncedAt.UTC().Format("2006-01-02")))
	}
	consignee := block("13", r(w("org"), org(c.Consignee.OrganisationID)))
	if cc := d.ConsigneeCertificate; cc != nil {
		consignee.Rows = append(consignee.Rows, r(w("received"), cc.ReceivedOn))
		consignee.Rows = append(consignee.Rows, printing.QuantityRows(cc.Quantity, w("tonnes"), w("m3"))...)
	}
	facility := block("14", r(w("org"), org(c.Facility.OrganisationID)))
	facility.Heading = w("facilityHeading")
	if fc := d.FacilityCertificate; fc != nil {
		facility.Rows = append(facility.Rows, r(w("received"), fc.ReceivedOn))
		facility.Rows = append(facility.Rows, printing.QuantityRows(fc.Quantity, w("tonnes"), w("m3"))...)
	}
	blocks = []printing.Block{
		block("1", r(w("org"), org(c.Arranger.OrganisationID))),
		block("2", r(w("org"), org(c.Consignee.OrganisationID))),
		block("3", printing.QuantityRows(c.ActualQuantity, w("tonnes"), w("m3"))...),
		block("4", r(w("date"), c.ActualDateOfShipment)),
		carriers,
		block("6", r(w("org"), strings.Join(producers, "\n"))),
		block("7", r(w("kind"), kind), r(w("org"), org(c.Facility.OrganisationID))),
		block("8", r(w("code"), c.RecoveryCode)),
		block("9", r(w("9"), c.UsualDescription)),
		block("10", r(w("code"), strings.Join(codes, "\n"))),
		block("11", r(w("dispatch"), org(c.CompetentAuthorities.Dispatch.OrganisationID)), r(w("transit"), strings.Join(transit, "\n")),
			r(w("destination"), org(c.CompetentAuthorities.Destination.OrganisationID))),
		declared, consignee, facility,
	}
	if cc := d.CertificateOfCompletion; cc != nil {
		blocks = append(blocks, printing.Block{Title: w("completion"), Rows: []printing.Row{r(w("completedOn"), cc.CompletedOn), r(w("code"), cc.RecoveryCode)}})
	}
	for _, tb := range d.TakeBacks {
		b := printing.Block{Title: w("takeBack"), Rows: []printing.Row{r(w("reason"), tb.Reason), r(w("initiated"), tb.At.UTC().Format("2006-01-02"))}}
		if tb.CompletedBy != "" {
			b.Rows = append(b.Rows, r(w("done"), tb.CompletedBy))
		}
		blocks = append(blocks, b)
	}
	return w("title"), w("basis"), blocks
}
