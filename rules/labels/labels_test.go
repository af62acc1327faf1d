package labels_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

func TestCodes(t *testing.T) {
	for _, c := range []struct{ list, code, en, de string }{
		{"operation", "R4", "Recycling/reclamation of metals and metal compounds", "Recycling/Rückgewinnung von Metallen und Metallverbindungen"},
		{"wasteCode/EU_LIST_OF_WASTE", "16 02 13*", "discarded equipment containing hazardous components other than those mentioned in 16 02 09 to 16 02 12", ""},
		{"meansOfTransport", "ROAD", "Road", "Straße"},
		{"packagingType", "DRUM", "Drum", "Fass"},
		{"country", "DE", "Germany", "Deutschland"},
		{"country", "AT", "Austria", "Österreich"},
	} {
		got, ok := labels.Code(c.list, c.code)
		if !ok || got.EN != c.en || c.de != "" && got.DE != c.de || got.Empty() {
			t.Errorf("Code(%q, %q) = %+v, %v; want %q / %q", c.list, c.code, got, ok, c.en, c.de)
		}
	}
	if _, ok := labels.Code("operation", "R14"); ok {
		t.Error("R14 has a label")
	}
}

// TestEveryOperationAndListHasWords: every R and D code the rules accept,
// every EU list entry (in German too, from the AVV), every country of the
// EU and the EEA.
func TestEveryOperationAndListHasWords(t *testing.T) {
	for _, p := range []string{"R", "D"} {
		n := 13
		if p == "D" {
			n = 15
		}
		for i := 1; i <= n; i++ {
			code := p + itoa(i)
			if _, ok := wastecodes.LookupOperation(code); !ok {
				t.Fatalf("%s is not an operation of our data", code)
			}
			if l, ok := labels.Code("operation", code); !ok || l.Empty() {
				t.Errorf("operation %s: %+v", code, l)
			}
		}
	}
	for _, e := range wastecodes.Entries() {
		l, ok := labels.Code(labels.WasteCode(e.List), e.Code)
		if e.Wording == wastecodes.WordingCodeOnly {
			continue
		}
		if !ok || l.Empty() {
			t.Errorf("waste code %s %s: %+v", e.List, e.Code, l)
		}
		if e.List == wastecodes.EUListOfWaste && e.DescriptionDE == "" {
			t.Errorf("EU list entry %s has no German wording", e.Code)
		}
	}
	for _, l := range wastecodes.AllLists() {
		if w, ok := labels.Code("wasteClassificationList", l); !ok || w.Empty() {
			t.Errorf("code list %s has no words: %+v", l, w)
		}
	}
	for _, c := range []string{"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "CH", "GB", "TR"} {
		if l, ok := labels.Code("country", c); !ok || l.Empty() {
			t.Errorf("country %s: %+v", c, l)
		}
	}
}

func TestRegisterAndParse(t *testing.T) {
	labels.Register("state/test", map[string]labels.Text{"DRAFT": labels.Parse("Draft|Entwurf")})
	if l, ok := labels.Code("state/test", "DRAFT"); !ok || l.In("de") != "Entwurf" || l.In("en") != "Draft" {
		t.Errorf("registered: %+v %v", l, ok)
	}
	if _, ok := labels.Lists()["state/test"]["DRAFT"]; !ok {
		t.Error("Lists lacks a registered list")
	}
	if got := labels.Label("operation", "X9", "de"); got != "X9" {
		t.Errorf("Label of an unknown code = %q", got)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
