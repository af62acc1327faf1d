package codec

import "testing"

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"pageStart":  "page_start",
		"documentId": "document_id",
		"nInt32":     "n_int32",
		"docXml":     "doc_xml",
		"id":         "id",
		"a1B2":       "a1_b2",
		"x":          "x",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitNumber(t *testing.T) {
	for s, ok := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e3": true, "1E+3": true, "-1.5e-3": true,
		"": false, "-": false, "01": false, "+1": false, "1.": false, ".5": false, "1e": false, "1e+": false,
		" 1": false, "1 ": false, "0x1": false, "Infinity": false, "NaN": false, "1_000": false,
	} {
		if got := validNumber(s); got != ok {
			t.Errorf("validNumber(%q) = %v, want %v", s, got, ok)
		}
	}
}
