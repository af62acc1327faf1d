package printing

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// Lookup finds the words of a code in a code list (the lists of
// rules/labels: "operation", "wasteCode/EU_LIST_OF_WASTE", "country",
// "DecisionType", ...).
type Lookup func(list, code string) (labels.Text, bool)

// In is how a print in one language writes values: codes with their
// words, enum values as words, dates, quantities and parties.
type In struct {
	Lang string
	Look Lookup
}

// For writes values in lang with the words of rules/labels.
func For(lang string) In { return In{Lang: lang, Look: labels.Code} }

// words is code's words in list in the print's language, if known.
func (p In) words(list, code string) (string, bool) {
	if p.Look == nil || code == "" {
		return "", false
	}
	t, ok := p.Look(list, code)
	if !ok {
		return "", false
	}
	w := t.In(p.Lang)
	return w, w != ""
}

// Code is an official code with its words, "R4 – Recycling/reclamation
// of metals and metal compounds"; the code alone when the list does not
// know it.
func (p In) Code(list, code string) string {
	if w, ok := p.words(list, code); ok && w != code {
		return code + " – " + w
	}
	return code
}

// Codes are codes of one list, each with its words, one a line.
func (p In) Codes(list string, codes []string) string {
	out := make([]string, 0, len(codes))
	for _, c := range codes {
		out = append(out, p.Code(list, c))
	}
	return strings.Join(out, "\n")
}

// Enum is an enum value or a code that is a name (ROAD, DRUM,
// CONSENT_WITH_CONDITIONS) as words: its label, else the name written as
// words ("Consent with conditions"), never the raw name.
func (p In) Enum(list, name string) string {
	if w, ok := p.words(list, name); ok {
		return w
	}
	return Humanize(name)
}

// Enums are names of one list as words, joined by ", ".
func (p In) Enums(list string, names []string) string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, p.Enum(list, n))
	}
	return strings.Join(out, ", ")
}

// Country is an ISO code as its name with the code, "Germany (DE)"; the
// code alone when the name is not known.
func (p In) Country(code string) string {
	if w, ok := p.words("country", code); ok && w != code {
		return w + " (" + code + ")"
	}
	return code
}

// Humanize writes an enum name as words: CONSENT_WITH_CONDITIONS is
// "Consent with conditions". Anything that is not an upper-case name is
// returned as it is.
func Humanize(name string) string {
	if name == "" {
		return ""
	}
	for _, r := range name {
		if !(unicode.IsUpper(r) || unicode.IsDigit(r) || r == '_') {
			return name
		}
	}
	s := strings.ToLower(strings.ReplaceAll(name, "_", " "))
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// Date writes a day given as YYYY-MM-DD in the print's language: German
// 28.11.2026, English 28 November 2026; anything else as it is.
func (p In) Date(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return Day(t, p.Lang)
}

// Day is t's day in lang's format.
func Day(t time.Time, lang string) string {
	if lang == "de" {
		return t.Format("02.01.2006")
	}
	return t.Format("2 January 2006")
}

// DateTime is t in UTC, its day in lang's format with the time of day.
func DateTime(t time.Time, lang string) string {
	t = t.UTC()
	return Day(t, lang) + " " + t.Format("15:04") + " UTC"
}

// At is the UTC day of t in the print's language.
func (p In) At(t time.Time) string { return Day(t.UTC(), p.Lang) }

// Number writes a decimal as a person writes it: thousands grouped and
// the decimal mark of the language, "1,234.5" or "1.234,5".
func (p In) Number(d decimal.Decimal) string {
	s := d.String()
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	group, mark := ",", "."
	if p.Lang == "de" {
		group, mark = ".", ","
	}
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(c)
	}
	out := sign + b.String()
	if frac != "" {
		out += mark + frac
	}
	return out
}

// Quantity writes a quantity with its units: "12.5 t", "3 m³", or both
// ("12.5 t / 3 m³"); "" when it has neither.
func (p In) Quantity(q shipment.Quantity) string {
	var parts []string
	if q.Tonnes != nil {
		parts = append(parts, p.Number(*q.Tonnes)+" t")
	}
	if q.CubicMetres != nil {
		parts = append(parts, p.Number(*q.CubicMetres)+" m³")
	}
	return strings.Join(parts, " / ")
}

// Directory gives a party's details as the document recorded them
// (documents.PrintRequest.Party): at least its organisation id, and its
// name and country where known.
type Directory func(id string) shipment.PartyDetails

// Name is the name of organisation id, or the id when it has none.
func (d Directory) Name(id string) string {
	if id == "" {
		return ""
	}
	if p := d(id); p.Name != "" {
		return p.Name
	}
	return id
}

// partyWords are the labels of a party's fields, as the forms name them.
var partyWords = Words{
	"reg": {"Registration No.", "Registriernummer"}, "name": {"Name", "Name"}, "address": {"Address", "Anschrift"},
	"contact": {"Contact person", "Kontaktperson"}, "tel": {"Tel.", "Tel."}, "email": {"E-mail", "E-Mail"},
	"ids": {"EORI / VAT No.", "EORI / USt-IdNr."},
}

// Address is a party's address on as many lines as it has: street,
// postal code and city, country.
func (p In) Address(a shipment.Address) string {
	var lines []string
	if a.Street != "" {
		lines = append(lines, a.Street)
	}
	if city := strings.TrimSpace(a.PostalCode + " " + a.City); city != "" {
		lines = append(lines, city)
	}
	if a.Country != "" {
		lines = append(lines, p.Country(a.Country))
	}
	return strings.Join(lines, "\n")
}

// ids is "EORI / VAT", what of them the party has.
func ids(d shipment.PartyDetails) string {
	var out []string
	for _, s := range []string{d.EORI, d.VAT} {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, " / ")
}

// Party is a party's fields as a form's box lists them: registration
// number, name, address, contact person, telephone, e-mail, EORI and VAT
// number, each labelled, an empty one printed as empty.
func (p In) Party(d shipment.PartyDetails) []Row {
	w := partyWords.In(p.Lang)
	name := d.Name
	if name == "" {
		name = d.OrganisationID
	}
	return []Row{{w("reg"), d.RegistrationNumber}, {w("name"), name}, {w("address"), p.Address(d.Address)},
		{w("contact"), d.ContactPerson}, {w("tel"), d.Telephone}, {w("email"), d.Email}, {w("ids"), ids(d)}}
}

// PartyBrief is a party in a few lines, for a box naming many: name,
// address on one line, then registration number, contact person,
// telephone, e-mail, EORI and VAT, what of them it has.
func (p In) PartyBrief(d shipment.PartyDetails) string {
	w := partyWords.In(p.Lang)
	name := d.Name
	if name == "" {
		name = d.OrganisationID
	}
	lines := []string{name}
	if a := strings.ReplaceAll(p.Address(d.Address), "\n", ", "); a != "" {
		lines = append(lines, a)
	}
	var more []string
	add := func(label, v string) {
		if v != "" {
			more = append(more, label+" "+v)
		}
	}
	add(w("reg"), d.RegistrationNumber)
	add(w("contact"), d.ContactPerson)
	add(w("tel"), d.Telephone)
	add(w("email"), d.Email)
	add("EORI/VAT", ids(d))
	if len(more) > 0 {
		lines = append(lines, strings.Join(more, " · "))
	}
	return strings.Join(lines, "\n")
}

// Parties are the rows of a box naming parties: one party's fields each
// labelled; several parties each in brief, numbered.
func (p In) Parties(dir Directory, ids []string) []Row {
	switch len(ids) {
	case 0:
		return nil
	case 1:
		return p.Party(dir(ids[0]))
	}
	rows := make([]Row, 0, len(ids))
	for i, id := range ids {
		rows = append(rows, Row{Label: fmt.Sprintf("(%d)", i+1), Value: p.PartyBrief(dir(id))})
	}
	return rows
}

// WasteCodes are the rows of a form's waste identification box: each
// item of the box (keys of words, in the form's order) with the codes of
// the lists it stands for (listOf maps a list to its item).
func WasteCodes(p In, w func(string) string, items []string, listOf map[string]string, codes []shipment.WasteClassification) []Row {
	by := map[string][]string{}
	for _, c := range codes {
		item, ok := listOf[c.List]
		if !ok {
			item = listOf["other"]
		}
		v := p.Code("wasteCode/"+c.List, c.Code)
		if !ok {
			v = p.Enum("WasteList", c.List) + ": " + v
		}
		by[item] = append(by[item], v)
	}
	rows := make([]Row, 0, len(items))
	for _, item := range items {
		rows = append(rows, Row{Label: w(item), Value: strings.Join(by[item], "\n")})
	}
	return rows
}

// box14 are the items of box 14 of Annexes IA and IB (waste
// identification), and box14Lists the item each list we hold fills.
var (
	box14Words = Words{
		"code14":     {"(i) Basel Annex VIII (or IX)", "(i) Basler Übereinkommen Anlage VIII (oder IX)"},
		"code14ii":   {"(ii) OECD code (if different from (i))", "(ii) OECD-Code (falls abweichend von (i))"},
		"code14iii":  {"(iii) EU list of wastes", "(iii) Abfallverzeichnis der EU"},
		"code14iv":   {"(iv) National code in country of export", "(iv) Nationaler Code im Ausfuhrstaat"},
		"code14v":    {"(v) National code in country of import", "(v) Nationaler Code im Einfuhrstaat"},
		"code14vi":   {"(vi) Other (specify)", "(vi) Sonstige (bitte angeben)"},
		"code14vii":  {"(vii) Y-code", "(vii) Y-Code"},
		"code14viii": {"(viii) H-code", "(viii) H-Code"},
		"code14ix":   {"(ix) UN class", "(ix) UN-Klasse"},
		"code14x":    {"(x) UN number", "(x) UN-Nummer"},
		"code14xi":   {"(xi) UN shipping name", "(xi) Offizielle Benennung für die Beförderung"},
		"code14xii":  {"(xii) Customs code(s) (HS)", "(xii) Zolltarifnummer(n) (HS)"},
	}
	box14      = []string{"code14", "code14ii", "code14iii", "code14iv", "code14v", "code14vi", "code14vii", "code14viii", "code14ix", "code14x", "code14xi", "code14xii"}
	box14Lists = map[string]string{"BASEL_ANNEX_VIII": "code14", "BASEL_ANNEX_IX": "code14", "OECD": "code14ii", "EU_LIST_OF_WASTE": "code14iii",
		"NATIONAL": "code14iv", "other": "code14vi"}
)

// Box14 are the rows of box 14 of Annexes IA and IB (waste
// identification) for codes: each of its items (i)–(xii), filled with the
// codes of the lists it stands for.
func Box14(p In, codes []shipment.WasteClassification) []Row {
	return WasteCodes(p, box14Words.In(p.Lang), box14, box14Lists, codes)
}
