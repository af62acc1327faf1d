package bmu

import (
	"fmt"
	"sort"
	"strconv"
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
	"BGS":           {"Consignment note (Begleitschein, BGS)", "Begleitschein (BGS)"},
	"UNS":           {"Acceptance note (Übernahmeschein, UNS)", "Übernahmeschein (UNS)"},
	"basis":         {"Electronic record procedure, NachwV §§ 10, 12 and 17–21; layout and XML format (urn:wasteflow:eanv:1) our design until the official BMU schema is available", "Elektronisches Nachweisverfahren, NachwV §§ 10, 12 und 17–21; Anordnung und XML-Format (urn:wasteflow:eanv:1) unser Entwurf, bis das amtliche BMU-Schema vorliegt"},
	"note":          {"Note", "Schein"},
	"number":        {"Note number", "Belegnummer"},
	"check":         {"Check digit", "Prüfziffer"},
	"proof":         {"Disposal proof number", "Nachweisnummer"},
	"code":          {"Waste code (AVV)", "Abfallschlüssel (AVV)"},
	"quantity":      {"Quantity (t)", "Menge (t)"},
	"producer":      {"Producer", "Erzeuger"},
	"carrier":       {"Carrier", "Beförderer"},
	"interim":       {"Interim storage", "Zwischenlager"},
	"disposer":      {"Disposer", "Entsorger"},
	"handover":      {"Handed over on", "Übergeben am"},
	"takenOver":     {"Taken over on", "Übernommen am"},
	"accepted":      {"Accepted on", "Angenommen am"},
	"vehicle":       {"Vehicle", "Kennzeichen"},
	"uns":           {"Acceptance notes", "Übernahmescheine"},
	"remarks":       {"Remarks", "Vermerke"},
	"layer":         {"Layer", "Schicht"},
	"role":          {"role", "Rolle"},
	"fields":        {"Fields set in this layer", "In dieser Schicht gesetzte Felder"},
	"signedBy":      {"Signed by", "Signiert von"},
	"signedAt":      {"Signed at", "Signiert am"},
	"unsigned":      {"not signed", "nicht signiert"},
	"signature":     {"Signature", "Signatur"},
	"envelope":      {"whole document", "ganzes Dokument"},
	"layerOnly":     {"layer", "Schicht"},
	"valid":         {"verifies", "gültig"},
	"invalid":       {"DOES NOT VERIFY", "UNGÜLTIG"},
	"type":          {"Document", "Dokument"},
	"layers":        {"Layers", "Schichten"},
	"sigs":          {"Signatures verifying", "Gültige Signaturen"},
	"noNumber":      {"(no number yet)", "(noch ohne Nummer)"},
	"waste":         {"Waste", "Abfall"},
	"name":          {"Name", "Name"},
	"address":       {"Address", "Anschrift"},
	"producerNo":    {"Producer No.", "Erzeuger-Nr."},
	"carrierNo":     {"Carrier No.", "Beförderer-Nr."},
	"disposerNo":    {"Number", "Nummer"},
	"carriers":      {"Carriers", "Beförderer"},
	"more":          {"Further entries", "Weitere Angaben"},
	"noteHeading":   {"The note as it stands (each field from the newest layer that sets it)", "Der Schein in seiner aktuellen Fassung (jedes Feld aus der jüngsten Schicht, die es setzt)"},
	"layersHeading": {"Layers and signatures", "Schichten und Signaturen"},
}

// nonEmpty are the values of vs that are not empty.
func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// signedAt is a signature's time (RFC 3339) in lang's format, as given
// when it is not one.
func signedAt(v, lang string) string {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return v
	}
	return printing.DateTime(t, lang)
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
	p := printing.For(lang)
	number := ""
	r := func(label, value string) printing.Row { return printing.Row{Label: label, Value: value} }
	box := func(no, key string, place printing.Place, rows ...printing.Row) printing.Block {
		return printing.Block{No: no, Title: w(key), Place: place, Rows: rows}
	}
	amount := func(a bmu.Amount) string {
		if a.Value == nil {
			return ""
		}
		return p.Number(*a.Value) + " t"
	}
	carrier := func(c bmu.Carrier) []printing.Row {
		return []printing.Row{r(w("name"), c.Name.Value), r(w("carrierNo"), c.Nummer.Value), r(w("vehicle"), c.Kennzeichen.Value),
			r(w("takenOver"), p.Date(c.UebernahmeDatum.Value))}
	}
	carriers := func(cs []bmu.Carrier) []printing.Block {
		if len(cs) <= 3 {
			out := make([]printing.Block, 3)
			for i := range out {
				c := bmu.Carrier{}
				if i < len(cs) {
					c = cs[i]
				}
				out[i] = printing.Block{Title: fmt.Sprintf("%s %d", w("carrier"), i+1), Place: printing.Third, Rows: carrier(c)}
			}
			out[0].No = "5"
			return out
		}
		b := box("5", "carriers", printing.Full)
		for i, c := range cs {
			line := strings.Join(nonEmpty(c.Name.Value, c.Nummer.Value, c.Kennzeichen.Value), ", ")
			if d := c.UebernahmeDatum.Value; d != "" {
				line += "; " + w("takenOver") + " " + p.Date(d)
			}
			b.Rows = append(b.Rows, r(fmt.Sprintf("(%d)", i+1), line))
		}
		return []printing.Block{b}
	}
	producer := func(e bmu.Producer) printing.Block {
		return box("3", "producer", printing.Left, r(w("name"), e.Name.Value), r(w("producerNo"), e.Nummer.Value), r(w("address"), e.Anschrift.Value))
	}
	facility := func(no, key string, place printing.Place, f bmu.Facility) printing.Block {
		return box(no, key, place, r(w("name"), f.Name.Value), r(w("disposerNo"), f.Nummer.Value), r(w("accepted"), p.Date(f.AnnahmeDatum.Value)))
	}
	var blocks []printing.Block
	head := func(nummer, pruef, nachweis, code string, menge bmu.Amount, handover string) {
		number = nummer
		blocks = append(blocks,
			box("1", "note", printing.Left, r(w("number"), nummer), r(w("check"), pruef), r(w("proof"), nachweis)),
			box("2", "waste", printing.Right, r(w("code"), p.Code("wasteCode/EU_LIST_OF_WASTE", code)), r(w("quantity"), amount(menge)), r(w("handover"), p.Date(handover))))
	}
	switch {
	case view.Bgs != nil:
		b := view.Bgs
		head(b.Nummer.Value, b.Pruefziffer.Value, b.Nachweisnummer.Value, b.Abfallschluessel.Value, b.Menge, b.UebergabeDatum.Value)
		blocks = append(blocks, producer(b.Erzeuger), facility("4", "disposer", printing.Right, b.Entsorger))
		blocks = append(blocks, carriers(b.Befoerderer)...)
		var uns []string
		for _, u := range b.UnsNrn {
			uns = append(uns, u.Value)
		}
		blocks = append(blocks, facility("6", "interim", printing.Left, b.Zwischenlager),
			box("7", "more", printing.Right, r(w("uns"), strings.Join(uns, ", ")), r(w("remarks"), b.Vermerke.Value)))
	case view.Uns != nil:
		u := view.Uns
		head(u.Nummer.Value, u.Pruefziffer.Value, u.Nachweisnummer.Value, u.Abfallschluessel.Value, u.Menge, u.UebergabeDatum.Value)
		blocks = append(blocks, producer(u.Erzeuger), facility("4", "disposer", printing.Right, u.Entsorger))
		blocks = append(blocks, carriers([]bmu.Carrier{u.Befoerderer})...)
		blocks = append(blocks, box("6", "more", printing.Full, r(w("remarks"), u.Vermerke.Value)))
	}
	blocks[0].Heading = w("noteHeading")
	layersAt := 0 // the number of the last box
	for _, b := range blocks {
		if n, err := strconv.Atoi(b.No); err == nil {
			layersAt = n
		}
	}
	valid := 0
	for _, sg := range sigs {
		if sg.Valid {
			valid++
		}
	}
	for i, l := range n.Layers {
		b := printing.Block{No: fmt.Sprint(layersAt + 1 + i), Title: fmt.Sprintf("%s %d: %s (%s %s)", w("layer"), l.Index, p.Enum("LayerType", fmt.Sprint(l.Type)), w("role"), l.Role)}
		if i == 0 {
			b.Heading = w("layersHeading")
		}
		paths := make([]string, 0, len(l.Values))
		for p := range l.Values {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var fields []string
		for _, p := range paths {
			fields = append(fields, p+" = "+s.printedValue(n.Type, p, l.Values[p], lang))
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
				printing.Row{Label: w("signedAt"), Value: signedAt(sg.SignedAt, lang)},
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
func (s *Service) printedValue(docType, path, v, lang string) string {
	max := bmu.MaxLength(docType, bmu.Pattern(path))
	if max == 0 || len(v) <= max || utf8.RuneCountInString(v) <= max {
		return v
	}
	i := 0
	for k := 0; k < max; k++ {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
	}
	return v[:i] + printing.LabelsOf(lang).CutNote(utf8.RuneCountInString(v))
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
