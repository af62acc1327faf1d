package wastecodes

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// Counts of the embedded data files added for the amendments, counted with
//
//	grep -c ',added' basel_amendments_2019_2022.csv                  # 5 (Y48, A3210, B3011, A1181, Y49)
//	grep -c ',deleted' basel_amendments_2019_2022.csv                # 4 (B3010, A1180, B1110, B4030)
//	grep -c '^Y' basel_annex_i_ii_y_codes_2014.csv                   # 47
//	grep -c ',OECD_GREEN,' oecd_green_list.csv                       # 13
//	grep -c ',OECD_AMBER,' oecd_amber_list_codes_only.csv            # 23
//	grep -c ',EU_ANNEX_IIIA,' eu_wsr_annex_entries.csv               # 12
//	grep -c ',EU_ANNEX_IIIB,' eu_wsr_annex_entries.csv               # 3
//	grep -c ',EU_ANNEX_IV,' eu_wsr_annex_entries.csv                 # 2
//
// and matching the data README.
const (
	wantBaselAdded   = 3 // A3210, B3011, A1181
	wantBaselDeleted = 4
	wantY            = 49 // Y1–Y47 of 2014, Y48, Y49
	wantOECDGreen    = 13
	wantOECDAmber    = 23
	wantIIIA         = 12
	wantIIIB         = 3
)

// date parses a YYYY-MM-DD date as midnight UTC.
func date(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAllLists(t *testing.T) {
	want := []string{"EU_LIST_OF_WASTE", "BASEL_ANNEX_VIII", "BASEL_ANNEX_IX", "OECD", "NATIONAL",
		"BASEL_ANNEX_I_II", "EU_ANNEX_IIIA", "EU_ANNEX_IIIB"}
	got := AllLists()
	if !slices.Equal(got, want) {
		t.Fatalf("AllLists() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if AllLists()[0] != EUListOfWaste || Lists()[0] != EUListOfWaste {
		t.Error("AllLists returns shared storage")
	}
	_, _, reason := Lookup("Y", "Y48")
	for _, l := range want {
		if !strings.Contains(reason, l) {
			t.Errorf("unknown-list reason %q does not name %s", reason, l)
		}
	}
}

func TestAmendmentCounts(t *testing.T) {
	d := data()
	var deleted int
	for _, e := range d.basel {
		if !e.DeletedOn.IsZero() {
			deleted++
		}
	}
	var green, amber int
	for _, e := range d.oecd {
		switch e.Class {
		case Green:
			green++
		case Amber:
			amber++
		}
	}
	if len(d.baselLater) != wantBaselAdded || deleted != wantBaselDeleted || len(d.y) != wantY ||
		green != wantOECDGreen || amber != wantOECDAmber || len(d.iiia) != wantIIIA || len(d.iiib) != wantIIIB {
		t.Errorf("loaded %d added and %d deleted Basel entries, %d Y-codes, %d+%d OECD codes, %d IIIA and %d IIIB entries; want %d, %d, %d, %d+%d, %d, %d",
			len(d.baselLater), deleted, len(d.y), green, amber, len(d.iiia), len(d.iiib),
			wantBaselAdded, wantBaselDeleted, wantY, wantOECDGreen, wantOECDAmber, wantIIIA, wantIIIB)
	}
	rows := len(readRecords(t, amendmentsFile))
	if rows != wantBaselAdded+wantBaselDeleted+2 { // + Y48, Y49
		t.Errorf("%s holds %d rows", amendmentsFile, rows)
	}
}

type onCase struct {
	list, code, on string
	ok             bool
	reason         []string // when !ok: fragments the reason must contain
}

func TestLookupOn(t *testing.T) {
	const (
		A, B, Y, O = BaselAnnexVIII, BaselAnnexIX, BaselAnnexIandII, OECD
		IIIA, IIIB = EUAnnexIIIA, EUAnnexIIIB
	)
	cases := []onCase{
		// Plastic waste amendments, in force 2021-01-01.
		{B, "B3011", "2022-05-01", true, nil},
		{B, "b3011", "2021-01-01", true, nil},
		{B, "B3011", "2020-06-01", false, []string{`"B3011"`, "on 2020-06-01", "2021-01-01", "Basel Annex IX", "B3010"}},
		{B, "B3011", "2020-12-31", false, []string{"2021-01-01"}},
		{B, "B3010", "2020-06-01", true, nil},
		{B, "B3010", "2020-12-31", true, nil},
		{B, "B3010", "2021-01-01", false, []string{"deleted", "2021-01-01", "use B3011"}},
		{B, "B3010", "2022-05-01", false, []string{`"B3010"`, "on 2022-05-01", "B3010 was deleted from Basel Annex IX on 2021-01-01; use B3011"}},
		{A, "A3210", "2020-06-01", false, []string{"A3210", "Basel Annex VIII", "2021-01-01"}},
		{A, "A3210", "2021-01-01", true, nil},
		{Y, "Y48", "2020-12-31", false, []string{"Y48", "Basel Annex II", "2021-01-01"}},
		{Y, "y48", "2021-01-01", true, nil},
		// E-waste amendments, in force 2025-01-01.
		{A, "A1181", "2024-12-31", false, []string{"A1181", "2025-01-01", "A1180"}},
		{A, "A1181", "2025-01-01", true, nil},
		{A, "A1180", "2024-12-31", true, nil},
		{A, "A1180", "2025-01-01", false, []string{"A1180 was deleted from Basel Annex VIII on 2025-01-01; use A1181"}},
		{Y, "Y49", "2024-12-31", false, []string{"Y49", "Basel Annex II", "2025-01-01"}},
		{Y, "Y49", "2025-01-01", true, nil},
		{B, "B1110", "2024-12-31", true, nil},
		{B, "B1110", "2025-06-01", false, []string{"B1110 was deleted from Basel Annex IX on 2025-01-01", "no entry replaces it"}},
		{B, "B4030", "2024-12-31", true, nil},
		{B, "B4030", "2025-01-01", false, []string{"B4030", "2025-01-01"}},
		// EU Annex IIIB plastic entry.
		{IIIB, "EU3011", "2020-06-01", false, []string{"EU3011", "Annex IIIB", "2021-01-01", "B3010 (intra-EU)"}},
		{IIIB, "eu3011", "2022-05-01", true, nil},
		// Entries without dates are valid on any date.
		{A, "A1010", "1995-01-01", true, nil},
		{B, "B1010", "2030-01-01", true, nil},
		{Y, "Y46", "2030-01-01", true, nil},
		{EUListOfWaste, "16 02 13*", "2030-01-01", true, nil},
		{O, "GC010", "2030-01-01", true, nil},
		{O, "AC150", "2000-01-01", true, nil},
		{IIIA, "B1010+B1050", "2000-01-01", true, nil},
		{National, "NL-1", "2000-01-01", true, nil},
		// Invalid codes give Lookup's reason, without a date.
		{B, "B9999", "2022-05-01", false, []string{"B9999", "not an entry"}},
		{A, "B3011", "2022-05-01", false, []string{BaselAnnexIX}},
		{EUListOfWaste, "160213", "2022-05-01", false, []string{"with an asterisk"}},
	}
	for _, c := range cases {
		t.Run(c.list+"/"+c.code+"/"+c.on, func(t *testing.T) {
			on := date(t, c.on)
			e, ok, reason := LookupOn(c.list, c.code, on)
			if ok != c.ok {
				t.Fatalf("LookupOn(%q, %q, %s) ok = %v, want %v (reason %q)", c.list, c.code, c.on, ok, c.ok, reason)
			}
			le, lok, _ := Lookup(c.list, c.code)
			if ok {
				if reason != "" || e != le || !e.InForceOn(on) {
					t.Errorf("LookupOn = %+v, %q; Lookup = %+v", e, reason, le)
				}
				return
			}
			if e != (Entry{}) {
				t.Errorf("entry = %+v, want zero", e)
			}
			if lok && le.InForceOn(on) {
				t.Errorf("Lookup's entry says it is in force on %s", c.on)
			}
			for _, frag := range append([]string{c.list}, c.reason...) {
				if !strings.Contains(reason, frag) {
					t.Errorf("reason %q does not contain %q", reason, frag)
				}
			}
		})
	}
}

// TestLookupOnCalendarDate checks that the date of a document is its
// calendar date in its own location, whatever the instant in UTC.
func TestLookupOnCalendarDate(t *testing.T) {
	west := time.FixedZone("UTC-5", -5*3600)
	east := time.FixedZone("UTC+2", 2*3600)
	for _, c := range []struct {
		on    time.Time
		b3010 bool
	}{
		{time.Date(2020, 12, 31, 23, 30, 0, 0, west), true}, // 2021-01-01 04:30 UTC
		{time.Date(2021, 1, 1, 0, 30, 0, 0, east), false},   // 2020-12-31 22:30 UTC
		{time.Date(2020, 12, 31, 23, 59, 59, 999999999, time.UTC), true},
		{time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		_, ok, reason := LookupOn(BaselAnnexIX, "B3010", c.on)
		if ok != c.b3010 {
			t.Errorf("B3010 on %v: ok = %v, want %v (%s)", c.on, ok, c.b3010, reason)
		}
		if _, ok, _ := LookupOn(BaselAnnexIX, "B3011", c.on); ok == c.b3010 {
			t.Errorf("B3011 on %v: ok = %v, want %v", c.on, ok, !c.b3010)
		}
	}
	// The zero time is 0001-01-01: dated entries are not yet in force.
	if _, ok, _ := LookupOn(BaselAnnexIX, "B3011", time.Time{}); ok {
		t.Error("B3011 valid at the zero time")
	}
	if _, ok, _ := LookupOn(BaselAnnexIX, "B3010", time.Time{}); !ok {
		t.Error("B3010 invalid at the zero time")
	}
}

// TestDatedRows checks every row of the amendment and list files against
// what Lookup and LookupOn return.
func TestDatedRows(t *testing.T) {
	listOf := map[string]string{
		"BASEL_ANNEX_II": BaselAnnexIandII, BaselAnnexVIII: BaselAnnexVIII, BaselAnnexIX: BaselAnnexIX,
		"OECD_GREEN": OECD, "OECD_AMBER": OECD, EUAnnexIIIA: EUAnnexIIIA, EUAnnexIIIB: EUAnnexIIIB,
	}
	for _, f := range []string{amendmentsFile, oecdGreenFile, oecdAmberFile, euWSRFile} {
		for _, r := range readRecords(t, f) {
			list, ok := listOf[r["list"]]
			if !ok {
				continue // EU_ANNEX_IV: checked against the Basel entries when parsed
			}
			e, ok, reason := Lookup(list, r["code"])
			if !ok || e.Code != r["code"] || e.List != list {
				t.Errorf("%s: Lookup(%s, %q) = %+v, %v, %q", f, list, r["code"], e, ok, reason)
				continue
			}
			if from := r["in_force_from"]; from != "" {
				d := date(t, from)
				if !e.InForceFrom.Equal(d) || e.InForceOn(d.AddDate(0, 0, -1)) || !e.InForceOn(d) {
					t.Errorf("%s: %s in force from %v, want %s", f, r["code"], e.InForceFrom, from)
				}
			} else if !e.InForceFrom.IsZero() {
				t.Errorf("%s: %s in force from %v, want no date", f, r["code"], e.InForceFrom)
			}
			if del, ok := strings.CutPrefix(r["status"], "deleted "); ok {
				d := date(t, del[:10])
				if !e.DeletedOn.Equal(d) || !e.InForceOn(d.AddDate(0, 0, -1)) || e.InForceOn(d) {
					t.Errorf("%s: %s deleted on %v, want %s", f, r["code"], e.DeletedOn, del[:10])
				}
				// A deleted 2014 entry keeps its 2014 wording.
				if e.Wording != WordingVerbatim || e.Description == "" || e.Description == r["entry_first_line"] {
					t.Errorf("%s: deleted %s has wording %s, description %q", f, r["code"], e.Wording, e.Description)
				}
				continue
			}
			if !e.DeletedOn.IsZero() {
				t.Errorf("%s: %s deleted on %v, want not deleted", f, r["code"], e.DeletedOn)
			}
			if !strings.Contains(e.Source, r["source"]) {
				t.Errorf("%s: %s source %q, want %q", f, r["code"], e.Source, r["source"])
			}
		}
	}
}

// TestSummaryRowsFlagged checks that no "[summary]" text of the reference
// becomes a Description, and that every entry of every list keeps summaries
// apart from legal wording.
func TestSummaryRowsFlagged(t *testing.T) {
	listOf := map[string]string{
		"BASEL_ANNEX_II": BaselAnnexIandII, BaselAnnexVIII: BaselAnnexVIII, BaselAnnexIX: BaselAnnexIX,
		"OECD_GREEN": OECD, "OECD_AMBER": OECD, EUAnnexIIIA: EUAnnexIIIA, EUAnnexIIIB: EUAnnexIIIB,
	}
	var summaries int
	for _, f := range []string{amendmentsFile, oecdGreenFile, oecdAmberFile, euWSRFile} {
		for _, r := range readRecords(t, f) {
			text, isSummary := strings.CutPrefix(r["entry_first_line"], "[summary]")
			list, known := listOf[r["list"]]
			if !isSummary || !known {
				continue
			}
			summaries++
			e, ok, _ := Lookup(list, r["code"])
			if !ok || e.Description != "" || e.Wording != WordingSummary || e.Summary != strings.TrimSpace(text) {
				t.Errorf("%s: summary row %s loaded as %+v", f, r["code"], e)
			}
		}
	}
	// Y48, A3210, A1181, Y49, EU3011 (the EU_ANNEX_IV rows are not entries).
	if summaries != 5 {
		t.Errorf("found %d summary rows for entries, want 5", summaries)
	}

	d := data()
	var all []Entry
	for _, m := range []map[string]Entry{d.eu, d.basel, d.baselLater, d.y, d.oecd, d.iiia, d.iiib} {
		for _, e := range m {
			all = append(all, e)
		}
	}
	for _, e := range all {
		switch {
		case strings.Contains(e.Description, "[summary]") || strings.Contains(e.Summary, "[summary]"):
			t.Errorf("%s %s keeps the [summary] marker: %+v", e.List, e.Code, e)
		case e.Wording == WordingSummary && (e.Description != "" || e.Summary == ""):
			t.Errorf("%s %s: summary entry with description %q, summary %q", e.List, e.Code, e.Description, e.Summary)
		case e.Wording != WordingSummary && e.Summary != "":
			t.Errorf("%s %s: summary %q on a %s entry", e.List, e.Code, e.Summary, e.Wording)
		case (e.Wording == WordingVerbatim || e.Wording == WordingPartial) && e.Description == "":
			t.Errorf("%s %s: %s entry without description", e.List, e.Code, e.Wording)
		case e.Wording == WordingCodeOnly && e.Description != "":
			t.Errorf("%s %s: code-only entry with description", e.List, e.Code)
		case e.Wording == "":
			t.Errorf("%s %s: no wording", e.List, e.Code)
		}
	}
	for _, c := range []struct {
		list, code string
		wording    Wording
	}{
		{BaselAnnexIandII, "Y48", WordingSummary},
		{BaselAnnexIandII, "Y49", WordingSummary},
		{BaselAnnexVIII, "A3210", WordingSummary},
		{BaselAnnexVIII, "A1181", WordingSummary},
		{EUAnnexIIIB, "EU3011", WordingSummary},
		{BaselAnnexIX, "B3011", WordingPartial},
		{BaselAnnexIX, "B3010", WordingVerbatim},
		{BaselAnnexIandII, "Y46", WordingVerbatim},
		{OECD, "GC010", WordingPartial},
		{OECD, "AC150", WordingCodeOnly},
		{EUAnnexIIIA, "B1010+B1050", WordingVerbatim},
		{EUAnnexIIIA, "B2010", WordingPartial},
		{EUListOfWaste, "17 04 05", WordingVerbatim},
		{National, "X", WordingCodeOnly},
	} {
		e, ok, reason := Lookup(c.list, c.code)
		if !ok || e.Wording != c.wording {
			t.Errorf("Lookup(%s, %s) wording %q, want %q (%v, %s)", c.list, c.code, e.Wording, c.wording, ok, reason)
		}
	}
}

func TestClassification(t *testing.T) {
	for _, c := range []struct {
		list, code       string
		class            Class
		hazardous, listH bool
	}{
		{EUListOfWaste, "17 04 05", Green, false, false},
		{EUListOfWaste, "16 02 13*", Amber, true, true},
		{EUListOfWaste, "20 03 01", Amber, false, false},
		{BaselAnnexVIII, "A1010", Amber, false, true},
		{BaselAnnexVIII, "A3210", Amber, false, true},
		{BaselAnnexVIII, "A1181", Amber, false, true},
		{BaselAnnexVIII, "A1180", Amber, false, true},
		{BaselAnnexIX, "B1010", Green, false, false},
		{BaselAnnexIX, "B3011", Green, false, false},
		{BaselAnnexIX, "B3010", Green, false, false},
		{BaselAnnexIandII, "Y1", Amber, false, true},
		{BaselAnnexIandII, "Y45", Amber, false, true},
		{BaselAnnexIandII, "Y46", Amber, false, false},
		{BaselAnnexIandII, "Y47", Amber, false, false},
		{BaselAnnexIandII, "Y48", Amber, false, false},
		{BaselAnnexIandII, "Y49", Amber, false, false},
		{OECD, "GB040", Green, false, false},
		{OECD, "GC010", Green, false, false},
		{OECD, "GN030", Green, false, false},
		{OECD, "AA010", Amber, false, false},
		{OECD, "AC300", Amber, false, false},
		{OECD, "RB020", Amber, false, false},
		{EUAnnexIIIA, "GB040+B1070+B1100", Green, false, false},
		{EUAnnexIIIB, "BEU05", Green, false, false},
		{EUAnnexIIIB, "EU3011", Green, false, false},
		{National, "X", Unclassified, false, false},
	} {
		e, ok, reason := Lookup(c.list, c.code)
		if !ok || e.Class != c.class || e.Hazardous != c.hazardous || e.ListedHazardous != c.listH {
			t.Errorf("Lookup(%s, %s) = class %q, hazardous %v, listed hazardous %v (%v, %s); want %q, %v, %v",
				c.list, c.code, e.Class, e.Hazardous, e.ListedHazardous, ok, reason, c.class, c.hazardous, c.listH)
		}
	}
	// Every entry of every list has a class, and the hazardous ones are amber.
	d := data()
	for _, m := range []map[string]Entry{d.eu, d.basel, d.baselLater, d.y, d.oecd, d.iiia, d.iiib} {
		for _, e := range m {
			if (e.Class != Green && e.Class != Amber) || (e.ListedHazardous && e.Class != Amber) || (e.Hazardous && !e.ListedHazardous) {
				t.Errorf("%s %s: class %q, hazardous %v, listed hazardous %v", e.List, e.Code, e.Class, e.Hazardous, e.ListedHazardous)
			}
		}
	}
}

func TestIsGreenListed(t *testing.T) {
	for _, c := range []struct {
		list, code, on string
		green          bool
		reason         []string
	}{
		// Basel Annex IX, in force.
		{BaselAnnexIX, "B1010", "2022-05-01", true, nil},
		{BaselAnnexIX, "B3011", "2022-05-01", true, nil},
		{BaselAnnexIX, "B3010", "2020-06-01", true, nil},
		{BaselAnnexIX, "B3011", "2020-06-01", false, []string{"not valid", "2021-01-01"}},
		{BaselAnnexIX, "B3010", "2022-05-01", false, []string{"not valid", "use B3011"}},
		{BaselAnnexIX, "B1110", "2024-06-01", true, nil},
		{BaselAnnexIX, "B1110", "2025-06-01", false, []string{"deleted"}},
		// Basel Annex VIII: hazardous.
		{BaselAnnexVIII, "A1010", "2022-05-01", false, []string{"not green-listed", "Annex VIII", "hazardous"}},
		{BaselAnnexVIII, "A3210", "2022-05-01", false, []string{"Annex VIII"}},
		{BaselAnnexVIII, "A1181", "2025-06-01", false, []string{"Annex VIII"}},
		// Y-codes: controlled.
		{BaselAnnexIandII, "Y48", "2022-05-01", false, []string{"not green-listed", "Annex II", "B3011", "EU3011"}},
		{BaselAnnexIandII, "Y49", "2025-06-01", false, []string{"Annex II", "GC010"}},
		{BaselAnnexIandII, "Y49", "2024-06-01", false, []string{"not valid", "2025-01-01"}},
		{BaselAnnexIandII, "Y46", "2022-05-01", false, []string{"Annex II"}},
		{BaselAnnexIandII, "Y1", "2022-05-01", false, []string{"Annex I,", "hazardous"}},
		// OECD lists.
		{OECD, "GB040", "2022-05-01", true, nil},
		{OECD, "gc020", "2025-06-01", true, nil},
		{OECD, "GH013", "2022-05-01", true, nil},
		{OECD, "AC150", "2022-05-01", false, []string{"not green-listed", "amber"}},
		{OECD, "AA010", "2022-05-01", false, []string{"amber"}},
		{OECD, "RB020", "2022-05-01", false, []string{"amber"}},
		{OECD, "GZ999", "2022-05-01", false, []string{"not valid", "green list"}},
		// EU list of waste.
		{EUListOfWaste, "17 04 05", "2022-05-01", true, nil},
		{EUListOfWaste, "191204", "2022-05-01", true, nil},
		{EUListOfWaste, "16 02 13*", "2022-05-01", false, []string{"hazardous", "asterisk"}},
		{EUListOfWaste, "20 03 01", "2022-05-01", false, []string{"mixed municipal waste", "3(5)"}},
		{EUListOfWaste, "16 02 13", "2022-05-01", false, []string{"not valid", "with an asterisk"}},
		// EU Annexes IIIA and IIIB.
		{EUAnnexIIIA, "B1010+B1050", "2022-05-01", true, nil},
		{EUAnnexIIIA, "b1050 + b1010", "2022-05-01", true, nil},
		{EUAnnexIIIA, "B3020", "2022-05-01", true, nil},
		{EUAnnexIIIB, "BEU04", "2022-05-01", true, nil},
		{EUAnnexIIIB, "EU3011", "2022-05-01", true, nil},
		{EUAnnexIIIB, "EU3011", "2020-06-01", false, []string{"not valid", "2021-01-01"}},
		// National codes say nothing.
		{National, "NL-123", "2022-05-01", false, []string{"not green-listed", "national"}},
		// Unknown list.
		{"Y", "Y48", "2022-05-01", false, []string{"unknown code list"}},
	} {
		green, reason := IsGreenListed(c.list, c.code, date(t, c.on))
		if green != c.green {
			t.Errorf("IsGreenListed(%s, %q, %s) = %v, want %v (%s)", c.list, c.code, c.on, green, c.green, reason)
			continue
		}
		if green && reason != "" {
			t.Errorf("IsGreenListed(%s, %q, %s): reason %q, want empty", c.list, c.code, c.on, reason)
		}
		for _, frag := range append([]string{fmt.Sprintf("%q", c.code)}, c.reason...) {
			if !green && !strings.Contains(reason, frag) {
				t.Errorf("IsGreenListed(%s, %q, %s): reason %q does not contain %q", c.list, c.code, c.on, reason, frag)
			}
		}
	}
}

func TestLookupNewLists(t *testing.T) {
	const (
		Y          = BaselAnnexIandII
		IIIA, IIIB = EUAnnexIIIA, EUAnnexIIIB
		O          = OECD
	)
	runLookup(t, []lookupCase{
		{Y, "Y1", true, "Y1", false, nil},
		{Y, "y47", true, "Y47", false, nil},
		{Y, " Y48 ", true, "Y48", false, nil},
		{Y, "Y49", true, "Y49", false, nil},
		{Y, "Y50", false, "", false, []string{"Y50", "not a category"}},
		{Y, "Y01", false, "", false, []string{"leading zero"}},
		{Y, "Y0", false, "", false, []string{"leading zero"}},
		{Y, "Y", false, "", false, []string{"letter Y"}},
		{Y, "A1010", false, "", false, []string{"letter Y", BaselAnnexVIII}},
		{BaselAnnexIX, "Y48", false, "", false, []string{"letter B", Y}},
		{BaselAnnexVIII, "B3011", false, "", false, []string{"Annex IX", BaselAnnexIX}},
		// OECD: the lists, not just the format.
		{O, "GB040", true, "GB040", false, nil},
		{O, "GH013", true, "GH013", false, nil},
		{O, "gn030", true, "GN030", false, nil},
		{O, "AC300", true, "AC300", false, nil},
		{O, "RB020", true, "RB020", false, nil},
		{O, "ad150", true, "AD150", false, nil},
		{O, "GC040", false, "", false, []string{"GC040", "green list"}},
		{O, "AC010", false, "", false, []string{"AC010", "amber list", "incomplete"}},
		{O, "ZZ010", false, "", false, []string{"amber"}},
		{O, "B3011", false, "", false, []string{"amber", BaselAnnexIX}},
		// Annex IIIA: codes joined by +, any order.
		{IIIA, "B1010+B1050", true, "B1010+B1050", false, nil},
		{IIIA, "B1050+B1010", true, "B1010+B1050", false, nil},
		{IIIA, " b1050 + b1010 ", true, "B1010+B1050", false, nil},
		{IIIA, "B1100+GB040", true, "GB040+B1100", false, nil},
		{IIIA, "GB040+B1070+B1100", true, "GB040+B1070+B1100", false, nil},
		{IIIA, "B3050", true, "B3050", false, nil},
		{IIIA, "B1010+B1010", false, "", false, []string{"joined by"}},
		{IIIA, "B1010+", false, "", false, []string{"joined by"}},
		{IIIA, "B1010+B2010", false, "", false, []string{"B1010+B2010", "not an entry"}},
		{IIIA, "B3011", false, "", false, []string{"not an entry", BaselAnnexIX}},
		{BaselAnnexIX, "B1010+B1050", false, "", false, []string{IIIA}},
		// Annex IIIB.
		{IIIB, "BEU04", true, "BEU04", false, nil},
		{IIIB, "beu05", true, "BEU05", false, nil},
		{IIIB, "EU3011", true, "EU3011", false, nil},
		{IIIB, "BEU01", false, "", false, []string{"BEU01", "incomplete"}},
		{IIIB, "EU301", false, "", false, []string{"BEU and two digits"}},
	})
}

func TestConcurrentLookupOn(t *testing.T) {
	on := date(t, "2022-05-01")
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 200 {
				if _, ok, _ := LookupOn(BaselAnnexIX, "B3011", on); !ok {
					t.Error("B3011 not valid")
				}
				if green, _ := IsGreenListed(OECD, "GC010", on); !green {
					t.Error("GC010 not green")
				}
				if _, ok, _ := LookupOn(EUAnnexIIIA, "B1050+B1010", on); !ok {
					t.Error("B1010+B1050 not valid")
				}
			}
		})
	}
	wg.Wait()
}

// TestParseRejectsMalformedDatedData makes sure the loader would panic
// rather than load inconsistent amendment or list data.
func TestParseRejectsMalformedDatedData(t *testing.T) {
	good := map[string]string{}
	for _, name := range []string{euFile, baselFile, opsFile, yFile, amendmentsFile, oecdGreenFile, oecdAmberFile, euWSRFile} {
		b, err := dataFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		good[name] = string(b)
	}
	if _, err := parse(mapFS(good, "", "")); err != nil {
		t.Fatalf("good data: %v", err)
	}
	const (
		hdr   = "code,list,in_force_from,replaces,entry_first_line,source,verbatim,status,note\n"
		yHdr  = "code,description,note\n"
		b3011 = "B3011,BASEL_ANNEX_IX,2021-01-01,B3010,text,src,partial,added,\n"
		b3010 = "B3010,BASEL_ANNEX_IX,,,old,src,partial,deleted 2021-01-01 (replaced by B3011),\n"
	)
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"y order", yFile, yHdr + "Y2,d,\n", "out of order"},
		{"y format", yFile, yHdr + "Y01,d,\n", "leading zero"},
		{"y description", yFile, yHdr + "Y1, ,\n", "no description"},
		{"header", amendmentsFile, "code,list\nB3011,BASEL_ANNEX_IX\n", "header"},
		{"date", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-13-01,,t,src,partial,added,\n", "not a date"},
		{"status", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,t,src,partial,replaced,\n", "status"},
		{"deleted date", amendmentsFile, hdr + "B3010,BASEL_ANNEX_IX,,,t,src,partial,deleted 2021-02-30,\n", "no valid date"},
		{"verbatim", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,t,src,maybe,added,\n", "verbatim"},
		{"no source", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,t, ,partial,added,\n", "no source"},
		{"no text", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,,src,partial,added,\n", "no text"},
		{"summary inside", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,see [summary] x,src,partial,added,\n", "[summary]"},
		{"empty summary", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,2021-01-01,,[summary] ,src,inferred,added,\n", "empty summary"},
		{"list", amendmentsFile, hdr + "B3011,OECD_GREEN,2021-01-01,,t,src,partial,added,\n", "list"},
		{"annex letter", amendmentsFile, hdr + "A3210,BASEL_ANNEX_IX,2021-01-01,,t,src,partial,added,\n", "list B"},
		{"annex II number", amendmentsFile, hdr + "Y45,BASEL_ANNEX_II,2021-01-01,,t,src,partial,added,\n", "Annex II"},
		{"added without date", amendmentsFile, hdr + "B3011,BASEL_ANNEX_IX,,,t,src,partial,added,\n", "no in_force_from"},
		{"added old code", amendmentsFile, hdr + "B1010,BASEL_ANNEX_IX,2021-01-01,,t,src,partial,added,\n", "2014 text"},
		{"added twice", amendmentsFile, hdr + b3011 + b3010 + b3011, "duplicate"},
		{"deleted unknown", amendmentsFile, hdr + "B3012,BASEL_ANNEX_IX,,,t,src,partial,deleted 2021-01-01,\n", "not in"},
		{"deleted with date", amendmentsFile, hdr + "B3010,BASEL_ANNEX_IX,2021-01-01,,t,src,partial,deleted 2021-01-01,\n", "in_force_from"},
		{"replacement one-sided", amendmentsFile, hdr + b3011, "B3011 replaces B3010"},
		{"replacement date", amendmentsFile, hdr + b3011 + "B3010,BASEL_ANNEX_IX,,,old,src,partial,deleted 2021-02-01 (replaced by B3011),\n", "deleted on 2021-02-01"},
		{"replaced by unknown", amendmentsFile, hdr + "B3010,BASEL_ANNEX_IX,,,old,src,partial,deleted 2021-01-01 (replaced by B3011),\n", "not an added entry"},
		{"oecd format", oecdGreenFile, hdr + "AC150,OECD_GREEN,,,t,src,partial,listed,\n", "format"},
		{"oecd code-only text", oecdAmberFile, hdr + "AC150,OECD_AMBER,,,t,src,code-only,listed,\n", "code-only"},
		{"oecd status", oecdAmberFile, hdr + "AC150,OECD_AMBER,,,,src,code-only,added,\n", "want listed"},
		{"oecd lower case", oecdAmberFile, hdr + "ac150,OECD_AMBER,,,,src,code-only,listed,\n", "upper case"},
		{"oecd amber format", oecdAmberFile, hdr + "GC010,OECD_AMBER,,,,src,code-only,listed,\n", "format"},
		{"oecd duplicate", oecdAmberFile, hdr + "AC150,OECD_AMBER,,,,src,code-only,listed,\nAC150,OECD_AMBER,,,,src,code-only,listed,\n", "duplicate"},
		{"iiia part", euWSRFile, hdr + "B1010+B9999,EU_ANNEX_IIIA,,,t,src,yes,listed,\n", "B9999"},
		{"iiia amber part", euWSRFile, hdr + "B1010+A1010,EU_ANNEX_IIIA,,,t,src,yes,listed,\n", "joined by"},
		{"iiia spaces", euWSRFile, hdr + "B1010 + B1050,EU_ANNEX_IIIA,,,t,src,yes,listed,\n", "joined by"},
		{"iiia duplicate", euWSRFile, hdr + "B1010+B1050,EU_ANNEX_IIIA,,,t,src,yes,listed,\nB1050+B1010,EU_ANNEX_IIIA,,,t,src,yes,listed,\n", "duplicate"},
		{"iiib format", euWSRFile, hdr + "EU48,EU_ANNEX_IIIB,,,t,src,yes,listed,\n", "BEU"},
		{"annex iv date", euWSRFile, hdr + "A1181,EU_ANNEX_IV,2024-01-01,,[summary] t,src,inferred,listed,\n", "EU_ANNEX_IV"},
		{"annex iv code", euWSRFile, hdr + "A9999,EU_ANNEX_IV,2025-01-01,,[summary] t,src,inferred,listed,\n", "EU_ANNEX_IV"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(mapFS(good, c.file, c.content))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parse error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// mapFS is the files of good, with file's content replaced.
func mapFS(good map[string]string, file, content string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, c := range good {
		fsys[name] = &fstest.MapFile{Data: []byte(c)}
	}
	if file != "" {
		fsys[file] = &fstest.MapFile{Data: []byte(content)}
	}
	return fsys
}

func BenchmarkLookupOn(b *testing.B) {
	data()
	on := time.Date(2022, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ list, code string }{
		{BaselAnnexIX, "B3011"},
		{BaselAnnexIX, "B3010"}, // deleted: builds a reason
		{OECD, "GC010"},
		{EUAnnexIIIA, "B1050+B1010"},
	} {
		b.Run(c.list+"/"+c.code, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				LookupOn(c.list, c.code, on)
			}
		})
	}
}
