package wastecodes

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// Counts of the embedded data, counted with
//
//	grep -c ',entry,' ewc_avv_list_of_waste.csv                               # 842
//	grep -cE '^[0-9]{2} [0-9]{2} [0-9]{2},[0-9]{6}\*,entry,' ewc_avv_list_of_waste.csv # 408
//	grep -c '^A' basel_annex_viii_ix_2014.csv                                 # 59
//	grep -c '^B' basel_annex_viii_ix_2014.csv                                 # 62
//
// and matching the data README (842 entries, 408 hazardous; 59 A, 62 B).
const (
	wantEUEntries   = 842
	wantEUHazardous = 408
	wantEUHeadings  = 20 + 111
	wantBaselA      = 59
	wantBaselB      = 62
)

// readRecords reads an embedded CSV with encoding/csv alone, independently
// of the package's loader, and returns its records as maps by column name.
func readRecords(t *testing.T, name string) []map[string]string {
	t.Helper()
	b, err := dataFS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, col := range recs[0] {
			m[col] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

func TestEmbeddedDataParses(t *testing.T) {
	if _, err := parse(dataFS); err != nil {
		t.Fatalf("embedded data is malformed: %v", err)
	}
}

func TestCounts(t *testing.T) {
	var entries, hazardous, headings int
	for _, r := range readRecords(t, euFile) {
		switch r["level"] {
		case "entry":
			entries++
			if r["hazardous"] == "true" {
				hazardous++
			}
		case "chapter", "sub-chapter":
			headings++
		}
	}
	if entries != wantEUEntries || hazardous != wantEUHazardous || headings != wantEUHeadings {
		t.Errorf("CSV holds %d entries (%d hazardous) and %d headings, want %d (%d) and %d",
			entries, hazardous, headings, wantEUEntries, wantEUHazardous, wantEUHeadings)
	}

	d := data()
	loadedHaz := 0
	for _, e := range d.eu {
		if e.Hazardous {
			loadedHaz++
		}
	}
	if len(d.eu) != entries || loadedHaz != hazardous || len(d.euHeadings) != headings {
		t.Errorf("loaded %d EU entries (%d hazardous) and %d headings, CSV holds %d (%d) and %d",
			len(d.eu), loadedHaz, len(d.euHeadings), entries, hazardous, headings)
	}

	var a, b int
	for _, e := range d.basel {
		switch e.List {
		case BaselAnnexVIII:
			a++
		case BaselAnnexIX:
			b++
		}
	}
	if csvN := len(readRecords(t, baselFile)); a+b != csvN || a != wantBaselA || b != wantBaselB {
		t.Errorf("loaded %d Annex VIII and %d Annex IX codes, CSV holds %d rows, want %d and %d", a, b, csvN, wantBaselA, wantBaselB)
	}

	var want []string
	for i := 1; i <= 13; i++ {
		want = append(want, fmt.Sprintf("R%d", i))
	}
	for i := 1; i <= 15; i++ {
		want = append(want, fmt.Sprintf("D%d", i))
	}
	var got []string
	for code := range d.ops {
		got = append(got, code)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("operations loaded: %v, want %v", got, want)
	}
}

func TestLists(t *testing.T) {
	want := []string{"EU_LIST_OF_WASTE", "BASEL_ANNEX_VIII", "BASEL_ANNEX_IX", "OECD", "NATIONAL"}
	got := Lists()
	if !slices.Equal(got, want) {
		t.Fatalf("Lists() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if Lists()[0] != EUListOfWaste {
		t.Error("Lists returns shared storage")
	}
}

type lookupCase struct {
	list, code string
	ok         bool
	canon      string   // when ok
	hazardous  bool     // when ok
	reason     []string // when !ok: fragments the reason must contain
}

func runLookup(t *testing.T, cases []lookupCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.list+"/"+c.code, func(t *testing.T) {
			e, ok, reason := Lookup(c.list, c.code)
			if ok != c.ok {
				t.Fatalf("Lookup(%q, %q) ok = %v, want %v (reason %q)", c.list, c.code, ok, c.ok, reason)
			}
			if ok {
				if reason != "" {
					t.Errorf("reason = %q, want empty", reason)
				}
				if e.Code != c.canon || e.List != c.list || e.Hazardous != c.hazardous {
					t.Errorf("entry = %+v, want code %q, list %q, hazardous %v", e, c.canon, c.list, c.hazardous)
				}
				if got := Canonical(c.list, c.code); got != c.canon {
					t.Errorf("Canonical = %q, want %q", got, c.canon)
				}
				return
			}
			if e != (Entry{}) {
				t.Errorf("entry = %+v, want zero", e)
			}
			for _, frag := range append([]string{c.list}, c.reason...) {
				if !strings.Contains(reason, frag) {
					t.Errorf("reason %q does not contain %q", reason, frag)
				}
			}
			if got := Canonical(c.list, c.code); got != c.code {
				t.Errorf("Canonical of an invalid code = %q, want it unchanged", got)
			}
		})
	}
}

func TestLookupEU(t *testing.T) {
	const L = EUListOfWaste
	runLookup(t, []lookupCase{
		// Hazardous entry, every accepted spelling.
		{L, "160213*", true, "16 02 13*", true, nil},
		{L, "16 02 13*", true, "16 02 13*", true, nil},
		{L, "16 02 13 *", true, "16 02 13*", true, nil},
		{L, "160213 *", true, "16 02 13*", true, nil},
		{L, "  16 02 13*\t", true, "16 02 13*", true, nil},
		{L, "01 03 10*", true, "01 03 10*", true, nil},
		// Non-hazardous entries.
		{L, "170405", true, "17 04 05", false, nil},
		{L, "17 04 05", true, "17 04 05", false, nil},
		{L, "160214", true, "16 02 14", false, nil},
		{L, "20 03 01", true, "20 03 01", false, nil},
		{L, "190809", true, "19 08 09", false, nil}, // AVV flag, not ewc-onto's
		// Asterisk mismatches.
		{L, "160213", false, "", false, []string{`"160213"`, "16 02 13*", "hazardous", "with an asterisk"}},
		{L, "16 02 13", false, "", false, []string{`"16 02 13"`, "with an asterisk"}},
		{L, "160214*", false, "", false, []string{`"160214*"`, "16 02 14", "not a hazardous", "without an asterisk"}},
		{L, "17 04 05 *", false, "", false, []string{"without an asterisk"}},
		// Headings are not codes.
		{L, "16 02", false, "", false, []string{`"16 02"`, "sub-chapter heading"}},
		{L, "1602", false, "", false, []string{"16 02", "sub-chapter heading"}},
		{L, "16", false, "", false, []string{"chapter heading"}},
		{L, "16 02*", false, "", false, []string{"sub-chapter heading"}},
		{L, "16 99", false, "", false, []string{"16 99", "six digits"}},
		// Unknown and malformed.
		{L, "999999", false, "", false, []string{`"999999"`, "99 99 99", "not an entry"}},
		{L, "999999*", false, "", false, []string{"not an entry"}},
		{L, "", false, "", false, []string{"empty"}},
		{L, "*", false, "", false, []string{"six digits"}},
		{L, "16  02 13*", false, "", false, []string{"six digits"}},
		{L, "16 0213*", false, "", false, []string{"six digits"}},
		{L, "16-02-13*", false, "", false, []string{"six digits"}},
		{L, "16 02 13  *", false, "", false, []string{"six digits"}},
		{L, "160213**", false, "", false, []string{"six digits"}},
		{L, "1602131", false, "", false, []string{"six digits"}},
		{L, "16021", false, "", false, []string{"six digits"}},
		{L, "１６０２１３", false, "", false, []string{"six digits"}},
	})
}

// TestAllEUEntries checks every entry of the CSV in every spelling.
func TestAllEUEntries(t *testing.T) {
	for _, r := range readRecords(t, euFile) {
		if r["level"] != "entry" {
			if _, ok, _ := Lookup(EUListOfWaste, r["code"]); ok {
				t.Errorf("heading %q accepted as a code", r["code"])
			}
			continue
		}
		haz := r["hazardous"] == "true"
		spaced, plain := r["code"], strings.ReplaceAll(r["code"], " ", "")
		right, wrong := "", "*"
		if haz {
			right, wrong = wrong, right
		}
		for _, s := range []string{plain + right, spaced + right} {
			e, ok, reason := Lookup(EUListOfWaste, s)
			if !ok || e.Code != spaced+right || e.Hazardous != haz || e.Description != r["description_en"] {
				t.Errorf("Lookup(%q) = %+v, %v, %q", s, e, ok, reason)
			}
		}
		for _, s := range []string{plain + wrong, spaced + wrong, spaced + " " + wrong} {
			if _, ok, _ := Lookup(EUListOfWaste, s); ok {
				t.Errorf("Lookup(%q) accepted (hazardous %v)", s, haz)
			}
		}
	}
}

func TestEUDescription(t *testing.T) {
	e, _, _ := Lookup(EUListOfWaste, "17 04 05")
	if e.Description != "iron and steel" {
		t.Errorf("description of 17 04 05 = %q", e.Description)
	}
}

func TestLookupBasel(t *testing.T) {
	const A, B = BaselAnnexVIII, BaselAnnexIX
	runLookup(t, []lookupCase{
		{A, "A1010", true, "A1010", false, nil},
		{A, "a1010", true, "A1010", false, nil},
		{A, " A4160 ", true, "A4160", false, nil},
		{B, "B1010", true, "B1010", false, nil},
		{B, "b1010", true, "B1010", false, nil},
		{B, "B4030", true, "B4030", false, nil},
		{B, "A1010", false, "", false, []string{`"A1010"`, "Annex VIII", BaselAnnexVIII}},
		{A, "B1010", false, "", false, []string{`"B1010"`, "Annex IX", BaselAnnexIX}},
		{A, "b1010", false, "", false, []string{`"b1010"`, BaselAnnexIX}},
		{A, "A9999", false, "", false, []string{"A9999", "not an entry", "Annex VIII"}},
		{A, "B9999", false, "", false, []string{"B9999", "list A codes only"}},
		// Was rejected when the data held only the 2014 text; the 2019 amendment
		// (in force 2021-01-01) is now embedded. Lookup ignores dates: see
		// TestLookupOn for B3011 before 2021.
		{B, "B3011", true, "B3011", false, nil},
		{A, "A101", false, "", false, []string{"four digits"}},
		{A, "A 1010", false, "", false, []string{"four digits"}},
		{A, "Y1", false, "", false, []string{"four digits"}},
		{A, "", false, "", false, []string{"four digits"}},
		{B, "AA010", false, "", false, []string{"letter B"}},
	})
}

func TestAllBasel(t *testing.T) {
	for _, r := range readRecords(t, baselFile) {
		right, wrong := BaselAnnexVIII, BaselAnnexIX
		if r["basel_annex"] == "IX" {
			right, wrong = wrong, right
		}
		for _, s := range []string{r["code"], strings.ToLower(r["code"])} {
			e, ok, reason := Lookup(right, s)
			if !ok || e.Code != r["code"] || e.List != right || e.Description != r["entry_full_text"] {
				t.Errorf("Lookup(%s, %q) = %+v, %v, %q", right, s, e, ok, reason)
			}
			if _, ok, reason := Lookup(wrong, s); ok || !strings.Contains(reason, right) {
				t.Errorf("Lookup(%s, %q) = %v, %q; want invalid pointing to %s", wrong, s, ok, reason, right)
			}
		}
	}
}

func TestLookupOECD(t *testing.T) {
	const O = OECD
	runLookup(t, []lookupCase{
		{O, "AA010", true, "AA010", false, nil},
		{O, "AC150", true, "AC150", false, nil},
		{O, "GB040", true, "GB040", false, nil},
		{O, "GC010", true, "GC010", false, nil},
		{O, "gc010", true, "GC010", false, nil},
		{O, " AB130 ", true, "AB130", false, nil},
		{O, "BA010", false, "", false, []string{`"BA010"`, "amber"}},
		{O, "A1010", false, "", false, []string{"amber"}},
		{O, "AA01", false, "", false, []string{"amber"}},
		{O, "AA0100", false, "", false, []string{"amber"}},
		{O, "A-010", false, "", false, []string{"amber"}},
		{O, "Aı010", false, "", false, []string{"amber"}}, // dotless i must not upper-case to I
		{O, "", false, "", false, []string{"amber"}},
	})
}

func TestLookupNational(t *testing.T) {
	const N = National
	runLookup(t, []lookupCase{
		{N, "X", true, "X", false, nil},
		{N, "NL-123/ab", true, "NL-123/ab", false, nil},
		{N, " 12 34 ", true, "12 34", false, nil},
		{N, "Ärger-ßüö", true, "Ärger-ßüö", false, nil},
		{N, strings.Repeat("x", 20), true, strings.Repeat("x", 20), false, nil},
		{N, strings.Repeat("é", 20), true, strings.Repeat("é", 20), false, nil},
		{N, strings.Repeat("x", 21), false, "", false, []string{"at most 20"}},
		{N, "", false, "", false, []string{"empty"}},
		{N, "   ", false, "", false, []string{"empty"}},
		{N, "a\x00b", false, "", false, []string{"printable"}},
		{N, "a\tb", false, "", false, []string{"printable"}},
		{N, "a\xffb", false, "", false, []string{"UTF-8"}},
	})
}

func TestLookupUnknownList(t *testing.T) {
	for _, list := range []string{"", "eu_list_of_waste", "BASEL_ANNEX_IV", "Y"} {
		e, ok, reason := Lookup(list, "160213*")
		if ok || e != (Entry{}) {
			t.Errorf("Lookup(%q) ok", list)
		}
		for _, frag := range []string{`"160213*"`, fmt.Sprintf("%q", list), "unknown", EUListOfWaste, National} {
			if !strings.Contains(reason, frag) {
				t.Errorf("reason %q does not contain %q", reason, frag)
			}
		}
		if got := Canonical(list, "160213*"); got != "160213*" {
			t.Errorf("Canonical(%q) = %q", list, got)
		}
	}
}

func TestReasonShortensLongCodes(t *testing.T) {
	_, _, reason := Lookup(National, strings.Repeat("x", 10000))
	if len(reason) > 200 || !strings.Contains(reason, "…") {
		t.Errorf("reason not shortened: %d bytes", len(reason))
	}
}

func TestLookupOperation(t *testing.T) {
	for _, c := range []struct {
		code     string
		ok       bool
		canon    string
		recovery bool
	}{
		{"R1", true, "R1", true},
		{"r1", true, "R1", true},
		{"R13", true, "R13", true},
		{"D1", true, "D1", false},
		{"d15", true, "D15", false},
		{"D15", true, "D15", false},
		{" R10 ", true, "R10", true},
		{"R14", false, "", false},
		{"D16", false, "", false},
		{"D0", false, "", false},
		{"R0", false, "", false},
		{"R01", false, "", false},
		{"R 1", false, "", false},
		{"R1 3", false, "", false},
		{"X1", false, "", false},
		{"R", false, "", false},
		{"1", false, "", false},
		{"", false, "", false},
		{"R1*", false, "", false},
	} {
		op, ok := LookupOperation(c.code)
		if ok != c.ok {
			t.Errorf("LookupOperation(%q) ok = %v, want %v", c.code, ok, c.ok)
			continue
		}
		if !ok {
			if op != (Operation{}) {
				t.Errorf("LookupOperation(%q) = %+v, want zero", c.code, op)
			}
			continue
		}
		if op.Code != c.canon || op.Recovery != c.recovery || op.Description == "" {
			t.Errorf("LookupOperation(%q) = %+v", c.code, op)
		}
	}
	for _, r := range readRecords(t, opsFile) {
		op, ok := LookupOperation(r["code"])
		if !ok || op.Description != r["description_de"] || op.Recovery != (r["type"] == "recovery") {
			t.Errorf("LookupOperation(%q) = %+v, %v", r["code"], op, ok)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for range 200 {
				if _, ok, _ := Lookup(EUListOfWaste, "16 02 13*"); !ok {
					t.Error("16 02 13* not found")
				}
				if _, ok, _ := Lookup(BaselAnnexIX, "b1010"); !ok {
					t.Error("B1010 not found")
				}
				if _, ok := LookupOperation(fmt.Sprintf("R%d", i%13+1)); !ok {
					t.Error("operation not found")
				}
			}
		})
	}
	wg.Wait()
}

// TestParseRejectsMalformedData makes sure the loader would panic rather
// than load broken data.
func TestParseRejectsMalformedData(t *testing.T) {
	good := map[string]string{}
	for _, name := range []string{euFile, baselFile, opsFile} {
		b, err := dataFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		good[name] = string(b)
	}
	const (
		euHeader    = "code,code6,level,chapter,sub_chapter,hazardous,description_en,description_de,note\n"
		euHead      = "16,16,chapter,16,,,c,c,\n16 02,1602,sub-chapter,16,16 02,,s,s,\n"
		baselHeader = "code,basel_annex,list,section_code,section,entry_first_line,entry_full_text\n"
		opsHeader   = "code,type,description_de\n"
	)
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"missing file", euFile, "", "not exist"},
		{"no records", opsFile, opsHeader, "no records"},
		{"eu header", euFile, "code,code6\n16,16\n", "header"},
		{"eu ragged", euFile, euHeader + "16,16,chapter\n", "wrong number of fields"},
		{"eu code format", euFile, euHeader + "160,160,chapter,16,,,c,c,\n", "not of the form"},
		{"eu plain code", euFile, euHeader + euHead + "160213,160213,entry,16,16 02,false,d,d,\n", "not of the form"},
		{"eu level digits", euFile, euHeader + "16 02,1602,chapter,16,,,c,c,\n", "digits"},
		{"eu level", euFile, euHeader + "16,16,part,16,,,c,c,\n", "unknown level"},
		{"eu duplicate", euFile, euHeader + euHead + "16,16,chapter,16,,,c,c,\n", "duplicate"},
		{"eu hazardous flag", euFile, euHeader + euHead + "16 02 13,160213*,entry,16,16 02,yes,d,d,\n", "hazardous flag"},
		{"eu code6", euFile, euHeader + euHead + "16 02 13,160213,entry,16,16 02,true,d,d,\n", "code6"},
		{"eu sub-chapter", euFile, euHeader + euHead + "16 02 13,160213*,entry,16,16 03,true,d,d,\n", "sub-chapter"},
		{"eu orphan", euFile, euHeader + "16 02 13,160213*,entry,16,16 02,true,d,d,\n", "before its sub-chapter"},
		{"eu description", euFile, euHeader + euHead + "16 02 13,160213*,entry,16,16 02,true,,,\n", "no description"},
		{"basel code", baselFile, baselHeader + "C1010,VIII,A,A1,s,f,f\n", "four digits"},
		{"basel annex", baselFile, baselHeader + "B1010,VIII,A,A1,s,f,f\n", "annex"},
		{"basel duplicate", baselFile, baselHeader + "A1010,VIII,A,A1,s,f,f\nA1010,VIII,A,A1,s,f,f\n", "duplicate"},
		{"ops code", opsFile, opsHeader + "R20,recovery,x\n", "R or D"},
		{"ops type", opsFile, opsHeader + "R1,disposal,x\n", "type"},
		{"ops description", opsFile, opsHeader + "R1,recovery, \n", "no description"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, content := range good {
				fsys[name] = &fstest.MapFile{Data: []byte(content)}
			}
			fsys[c.file] = &fstest.MapFile{Data: []byte(c.content)}
			if c.content == "" {
				delete(fsys, c.file)
			}
			_, err := parse(fsys)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parse error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func BenchmarkLookup(b *testing.B) {
	data() // parse outside the timings
	for _, c := range []struct{ list, code string }{
		{EUListOfWaste, "160213*"},
		{EUListOfWaste, "16 02 13*"},
		{EUListOfWaste, "17 04 05"},
		{EUListOfWaste, "160213"}, // invalid: builds a reason
		{BaselAnnexVIII, "A1010"},
		{BaselAnnexIX, "b1010"},
		{OECD, "AC150"},
		{National, "NL-123"},
	} {
		b.Run(c.list+"/"+c.code, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Lookup(c.list, c.code)
			}
		})
	}
	b.Run("operation/R1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			LookupOperation("R1")
		}
	})
}
