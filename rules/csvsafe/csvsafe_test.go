package csvsafe_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/wasteflow/wasteflow/rules/csvsafe"
)

// Issue 44.4: every cell a spreadsheet would read as a formula is written
// with a quote before it (OWASP); plain negative numbers stay numbers.
func TestCellsNeverFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2":                           "'=1+2",
		`=HYPERLINK("http://x.example")`: `'=HYPERLINK("http://x.example")`,
		"+1+2":                           "'+1+2",
		"+5":                             "'+5",
		"-1+2":                           "'-1+2",
		"-2+3+cmd|' /C calc'!A0":         "'-2+3+cmd|' /C calc'!A0",
		"@SUM(A1:A2)":                    "'@SUM(A1:A2)",
		"\t=1+2":                         "'\t=1+2",
		"\r=1+2":                         "'\r=1+2",
		"-":                              "'-",
		"-1e3":                           "'-1e3",
		"-5.":                            "'-5.",
		"-.5":                            "'-.5",
		" =1":                            "' =1",
		"\n=1+2":                         "'\n=1+2",
		" \n -5":                         "' \n -5",
		"-1.2.3":                         "'-1.2.3",
		// stay as they are
		"-5": "-5", "-12.5": "-12.5", "-12,5": "-12,5", "": "", "ACME GmbH": "ACME GmbH", "1+2": "1+2", "a=b": "a=b",
		" a": " a", "\nb": "\nb", "'=1": "'=1", "16 02 13*": "16 02 13*",
	} {
		if got := csvsafe.Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	w := csvsafe.NewWriter(&buf)
	if err := w.WriteAll([][]string{{"=1+2", "a,b", "-5", "@x"}}); err != nil {
		t.Fatal(err)
	}
	rec, err := csv.NewReader(&buf).Read()
	if err != nil || len(rec) != 4 || rec[0] != "'=1+2" || rec[1] != "a,b" || rec[2] != "-5" || rec[3] != "'@x" {
		t.Fatalf("written: %q %v", rec, err)
	}
}
