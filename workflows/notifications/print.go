package notifications

import (
	"fmt"
	"strings"
	"time"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The notification document of Annex IA: the boxes of the 1013/2006
// layout in its arrangement (left column the parties 1, 2, 8, 9, 10, right
// column 3–7 and 11–14, then 15–18 across the page, and the competent
// authorities' part 19–21), the block numbers and English titles as the
// form and the UK Environment Agency's print of it have them; the
// 2024/1157 annex text was not available (searched again for issue 45: a
// stand-in, see docs/compliance.md), German titles our translation. Each
// box holds what the notification records of it so far; what our content
// does not carry (customs offices, physical characteristics, the Y- and
// H-codes) prints as empty.
var annexIA = printing.Words{
	"title": {"Notification document for transboundary movements/shipments of waste", "Notifizierungsformular für grenzüberschreitende Verbringungen von Abfällen"},
	"basis": {"Regulation (EU) 2024/1157, Annex IA. The 2024 annex's text could not be found (searched on EUR-Lex in English and German): boxes, numbers and titles follow the form of Regulation (EC) No 1013/2006 as a stand-in.",
		"Verordnung (EU) 2024/1157, Anhang IA. Der Text des Anhangs von 2024 war nicht auffindbar (auf EUR-Lex auf Englisch und Deutsch gesucht): Felder, Nummern und Titel folgen als Platzhalter dem Formular der Verordnung (EG) Nr. 1013/2006."},
	"1":           {"Exporter – notifier", "Exporteur – notifizierende Person"},
	"2":           {"Importer – consignee", "Importeur – Empfänger"},
	"3":           {"Notification No.", "Notifizierungsnummer"},
	"4":           {"Total intended number of shipments", "Vorgesehene Gesamtzahl der Verbringungen"},
	"5":           {"Total intended quantity", "Vorgesehene Gesamtmenge"},
	"6":           {"Intended period of time for shipment(s)", "Vorgesehener Zeitraum der Verbringung(en)"},
	"7":           {"Packaging type(s)", "Art(en) der Verpackung"},
	"8":           {"Intended carrier(s)", "Vorgesehene(s) Transportunternehmen"},
	"9":           {"Waste generator(s) – producer(s)", "Abfallerzeuger"},
	"10":          {"Disposal facility / recovery facility", "Beseitigungs- / Verwertungsanlage"},
	"11":          {"Disposal / recovery operation(s)", "Beseitigungs- / Verwertungsverfahren"},
	"12":          {"Designation and composition of the waste", "Bezeichnung und Zusammensetzung der Abfälle"},
	"13":          {"Physical characteristics", "Physikalische Eigenschaften"},
	"14":          {"Waste identification (fill in relevant codes)", "Abfallidentifizierung (einschlägige Codes angeben)"},
	"15":          {"(a) Countries/States concerned, (b) competent authorities, (c) specific points of exit or entry", "(a) Betroffene Staaten, (b) zuständige Behörden, (c) Ausgangs- und Eingangsstellen"},
	"16":          {"Customs offices of entry and/or exit and/or export (European Union)", "Zollstellen des Eingangs, Ausgangs oder der Ausfuhr (Europäische Union)"},
	"17":          {"Exporter's – notifier's / generator's – producer's declaration", "Erklärung des Exporteurs – der notifizierenden Person / des Erzeugers"},
	"18":          {"Number of annexes attached", "Anzahl der beigefügten Anhänge"},
	"19":          {"Acknowledgement from the relevant competent authority of countries of import – destination / transit / export – dispatch", "Empfangsbestätigung der zuständigen Behörde des Einfuhr-, Durchfuhr- oder Ausfuhrstaats"},
	"20":          {"Written consent to the movement provided by the competent authority", "Schriftliche Zustimmung der zuständigen Behörde zur Verbringung"},
	"21":          {"Specific conditions on consenting to the movement or reasons for objecting", "Auflagen der Zustimmung zur Verbringung oder Gründe für Einwände"},
	"ca":          {"For use by competent authorities", "Von den zuständigen Behörden auszufüllen"},
	"guarantee":   {"Financial guarantee or equivalent insurance (Art. 7 Regulation (EU) 2024/1157)", "Sicherheitsleistung oder gleichwertige Versicherung (Art. 7 Verordnung (EU) 2024/1157)"},
	"noGuarantee": {"None submitted yet.", "Noch keine eingereicht."},
	"awaiting":    {"awaiting approval by the competent authority of dispatch", "Genehmigung der Behörde am Versandort ausstehend"},
	"gKind":       {"Kind", "Art"},
	"gAmount":     {"Amount covered", "Gedeckter Betrag"},
	"gGuarantor":  {"Guarantor or insurer", "Bürge oder Versicherer"},
	"gReference":  {"Guarantee or policy number", "Nummer der Bürgschaft oder Police"},
	"gValid":      {"Valid", "Gültig"},
	"gApproved":   {"Approved by", "Genehmigt von"},
	"filed":       {"Filed electronically through the notifier's account; the audit chain records who and when.", "Elektronisch über das Konto der notifizierenden Person eingereicht; die Prüfkette hält fest, wer und wann."},
	"concA":       {"A. Shipment(s)", "A. Verbringung(en)"},
	"concB":       {"B. Operation", "B. Verfahren"},
	"concC":       {"C. Pre-consented recovery facility", "C. Verwertungsanlage mit Vorabzustimmung"},
	"single":      {"(i) individual shipment", "(i) einmalige Verbringung"},
	"multi":       {"(ii) multiple shipments", "(ii) mehrmalige Verbringungen"},
	"recov":       {"(ii) recovery", "(ii) Verwertung"},
	"disp":        {"(i) disposal", "(i) Beseitigung"},
	"yes":         {"yes", "ja"},
	"no":          {"no", "nein"},
	"quantity":    {"Tonnes (Mg) / m³", "Tonnen (Mg) / m³"},
	"first":       {"First departure", "Erster Versand"},
	"last":        {"Last departure", "Letzter Versand"},
	"types":       {"Type(s)", "Art(en)"},
	"means":       {"Means of transport", "Transportart"},
	"codes":       {"D-code / R-code", "D-Code / R-Code"},
	"site":        {"Site and process of generation", "Ort und Verfahren der Erzeugung"},
	"kind":        {"Facility", "Anlage"},
	"recovery":    {"recovery facility", "Verwertungsanlage"},
	"disposal":    {"disposal facility", "Beseitigungsanlage"},
	"dispatch":    {"State of export – dispatch", "Ausfuhrstaat – Versandstaat"},
	"transit":     {"State(s) of transit (entry and exit)", "Durchfuhrstaat(en) (Ein- und Ausgang)"},
	"destination": {"State of import – destination", "Einfuhrstaat – Empfängerstaat"},
	"points":      {"Points of exit or entry", "Ausgangs- und Eingangsstellen"},
	"entry":       {"Entry", "Eingang"}, "exit": {"Exit", "Ausgang"}, "export": {"Export", "Ausfuhr"},
	"notifier":    {"Notifier", "Notifizierende Person"},
	"producer":    {"Producer(s)", "Erzeuger"},
	"annexes":     {"Annexes", "Anhänge"},
	"received":    {"received on", "eingegangen am"},
	"again":       {"acknowledged again on", "erneut bestätigt am"},
	"againN":      {"acknowledged again %d times, the last on", "%d-mal erneut bestätigt, zuletzt am"},
	"given":       {"given on", "erteilt am"},
	"validUntil":  {"valid until", "gültig bis"},
	"consentEnd":  {"Consent valid until", "Zustimmung gültig bis"},
	"conditionsQ": {"specific conditions", "Auflagen"},
	"see21":       {"yes (see 21)", "ja (siehe 21)"},
	"conditions":  {"Conditions", "Auflagen"},
	"grounds":     {"Reasons for objecting", "Gründe für Einwände"},
	"tacit":       {"tacit", "stillschweigend"},
	"pending":     {"no decision yet", "noch keine Entscheidung"},
}

// Form lays out notification d, numbered number, as Annex IA's boxes in
// lang ("en" or "de"); dir gives the parties' details.
func Form(d *n.Notification, number, lang string, dir printing.Directory) (title, basis string, blocks []printing.Block) {
	w, p := annexIA.In(lang), printing.For(lang)
	c := &d.Content
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	box := func(no string, place printing.Place, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(no), Place: place, Rows: rows}
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
	facility := w("recovery")
	if op == w("disp") {
		facility = w("disposal")
	}
	authority := func(id string) string {
		if id == "" {
			return ""
		}
		a := dir(id)
		s := dir.Name(id)
		if a.Address.Country != "" {
			s += "\n" + p.Country(a.Address.Country)
		}
		return s
	}
	var transit []string
	for i, a := range c.CompetentAuthorities.Transit {
		line := dir.Name(a.OrganisationID)
		if i < len(c.Route.TransitCountries) {
			line = p.Country(c.Route.TransitCountries[i]) + ": " + line
		}
		transit = append(transit, line)
	}
	ids := func(refs []shipment.PartyRef) []string { return shipment.OrganisationIDs(refs) }
	blocks = []printing.Block{
		box("1", printing.Left, p.Parties(dir, []string{c.Notifier.OrganisationID})...),
		box("3", printing.Right, r(w("3"), number), r(w("concA"), kind), r(w("concB"), op), r(w("concC"), pre)),
		box("4", printing.Right, r("", fmt.Sprint(c.NumberOfShipments))),
		box("2", printing.Left, p.Parties(dir, []string{c.Consignee.OrganisationID})...),
		box("5", printing.Right, r(w("quantity"), p.Quantity(c.TotalQuantity))),
		box("6", printing.Right, r(w("first"), p.Date(c.ShipmentPeriod.FirstDeparture)), r(w("last"), p.Date(c.ShipmentPeriod.LastDeparture))),
		box("7", printing.Right, r(w("types"), p.Enums("packagingType", c.PackagingTypes))),
		box("8", printing.Left, append(p.Parties(dir, ids(c.Carriers)), r(w("means"), p.Enums("meansOfTransport", c.Route.MeansOfTransport)))...),
		box("11", printing.Right, r(w("codes"), p.Codes("operation", c.RecoveryDisposalCodes))),
		box("12", printing.Right, r("", c.WasteDescription)),
		box("9", printing.Left, append(p.Parties(dir, ids(c.Producers)), r(w("site"), ""))...),
		box("13", printing.Right),
		box("10", printing.Left, append([]printing.Row{r(w("kind"), facility)}, p.Parties(dir, []string{c.Facility.OrganisationID})...)...),
		box("14", printing.Right, printing.Box14(p, c.WasteClassifications)...),
		box("15", printing.Full, r(w("dispatch"), authority(c.CompetentAuthorities.Dispatch.OrganisationID)), r(w("transit"), strings.Join(transit, "\n")),
			r(w("destination"), authority(c.CompetentAuthorities.Destination.OrganisationID)), r(w("points"), strings.Join(c.Route.EntryExitPoints, "\n"))),
		box("16", printing.Full, r(w("entry"), ""), r(w("exit"), ""), r(w("export"), "")),
		box("17", printing.Left, r(w("notifier"), dir.Name(c.Notifier.OrganisationID)), r(w("producer"), names(dir, ids(c.Producers))), r("", w("filed"))),
		box("18", printing.Right, r(w("annexes"), fmt.Sprint(len(d.Metadata.FileAttachments)))),
	}
	// For use by competent authorities: each concerned authority's
	// acknowledgement (19) and decision (20), the conditions and grounds (21).
	ack := box("19", printing.Left)
	ack.Heading = w("ca")
	ack.Rows = acknowledgementRows(d.Acknowledgements, func(a n.AcknowledgementRecord, again int, last time.Time) printing.Row {
		line := w("received") + " " + p.At(a.At)
		switch {
		case again == 1:
			line += "\n" + w("again") + " " + p.At(last)
		case again > 1:
			line += "\n" + fmt.Sprintf(w("againN"), again) + " " + p.At(last)
		}
		return r(dir.Name(a.Authority), line)
	})
	consent := box("20", printing.Right)
	conditions := box("21", printing.Full)
	decided := map[string]bool{}
	for _, dc := range d.Decisions {
		decided[dc.Authority] = true
		lines := []string{decisionWords(p, &dc, w("tacit")), w("given") + " " + p.At(dc.At)}
		if dc.ValidUntil != "" {
			lines = append(lines, w("validUntil")+" "+p.Date(dc.ValidUntil))
		}
		if len(dc.Conditions) > 0 {
			lines = append(lines, w("conditionsQ")+": "+w("see21"))
			conditions.Rows = append(conditions.Rows, r(dir.Name(dc.Authority)+" – "+w("conditions"), strings.Join(dc.Conditions, "\n")))
		}
		if dc.Grounds != "" {
			conditions.Rows = append(conditions.Rows, r(dir.Name(dc.Authority)+" – "+w("grounds"), dc.Grounds))
		}
		consent.Rows = append(consent.Rows, r(dir.Name(dc.Authority), strings.Join(lines, "\n")))
	}
	for _, a := range c.CompetentAuthorities.Authorities() {
		if !decided[a.OrganisationID] && len(d.Decisions) > 0 {
			consent.Rows = append(consent.Rows, r(dir.Name(a.OrganisationID), w("pending")))
		}
	}
	if d.ConsentValidUntil != "" {
		consent.Rows = append(consent.Rows, r(w("consentEnd"), p.Date(d.ConsentValidUntil)))
	}
	return w("title"), w("basis"), append(blocks, ack, consent, conditions, guaranteeBlock(d, w, p, dir))
}

// acknowledgementRows is box 19: one row per authority, in the order they
// first acknowledged, with the receipt's date (the box's meaning) and how
// often and when last the authority acknowledged again (a correction
// accepted, a receipt after the information it asked for): a notification
// corrected twenty times printed twenty identical receipts.
func acknowledgementRows(acks []n.AcknowledgementRecord, row func(first n.AcknowledgementRecord, again int, last time.Time) printing.Row) []printing.Row {
	type seen struct {
		first n.AcknowledgementRecord
		again int
		last  time.Time
	}
	var order []*seen
	by := map[string]*seen{}
	for _, a := range acks {
		if s := by[a.Authority]; s != nil {
			s.again, s.last = s.again+1, a.At
			continue
		}
		s := &seen{first: a}
		by[a.Authority] = s
		order = append(order, s)
	}
	rows := make([]printing.Row, 0, len(order))
	for _, s := range order {
		rows = append(rows, row(s.first, s.again, s.last))
	}
	return rows
}

// guaranteeBlock is the financial guarantee or insurance in force, or the
// one awaiting approval (Art. 7): an unnumbered section after 21, as the
// stand-in form has no box for it.
func guaranteeBlock(d *n.Notification, w func(string) string, p printing.In, dir printing.Directory) printing.Block {
	b := printing.Block{Title: w("guarantee"), Place: printing.Full}
	g := d.ApprovedGuarantee()
	if g == nil {
		g = d.PendingGuarantee()
	}
	if g == nil {
		return printing.Block{Title: b.Title, Place: b.Place, Rows: []printing.Row{{Value: w("noGuarantee")}}}
	}
	kind := ""
	if names := g.Guarantee.Kind.EnumNames(); int(g.Guarantee.Kind) >= 0 && int(g.Guarantee.Kind) < len(names) {
		kind = p.Enum("GuaranteeKind", names[g.Guarantee.Kind])
	}
	approved := w("awaiting")
	if g.ApprovedAt != nil {
		approved = dir.Name(g.ApprovedBy) + ", " + p.At(*g.ApprovedAt)
	}
	b.Rows = []printing.Row{
		{Label: w("gKind"), Value: kind},
		{Label: w("gAmount"), Value: p.Number(g.Guarantee.Amount) + " " + g.Guarantee.Currency},
		{Label: w("gGuarantor"), Value: g.Guarantee.Guarantor},
		{Label: w("gReference"), Value: g.Guarantee.Reference},
		{Label: w("gValid"), Value: p.Date(g.Guarantee.ValidFrom) + " – " + p.Date(g.Guarantee.ValidUntil)},
		{Label: w("gApproved"), Value: approved},
	}
	return b
}

// names are the names of organisations ids, one a line.
func names(dir printing.Directory, ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, dir.Name(id))
	}
	return strings.Join(out, "\n")
}

// decisionWords is a decision's type in words ("Consent with
// conditions"), with tacit in brackets for a tacit one.
func decisionWords(p printing.In, dc *n.DecisionRecord, tacit string) string {
	kind := ""
	if names := dc.Type.EnumNames(); int(dc.Type) >= 0 && int(dc.Type) < len(names) {
		kind = p.Enum("DecisionType", names[dc.Type])
	}
	if dc.Tacit {
		kind += " (" + tacit + ")"
	}
	return kind
}
