package wastecodes

import (
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Embedded data files; see data/README.md for their sources and licences.
const (
	euFile         = "data/ewc_avv_list_of_waste.csv"
	baselFile      = "data/basel_annex_viii_ix_2014.csv"
	opsFile        = "data/eu_wfd_recovery_disposal_operations_de.csv"
	yFile          = "data/basel_annex_i_ii_y_codes_2014.csv"
	amendmentsFile = "data/basel_amendments_2019_2022.csv"
	oecdGreenFile  = "data/oecd_green_list.csv"
	oecdAmberFile  = "data/oecd_amber_list_codes_only.csv"
	euWSRFile      = "data/eu_wsr_annex_entries.csv"
)

// Sources of the entries of the files without a source column.
const (
	euSource    = "European List of Waste as transposed by the AVV (bundestag/gesetze a/avv/index.md), English labels from ewc-onto"
	baselSource = "Basel Convention, 2014 text (statengeneraal/laws-markdown, BWBV0002081)"
)

//go:embed data/*.csv
var dataFS embed.FS

// tables holds the parsed code lists. It is built once and never written
// afterwards, so concurrent readers need no locking.
type tables struct {
	eu         map[string]Entry     // EU list entries by their six digits ("160213")
	euHeadings map[string]string    // chapter and sub-chapter levels by their digits ("16", "1602")
	basel      map[string]Entry     // entries of the 2014 Basel text by code ("A1010"), later deletions applied; Entry.List is the annex
	baselLater map[string]Entry     // Annex VIII and IX entries added after the 2014 text ("B3011")
	ops        map[string]Operation // operations by code ("R1")
	y          map[string]Entry     // Y-codes of Basel Annex I and II ("Y48")
	oecd       map[string]Entry     // OECD green and amber list codes ("GC010", "AC150")
	iiia       map[string]Entry     // EU Annex IIIA entries by iiiaKey ("B1010+B1050")
	iiib       map[string]Entry     // EU Annex IIIB entries by code ("EU3011")
}

// baselEntry finds a Basel Annex VIII or IX code, of the 2014 text or added
// later.
func (t *tables) baselEntry(code string) (Entry, bool) {
	if e, ok := t.basel[code]; ok {
		return e, true
	}
	e, ok := t.baselLater[code]
	return e, ok
}

// listOf returns the list other than the EU list that knows the upper-case
// code s, or "".
func (t *tables) listOf(s string) string {
	if e, ok := t.baselEntry(s); ok {
		return e.List
	}
	if _, ok := t.y[s]; ok {
		return BaselAnnexIandII
	}
	if _, ok := t.oecd[s]; ok {
		return OECD
	}
	if k, ok := iiiaKey(s); ok {
		if _, ok := t.iiia[k]; ok {
			return EUAnnexIIIA
		}
	}
	if _, ok := t.iiib[s]; ok {
		return EUAnnexIIIB
	}
	return ""
}

// data returns the parsed tables, parsing the embedded files on first use.
// It panics only if the embedded files are malformed, which the tests rule
// out.
var data = sync.OnceValue(func() *tables {
	t, err := parse(dataFS)
	if err != nil {
		panic("wastecodes: malformed embedded data: " + err.Error())
	}
	return t
})

func parse(fsys fs.FS) (*tables, error) {
	t := &tables{}
	var err error
	if t.eu, t.euHeadings, err = parseEU(fsys); err != nil {
		return nil, err
	}
	if t.basel, err = parseBasel(fsys); err != nil {
		return nil, err
	}
	if t.ops, err = parseOps(fsys); err != nil {
		return nil, err
	}
	if t.y, err = parseY(fsys); err != nil {
		return nil, err
	}
	if t.baselLater, err = parseAmendments(fsys, t.basel, t.y); err != nil {
		return nil, err
	}
	if t.oecd, err = parseOECD(fsys); err != nil {
		return nil, err
	}
	if t.iiia, t.iiib, err = parseWSR(fsys, t); err != nil {
		return nil, err
	}
	return t, nil
}

// readTable reads a CSV file whose header must be exactly columns and
// calls row for every record after it. Errors carry the file name and line.
func readTable(fsys fs.FS, name string, columns []string, row func(rec []string) error) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", name, err)
	}
	if !slices.Equal(header, columns) {
		return fmt.Errorf("%s: header is %q, want %q", name, header, columns)
	}
	n := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := row(rec); err != nil {
			line, _ := r.FieldPos(0)
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no records", name)
	}
	return nil
}

var euColumns = []string{"code", "code6", "level", "chapter", "sub_chapter", "hazardous", "description_en", "description_de", "note"}

func parseEU(fsys fs.FS) (entries map[string]Entry, headings map[string]string, err error) {
	entries = make(map[string]Entry, 1024)
	headings = make(map[string]string, 160)
	err = readTable(fsys, euFile, euColumns, func(rec []string) error {
		code, code6, level, chapter, sub, hazardous := rec[0], rec[1], rec[2], rec[3], rec[4], rec[5]
		descEN, descDE := rec[6], rec[7]
		key, n, ok := euDigits(code)
		if !ok || !isGrouped(code) {
			return fmt.Errorf("code %q is not of the form \"dd\", \"dd dd\" or \"dd dd dd\"", code)
		}
		digits := string(key[:n])
		if _, dup := entries[digits]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		if _, dup := headings[digits]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		if chapter != code[:2] {
			return fmt.Errorf("code %q has chapter %q", code, chapter)
		}
		switch level {
		case "chapter", "sub-chapter":
			want := 2
			if level == "sub-chapter" {
				want = 4
			}
			if n != want {
				return fmt.Errorf("%s code %q has %d digits, want %d", level, code, n, want)
			}
			if code6 != digits {
				return fmt.Errorf("code %q has code6 %q, want %q", code, code6, digits)
			}
			if hazardous != "" {
				return fmt.Errorf("%s %q has hazardous flag %q, want none", level, code, hazardous)
			}
			headings[digits] = level
		case "entry":
			if n != 6 {
				return fmt.Errorf("entry code %q has %d digits, want 6", code, n)
			}
			if sub != code[:5] {
				return fmt.Errorf("entry %q has sub-chapter %q", code, sub)
			}
			if _, ok := headings[digits[:4]]; !ok {
				return fmt.Errorf("entry %q comes before its sub-chapter", code)
			}
			var haz bool
			switch hazardous {
			case "true":
				haz = true
			case "false":
			default:
				return fmt.Errorf("entry %q has hazardous flag %q, want true or false", code, hazardous)
			}
			want := digits
			if haz {
				want += "*"
			}
			if code6 != want {
				return fmt.Errorf("entry %q (hazardous %t) has code6 %q, want %q", code, haz, code6, want)
			}
			desc := descEN
			if desc == "" {
				desc = descDE
			}
			if desc == "" {
				return fmt.Errorf("entry %q has no description", code)
			}
			canon := code
			class := Green // simplification, see IsGreenListed
			if haz {
				canon += "*"
				class = Amber
			}
			if code == mixedMunicipalWaste {
				class = Amber
			}
			entries[digits] = Entry{List: EUListOfWaste, Code: canon, Description: desc, DescriptionDE: descDE, Hazardous: haz,
				ListedHazardous: haz, Class: class, Wording: WordingVerbatim, Source: euSource}
		default:
			return fmt.Errorf("code %q has unknown level %q", code, level)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, headings, nil
}

// isGrouped reports whether s is written in the list's own spelling:
// groups of two digits separated by single spaces.
func isGrouped(s string) bool {
	for i := range len(s) {
		if (i%3 == 2) != (s[i] == ' ') {
			return false
		}
	}
	return len(s)%3 == 2
}

var baselColumns = []string{"code", "basel_annex", "list", "section_code", "section", "entry_first_line", "entry_full_text"}

func parseBasel(fsys fs.FS) (map[string]Entry, error) {
	entries := make(map[string]Entry, 160)
	err := readTable(fsys, baselFile, baselColumns, func(rec []string) error {
		code, annex, list, first, full := rec[0], rec[1], rec[2], rec[5], rec[6]
		if !isBaselCode(code) {
			return fmt.Errorf("code %q is not a letter A or B and four digits", code)
		}
		if _, dup := entries[code]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		var name string
		switch {
		case annex == "VIII" && list == "A" && code[0] == 'A':
			name = BaselAnnexVIII
		case annex == "IX" && list == "B" && code[0] == 'B':
			name = BaselAnnexIX
		default:
			return fmt.Errorf("code %q has annex %q and list %q", code, annex, list)
		}
		desc := full
		if desc == "" {
			desc = first
		}
		if desc == "" {
			return fmt.Errorf("code %q has no description", code)
		}
		class := Green
		if name == BaselAnnexVIII {
			class = Amber
		}
		entries[code] = Entry{List: name, Code: code, Description: desc, ListedHazardous: name == BaselAnnexVIII,
			Class: class, Wording: WordingVerbatim, Source: baselSource}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

var opsColumns = []string{"code", "type", "description_de"}

func parseOps(fsys fs.FS) (map[string]Operation, error) {
	ops := make(map[string]Operation, 32)
	err := readTable(fsys, opsFile, opsColumns, func(rec []string) error {
		code, typ, desc := rec[0], rec[1], rec[2]
		if !isOperationCode(code) {
			return fmt.Errorf("code %q is not R or D and a number from 1 to 19", code)
		}
		if _, dup := ops[code]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		recovery := code[0] == 'R'
		want := "disposal"
		if recovery {
			want = "recovery"
		}
		if typ != want {
			return fmt.Errorf("code %q has type %q, want %q", code, typ, want)
		}
		if strings.TrimSpace(desc) == "" {
			return fmt.Errorf("code %q has no description", code)
		}
		ops[code] = Operation{Code: code, Recovery: recovery, Description: desc}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ops, nil
}

// isOperationCode checks the shape of an operation code in the data file:
// R or D, then 1 to 19 without leading zero.
func isOperationCode(s string) bool {
	if len(s) < 2 || len(s) > 3 || (s[0] != 'R' && s[0] != 'D') {
		return false
	}
	if len(s) == 2 {
		return s[1] >= '1' && s[1] <= '9'
	}
	return s[1] == '1' && isDigit(s[2])
}

var yColumns = []string{"code", "description", "note"}

// parseY reads the Y-codes of the 2014 text: Y1 to Y45 (Annex I, presumed
// hazardous) and Y46, Y47 (Annex II, "other wastes"), in order.
func parseY(fsys fs.FS) (map[string]Entry, error) {
	entries := make(map[string]Entry, 64)
	err := readTable(fsys, yFile, yColumns, func(rec []string) error {
		code, desc := rec[0], rec[1]
		n := yNumber(code)
		if n == 0 {
			return fmt.Errorf("code %q is not Y and a number without leading zero", code)
		}
		if n != len(entries)+1 {
			return fmt.Errorf("code %q out of order, want Y%d", code, len(entries)+1)
		}
		if strings.TrimSpace(desc) == "" {
			return fmt.Errorf("code %q has no description", code)
		}
		entries[code] = Entry{List: BaselAnnexIandII, Code: code, Description: desc, ListedHazardous: n <= lastAnnexIY,
			Class: Amber, Wording: WordingVerbatim, Source: baselSource}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// datedColumns are the columns of the files of codes with dates and sources.
var datedColumns = []string{"code", "list", "in_force_from", "replaces", "entry_first_line", "source", "verbatim", "status", "note"}

// dated is one row of a file of datedColumns, checked and parsed.
type dated struct {
	code, list, replaces, source string
	from                         time.Time // in_force_from, zero if empty
	status                       string    // "added", "listed" or "deleted"
	deleted                      time.Time // when status is "deleted"
	replacedBy                   string    // when status is "deleted", if given
	entry                        Entry     // Description, Summary and Wording set from the text
}

// summaryMark starts an entry text that is a summary, not legal wording.
const summaryMark = "[summary]"

var deletedStatus = regexp.MustCompile(`^deleted ([0-9]{4}-[0-9]{2}-[0-9]{2})(?: \(replaced by ([A-Z0-9]+)\))?$`)

func parseDated(rec []string) (dated, error) {
	r := dated{code: rec[0], list: rec[1], replaces: rec[3], source: rec[5]}
	text, verbatim, status := rec[4], rec[6], rec[7]
	if r.code == "" || r.code != strings.TrimSpace(r.code) || r.code != asciiUpper(r.code) {
		return r, fmt.Errorf("code %q is empty, padded or not upper case", r.code)
	}
	if rec[2] != "" {
		d, err := time.Parse(time.DateOnly, rec[2])
		if err != nil {
			return r, fmt.Errorf("code %q: in_force_from %q is not a date YYYY-MM-DD", r.code, rec[2])
		}
		r.from = d
	}
	if strings.TrimSpace(r.source) == "" {
		return r, fmt.Errorf("code %q has no source", r.code)
	}
	switch m := deletedStatus.FindStringSubmatch(status); {
	case m != nil:
		d, err := time.Parse(time.DateOnly, m[1])
		if err != nil {
			return r, fmt.Errorf("code %q: status %q has no valid date", r.code, status)
		}
		r.status, r.deleted, r.replacedBy = "deleted", d, m[2]
	case strings.HasPrefix(status, "added"):
		r.status = "added"
	case strings.HasPrefix(status, "listed"):
		r.status = "listed"
	default:
		return r, fmt.Errorf("code %q has status %q, want added…, listed… or deleted YYYY-MM-DD [(replaced by CODE)]", r.code, status)
	}
	e := &r.entry
	e.Source = r.source
	if rest, ok := strings.CutPrefix(text, summaryMark); ok {
		// A summary is never legal wording, whatever the verbatim column says.
		e.Summary, e.Wording = strings.TrimSpace(rest), WordingSummary
		if e.Summary == "" {
			return r, fmt.Errorf("code %q has an empty summary", r.code)
		}
		return r, nil
	}
	if strings.Contains(text, summaryMark) {
		return r, fmt.Errorf("code %q: %s inside the text, want it first", r.code, summaryMark)
	}
	switch verbatim {
	case "yes":
		e.Description, e.Wording = text, WordingVerbatim
	case "partial":
		e.Description, e.Wording = text, WordingPartial
	case "inferred":
		// An inference from a secondary source is a summary even unmarked.
		e.Summary, e.Wording = text, WordingSummary
	case "code-only":
		if text != "" {
			return r, fmt.Errorf("code %q is code-only but has a text", r.code)
		}
		e.Wording = WordingCodeOnly
		return r, nil
	default:
		return r, fmt.Errorf("code %q has verbatim %q, want yes, partial, inferred or code-only", r.code, verbatim)
	}
	if strings.TrimSpace(text) == "" {
		return r, fmt.Errorf("code %q has no text", r.code)
	}
	return r, nil
}

// readDated reads a file of datedColumns whose rows must name one of lists.
func readDated(fsys fs.FS, name string, lists []string, row func(r dated) error) error {
	return readTable(fsys, name, datedColumns, func(rec []string) error {
		r, err := parseDated(rec)
		if err != nil {
			return err
		}
		if !slices.Contains(lists, r.list) {
			return fmt.Errorf("code %q has list %q, want one of %q", r.code, r.list, lists)
		}
		return row(r)
	})
}

// parseAmendments reads the Basel amendments of 2019 and 2022. Added
// entries of Annex VIII and IX are returned; added Y-codes go into y;
// deletions are applied to the entries of the 2014 text in basel, which keep
// its wording. Every replacement must be stated on both sides, with the same
// date.
func parseAmendments(fsys fs.FS, basel, y map[string]Entry) (map[string]Entry, error) {
	added := map[string]Entry{}
	err := readDated(fsys, amendmentsFile, []string{"BASEL_ANNEX_II", BaselAnnexVIII, BaselAnnexIX}, func(r dated) error {
		e := r.entry
		e.Code, e.List = r.code, r.list
		old, into := basel, added // 2014 entries of the list, and where added ones go
		switch r.list {
		case BaselAnnexVIII, BaselAnnexIX:
			if !isBaselCode(r.code) || r.code[:1] != annexOf[r.list].list {
				return fmt.Errorf("code %q is not a list %s code", r.code, annexOf[r.list].list)
			}
			e.ListedHazardous = r.list == BaselAnnexVIII
			e.Class = Green
			if e.ListedHazardous {
				e.Class = Amber
			}
		default:
			if yNumber(r.code) <= lastAnnexIY {
				return fmt.Errorf("code %q is not a Y-code of Annex II", r.code)
			}
			e.List, e.Class = BaselAnnexIandII, Amber
			old, into = y, y
		}
		switch r.status {
		case "added":
			if r.from.IsZero() {
				return fmt.Errorf("added code %q has no in_force_from", r.code)
			}
			if o, dup := old[r.code]; dup && o.InForceFrom.IsZero() {
				return fmt.Errorf("added code %q is in the 2014 text", r.code)
			}
			if _, dup := into[r.code]; dup {
				return fmt.Errorf("duplicate code %q", r.code)
			}
			if r.replaces != "" && (!isBaselCode(r.replaces) || r.replaces[0] != r.code[0]) {
				return fmt.Errorf("code %q replaces %q, want a code of the same list", r.code, r.replaces)
			}
			e.InForceFrom, e.Replaces = r.from, r.replaces
			into[r.code] = e
		case "deleted":
			o, ok := old[r.code]
			if !ok || o.List != e.List || !o.InForceFrom.IsZero() {
				return fmt.Errorf("deleted code %q is not in %s of the 2014 text", r.code, r.list)
			}
			if !r.from.IsZero() || r.replaces != "" {
				return fmt.Errorf("deleted code %q has in_force_from or replaces", r.code)
			}
			if !o.DeletedOn.IsZero() {
				return fmt.Errorf("duplicate code %q", r.code)
			}
			o.DeletedOn, o.ReplacedBy = r.deleted, r.replacedBy
			o.Source += "; deletion: " + r.source
			old[r.code] = o
		default:
			return fmt.Errorf("code %q has status %q, want added or deleted", r.code, r.status)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Replacements must be stated on both sides, with the same date.
	for code, e := range added {
		if e.Replaces == "" {
			continue
		}
		o := basel[e.Replaces]
		if o.ReplacedBy != code || !o.DeletedOn.Equal(e.InForceFrom) {
			return nil, fmt.Errorf("%s: %s replaces %s from %s, but %s is deleted on %s and replaced by %q",
				amendmentsFile, code, e.Replaces, day(e.InForceFrom), e.Replaces, day(o.DeletedOn), o.ReplacedBy)
		}
	}
	for code, o := range basel {
		if o.ReplacedBy == "" {
			continue
		}
		if e, ok := added[o.ReplacedBy]; !ok || e.Replaces != code {
			return nil, fmt.Errorf("%s: %s is replaced by %s, which is not an added entry replacing it", amendmentsFile, code, o.ReplacedBy)
		}
	}
	return added, nil
}

// oecdGreenCode and oecdAmberCode are the formats of the two OECD lists.
var (
	oecdGreenCode = regexp.MustCompile(`^G[A-Z][0-9]{3}$`)
	oecdAmberCode = regexp.MustCompile(`^(A[A-Z]|RB)[0-9]{3}$`)
)

// parseOECD reads the OECD green list codes (Appendix 3 Part II) and the
// amber list codes the package holds.
func parseOECD(fsys fs.FS) (map[string]Entry, error) {
	entries := map[string]Entry{}
	for _, f := range []struct {
		name, list string
		format     *regexp.Regexp
		class      Class
	}{
		{oecdGreenFile, "OECD_GREEN", oecdGreenCode, Green},
		{oecdAmberFile, "OECD_AMBER", oecdAmberCode, Amber},
	} {
		err := readDated(fsys, f.name, []string{f.list}, func(r dated) error {
			if !f.format.MatchString(r.code) {
				return fmt.Errorf("code %q is not of the format of %s", r.code, f.list)
			}
			if _, dup := entries[r.code]; dup {
				return fmt.Errorf("duplicate code %q", r.code)
			}
			if r.status != "listed" {
				return fmt.Errorf("code %q has status %q, want listed", r.code, r.status)
			}
			e := r.entry
			e.List, e.Code, e.Class, e.InForceFrom, e.Replaces = OECD, r.code, f.class, r.from, r.replaces
			entries[r.code] = e
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// parseWSR reads the entries of Annexes IIIA, IIIB and IV of the Waste
// Shipment Regulation. Annex IIIA entries may name only known Basel Annex IX
// and OECD green codes. Annex IV rows are Basel codes the Regulation took
// over: they are checked against the Basel data (same date) and not kept, as
// the package holds no Annex IV list.
func parseWSR(fsys fs.FS, t *tables) (iiia, iiib map[string]Entry, err error) {
	iiia, iiib = map[string]Entry{}, map[string]Entry{}
	err = readDated(fsys, euWSRFile, []string{"EU_ANNEX_IIIA", "EU_ANNEX_IIIB", "EU_ANNEX_IV"}, func(r dated) error {
		if r.status != "listed" {
			return fmt.Errorf("code %q has status %q, want listed", r.code, r.status)
		}
		e := r.entry
		e.Code, e.List, e.Class, e.InForceFrom, e.Replaces = r.code, r.list, Green, r.from, r.replaces
		switch r.list {
		case EUAnnexIIIA:
			key, ok := iiiaKey(r.code)
			if !ok || strings.Contains(r.code, " ") {
				return fmt.Errorf("code %q is not B- or G-codes joined by +", r.code)
			}
			for part := range strings.SplitSeq(r.code, "+") {
				if b, ok := t.baselEntry(part); ok && b.List == BaselAnnexIX {
					continue
				}
				if o, ok := t.oecd[part]; ok && o.Class == Green {
					continue
				}
				return fmt.Errorf("code %q names %s, which is neither a Basel Annex IX nor an OECD green code", r.code, part)
			}
			if _, dup := iiia[key]; dup {
				return fmt.Errorf("duplicate code %q", r.code)
			}
			iiia[key] = e
		case EUAnnexIIIB:
			if !iiibCode.MatchString(r.code) {
				return fmt.Errorf("code %q is not BEU and two digits or EU and four digits", r.code)
			}
			if _, dup := iiib[r.code]; dup {
				return fmt.Errorf("duplicate code %q", r.code)
			}
			iiib[r.code] = e
		default: // EU_ANNEX_IV
			b, ok := t.baselEntry(r.code)
			if !ok {
				b, ok = t.y[r.code]
			}
			if !ok || !b.InForceFrom.Equal(r.from) {
				return fmt.Errorf("EU_ANNEX_IV code %q is not a Basel code in force from %s", r.code, day(r.from))
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return iiia, iiib, nil
}
