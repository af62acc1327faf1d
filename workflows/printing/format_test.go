package printing

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/labels"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// A lookup that knows R4, Germany and one enum value, as rules/labels
// will: codes print with their words, in the print's language; a code it
// does not know prints as the code; an enum value it does not know as
// words, never its raw name.
func TestCodesInWords(t *testing.T) {
	look := func(list, code string) (labels.Text, bool) {
		switch list + ":" + code {
		case "operation:R4":
			return labels.Text{EN: "Recycling/reclamation of metals and metal compounds", DE: "Recycling/Rückgewinnung von Metallen und Metallverbindungen"}, true
		case "country:DE":
			return labels.Text{EN: "Germany", DE: "Deutschland"}, true
		case "DecisionType:CONSENT":
			return labels.Text{EN: "Consent", DE: "Zustimmung"}, true
		}
		return labels.Text{}, false
	}
	en, de := In{Lang: "en", Look: look}, In{Lang: "de", Look: look}
	for _, c := range []struct{ got, want string }{
		{en.Code("operation", "R4"), "R4 – Recycling/reclamation of metals and metal compounds"},
		{de.Code("operation", "R4"), "R4 – Recycling/Rückgewinnung von Metallen und Metallverbindungen"},
		{en.Code("operation", "R5"), "R5"},
		{de.Codes("operation", []string{"R4", "D10"}), "R4 – Recycling/Rückgewinnung von Metallen und Metallverbindungen\nD10"},
		{en.Country("DE"), "Germany (DE)"},
		{de.Country("DE"), "Deutschland (DE)"},
		{de.Country("NL"), "NL"},
		{de.Enum("DecisionType", "CONSENT"), "Zustimmung"},
		{de.Enum("DecisionType", "CONSENT_WITH_CONDITIONS"), "Consent with conditions"},
		{en.Enums("meansOfTransport", []string{"ROAD", "INLAND_WATERWAYS"}), "Road, Inland waterways"},
		{en.Enum("x", "already words"), "already words"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	// With rules/labels: its words, or the code alone until it knows them.
	want := "R4"
	if w, ok := labels.Code("operation", "R4"); ok && w.EN != "" {
		want = "R4 – " + w.EN
	}
	if got := For("en").Code("operation", "R4"); got != want {
		t.Errorf("R4 prints as %q, want %q", got, want)
	}
}

// Quantities with their units and decimals as a person writes them, dates
// in the language's format, a party's fields labelled as the forms name
// them.
func TestValuesAsWritten(t *testing.T) {
	d := func(s string) *decimal.Decimal {
		v, err := decimal.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	en, de := For("en"), For("de")
	for _, c := range []struct{ got, want string }{
		{en.Quantity(shipment.Quantity{Tonnes: d("12.5")}), "12.5 t"},
		{de.Quantity(shipment.Quantity{Tonnes: d("12.5")}), "12,5 t"},
		{de.Quantity(shipment.Quantity{Tonnes: d("1234567.25"), CubicMetres: d("3")}), "1.234.567,25 t / 3 m³"},
		{en.Quantity(shipment.Quantity{CubicMetres: d("1000")}), "1,000 m³"},
		{en.Quantity(shipment.Quantity{Tonnes: d("-0.5")}), "-0.5 t"},
		{en.Quantity(shipment.Quantity{}), ""},
		{de.Date("2026-11-28"), "28.11.2026"},
		{en.Date("2026-11-28"), "28 November 2026"},
		{de.Date("not a date"), "not a date"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	p := shipment.PartyDetails{OrganisationID: "acme", Name: "ACME Elektronik GmbH", RegistrationNumber: "HRB 12345",
		Address: shipment.Address{Street: "Werkstraße 1", PostalCode: "80331", City: "München", Country: "DE"}, ContactPerson: "Anna Berger",
		Telephone: "+49 89 1234567", Email: "anna@acme.example", EORI: "DE123456789012345", VAT: "DE123456789"}
	want := []Row{{"Registriernummer", "HRB 12345"}, {"Name", "ACME Elektronik GmbH"}, {"Anschrift", "Werkstraße 1\n80331 München\nDeutschland (DE)"},
		{"Kontaktperson", "Anna Berger"}, {"Tel.", "+49 89 1234567"}, {"E-Mail", "anna@acme.example"}, {"EORI / USt-IdNr.", "DE123456789012345 / DE123456789"}}
	if got := de.Party(p); !reflect.DeepEqual(got, want) {
		t.Errorf("a party's rows:\n%q\nwant\n%q", got, want)
	}
	if got := en.PartyBrief(shipment.PartyDetails{OrganisationID: "x"}); got != "x" {
		t.Errorf("a party without a name: %q", got)
	}
}

// Every value of the enums a print shows (decision types, signals, means
// of transport, packaging) prints as words: no raw enum name on the page.
func TestNoRawEnumNames(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	var names []string
	names = append(names, n.DecisionType(0).EnumNames()...)
	names = append(names, n.SignalType(0).EnumNames()...)
	names = append(names, m.SignalType(0).EnumNames()...)
	names = append(names, shipment.MeansOfTransport...)
	names = append(names, "DRUM", "WOODEN_BARREL", "JERRICAN", "BOX", "BAG", "COMPOSITE", "PRESSURE_RECEPTACLE", "BULK", "OTHER")
	for _, lang := range []string{"en", "de"} {
		p := For(lang)
		b := Block{No: "1", Title: "Enums"}
		for _, name := range names {
			b.Rows = append(b.Rows, Row{Label: "v", Value: p.Enum("DecisionType", name)})
		}
		pdf, err := Render(&Form{Title: "T", Number: "N-1", Labels: LabelsOf(lang), Blocks: []Block{b}})
		if err != nil {
			t.Fatal(err)
		}
		text := printtest.Raw(t, pdf)
		for _, name := range names {
			if regexp.MustCompile(`\b` + name + `\b`).MatchString(text) {
				t.Errorf("%s: the print shows the raw name %s", lang, name)
			}
		}
	}
}

// A long value wraps inside its box, and a box longer than a page goes
// on over the next pages with its title repeated ("(cont.)"); boxes side
// by side that do not fit a page are printed one under the other, nothing
// lost.
func TestLongValuesWrapAndContinue(t *testing.T) {
	printtest.Tool(t, "pdftotext")
	long := strings.Repeat("Sealed containers only, opened at the facility's gate in the presence of the operator. ", 12)
	var lines []string
	for i := range 150 {
		lines = append(lines, fmt.Sprintf("line %03d", i))
	}
	f := &Form{Title: "T", Number: "N-1", Labels: English, Blocks: []Block{
		{No: "1", Title: "Left", Place: Left, Rows: []Row{{"Conditions", long}}},
		{No: "2", Title: "Right", Place: Right, Rows: []Row{{"A", "b"}}},
		{No: "3", Title: "Long", Rows: []Row{{"Lines", strings.Join(lines, "\n")}}},
		{No: "4", Title: "Tall left", Place: Left, Rows: []Row{{"Lines", strings.Join(lines, "\n")}}},
		{No: "5", Title: "Beside", Place: Right, Rows: []Row{{"X", "y"}}},
	}}
	pdf, err := Render(f)
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := printtest.Text(t, pdf)
	text := printtest.Raw(t, pdf)
	if !strings.Contains(strings.ReplaceAll(text, "Conditions ", ""), strings.TrimSpace(strings.Join(strings.Fields(long), " "))) {
		t.Error("the long value is not all there")
	}
	if c := strings.Count(text, "3. Long (cont.)"); c < 1 {
		t.Errorf("box 3 goes on without its title repeated (%d pages)", len(pages))
	}
	if c := strings.Count(text, "4. Tall left (cont.)"); c < 1 {
		t.Error("a tall band is not printed across the page, going on")
	}
	for _, l := range append(lines, "5. Beside") {
		if !strings.Contains(text, l) {
			t.Errorf("%q is lost", l)
		}
	}
	for i, p := range pages {
		if !strings.Contains(p, fmt.Sprintf("page %d of %d", i+1, len(pages))) {
			t.Errorf("page %d lacks its strip", i+1)
		}
	}
	if os.Getenv("WASTEFLOW_PRINT_DIR") != "" {
		_ = os.WriteFile(os.Getenv("WASTEFLOW_PRINT_DIR")+"/long.pdf", pdf, 0o644)
	}
}

// Bands: a Left box after a Right one begins a new band; Thirds stand
// three at most; a heading or a Full box ends a band.
func TestBands(t *testing.T) {
	bs := []Block{{No: "1", Place: Left}, {No: "3", Place: Right}, {No: "4", Place: Right}, {No: "2", Place: Left}, {No: "5", Place: Right},
		{No: "a", Place: Third}, {No: "b", Place: Third}, {No: "c", Place: Third}, {No: "d", Place: Third}, {No: "7"},
		{No: "8", Place: Left}, {No: "9", Place: Right, Heading: "H"}}
	var got []string
	for i := 0; i < len(bs); {
		band := nextBand(bs[i:])
		s := ""
		for _, b := range band {
			s += b.No
		}
		got = append(got, s)
		i += len(band)
	}
	if want := []string{"134", "25", "abc", "d", "7", "8", "9"}; !reflect.DeepEqual(got, want) {
		t.Errorf("bands %v, want %v", got, want)
	}
}

// Forms of random shapes (boxes side by side and across, short and long
// values, headings) print without a word in the gap above the margin
// strip: the boxes end above it on every page, whatever they hold.
func TestNothingRunsIntoTheStrip(t *testing.T) {
	pdftotext := printtest.Tool(t, "pdftotext")
	rnd := rand.New(rand.NewPCG(45, 8))
	word := func() string {
		return []string{"Recyclage", "Nord", "SàRL", "16 02 13*", "Werkstraße 1", "—", "R4 – Recycling/reclamation of metals"}[rnd.IntN(7)]
	}
	for form := range 8 {
		f := &Form{Title: "T", Number: fmt.Sprintf("N-%d", form), Labels: LabelsOf([]string{"en", "de"}[form%2]), InspectionLink: "https://wasteflow.example/inspect/x"}
		for i := range 30 {
			b := Block{No: fmt.Sprint(i + 1), Title: strings.Repeat("Title ", 1+rnd.IntN(12)), Place: Place(rnd.IntN(4))}
			if rnd.IntN(8) == 0 {
				b.Heading = "For use by competent authorities"
			}
			for range rnd.IntN(9) {
				var v []string
				for range 1 + rnd.IntN(1+rnd.IntN(60)) {
					v = append(v, word())
				}
				b.Rows = append(b.Rows, Row{Label: strings.Repeat("Label ", 1+rnd.IntN(4)), Value: strings.Join(v, []string{" ", "\n"}[rnd.IntN(2)])})
			}
			f.Blocks = append(f.Blocks, b)
		}
		pdf, err := Render(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		file := dir + "/f.pdf"
		if err := os.WriteFile(file, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(pdftotext, "-bbox", file, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		const mm = 72 / 25.4
		for _, m := range regexp.MustCompile(`yMin="([0-9.]+)" xMax="[0-9.]+" yMax="([0-9.]+)">([^<]*)<`).FindAllStringSubmatch(string(out), -1) {
			yMin, _ := strconv.ParseFloat(m[1], 64)
			yMax, _ := strconv.ParseFloat(m[2], 64)
			if yMax > (stripY-1.5)*mm && yMin < (stripY+1.5)*mm || yMax > pageH*mm {
				t.Errorf("form %d: %q stands at %.1f–%.1f mm, in the gap above the strip", form, m[3], yMin/mm, yMax/mm)
			}
		}
	}
}
