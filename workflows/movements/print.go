package movements

import (
	"fmt"
	"strings"

	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The movement document of Annex IB: the blocks of the 1013/2006 layout
// (a stand-in until the 2024/1157 annex is verified, see docs/compliance.md),
// German titles our translation. What the notification says of the waste
// and its parties comes from the notification the movement belongs to;
// the shipment, its carriers' legs and the certificates from the movement.
var annexIB = printing.Words{
	"title": {"Movement document for transboundary movements/shipments of waste", "Begleitformular für grenzüberschreitende Verbringungen von Abfällen"},
	"basis": {"Regulation (EU) 2024/1157, Annex IB; blocks in the layout of Regulation (EC) No 1013/2006 (stand-in until the 2024 annex is verified)",
		"Verordnung (EU) 2024/1157, Anhang IB; Felder in der Anordnung der Verordnung (EG) Nr. 1013/2006 (Platzhalter, bis der Anhang von 2024 geprüft ist)"},
	"1":               {"Corresponding to notification No.", "Zugehörige Notifizierungsnummer"},
	"2":               {"Shipment No. / Total number of shipments", "Nummer der Verbringung / Gesamtzahl der Verbringungen"},
	"3":               {"Exporter – notifier", "Exporteur – notifizierende Person"},
	"4":               {"Importer – consignee", "Importeur – Empfänger"},
	"5":               {"Actual quantity", "Tatsächliche Menge"},
	"6":               {"Actual date of shipment", "Tatsächliches Datum der Verbringung"},
	"7":               {"Packaging", "Verpackung"},
	"8":               {"Carriers", "Transportunternehmen"},
	"9":               {"Waste generator(s) – producer(s)", "Abfallerzeuger"},
	"10":              {"Disposal facility / recovery facility", "Beseitigungs- / Verwertungsanlage"},
	"11":              {"Disposal / recovery operation(s)", "Beseitigungs- / Verwertungsverfahren"},
	"12":              {"Designation and composition of the waste", "Bezeichnung und Zusammensetzung der Abfälle"},
	"13":              {"Physical characteristics", "Physikalische Eigenschaften"},
	"14":              {"Waste identification", "Abfallidentifizierung"},
	"15":              {"Exporter's – notifier's / generator's – producer's declaration", "Erklärung des Exporteurs – der notifizierenden Person / des Erzeugers"},
	"16":              {"For use by any person involved in the transboundary movement in case additional information is required", "Für zusätzliche Angaben der an der Verbringung Beteiligten"},
	"17":              {"Shipment received by importer – consignee (if not facility)", "Eingang beim Importeur – Empfänger (wenn nicht Anlage)"},
	"18":              {"Shipment received at disposal / recovery facility", "Eingang bei der Beseitigungs- / Verwertungsanlage"},
	"19":              {"Certification of the completed disposal / recovery", "Bescheinigung der abgeschlossenen Beseitigung / Verwertung"},
	"facilityHeading": {"To be completed by disposal / recovery facility", "Von der Beseitigungs- / Verwertungsanlage auszufüllen"},
	"org":             {"Organisation", "Organisation"}, "tonnes": {"Tonnes (Mg)", "Tonnen (Mg)"}, "m3": {"m³", "m³"},
	"date": {"Date", "Datum"}, "types": {"Type(s)", "Art(en)"}, "means": {"Means of transport", "Transportart"},
	"vehicle": {"Vehicle", "Fahrzeug"}, "transfer": {"Date of transfer", "Übergabedatum"}, "codes": {"Operation codes", "Verfahrenscodes"},
	"received": {"Received on", "Eingegangen am"}, "accepted": {"Accepted / rejected", "Angenommen / zurückgewiesen"},
	"acceptedYes": {"accepted", "angenommen"}, "rejectedYes": {"rejected", "zurückgewiesen"}, "reason": {"Reason", "Grund"},
	"completedOn": {"Completed on", "Abgeschlossen am"}, "code": {"Operation", "Verfahren"},
	"filed":   {"Declared electronically through the notifier's account; the audit chain records who and when.", "Elektronisch über das Konto der notifizierenden Person erklärt; die Prüfkette hält fest, wer und wann."},
	"signals": {"Signals of the competent authorities", "Mitteilungen der zuständigen Behörden"},
}

// Form lays out movement d under notification parent (numbered
// notificationNo) as Annex IB's blocks in lang ("en" or "de").
func Form(d *m.Movement, parent *n.Notification, notificationNo, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, org := annexIB.In(lang), dir.Party
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	block := func(no string, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(no), Rows: rows}
	}
	c := &parent.Content
	t := &d.Template
	var producers, codes []string
	for _, p := range c.Producers {
		producers = append(producers, org(p.OrganisationID))
	}
	for _, wc := range c.WasteClassifications {
		codes = append(codes, wc.List+": "+wc.Code)
	}
	carriers := block("8")
	for i, cr := range t.Carriers {
		no := fmt.Sprintf("(%c)", 'a'+rune(min(i, 25)))
		carriers.Rows = append(carriers.Rows, r(no+" "+w("org"), org(cr.OrganisationID)), r(no+" "+w("means"), cr.MeansOfTransport))
		for _, leg := range d.Legs {
			if leg.CarrierOrganisationID == cr.OrganisationID {
				carriers.Rows = append(carriers.Rows, r(no+" "+w("transfer"), leg.TakenOverOn), r(no+" "+w("vehicle"), leg.VehicleID))
			}
		}
	}
	reception := func(no string, rec *m.ReceptionRecord, who string) printing.Block {
		b := block(no, r(w("org"), org(who)))
		if rec == nil {
			return b
		}
		b.Rows = append(b.Rows, r(w("received"), rec.ReceivedOn))
		b.Rows = append(b.Rows, printing.QuantityRows(rec.Quantity, w("tonnes"), w("m3"))...)
		if no == "18" {
			state := w("acceptedYes")
			if rec.Rejected {
				state = w("rejectedYes")
			}
			b.Rows = append(b.Rows, r(w("accepted"), state))
			if rec.Reason != "" {
				b.Rows = append(b.Rows, r(w("reason"), rec.Reason))
			}
		}
		return b
	}
	facility := reception("18", d.Facility, c.Facility.OrganisationID)
	facility.Heading = w("facilityHeading")
	completion := block("19", r(w("org"), org(c.Facility.OrganisationID)))
	if cp := d.Completion; cp != nil {
		completion.Rows = append(completion.Rows, r(w("completedOn"), cp.CompletedOn), r(w("code"), cp.OperationCode))
	}
	var signals []string
	for _, s := range d.Signals {
		line := fmt.Sprintf("%s: %s, %s", org(s.AuthorityOrganisationID), enumName(s.Type.EnumNames(), int(s.Type)), s.At.UTC().Format("2006-01-02"))
		if s.Reason != "" {
			line += " – " + s.Reason
		}
		signals = append(signals, line)
	}
	blocks = []printing.Block{
		block("1", r(w("1"), notificationNo)),
		block("2", r(w("2"), fmt.Sprintf("%d / %d", t.SequenceNumber, c.NumberOfShipments))),
		block("3", r(w("org"), org(c.Notifier.OrganisationID))),
		block("4", r(w("org"), org(c.Consignee.OrganisationID))),
		block("5", printing.QuantityRows(t.ActualQuantity, w("tonnes"), w("m3"))...),
		block("6", r(w("date"), t.ActualDateOfShipment)),
		block("7", r(w("types"), strings.Join(t.PackagingTypes, ", "))),
		carriers,
		block("9", r(w("org"), strings.Join(producers, "\n"))),
		block("10", r(w("org"), org(c.Facility.OrganisationID))),
		block("11", r(w("codes"), strings.Join(d.OperationCodes, ", "))),
		block("12", r(w("12"), c.WasteDescription)),
		block("13"),
		block("14", r(w("14"), strings.Join(codes, "\n"))),
		block("15", r(w("org"), org(c.Notifier.OrganisationID)), r("", w("filed"))),
		block("16", r(w("signals"), strings.Join(signals, "\n"))),
		reception("17", d.Consignee, c.Consignee.OrganisationID),
		facility, completion,
	}
	return w("title"), w("basis"), blocks
}

func enumName(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprint(i)
}
