package notifications

import (
	"fmt"
	"strings"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The notification document of Annex IA: the blocks of the 1013/2006
// layout (block numbers and English titles as the UK Environment Agency's
// print of it; the 2024/1157 annex text was not available: a stand-in,
// see docs/compliance.md), German titles our translation. Each block holds what
// the notification records of it so far; what our content does not carry
// (customs offices, physical characteristics) prints as empty.
var annexIA = printing.Words{
	"title":  {"Notification document for transboundary movements/shipments of waste", "Notifizierungsformular für grenzüberschreitende Verbringungen von Abfällen"},
	"basis":  {"Regulation (EU) 2024/1157, Annex IA; blocks in the layout of Regulation (EC) No 1013/2006 (stand-in until the 2024 annex is verified)", "Verordnung (EU) 2024/1157, Anhang IA; Felder in der Anordnung der Verordnung (EG) Nr. 1013/2006 (Platzhalter, bis der Anhang von 2024 geprüft ist)"},
	"1":      {"Exporter – notifier", "Exporteur – notifizierende Person"},
	"2":      {"Importer – consignee", "Importeur – Empfänger"},
	"3":      {"Notification No.", "Notifizierungsnummer"},
	"4":      {"Total intended number of shipments", "Vorgesehene Gesamtzahl der Verbringungen"},
	"5":      {"Total intended quantity", "Vorgesehene Gesamtmenge"},
	"6":      {"Intended period of time for shipment(s)", "Vorgesehener Zeitraum der Verbringung(en)"},
	"7":      {"Packaging type(s)", "Art(en) der Verpackung"},
	"8":      {"Intended carrier(s)", "Vorgesehene(s) Transportunternehmen"},
	"9":      {"Waste generator(s) – producer(s)", "Abfallerzeuger"},
	"10":     {"Disposal facility / recovery facility", "Beseitigungs- / Verwertungsanlage"},
	"11":     {"Disposal / recovery operation(s)", "Beseitigungs- / Verwertungsverfahren"},
	"12":     {"Designation and composition of the waste", "Bezeichnung und Zusammensetzung der Abfälle"},
	"13":     {"Physical characteristics", "Physikalische Eigenschaften"},
	"14":     {"Waste identification", "Abfallidentifizierung"},
	"15":     {"Countries/States concerned, competent authorities, points of exit or entry", "Betroffene Staaten, zuständige Behörden, Ausgangs- und Eingangsstellen"},
	"16":     {"Customs offices of entry and/or exit and/or export", "Zollstellen des Eingangs, Ausgangs oder der Ausfuhr"},
	"17":     {"Exporter's – notifier's / generator's – producer's declaration", "Erklärung des Exporteurs – der notifizierenden Person / des Erzeugers"},
	"18":     {"Number of annexes attached", "Anzahl der beigefügten Anhänge"},
	"19":     {"Acknowledgement from the relevant competent authority", "Empfangsbestätigung der zuständigen Behörde"},
	"20":     {"Written consent to the movement", "Schriftliche Zustimmung zur Verbringung"},
	"21":     {"Specific conditions on consenting to the movement or reasons for objecting", "Auflagen der Zustimmung oder Gründe für Einwände"},
	"ca":     {"For use by competent authorities", "Von den zuständigen Behörden auszufüllen"},
	"org":    {"Organisation", "Organisation"},
	"filed":  {"Filed electronically through the notifier's account; the audit chain records who and when.", "Elektronisch über das Konto der notifizierenden Person eingereicht; die Prüfkette hält fest, wer und wann."},
	"conc":   {"Notification concerning", "Notifizierung betreffend"},
	"single": {"individual shipment", "einmalige Verbringung"},
	"multi":  {"multiple shipments", "mehrmalige Verbringungen"},
	"recov":  {"recovery", "Verwertung"},
	"disp":   {"disposal", "Beseitigung"},
	"pre":    {"pre-consented recovery facility", "Verwertungsanlage mit Vorabzustimmung"},
	"yes":    {"yes", "ja"}, "no": {"no", "nein"},
	"tonnes": {"Tonnes (Mg)", "Tonnen (Mg)"}, "m3": {"m³", "m³"},
	"first": {"First departure", "Erster Versand"}, "last": {"Last departure", "Letzter Versand"},
	"means": {"Means of transport", "Transportart"}, "codes": {"Operation codes", "Verfahrenscodes"},
	"dispatch": {"State of export – dispatch", "Ausfuhrstaat – Versandstaat"}, "transit": {"State(s) of transit", "Durchfuhrstaat(en)"},
	"destination": {"State of import – destination", "Einfuhrstaat – Empfängerstaat"}, "points": {"Points of exit or entry", "Ausgangs- und Eingangsstellen"},
	"annexes": {"Attachments", "Anlagen"}, "authority": {"Authority", "Behörde"}, "received": {"Received on", "Eingegangen am"},
	"decision": {"Decision", "Entscheidung"}, "validUntil": {"Valid until", "Gültig bis"}, "conditions": {"Conditions", "Auflagen"},
	"grounds": {"Reasons for objecting", "Gründe für Einwände"}, "tacit": {"tacit", "stillschweigend"},
}

// Form lays out notification d, numbered number, as Annex IA's blocks in
// lang ("en" or "de"); dir names the organisations.
func Form(d *n.Notification, number, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, org := annexIA.In(lang), dir.Party
	c := &d.Content
	block := func(no string, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(no), Rows: rows}
	}
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	var producers, carriers, codes []string
	for _, p := range c.Producers {
		producers = append(producers, org(p.OrganisationID))
	}
	for _, p := range c.Carriers {
		carriers = append(carriers, org(p.OrganisationID))
	}
	for _, wc := range c.WasteClassifications {
		codes = append(codes, wc.List+": "+wc.Code)
	}
	kind := w("single")
	if c.NumberOfShipments > 1 {
		kind = w("multi")
	}
	op := w("recov")
	if len(c.RecoveryDisposalCodes) > 0 && strings.HasPrefix(c.RecoveryDisposalCodes[0], "D") {
		op = w("disp")
	}
	pre := w("no")
	if c.Facility.PreConsented {
		pre = w("yes")
	}
	var transit []string
	for i, a := range c.CompetentAuthorities.Transit {
		country := ""
		if i < len(c.Route.TransitCountries) {
			country = c.Route.TransitCountries[i] + ": "
		}
		transit = append(transit, country+org(a.OrganisationID))
	}
	blocks = []printing.Block{
		block("1", r(w("org"), org(c.Notifier.OrganisationID))),
		block("2", r(w("org"), org(c.Consignee.OrganisationID))),
		block("3", r(w("3"), number), r(w("conc"), kind+"; "+op+"; "+w("pre")+": "+pre)),
		block("4", r(w("4"), numberOf(c.NumberOfShipments))),
		block("5", printing.QuantityRows(c.TotalQuantity, w("tonnes"), w("m3"))...),
		block("6", r(w("first"), c.ShipmentPeriod.FirstDeparture), r(w("last"), c.ShipmentPeriod.LastDeparture)),
		block("7", r(w("7"), strings.Join(c.PackagingTypes, ", "))),
		block("8", r(w("org"), strings.Join(carriers, "\n")), r(w("means"), strings.Join(c.Route.MeansOfTransport, ", "))),
		block("9", r(w("org"), strings.Join(producers, "\n"))),
		block("10", r(w("org"), org(c.Facility.OrganisationID)), r(w("pre"), pre)),
		block("11", r(w("codes"), strings.Join(c.RecoveryDisposalCodes, ", "))),
		block("12", r(w("12"), c.WasteDescription)),
		block("13"),
		block("14", r(w("14"), strings.Join(codes, "\n"))),
		block("15", r(w("dispatch"), org(c.CompetentAuthorities.Dispatch.OrganisationID)), r(w("transit"), strings.Join(transit, "\n")),
			r(w("destination"), org(c.CompetentAuthorities.Destination.OrganisationID)), r(w("points"), strings.Join(c.Route.EntryExitPoints, "\n"))),
		block("16"),
		block("17", r(w("org"), org(c.Notifier.OrganisationID)), r("", w("filed"))),
		block("18", r(w("annexes"), numberOf(int32(len(d.Metadata.FileAttachments))))),
	}
	ack := block("19")
	ack.Heading = w("ca")
	for _, a := range d.Acknowledgements {
		ack.Rows = append(ack.Rows, r(w("authority"), org(a.Authority)), r(w("received"), a.At.UTC().Format("2006-01-02")))
	}
	consent := block("20")
	conditions := block("21")
	for _, dc := range d.Decisions {
		kind := decisionName(&dc, w("tacit"))
		consent.Rows = append(consent.Rows, r(w("authority"), org(dc.Authority)), r(w("decision"), kind+", "+dc.At.UTC().Format("2006-01-02")))
		if dc.ValidUntil != "" {
			consent.Rows = append(consent.Rows, r(w("validUntil"), dc.ValidUntil))
		}
		if len(dc.Conditions) > 0 {
			conditions.Rows = append(conditions.Rows, r(org(dc.Authority)+" – "+w("conditions"), strings.Join(dc.Conditions, "\n")))
		}
		if dc.Grounds != "" {
			conditions.Rows = append(conditions.Rows, r(org(dc.Authority)+" – "+w("grounds"), dc.Grounds))
		}
	}
	if d.ConsentValidUntil != "" {
		consent.Rows = append(consent.Rows, r(w("validUntil"), d.ConsentValidUntil))
	}
	return w("title"), w("basis"), append(blocks, ack, consent, conditions)
}

func numberOf(v int32) string { return fmt.Sprint(v) }

// decisionName is a decision's type ("CONSENT"), with tacit in brackets
// for a tacit one.
func decisionName(dc *n.DecisionRecord, tacit string) string {
	kind := "?"
	if names := dc.Type.EnumNames(); int(dc.Type) >= 0 && int(dc.Type) < len(names) {
		kind = names[dc.Type]
	}
	if dc.Tacit {
		kind += " (" + tacit + ")"
	}
	return kind
}
