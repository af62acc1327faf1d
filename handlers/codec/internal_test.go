package codec

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

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
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
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

// FuzzReaderStrings checks the reader's string decoding against encoding/json.
func FuzzReaderStrings(f *testing.F) {
	for _, s := range []string{`plain`, `a\"b`, `\\\/\b\f\n\r\t`, `\u00e9\u20AC`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`,
		`\udc00\ud800`, `\ud83d\ud83d\ude00`, `x\u0000y`, `é✓`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := []byte(`"` + s + `"`)
		if !json.Valid(lit) || !utf8.Valid(lit) {
			return
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatal(err)
		}
		r := reader{data: lit}
		if got := r.str(); got != want {
			t.Fatalf("str(%s) = %q, encoding/json says %q", lit, got, want)
		}
		if r.pos != len(lit) {
			t.Fatalf("str(%s) stopped at %d", lit, r.pos)
		}
	})
}

// FuzzReaderSkip checks that skip and rawValue consume exactly one value.
func FuzzReaderSkip(f *testing.F) {
	for _, s := range []string{`1`, `-1.5e3`, `"s"`, `"a\"]}"`, `{"a":[1,{"b":"}"}],"c":null}`, `[[],{},""]`, ` true `, `{"\\":"\\\""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !utf8.Valid(data) {
			return
		}
		// Embedded in an array, the value must be followed by exactly the marker.
		doc := append(append([]byte("["), data...), []byte(`,"END"]`)...)
		r := reader{data: doc}
		r.pos = 1
		raw := r.rawValue()
		if string(raw) != string(bytes.TrimSpace(data)) {
			t.Fatalf("rawValue(%s) = %s", data, raw)
		}
		if got := r.str(); got != "END" {
			t.Fatalf("after skipping %s the next value is %q", data, got)
		}
		if r.more() || r.pos != len(doc) {
			t.Fatalf("array not closed at end: pos %d of %d", r.pos, len(doc))
		}
	})
}
