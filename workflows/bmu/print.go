package bmu

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// A transport document printed: the note's fields as they stand (each from
// the newest layer that sets it), then each layer with the fields it sets,
// who signed it and whether each signature verifies. The layout is ours:
// the official BMU forms (Anlage 1 NachwV) are not reproduced, and the XML
// is our format until the official schema is available.
var noteWords = printing.Words{
	"BGS":       {"Consignment note (Begleitschein, BGS)", "Begleitschein (BGS)"},
	"UNS":       {"Acceptance note (Übernahmeschein, UNS)", "Übernahmeschein (UNS)"},
	"basis":     {"Electronic record procedure, NachwV §§ 10, 12 and 17–21; layout and XML format (urn:wasteflow:eanv:1) our design until the official BMU schema is available", "Elektronisches Nachweisverfahren, NachwV §§ 10, 12 und 17–21; Anordnung und XML-Format (urn:wasteflow:eanv:1) unser Entwurf, bis das amtliche BMU-Schema vorliegt"},
	"note":      {"The note as it stands", "Der Schein in seiner aktuellen Fassung"},
	"number":    {"Note number", "Belegnummer"},
	"check":     {"Check digit", "Prüfziffer"},
	"proof":     {"Disposal proof number", "Nachweisnummer"},
	"code":      {"Waste code (AVV)", "Abfallschlüssel (AVV)"},
	"quantity":  {"Quantity (t)", "Menge (t)"},
	"producer":  {"Producer", "Erzeuger"},
	"carrier":   {"Carrier", "Beförderer"},
	"interim":   {"Interim storage", "Zwischenlager"},
	"disposer":  {"Disposer", "Entsorger"},
	"handover":  {"Handed over on", "Übergeben am"},
	"takenOver": {"taken over on", "übernommen am"},
	"accepted":  {"accepted on", "angenommen am"},
	"vehicle":   {"vehicle", "Kennzeichen"},
	"uns":       {"Acceptance notes", "Übernahmescheine"},
	"remarks":   {"Remarks", "Vermerke"},
	"layer":     {"Layer", "Schicht"},
	"role":      {"role", "Rolle"},
	"fields":    {"Fields set in this layer", "In dieser Schicht gesetzte Felder"},
	"signedBy":  {"Signed by", "Signiert von"},
	"signedAt":  {"Signed at", "Signiert am"},
	"unsigned":  {"not signed", "nicht signiert"},
	"signature": {"Signature", "Signatur"},
	"envelope":  {"whole document", "ganzes Dokument"},
	"layerOnly": {"layer", "Schicht"},
	"valid":     {"verifies", "gültig"},
	"invalid":   {"DOES NOT VERIFY", "UNGÜLTIG"},
	"type":      {"Document", "Dokument"},
	"layers":    {"Layers", "Schichten"},
	"sigs":      {"Signatures verifying", "Gültige Signaturen"},
	"noNumber":  {"(no number yet)", "(noch ohne Nummer)"},
}

// Printed is a note laid out for print.
type Printed struct {
	Form     *printing.Form
	FileName string
}

// Print lays out the note docXML in lang ("en" or "de"), its signatures
// checked against the trusted certificates.
func (s *Service) Print(docXML []byte, lang string) (*Printed, error) {
	d, err := s.parseStored("docXml", docXML)
	if err != nil {
		return nil, err
	}
	n := d.Note()
	view := bmu.View(n)
	sigs := d.Signatures(s.Trust)
	w := noteWords.In(lang)
	number := ""
	var rows []printing.Row
	r := func(label, value string) {
		if strings.TrimSpace(value) != "" {
			rows = append(rows, printing.Row{Label: label, Value: value})
		}
	}
	party := func(nummer, name, extra string) string {
		parts := []string{}
		for _, p := range []string{name, nummer, extra} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, ", ")
	}
	dated := func(label, date string) string {
		if date == "" {
			return ""
		}
		return label + " " + date
	}
	carrier := func(c bmu.Carrier) string {
		v := ""
		if c.Kennzeichen.Value != "" {
			v = w("vehicle") + " " + c.Kennzeichen.Value
		}
		return party(c.Nummer.Value, c.Name.Value, strings.Trim(v+"; "+dated(w("takenOver"), c.UebernahmeDatum.Value), "; "))
	}
	amount := func(a bmu.Amount) string {
		if a.Value == nil {
			return ""
		}
		return a.Value.String()
	}
	switch {
	case view.Bgs != nil:
		b := view.Bgs
		number = b.Nummer.Value
		r(w("number"), b.Nummer.Value)
		r(w("check"), b.Pruefziffer.Value)
		r(w("proof"), b.Nachweisnummer.Value)
		r(w("code"), b.Abfallschluessel.Value)
		r(w("quantity"), amount(b.Menge))
		r(w("producer"), party(b.Erzeuger.Nummer.Value, b.Erzeuger.Name.Value, b.Erzeuger.Anschrift.Value))
		r(w("handover"), b.UebergabeDatum.Value)
		for i, c := range b.Befoerderer {
			r(fmt.Sprintf("%s %d", w("carrier"), i+1), carrier(c))
		}
		r(w("interim"), party(b.Zwischenlager.Nummer.Value, b.Zwischenlager.Name.Value, dated(w("accepted"), b.Zwischenlager.AnnahmeDatum.Value)))
		r(w("disposer"), party(b.Entsorger.Nummer.Value, b.Entsorger.Name.Value, dated(w("accepted"), b.Entsorger.AnnahmeDatum.Value)))
		var uns []string
		for _, u := range b.UnsNrn {
			uns = append(uns, u.Value)
		}
		r(w("uns"), strings.Join(uns, ", "))
		r(w("remarks"), b.Vermerke.Value)
	case view.Uns != nil:
		u := view.Uns
		number = u.Nummer.Value
		r(w("number"), u.Nummer.Value)
		r(w("check"), u.Pruefziffer.Value)
		r(w("proof"), u.Nachweisnummer.Value)
		r(w("code"), u.Abfallschluessel.Value)
		r(w("quantity"), amount(u.Menge))
		r(w("producer"), party(u.Erzeuger.Nummer.Value, u.Erzeuger.Name.Value, u.Erzeuger.Anschrift.Value))
		r(w("handover"), u.UebergabeDatum.Value)
		r(w("carrier"), carrier(u.Befoerderer))
		r(w("disposer"), party(u.Entsorger.Nummer.Value, u.Entsorger.Name.Value, dated(w("accepted"), u.Entsorger.AnnahmeDatum.Value)))
		r(w("remarks"), u.Vermerke.Value)
	}
	blocks := []printing.Block{{No: "1", Title: w("note"), Rows: rows}}
	valid := 0
	for _, sg := range sigs {
		if sg.Valid {
			valid++
		}
	}
	for i, l := range n.Layers {
		b := printing.Block{No: fmt.Sprint(i + 2), Title: fmt.Sprintf("%s %d: %s (%s %s)", w("layer"), l.Index, l.Type, w("role"), l.Role)}
		paths := make([]string, 0, len(l.Values))
		for p := range l.Values {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var fields []string
		for _, p := range paths {
			fields = append(fields, p+" = "+s.printedValue(n.Type, p, l.Values[p]))
		}
		b.Rows = append(b.Rows, printing.Row{Label: w("fields"), Value: strings.Join(fields, "\n")})
		signed := false
		for _, sg := range sigs {
			if int(sg.LayerIndex) != l.Index {
				continue
			}
			signed = true
			scope := w("layerOnly")
			if sg.Envelope {
				scope = w("envelope")
			}
			verdict := w("valid")
			if !sg.Valid {
				verdict = w("invalid") + ": " + sg.Reason
			}
			b.Rows = append(b.Rows, printing.Row{Label: w("signedBy"), Value: sg.Signer},
				printing.Row{Label: w("signedAt"), Value: sg.SignedAt},
				printing.Row{Label: w("signature") + " (" + scope + ")", Value: verdict})
		}
		if !signed {
			b.Rows = append(b.Rows, printing.Row{Label: w("signature"), Value: w("unsigned")})
		}
		blocks = append(blocks, b)
	}
	shown := number
	if shown == "" {
		shown = n.Type + " " + w("noNumber")
	}
	f := &printing.Form{Title: w(n.Type), Basis: w("basis"), Number: shown, Blocks: blocks, Printed: s.now().UTC().Truncate(time.Second),
		Labels: printing.LabelsOf(lang),
		Facts: []printing.Row{{Label: w("type"), Value: n.Type}, {Label: w("layers"), Value: fmt.Sprint(len(n.Layers))},
			{Label: w("sigs"), Value: fmt.Sprintf("%d %s %d", valid, printing.LabelsOf(lang).Of, len(sigs))}}}
	name := n.Type
	if number != "" {
		name += "-" + number
	}
	return &Printed{Form: f, FileName: name + ".pdf"}, nil
}

// printedValue is a field's value as a layer's block prints it: cut to
// the field's length (a note stored before lengths were checked may hold
// more), so that one field cannot crowd out the others of the print.
func (s *Service) printedValue(docType, path, v string) string {
	max := bmu.MaxLength(docType, bmu.Pattern(path))
	if max == 0 || len(v) <= max || utf8.RuneCountInString(v) <= max {
		return v
	}
	i := 0
	for k := 0; k < max; k++ {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
	}
	return v[:i] + fmt.Sprintf(" […cut: %d characters in all]", utf8.RuneCountInString(v))
}

// NoteSummary is what a register shows of a note (NachwV §§ 23–25): its
// number, waste code, quantity, the producer's, carriers' and disposer's
// numbers and names, and the days of handover and acceptance.
type NoteSummary struct {
	Type, Number, Code, Quantity         string
	Producer, Disposer                   string
	Carriers                             []string
	HandoverOn, AcceptedOn, TopLayerType string
}

// Summary reads the register's fields of note docXML.
func (s *Service) Summary(docXML []byte) (*NoteSummary, error) {
	d, err := s.Mapping.ParseStored(docXML) // a stored row, as it was stored
	if err != nil {
		return nil, err
	}
	n := d.Note()
	v := bmu.View(n)
	out := &NoteSummary{Type: n.Type}
	if top := n.Top(); top != nil {
		out.TopLayerType = top.Type.String()
	}
	who := func(number, name string) string {
		if number == "" {
			return name
		}
		if name == "" {
			return number
		}
		return name + " [" + number + "]"
	}
	amount := func(a bmu.Amount) string {
		if a.Value == nil {
			return ""
		}
		return a.Value.String()
	}
	carrier := func(c bmu.Carrier) string {
		s := who(c.Nummer.Value, c.Name.Value)
		if c.Kennzeichen.Value != "" {
			s += " (" + c.Kennzeichen.Value + ")"
		}
		return s
	}
	switch {
	case v.Bgs != nil:
		b := v.Bgs
		out.Number, out.Code, out.Quantity, out.HandoverOn = b.Nummer.Value, b.Abfallschluessel.Value, amount(b.Menge), b.UebergabeDatum.Value
		out.Producer, out.Disposer, out.AcceptedOn = who(b.Erzeuger.Nummer.Value, b.Erzeuger.Name.Value), who(b.Entsorger.Nummer.Value, b.Entsorger.Name.Value), b.Entsorger.AnnahmeDatum.Value
		for _, c := range b.Befoerderer {
			out.Carriers = append(out.Carriers, carrier(c))
		}
	case v.Uns != nil:
		u := v.Uns
		out.Number, out.Code, out.Quantity, out.HandoverOn = u.Nummer.Value, u.Abfallschluessel.Value, amount(u.Menge), u.UebergabeDatum.Value
		out.Producer, out.Disposer, out.AcceptedOn = who(u.Erzeuger.Nummer.Value, u.Erzeuger.Name.Value), who(u.Entsorger.Nummer.Value, u.Entsorger.Name.Value), u.Entsorger.AnnahmeDatum.Value
		out.Carriers = append(out.Carriers, carrier(u.Befoerderer))
	}
	return out, nil
}
