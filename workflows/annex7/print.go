package annex7

import (
	"strings"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The information accompanying shipments of Annex VII: the boxes of the
// 1013/2006 layout in its arrangement (1|2, 3|4, the carriers 5(a), (b),
// (c) in three columns, left column 6–7 beside 8–10, then 11–14 across the
// page), a stand-in until the 2024/1157 annex is found (searched again for
// issue 45, see docs/compliance.md), with their English and German
// titles; the certificates recorded so far (carrier transfers, the
// consignee's and the facility's receipts, the completion, take-backs)
// fill boxes 5, 13 and 14 and unnumbered sections of ours.
var annexVII = printing.Words{
	"title": {"Information accompanying shipments of waste as referred to in Article 3(2) and (4)", "Mitzuführende Informationen für die Verbringung der in Artikel 3 Absätze 2 und 4 genannten Abfälle"},
	"basis": {"Regulation (EU) 2024/1157, Annex VII. The 2024 annex's text could not be found (searched on EUR-Lex in English and German): boxes, numbers and titles follow the form of Regulation (EC) No 1013/2006 as a stand-in. Consignment information",
		"Verordnung (EU) 2024/1157, Anhang VII. Der Text des Anhangs von 2024 war nicht auffindbar (auf EUR-Lex auf Englisch und Deutsch gesucht): Felder, Nummern und Titel folgen als Platzhalter dem Formular der Verordnung (EG) Nr. 1013/2006. Versandinformationen"},
	"1":               {"Person who arranges the shipment", "Person, die die Verbringung veranlasst"},
	"2":               {"Importer/consignee", "Importeur/Empfänger"},
	"3":               {"Actual quantity", "Tatsächliche Menge"},
	"4":               {"Actual date of shipment", "Tatsächliches Datum der Verbringung"},
	"5":               {"(a) 1st carrier", "(a) 1. Transportunternehmen"},
	"5b":              {"(b) 2nd carrier", "(b) 2. Transportunternehmen"},
	"5c":              {"(c) 3rd carrier", "(c) 3. Transportunternehmen"},
	"5d":              {"Further carriers (more than 3)", "Weitere Transportunternehmen (mehr als 3)"},
	"6":               {"Waste generator: original producer(s), new producer(s) or collector", "Abfallerzeuger: Ersterzeuger, Neuerzeuger oder Einsammler"},
	"7":               {"Recovery facility / Laboratory", "Verwertungsanlage / Labor"},
	"8":               {"Recovery operation (or disposal operation for waste referred to in Article 3(4))", "Verwertungsverfahren (oder gegebenenfalls Beseitigungsverfahren bei in Artikel 3 Absatz 4 genannten Abfällen)"},
	"9":               {"Usual description of the waste", "Übliche Bezeichnung der Abfälle"},
	"10":              {"Waste identification (fill in relevant codes)", "Abfallidentifizierung (einschlägige Codes angeben)"},
	"11":              {"Countries/States concerned", "Betroffene Staaten"},
	"12":              {"Declaration of the person who arranges the shipment", "Erklärung der die Verbringung veranlassenden Person"},
	"13":              {"Signature upon receipt of the waste by the consignee", "Unterschrift des Empfängers bei Entgegennahme der Abfälle"},
	"14":              {"Shipment received at recovery facility / laboratory", "Eingang bei der Verwertungsanlage / beim Labor"},
	"facilityHeading": {"To be completed by the recovery facility or by the laboratory", "Von der Verwertungsanlage oder vom Labor auszufüllen"},
	"completion":      {"Certificate of completion (ours)", "Bescheinigung des Abschlusses (unsere Ergänzung)"},
	"takeBack":        {"Take-back (ours)", "Rücknahme (unsere Ergänzung)"},
	"quantity":        {"Tonnes (Mg) / m³", "Tonnen (Mg) / m³"},
	"date":            {"Date", "Datum"}, "means": {"Means of transport", "Transportart"}, "transfer": {"Date of transfer", "Übergabedatum"},
	"kind": {"Kind", "Art"}, "facility": {"recovery facility", "Verwertungsanlage"}, "lab": {"laboratory", "Labor"},
	"code": {"R-code / D-code", "R-Code / D-Code"}, "dispatch": {"Export/dispatch", "Ausfuhrstaat/Versandstaat"}, "transit": {"Transit", "Durchfuhrstaat(en)"},
	"destination": {"Import/destination", "Einfuhrstaat/Empfängerstaat"},
	"arranger":    {"Name", "Name"},
	"declared":    {"Announced electronically through the arranger's account on", "Elektronisch über das Konto der veranlassenden Person angekündigt am"},
	"received":    {"Received on", "Eingegangen am"}, "completedOn": {"Completed on", "Abgeschlossen am"},
	"reason": {"Reason", "Grund"}, "initiated": {"Initiated", "Eingeleitet"}, "done": {"Completed by", "Durchgeführt mit"},
	"code10":    {"(i) Basel Annex IX", "(i) Basler Übereinkommen Anlage IX"},
	"code10ii":  {"(ii) OECD (if different from (i))", "(ii) OECD (falls abweichend von (i))"},
	"code10iii": {"(iii) Annex IIIA", "(iii) Anhang IIIA"},
	"code10iv":  {"(iv) Annex IIIB", "(iv) Anhang IIIB"},
	"code10v":   {"(v) EU list of wastes", "(v) Abfallverzeichnis der EU"},
	"code10vi":  {"(vi) National code", "(vi) Nationaler Code"},
	"other":     {"Other", "Sonstige"},
	"diwass":    {"DIWASS number", "DIWASS-Nummer"},
	"diwassNot": {"DIWASS", "DIWASS"},
}

var (
	box10      = []string{"code10", "code10ii", "code10iii", "code10iv", "code10v", "code10vi", "other"}
	box10Lists = map[string]string{"BASEL_ANNEX_IX": "code10", "BASEL_ANNEX_VIII": "code10", "OECD": "code10ii", "EU_LIST_OF_WASTE": "code10v",
		"NATIONAL": "code10vi", "other": "other"}
)

// Form lays out Annex VII document d as its boxes in lang ("en" or "de");
// dir gives the parties' details.
func Form(d *a.Annex7, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, p := annexVII.In(lang), printing.For(lang)
	c := &d.Content
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	box := func(no, title string, place printing.Place, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(title), Place: place, Rows: rows}
	}
	carrier := func(i int) []printing.Row {
		if i >= len(c.Carriers) {
			return append(p.Party(shipment.PartyDetails{}), r(w("means"), ""), r(w("transfer"), ""))
		}
		cr := c.Carriers[i]
		var on []string
		for _, t := range d.CarrierTransfers {
			if t.CarrierOrganisationID == cr.OrganisationID {
				on = append(on, p.Date(t.TransferDate))
			}
		}
		return append(p.Party(dir(cr.OrganisationID)), r(w("means"), p.Enum("meansOfTransport", cr.MeansOfTransport)), r(w("transfer"), strings.Join(on, "\n")))
	}
	kind := w("facility")
	if c.Facility.Laboratory {
		kind = w("lab")
	}
	authority := func(id string) string {
		if id == "" {
			return ""
		}
		s := dir.Name(id)
		if country := dir(id).Address.Country; country != "" {
			s = p.Country(country) + ": " + s
		}
		return s
	}
	var transit []string
	for _, t := range c.CompetentAuthorities.Transit {
		transit = append(transit, authority(t.OrganisationID))
	}
	declared := box("12", "12", printing.Full, r(w("arranger"), dir.Name(c.Arranger.OrganisationID)), r(w("declared"), ""))
	if d.AnnouncedAt != nil {
		declared.Rows[1].Value = p.At(*d.AnnouncedAt)
	}
	consignee := box("13", "13", printing.Full, r(w("arranger"), dir.Name(c.Consignee.OrganisationID)), r(w("received"), ""), r(w("quantity"), ""))
	if cc := d.ConsigneeCertificate; cc != nil {
		consignee.Rows[1].Value, consignee.Rows[2].Value = p.Date(cc.ReceivedOn), p.Quantity(cc.Quantity)
	}
	facility := box("14", "14", printing.Full, r(w("arranger"), dir.Name(c.Facility.OrganisationID)), r(w("received"), ""), r(w("quantity"), ""))
	facility.Heading = w("facilityHeading")
	if fc := d.FacilityCertificate; fc != nil {
		facility.Rows[1].Value, facility.Rows[2].Value = p.Date(fc.ReceivedOn), p.Quantity(fc.Quantity)
	}
	blocks = []printing.Block{
		box("1", "1", printing.Left, p.Parties(dir, []string{c.Arranger.OrganisationID})...),
		box("2", "2", printing.Right, p.Parties(dir, []string{c.Consignee.OrganisationID})...),
		box("3", "3", printing.Left, r(w("quantity"), p.Quantity(c.ActualQuantity))),
		box("4", "4", printing.Right, r(w("date"), p.Date(c.ActualDateOfShipment))),
		box("5", "5", printing.Third, carrier(0)...), box("", "5b", printing.Third, carrier(1)...), box("", "5c", printing.Third, carrier(2)...),
	}
	if len(c.Carriers) > 3 {
		more := box("", "5d", printing.Full)
		for i, cr := range c.Carriers[3:] {
			more.Rows = append(more.Rows, r("("+string(rune('d'+min(i, 22)))+")", p.PartyBrief(dir(cr.OrganisationID))+"\n"+w("means")+": "+p.Enum("meansOfTransport", cr.MeansOfTransport)))
		}
		blocks = append(blocks, more)
	}
	blocks = append(blocks,
		box("6", "6", printing.Left, p.Parties(dir, shipment.OrganisationIDs(c.Producers))...),
		box("7", "7", printing.Left, append([]printing.Row{r(w("kind"), kind)}, p.Parties(dir, []string{c.Facility.OrganisationID})...)...),
		box("8", "8", printing.Right, r(w("code"), p.Code("operation", c.RecoveryCode))),
		box("9", "9", printing.Right, r("", c.UsualDescription)),
		box("10", "10", printing.Right, printing.WasteCodes(p, w, box10, box10Lists, c.WasteClassifications)...),
		box("11", "11", printing.Full, r(w("dispatch"), authority(c.CompetentAuthorities.Dispatch.OrganisationID)), r(w("transit"), strings.Join(transit, "\n")),
			r(w("destination"), authority(c.CompetentAuthorities.Destination.OrganisationID))),
		declared, consignee, facility,
	)
	if cc := d.CertificateOfCompletion; cc != nil {
		blocks = append(blocks, box("", "completion", printing.Full, r(w("completedOn"), p.Date(cc.CompletedOn)), r(w("code"), p.Code("operation", cc.RecoveryCode))))
	}
	for _, tb := range d.TakeBacks {
		b := box("", "takeBack", printing.Full, r(w("reason"), tb.Reason), r(w("initiated"), p.At(tb.At)))
		if tb.CompletedBy != "" {
			b.Rows = append(b.Rows, r(w("done"), tb.CompletedBy))
		}
		blocks = append(blocks, b)
	}
	return w("title"), w("basis"), blocks
}

// diwassFacts: the number DIWASS gave the document, printed under the
// title; while it has none, the state of the exchange in words (nothing
// for a document never exchanged).
func diwassFacts(d *a.Annex7, lang string) []printing.Row {
	x := d.DIWASS
	if x == nil {
		return nil
	}
	w := annexVII.In(lang)
	if x.DocumentNumber != "" {
		return []printing.Row{{Label: w("diwass"), Value: x.DocumentNumber}}
	}
	return []printing.Row{{Label: w("diwassNot"), Value: printing.For(lang).Enum(labels.ListDIWASSState, x.State)}}
}
