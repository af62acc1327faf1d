package movements

import (
	"fmt"
	"strings"

	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The movement document of Annex IB: the boxes of the 1013/2006 layout in
// its arrangement (1|2, 3|4, 5|6 side by side, 7, the three carriers 8(a),
// (b), (c) in three columns, left column 9–11 beside 12–14, 15–17 across
// the page, the facility's part 18|19 and the customs offices' 20|21|22),
// a stand-in until the 2024/1157 annex is found (searched again for issue
// 45, see docs/compliance.md), German titles our translation. What the
// notification says of the waste and its parties comes from the
// notification the movement belongs to; the shipment, its carriers' legs
// and the certificates from the movement.
var annexIB = printing.Words{
	"title": {"Movement document for transboundary movements/shipments of waste", "Begleitformular für grenzüberschreitende Verbringungen von Abfällen"},
	"basis": {"Regulation (EU) 2024/1157, Annex IB. The 2024 annex's text could not be found (searched on EUR-Lex in English and German): boxes, numbers and titles follow the form of Regulation (EC) No 1013/2006 as a stand-in.",
		"Verordnung (EU) 2024/1157, Anhang IB. Der Text des Anhangs von 2024 war nicht auffindbar (auf EUR-Lex auf Englisch und Deutsch gesucht): Felder, Nummern und Titel folgen als Platzhalter dem Formular der Verordnung (EG) Nr. 1013/2006."},
	"1":               {"Corresponding to notification No.", "Zugehörige Notifizierungsnummer"},
	"2":               {"Serial / total number of shipments", "Laufende Nummer / Gesamtzahl der Verbringungen"},
	"3":               {"Exporter – notifier", "Exporteur – notifizierende Person"},
	"4":               {"Importer – consignee", "Importeur – Empfänger"},
	"5":               {"Actual quantity", "Tatsächliche Menge"},
	"6":               {"Actual date of shipment", "Tatsächliches Datum der Verbringung"},
	"7":               {"Packaging", "Verpackung"},
	"8":               {"(a) 1st carrier", "(a) 1. Transportunternehmen"},
	"8b":              {"(b) 2nd carrier", "(b) 2. Transportunternehmen"},
	"8c":              {"(c) Last carrier", "(c) Letztes Transportunternehmen"},
	"8d":              {"Further carriers (more than 3)", "Weitere Transportunternehmen (mehr als 3)"},
	"9":               {"Waste generator(s) – producer(s)", "Abfallerzeuger"},
	"10":              {"Disposal facility / recovery facility", "Beseitigungs- / Verwertungsanlage"},
	"11":              {"Disposal / recovery operation(s)", "Beseitigungs- / Verwertungsverfahren"},
	"12":              {"Designation and composition of the waste", "Bezeichnung und Zusammensetzung der Abfälle"},
	"13":              {"Physical characteristics", "Physikalische Eigenschaften"},
	"14":              {"Waste identification (fill in relevant codes)", "Abfallidentifizierung (einschlägige Codes angeben)"},
	"15":              {"Exporter's – notifier's / generator's – producer's declaration", "Erklärung des Exporteurs – der notifizierenden Person / des Erzeugers"},
	"16":              {"For use by any person involved in the transboundary movement in case additional information is required", "Für zusätzliche Angaben der an der Verbringung Beteiligten"},
	"17":              {"Shipment received by importer – consignee (if not facility)", "Eingang beim Importeur – Empfänger (wenn nicht Anlage)"},
	"18":              {"Shipment received at disposal / recovery facility", "Eingang bei der Beseitigungs- / Verwertungsanlage"},
	"19":              {"Certification of the completed disposal / recovery", "Bescheinigung der abgeschlossenen Beseitigung / Verwertung"},
	"20":              {"Country of export – dispatch or customs office of exit", "Ausfuhrstaat – Versandstaat oder Ausgangszollstelle"},
	"21":              {"Country of import – destination or customs office of entry", "Einfuhrstaat – Empfängerstaat oder Eingangszollstelle"},
	"22":              {"Stamps of customs offices of transit countries", "Stempel der Zollstellen der Durchfuhrstaaten"},
	"facilityHeading": {"To be completed by disposal / recovery facility", "Von der Beseitigungs- / Verwertungsanlage auszufüllen"},
	"customsHeading":  {"For use by customs offices (if required by national legislation)", "Von den Zollstellen auszufüllen (falls nach innerstaatlichem Recht erforderlich)"},
	"quantity":        {"Tonnes (Mg) / m³", "Tonnen (Mg) / m³"},
	"date":            {"Date", "Datum"}, "types": {"Type(s)", "Art(en)"}, "packages": {"Number of packages", "Anzahl der Packstücke"},
	"means": {"Means of transport", "Transportart"}, "vehicle": {"Vehicle", "Fahrzeug"}, "transfer": {"Date of transfer", "Übergabedatum"},
	"codes": {"D-code / R-code", "D-Code / R-Code"}, "received": {"Received on", "Eingegangen am"},
	"accepted": {"Accepted / rejected", "Angenommen / zurückgewiesen"}, "acceptedYes": {"accepted", "angenommen"}, "rejectedYes": {"rejected", "zurückgewiesen"},
	"partly":      {"accepted in part", "teilweise angenommen"},
	"refused":     {"Quantity refused", "Abgelehnte Menge"},
	"acceptedQty": {"Quantity accepted", "Angenommene Menge"},
	"arrangement": {"Refused part: what becomes of it", "Abgelehnte Teilmenge: Verbleib"},
	"partDue":     {"Refused part due by", "Abgelehnte Teilmenge fällig bis"},
	"partDone":    {"Refused part dealt with on", "Abgelehnte Teilmenge erledigt am"},
	"partOpen":    {"open", "offen"},
	"reason":      {"Reason", "Grund"}, "completedOn": {"Completed on", "Abgeschlossen am"}, "code": {"Operation", "Verfahren"},
	"site":     {"Site of generation", "Ort der Erzeugung"},
	"notifier": {"Notifier", "Notifizierende Person"}, "producer": {"Producer(s)", "Erzeuger"},
	"filed":   {"Declared electronically through the notifier's account; the audit chain records who and when.", "Elektronisch über das Konto der notifizierenden Person erklärt; die Prüfkette hält fest, wer und wann."},
	"signals": {"Signals of the competent authorities", "Mitteilungen der zuständigen Behörden"},
	"left":    {"Left the country on", "Ausgang aus dem Staat am"}, "entered": {"Entered the country on", "Eingang in den Staat am"},
	"entryExit": {"Entry / exit", "Eingang / Ausgang"},
}

// less is q minus part, in q's unit (ok false when their units differ).
func less(q, part shipment.Quantity) (shipment.Quantity, bool) {
	neg := func(d *shipment.Decimal) shipment.Decimal { return shipment.Decimal{Units: -d.Units, Nanos: -d.Nanos} }
	switch {
	case q.Tonnes != nil && part.Tonnes != nil:
		v := q.Tonnes.Add(neg(part.Tonnes))
		return shipment.Quantity{Tonnes: &v}, true
	case q.CubicMetres != nil && part.CubicMetres != nil:
		v := q.CubicMetres.Add(neg(part.CubicMetres))
		return shipment.Quantity{CubicMetres: &v}, true
	}
	return shipment.Quantity{}, false
}

// Form lays out movement d under notification parent (numbered
// notificationNo) as Annex IB's boxes in lang ("en" or "de").
func Form(d *m.Movement, parent *n.Notification, notificationNo, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, p := annexIB.In(lang), printing.For(lang)
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	box := func(no, title string, place printing.Place, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(title), Place: place, Rows: rows}
	}
	c := &parent.Content
	t := &d.Template
	carrier := func(cr *m.Carrier) []printing.Row {
		if cr == nil {
			return append(p.Party(shipment.PartyDetails{}), r(w("means"), ""), r(w("transfer"), ""), r(w("vehicle"), ""))
		}
		rows := append(p.Party(dir(cr.OrganisationID)), r(w("means"), p.Enum("meansOfTransport", cr.MeansOfTransport)))
		var on, vehicle []string
		for _, leg := range d.Legs {
			if leg.CarrierOrganisationID == cr.OrganisationID {
				on, vehicle = append(on, p.Date(leg.TakenOverOn)), append(vehicle, leg.VehicleID)
			}
		}
		return append(rows, r(w("transfer"), strings.Join(on, "\n")), r(w("vehicle"), strings.Join(vehicle, "\n")))
	}
	at := func(i int) *m.Carrier {
		if i >= 0 && i < len(t.Carriers) {
			return &t.Carriers[i]
		}
		return nil
	}
	last := at(len(t.Carriers) - 1)
	if len(t.Carriers) < 3 {
		last = nil
	}
	carriers := []printing.Block{box("8", "8", printing.Third, carrier(at(0))...), box("", "8b", printing.Third, carrier(at(1))...),
		box("", "8c", printing.Third, carrier(last)...)}
	if len(t.Carriers) > 3 {
		more := box("", "8d", printing.Full)
		for i := 2; i < len(t.Carriers)-1; i++ {
			cr := t.Carriers[i]
			more.Rows = append(more.Rows, r(fmt.Sprintf("(%d)", i+1), p.PartyBrief(dir(cr.OrganisationID))+"\n"+w("means")+": "+p.Enum("meansOfTransport", cr.MeansOfTransport)))
		}
		carriers = append(carriers, more)
	}
	reception := func(no string, place printing.Place, rec *m.ReceptionRecord, who string) printing.Block {
		b := box(no, no, place, p.Party(dir(who))[1]) // the name: the rest stands in box 4 or 10
		b.Rows = append(b.Rows, r(w("received"), ""), r(w("quantity"), ""))
		if no == "18" {
			b.Rows = append(b.Rows, r(w("accepted"), ""))
		}
		if rec == nil {
			return b
		}
		b.Rows[1].Value, b.Rows[2].Value = p.Date(rec.ReceivedOn), p.Quantity(rec.Quantity)
		if no == "18" {
			b.Rows[3].Value = w("acceptedYes")
			switch part := d.RejectedPart; {
			case rec.Rejected:
				b.Rows[3].Value = w("rejectedYes")
			case part != nil: // our design: a part refused, the rest accepted
				b.Rows[3].Value = w("partly")
				if accepted, ok := less(rec.Quantity, part.Quantity); ok {
					b.Rows = append(b.Rows, r(w("acceptedQty"), p.Quantity(accepted)))
				}
				b.Rows = append(b.Rows, r(w("refused"), p.Quantity(part.Quantity)))
			}
			if rec.Reason != "" {
				b.Rows = append(b.Rows, r(w("reason"), rec.Reason))
			}
			if part := d.RejectedPart; part != nil && !rec.Rejected {
				what := w("partOpen")
				if words := part.Arrangement.EnumLabels(); part.Arrangement > 0 && int(part.Arrangement) < len(words) {
					what = words[part.Arrangement].In(lang)
					if part.FacilityOrganisationID != "" {
						what += ": " + p.PartyBrief(dir(part.FacilityOrganisationID))
					}
				}
				done := w("partOpen")
				if part.ResolvedOn != "" {
					done = p.Date(part.ResolvedOn)
				}
				b.Rows = append(b.Rows, r(w("arrangement"), what), r(w("partDue"), p.Date(d.RejectedPartDue())), r(w("partDone"), done))
			}
		}
		return b
	}
	facility := reception("18", printing.Left, d.Facility, c.Facility.OrganisationID)
	facility.Heading = w("facilityHeading")
	completion := box("19", "19", printing.Right, p.Party(dir(c.Facility.OrganisationID))[1], r(w("completedOn"), ""), r(w("code"), ""))
	if cp := d.Completion; cp != nil {
		completion.Rows[1].Value, completion.Rows[2].Value = p.Date(cp.CompletedOn), p.Code("operation", cp.OperationCode)
	}
	var signals []string
	for _, s := range d.Signals {
		kind := ""
		if names := s.Type.EnumNames(); int(s.Type) >= 0 && int(s.Type) < len(names) {
			kind = p.Enum("MovementSignalType", names[s.Type])
		}
		line := fmt.Sprintf("%s: %s, %s", dir.Name(s.AuthorityOrganisationID), kind, p.At(s.At))
		if s.Reason != "" {
			line += " – " + s.Reason
		}
		signals = append(signals, line)
	}
	exit := box("20", "20", printing.Third, r(w("left"), ""))
	exit.Heading = w("customsHeading")
	blocks = []printing.Block{
		box("1", "1", printing.Left, r("", notificationNo)),
		box("2", "2", printing.Right, r("", fmt.Sprintf("%d / %d", t.SequenceNumber, c.NumberOfShipments))),
		box("3", "3", printing.Left, p.Parties(dir, []string{c.Notifier.OrganisationID})...),
		box("4", "4", printing.Right, p.Parties(dir, []string{c.Consignee.OrganisationID})...),
		box("5", "5", printing.Left, r(w("quantity"), p.Quantity(t.ActualQuantity))),
		box("6", "6", printing.Right, r(w("date"), p.Date(t.ActualDateOfShipment))),
		box("7", "7", printing.Full, r(w("types"), p.Enums("packagingType", t.PackagingTypes)), r(w("packages"), "")),
	}
	blocks = append(blocks, carriers...)
	blocks = append(blocks,
		box("9", "9", printing.Left, append(p.Parties(dir, shipment.OrganisationIDs(c.Producers)), r(w("site"), ""))...),
		box("12", "12", printing.Right, r("", c.WasteDescription)),
		box("13", "13", printing.Right),
		box("10", "10", printing.Left, p.Parties(dir, []string{c.Facility.OrganisationID})...),
		box("11", "11", printing.Left, r(w("codes"), p.Codes("operation", d.OperationCodes))),
		box("14", "14", printing.Right, printing.Box14(p, c.WasteClassifications)...),
		box("15", "15", printing.Full, r(w("notifier"), dir.Name(c.Notifier.OrganisationID)), r(w("date"), p.Date(t.ActualDateOfShipment)), r("", w("filed"))),
		box("16", "16", printing.Full, r(w("signals"), strings.Join(signals, "\n"))),
		reception("17", printing.Full, d.Consignee, c.Consignee.OrganisationID),
		facility, completion,
		exit, box("21", "21", printing.Third, r(w("entered"), "")), box("22", "22", printing.Third, r(w("entryExit"), "")),
	)
	return w("title"), w("basis"), blocks
}
