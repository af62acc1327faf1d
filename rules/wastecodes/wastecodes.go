// Package wastecodes validates the waste classification codes and the
// recovery and disposal operation codes named in transboundary waste
// shipment documents (Regulation (EU) 2024/1157), and says which codes are
// green-listed.
//
// A classification code is checked against the list it claims:
//
//   - EU_LIST_OF_WASTE: the European List of Waste (Decision 2000/532/EC as
//     amended by 2014/955/EU, as transposed by the German AVV). Only six-digit
//     entries are codes; chapter and sub-chapter headings are not. A
//     hazardous entry must be written with an asterisk, a non-hazardous one
//     without.
//   - BASEL_ANNEX_VIII and BASEL_ANNEX_IX: list A and list B of the Basel
//     Convention: the 2014 text of the annexes with the plastic waste
//     amendments of 2019 (A3210 and B3011 added, B3010 deleted, from
//     2021-01-01) and the e-waste amendments of 2022 (A1181 added, A1180,
//     B1110 and B4030 deleted, from 2025-01-01).
//   - BASEL_ANNEX_I_II: the Y-codes of Basel Annex I (Y1–Y45) and Annex II
//     (Y46, Y47, and Y48 from 2021-01-01, Y49 from 2025-01-01).
//   - OECD: the codes of the OECD green list (G…) and amber list (A…, RB020)
//     that the package holds. The green list codes are the thirteen of
//     Appendix 3 Part II; the amber list data is known to be incomplete (see
//     data/README.md), so a real amber code missing from it is rejected.
//   - EU_ANNEX_IIIA and EU_ANNEX_IIIB: the mixtures of green-listed wastes of
//     Annex IIIA (written "B1010+B1050") and the EU-only green-list entries of
//     Annex IIIB (BEU04, BEU05, EU3011 from 2021-01-01) of the Waste
//     Shipment Regulation, as far as the package holds them.
//   - NATIONAL: any short printable code (see [Lookup]).
//
// Entries have a time in force. [Lookup] ignores it: it accepts every code
// the package knows, including codes deleted since and codes added later.
// [LookupOn] accepts a code only for a document dated within its time in
// force, and [IsGreenListed] says whether a code in force is on a green list
// (Annex VII procedure) or needs prior notification and consent.
//
// Some entries have no known legal wording, only a summary from a secondary
// source: their [Entry.Description] is empty and [Entry.Summary] holds the
// summary, which must not be shown as the wording of the entry (see
// [Wording]).
//
// Code lists are embedded in the binary and parsed once, on first use. All
// functions are pure (none reads the clock) and safe for concurrent use.
package wastecodes

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Lists a classification code can claim (JSON enum names, public contract).
const (
	EUListOfWaste  = "EU_LIST_OF_WASTE"
	BaselAnnexVIII = "BASEL_ANNEX_VIII"
	BaselAnnexIX   = "BASEL_ANNEX_IX"
	OECD           = "OECD"
	National       = "NATIONAL"

	// BaselAnnexIandII holds the Y-codes of Basel Annex I and II.
	BaselAnnexIandII = "BASEL_ANNEX_I_II"
	// EUAnnexIIIA holds the mixtures of green-listed wastes of Annex IIIA of
	// the Waste Shipment Regulation.
	EUAnnexIIIA = "EU_ANNEX_IIIA"
	// EUAnnexIIIB holds the EU-only green-list entries of Annex IIIB of the
	// Waste Shipment Regulation.
	EUAnnexIIIB = "EU_ANNEX_IIIB"
)

// maxNationalCodeLength is the longest NATIONAL code accepted, in characters.
const maxNationalCodeLength = 20

// Lists returns the five lists of the original notification contract, in
// this order: EU_LIST_OF_WASTE, BASEL_ANNEX_VIII, BASEL_ANNEX_IX, OECD,
// NATIONAL. [AllLists] adds the lists introduced later.
func Lists() []string {
	return []string{EUListOfWaste, BaselAnnexVIII, BaselAnnexIX, OECD, National}
}

// AllLists returns every list [Lookup], [LookupOn] and [IsGreenListed]
// accept: those of [Lists], then BASEL_ANNEX_I_II, EU_ANNEX_IIIA and
// EU_ANNEX_IIIB. A document kind that allows fewer lists checks the list
// itself.
func AllLists() []string {
	return append(Lists(), BaselAnnexIandII, EUAnnexIIIA, EUAnnexIIIB)
}

// Class is the control procedure a code's entry falls under.
type Class string

const (
	// Green: on a green list (Basel Annex IX, the OECD green list, EU Annex
	// IIIA or IIIB, or, as a simplification, a non-hazardous entry of the EU
	// List of Waste); shipped for recovery under the general information
	// requirements (Annex VII document).
	Green Class = "GREEN"
	// Amber: needs prior written notification and consent (Basel Annex VIII,
	// the Y-codes of Annex I and II, the OECD amber list, hazardous entries of
	// the EU List of Waste, and 20 03 01, see [IsGreenListed]).
	Amber Class = "AMBER"
	// Unclassified: the package knows nothing of the code's entry (NATIONAL).
	Unclassified Class = ""
)

// Wording says how far an entry's texts are the wording of the law.
type Wording string

const (
	// WordingVerbatim: Description is the entry's text as in the source
	// (the 2014 Basel text, the AVV and its English labels, or, for EU Annex
	// IIIA point 2, the UK-retained wording of Regulation 1013/2006).
	WordingVerbatim Wording = "verbatim"
	// WordingPartial: Description is source text that is abridged or not
	// confirmed against the legal text (for example B3011, first indent only).
	WordingPartial Wording = "partial"
	// WordingSummary: no legal wording is known. Description is empty and
	// Summary paraphrases a secondary source; show it as a summary, never as
	// the official wording.
	WordingSummary Wording = "summary"
	// WordingCodeOnly: only the code is known (OECD amber codes, NATIONAL).
	WordingCodeOnly Wording = "code-only"
)

// Entry describes a known code.
//
// List is the list the code belongs to and Code its canonical spelling (see
// [Canonical]). Description is the English legal wording of the entry as far
// as known (see Wording) and is empty when only a summary or only the code is
// known. Summary is set only when Wording is [WordingSummary]: it is a
// paraphrase from a secondary source, not legal text.
//
// Hazardous keeps its original meaning: it is set for EU list entries marked
// with an asterisk and false for all other lists. ListedHazardous is wider:
// it is set when the list characterises the entry as hazardous, that is for
// EU list entries with an asterisk, Basel Annex VIII (list A) entries and the
// Annex I Y-codes Y1–Y45, which the Convention presumes hazardous (Article
// 1(1)(a)). The Annex II Y-codes (Y46–Y49, "categories of wastes requiring
// special consideration") are "other wastes" under Article 1(2), not
// hazardous wastes: ListedHazardous is false for them, but their Class is
// [Amber]. ListedHazardous is false for OECD amber codes too, whose data
// says nothing about hazard; their Class is [Amber].
//
// InForceFrom is the first day the entry is in force; it is zero when the
// entry is older than the data (the 2014 texts) or the source gives no date.
// DeletedOn is the first day the entry is no longer in force (zero: not
// deleted). Replaces names the entry this one replaced, as the source states
// it ("B3010" for B3011, "B3010 (intra-EU)" for EU3011); ReplacedBy names the
// entry that replaced a deleted one ("B3011" for B3010), if any. Source says
// where the entry and its dates come from.
type Entry struct {
	List, Code, Description string
	// DescriptionDE is the German wording where the data has it (the EU
	// list's entries, from the AVV); "" otherwise.
	DescriptionDE string
	Hazardous     bool

	ListedHazardous        bool
	Class                  Class
	Summary                string
	Wording                Wording
	InForceFrom, DeletedOn time.Time
	Replaces, ReplacedBy   string
	Source                 string
}

// InForceOn reports whether the entry is in force on the calendar date of
// on, taken in on's location: InForceFrom is zero or not after it, and
// DeletedOn is zero or after it.
func (e Entry) InForceOn(on time.Time) bool {
	d := calendarDate(on)
	return (e.InForceFrom.IsZero() || !d.Before(e.InForceFrom)) &&
		(e.DeletedOn.IsZero() || d.Before(e.DeletedOn))
}

// Lookup finds code in list, ignoring when the entry was in force: a code
// deleted since (B3010, A1180, B1110, B4030) and a code added by a later
// amendment (B3011, A3210, A1181, Y48, Y49, EU3011) are both accepted, and
// the returned Entry carries their dates. Use [LookupOn] to check a code for
// the date of a document. Leading and trailing white space is ignored. When
// ok is false, e is the zero Entry and reason says in English why the code
// is not valid, naming the code and the list, for use in the business error
// WASTE_CLASSIFICATION_INVALID_CODE.
//
// EU_LIST_OF_WASTE accepts six digits, written together or in three groups
// of two separated by single spaces, and then an asterisk, optionally after
// one space: "160213*", "16 02 13*" and "16 02 13 *" all name the hazardous
// entry 16 02 13*, and "170405" and "17 04 05" the non-hazardous 17 04 05.
// The asterisk must be present exactly when the entry is hazardous. Chapter
// ("16") and sub-chapter ("16 02") headings are not codes.
//
// BASEL_ANNEX_VIII accepts the list A codes of Annex VIII and
// BASEL_ANNEX_IX the list B codes of Annex IX, in either letter case
// ("A1010", "b1010"). A code of the other annex is rejected with a reason
// that names the right list. BASEL_ANNEX_I_II accepts the Y-codes ("Y48",
// "y1").
//
// OECD accepts the codes of the OECD green and amber lists the package
// holds, in either letter case ("GC010", "ac150"); a code of the right
// format that is not in the data is rejected, with a reason that says the
// amber list data is incomplete when it is an amber-format code.
//
// EU_ANNEX_IIIA accepts its entries written as in the Regulation's table,
// codes joined by "+", in any order, in either letter case and with spaces
// around the "+" ("B1050 + b1010" is "B1010+B1050"); EU_ANNEX_IIIB accepts
// BEU04, BEU05 and EU3011.
//
// NATIONAL accepts any non-empty code of at most 20 printable characters.
func Lookup(list, code string) (e Entry, ok bool, reason string) {
	switch list {
	case EUListOfWaste:
		return lookupEU(code)
	case BaselAnnexVIII, BaselAnnexIX:
		return lookupBasel(list, code)
	case BaselAnnexIandII:
		return lookupY(code)
	case OECD:
		return lookupOECD(code)
	case EUAnnexIIIA:
		return lookupIIIA(code)
	case EUAnnexIIIB:
		return lookupIIIB(code)
	case National:
		return lookupNational(code)
	}
	return Entry{}, false, fmt.Sprintf("waste code %s: unknown code list %s (want one of %s)",
		quote(code), quote(list), strings.Join(AllLists(), ", "))
}

// LookupOn is [Lookup] for a document dated on: it also requires the entry
// to be in force on the calendar date of on, taken in on's location (the
// time of day does not matter). A code deleted on a date X is valid for
// documents dated before X; a code added on a date Y is valid from Y on.
// When the code is known but not in force, the reason names the dates and
// the entry that replaced it or that it replaced, for example
//
//	waste code "B3010" is not valid in list BASEL_ANNEX_IX on 2022-05-01:
//	B3010 was deleted from Basel Annex IX on 2021-01-01; use B3011
//
// The zero time is the date 0001-01-01, on which every dated entry is out of
// force.
func LookupOn(list, code string, on time.Time) (e Entry, ok bool, reason string) {
	e, ok, reason = Lookup(list, code)
	if !ok {
		return e, ok, reason
	}
	d := calendarDate(on)
	var why string
	switch {
	case !e.InForceFrom.IsZero() && d.Before(e.InForceFrom):
		why = fmt.Sprintf("%s was added to %s with effect from %s", e.Code, title(e), day(e.InForceFrom))
		if e.Replaces != "" {
			why += fmt.Sprintf("; until then the entry was %s", e.Replaces)
		}
	case !e.DeletedOn.IsZero() && !d.Before(e.DeletedOn):
		why = fmt.Sprintf("%s was deleted from %s on %s", e.Code, title(e), day(e.DeletedOn))
		if e.ReplacedBy != "" {
			why += "; use " + e.ReplacedBy
		} else {
			why += "; no entry replaces it"
		}
	default:
		return e, true, ""
	}
	return Entry{}, false, fmt.Sprintf("waste code %s is not valid in list %s on %s: %s", quote(code), list, day(d), why)
}

// IsGreenListed reports whether code, claimed under list, is green-listed
// for a document dated on, that is whether a shipment of it for recovery may
// go under the general information requirements (Annex VII document) rather
// than prior notification and consent. When green is false, reason says why:
// the code is not valid on that date (the reason of [LookupOn]), or its entry
// is hazardous, amber-listed or needs control.
//
// Green-listed are the entries in force of Basel Annex IX (list B), the OECD
// green list, EU Annex IIIA and IIIB, and the EU List of Waste entries
// without an asterisk. Not green-listed are Basel Annex VIII (list A), the
// Y-codes (including Y48, plastic waste not covered by B3011 or A3210, and
// Y49, e-waste not covered by A1181), the OECD amber list, the EU list
// entries with an asterisk and NATIONAL codes.
//
// This checks the code only, and simplifies the law (see data/README.md):
//
//   - A green-list code covers only waste that meets its entry: B3011, for
//     example, covers plastic waste of one non-halogenated polymer, cured
//     resins, fluorinated polymers and mixtures of PE, PP and PET for
//     separate recycling, almost free from contamination; other plastic
//     waste is Y48 or A3210. Whether the waste meets the entry is for the
//     caller (and the person signing the document), not for this function.
//   - The EU List of Waste does not itself make a waste green-listed; the
//     green lists are Annexes III, IIIA and IIIB. A non-hazardous entry is
//     treated as green as a simplification, with one exception: mixed
//     municipal waste collected from households, 20 03 01, is shipped under
//     the rules for waste destined for disposal (Article 3(5) of Regulation
//     (EC) No 1013/2006; its successor in Regulation (EU) 2024/1157 was not
//     checked against the text of that Regulation).
//   - The destination and the operation are not considered: the Annex VII
//     procedure applies to recovery only; some entries apply only within the
//     EU (EU3011, and GC010/GC020 in place of Y49) or not to exports to
//     non-OECD countries (Annex IIIA point 2 (d) and (e)); importing
//     countries may control green-listed waste.
func IsGreenListed(list, code string, on time.Time) (green bool, reason string) {
	e, ok, reason := LookupOn(list, code, on)
	if !ok {
		return false, reason
	}
	if e.Class == Green {
		return true, ""
	}
	var why string
	switch {
	case e.List == EUListOfWaste && e.Hazardous:
		why = fmt.Sprintf("%s is a hazardous entry of the European List of Waste (marked with an asterisk)", e.Code)
	case e.List == EUListOfWaste && e.Code == mixedMunicipalWaste:
		why = fmt.Sprintf("mixed municipal waste collected from households (%s) is shipped under the rules for waste destined for disposal, with prior notification (Article 3(5) of Regulation (EC) No 1013/2006 and its successor in Regulation (EU) 2024/1157)", e.Code)
	case e.List == BaselAnnexVIII:
		why = fmt.Sprintf("%s is a list A entry of Basel Annex VIII, wastes characterised as hazardous", e.Code)
	case e.List == BaselAnnexIandII && e.ListedHazardous:
		why = fmt.Sprintf("%s is a category of Basel Annex I, wastes to be controlled, hazardous unless they have none of the Annex III characteristics", e.Code)
	case e.List == BaselAnnexIandII:
		why = fmt.Sprintf("%s is a category of Basel Annex II, \"other wastes\" requiring special consideration, which need prior notification and consent", e.Code)
		if alt := greenAlternative[e.Code]; alt != "" {
			why += "; " + alt
		}
	case e.List == OECD:
		why = fmt.Sprintf("%s is on the OECD amber list", e.Code)
	case e.Class == Unclassified:
		why = "a national code says nothing of the control procedure; classify the waste under BASEL_ANNEX_IX, OECD, EU_ANNEX_IIIA, EU_ANNEX_IIIB or EU_LIST_OF_WASTE"
	default:
		why = fmt.Sprintf("%s is on the %s list", e.Code, strings.ToLower(string(e.Class)))
	}
	return false, fmt.Sprintf("waste code %s in list %s is not green-listed: %s", quote(code), list, why)
}

// mixedMunicipalWaste is the EU list entry that is never green-listed.
const mixedMunicipalWaste = "20 03 01"

// greenAlternative says, for Annex II Y-codes whose waste can also fall under
// a green-list entry, which one (data/README.md, reference README section 5).
var greenAlternative = map[string]string{
	"Y48": "plastic waste that qualifies for the green list is claimed under B3011 (BASEL_ANNEX_IX) or, for shipments within the EU, EU3011 (EU_ANNEX_IIIB)",
	"Y49": "within the EU, e-waste that qualifies for the green list is claimed under GC010 or GC020 (OECD)",
}

// Canonical returns the normalised spelling of a code known in list, in
// force or not ("16 02 13*" for the EU list, "A1010" for Basel, upper case
// for Y-codes, OECD and Annex IIIB codes, the listed spelling for Annex
// IIIA, the trimmed code for NATIONAL). If code is not valid in list,
// Canonical returns it unchanged.
func Canonical(list, code string) string {
	if e, ok, _ := Lookup(list, code); ok {
		return e.Code
	}
	return code
}

// Operation is a recovery or disposal operation (Annex I/II of Directive
// 2008/98/EC). Description is the German wording of Anlage 1 and 2 of the
// Kreislaufwirtschaftsgesetz, which transposes those annexes.
type Operation struct {
	Code        string
	Recovery    bool
	Description string
}

// LookupOperation accepts "R1".."R13", "D1".."D15" (case-insensitive, no
// spaces inside, no leading zeros; leading and trailing white space is
// ignored); anything else ok=false.
func LookupOperation(code string) (Operation, bool) {
	op, ok := data().ops[asciiUpper(strings.TrimSpace(code))]
	return op, ok
}

// Entries returns every known entry of every list of [AllLists] (deleted
// ones too; see [Entry.InForceOn]), sorted by list and code. NATIONAL codes
// are not listed: any code is one.
func Entries() []Entry {
	t := data()
	var out []Entry
	add := func(m map[string]Entry) {
		for _, e := range m {
			out = append(out, e)
		}
	}
	add(t.eu)
	add(t.basel)
	add(t.baselLater)
	add(t.y)
	add(t.oecd)
	add(t.iiia)
	add(t.iiib)
	slices.SortFunc(out, func(a, b Entry) int {
		if c := strings.Compare(a.List, b.List); c != 0 {
			return c
		}
		return strings.Compare(a.Code, b.Code)
	})
	return out
}

// calendarDate is the date of t in t's location, as midnight UTC, the form
// entry dates are held in.
func calendarDate(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

// title names the list of an entry for a message.
func title(e Entry) string {
	switch e.List {
	case EUListOfWaste:
		return "the European List of Waste"
	case BaselAnnexVIII:
		return "Basel Annex VIII"
	case BaselAnnexIX:
		return "Basel Annex IX"
	case BaselAnnexIandII:
		if yNumber(e.Code) <= lastAnnexIY {
			return "Basel Annex I"
		}
		return "Basel Annex II"
	case OECD:
		if e.Class == Green {
			return "the OECD green list"
		}
		return "the OECD amber list"
	case EUAnnexIIIA:
		return "Annex IIIA of the Waste Shipment Regulation"
	case EUAnnexIIIB:
		return "Annex IIIB of the Waste Shipment Regulation"
	}
	return e.List
}

func invalid(list, code, format string, args ...any) (Entry, bool, string) {
	return Entry{}, false, fmt.Sprintf("waste code %s is not valid in list %s: ", quote(code), list) +
		echo.Sprintf(format, args...)
}

// elsewhere returns "; X is an entry of LIST" when the upper-cased code s,
// not valid in list, is known in another list (EU list codes aside), and ""
// otherwise.
func elsewhere(s, list string) string {
	other := data().listOf(s)
	if other == "" || other == list {
		return ""
	}
	return fmt.Sprintf("; %s is an entry of %s, claim it there", s, other)
}

func lookupEU(code string) (Entry, bool, string) {
	s := strings.TrimSpace(code)
	if s == "" {
		return invalid(EUListOfWaste, code, "the code is empty")
	}
	body, star := strings.CutSuffix(s, "*")
	if star {
		body = strings.TrimSuffix(body, " ")
	}
	d, n, ok := euDigits(body)
	if !ok {
		return invalid(EUListOfWaste, code, `a List of Waste code is six digits, hazardous entries with an asterisk, such as "17 04 05" or "16 02 13*"`)
	}
	t := data()
	if n < 6 {
		level, ok := t.euHeadings[string(d[:n])]
		if !ok {
			return invalid(EUListOfWaste, code, "a List of Waste code is six digits, and %s is not a chapter or sub-chapter either", spaced(d[:n]))
		}
		return invalid(EUListOfWaste, code, "%s is a %s heading of the European List of Waste, not a waste code; only six-digit entries are codes", spaced(d[:n]), level)
	}
	e, ok := t.eu[string(d[:n])]
	switch {
	case !ok:
		return invalid(EUListOfWaste, code, "%s is not an entry of the European List of Waste", spaced(d[:n]))
	case e.Hazardous && !star:
		return invalid(EUListOfWaste, code, "%s is a hazardous entry and must be written with an asterisk, as %q", e.Code, e.Code)
	case !e.Hazardous && star:
		return invalid(EUListOfWaste, code, "%s is not a hazardous entry and must be written without an asterisk, as %q", e.Code, e.Code)
	}
	return e, true, ""
}

// euDigits parses the digits of an EU list code or heading, written either
// as 2, 4 or 6 digits or as 1 to 3 groups of two digits separated by single
// spaces.
func euDigits(s string) (d [6]byte, n int, ok bool) {
	switch {
	case len(s) > 0 && len(s) <= 6 && len(s)%2 == 0 && allDigits(s):
		copy(d[:], s)
		return d, len(s), true
	case len(s) <= 8 && isGrouped(s):
		for i := 0; i < len(s); i += 3 {
			if !isDigit(s[i]) || !isDigit(s[i+1]) {
				return d, 0, false
			}
			d[n], d[n+1] = s[i], s[i+1]
			n += 2
		}
		return d, n, true
	}
	return d, 0, false
}

// spaced writes digits in groups of two, as the list does ("16 02 13").
func spaced(digits []byte) string {
	var b strings.Builder
	for i := 0; i < len(digits); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(digits[i : i+2])
	}
	return b.String()
}

var annexOf = map[string]struct{ annex, list string }{
	BaselAnnexVIII: {"VIII", "A"},
	BaselAnnexIX:   {"IX", "B"},
}

func lookupBasel(list, code string) (Entry, bool, string) {
	s := asciiUpper(strings.TrimSpace(code))
	want := annexOf[list]
	if !isBaselCode(s) {
		return invalid(list, code, "a Basel Annex %s code is the letter %s and four digits, such as %q%s",
			want.annex, want.list, want.list+"1010", elsewhere(s, list))
	}
	e, ok := data().baselEntry(s)
	switch {
	case ok && e.List == list:
		return e, true, ""
	case ok:
		other := annexOf[e.List]
		return invalid(list, code, "%s is a list %s entry of Basel Annex %s, not of Annex %s; claim it under %s",
			s, other.list, other.annex, want.annex, e.List)
	case s[:1] != want.list:
		return invalid(list, code, "Basel Annex %s holds list %s codes only, and %s is not an entry of either annex",
			want.annex, want.list, s)
	}
	return invalid(list, code, "%s is not an entry of Basel Annex %s (list %s)", s, want.annex, want.list)
}

func isBaselCode(s string) bool {
	return len(s) == 5 && (s[0] == 'A' || s[0] == 'B') && allDigits(s[1:])
}

// lastAnnexIY is the last Y-code of Basel Annex I; Annex II starts after it.
const lastAnnexIY = 45

// yNumber returns the number of a Y-code ("Y48" → 48), or 0 if s is not
// "Y" and a number from 1 to 99 without leading zero.
func yNumber(s string) int {
	if len(s) < 2 || len(s) > 3 || s[0] != 'Y' || s[1] == '0' || !allDigits(s[1:]) {
		return 0
	}
	n := 0
	for i := 1; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func lookupY(code string) (Entry, bool, string) {
	s := asciiUpper(strings.TrimSpace(code))
	if yNumber(s) == 0 {
		return invalid(BaselAnnexIandII, code, `a Basel Y-code is the letter Y and a number without leading zero, such as "Y1" or "Y48"%s`,
			elsewhere(s, BaselAnnexIandII))
	}
	if e, ok := data().y[s]; ok {
		return e, true, ""
	}
	return invalid(BaselAnnexIandII, code, "%s is not a category of Basel Annex I or II", s)
}

// oecdCode is the format of OECD amber (A…, and RB020) and green (G…) list
// codes.
var oecdCode = regexp.MustCompile(`^([AG][A-Z]|RB)[0-9]{3}$`)

func lookupOECD(code string) (Entry, bool, string) {
	s := asciiUpper(strings.TrimSpace(code))
	if !oecdCode.MatchString(s) {
		return invalid(OECD, code, `an OECD code is A (amber list) or G (green list), a second letter and three digits, such as "AC150" or "GC010"%s`,
			elsewhere(s, OECD))
	}
	if e, ok := data().oecd[s]; ok {
		return e, true, ""
	}
	if s[0] == 'G' {
		return invalid(OECD, code, "%s is not on the OECD green list (Appendix 3 Part II)%s", s, elsewhere(s, OECD))
	}
	return invalid(OECD, code, "%s is not on the OECD amber list as held here, which is known to be incomplete (see rules/wastecodes/data/README.md)", s)
}

// iiiaPart is the format of a code in an Annex IIIA entry: a Basel Annex IX
// code or an OECD green list code.
var iiiaPart = regexp.MustCompile(`^(B[0-9]{4}|G[A-Z][0-9]{3})$`)

// iiiaKey normalises an Annex IIIA entry: its codes, upper case, sorted and
// joined by "+", spaces around them removed. ok is false if a part is not of
// the format of a Basel B-code or an OECD green code, or a code repeats.
func iiiaKey(s string) (key string, ok bool) {
	parts := strings.Split(asciiUpper(s), "+")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if !iiiaPart.MatchString(parts[i]) {
			return "", false
		}
	}
	slices.Sort(parts)
	if len(slices.Compact(slices.Clone(parts))) != len(parts) {
		return "", false
	}
	return strings.Join(parts, "+"), true
}

func lookupIIIA(code string) (Entry, bool, string) {
	s := strings.TrimSpace(code)
	key, ok := iiiaKey(s)
	if !ok {
		return invalid(EUAnnexIIIA, code, `an Annex IIIA entry is Basel B-codes or OECD G-codes joined by "+", such as "B1010+B1050", or a single B-code for mixtures within one entry%s`,
			elsewhere(asciiUpper(s), EUAnnexIIIA))
	}
	if e, ok := data().iiia[key]; ok {
		return e, true, ""
	}
	return invalid(EUAnnexIIIA, code, "%s is not an entry of Annex IIIA as held here (mixtures of green-listed wastes)%s", key, elsewhere(key, EUAnnexIIIA))
}

// iiibCode is the format of Annex IIIB codes: BEU and two digits, or EU and
// four digits.
var iiibCode = regexp.MustCompile(`^(BEU[0-9]{2}|EU[0-9]{4})$`)

func lookupIIIB(code string) (Entry, bool, string) {
	s := asciiUpper(strings.TrimSpace(code))
	if !iiibCode.MatchString(s) {
		return invalid(EUAnnexIIIB, code, `an Annex IIIB code is BEU and two digits or EU and four digits, such as "BEU04" or "EU3011"%s`,
			elsewhere(s, EUAnnexIIIB))
	}
	if e, ok := data().iiib[s]; ok {
		return e, true, ""
	}
	return invalid(EUAnnexIIIB, code, "%s is not an entry of Annex IIIB as held here, which is known to be incomplete (see rules/wastecodes/data/README.md)", s)
}

func lookupNational(code string) (Entry, bool, string) {
	s := strings.TrimSpace(code)
	switch {
	case s == "":
		return invalid(National, code, "the code is empty")
	case !utf8.ValidString(s):
		return invalid(National, code, "the code is not valid UTF-8")
	case utf8.RuneCountInString(s) > maxNationalCodeLength:
		return invalid(National, code, "a national code has at most %d characters", maxNationalCodeLength)
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return invalid(National, code, "a national code has printable characters only")
	}
	return Entry{List: National, Code: s, Class: Unclassified, Wording: WordingCodeOnly}, true, ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// asciiUpper upper-cases ASCII letters only, so that no other character can
// turn into an accepted letter; it does not allocate if s has none.
func asciiUpper(s string) string {
	for i := range len(s) {
		if 'a' <= s[i] && s[i] <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'a' <= b[j] && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// quote quotes s for a message, shortening it if it is long.
func quote(s string) string {
	const limit = 40
	if utf8.RuneCountInString(s) <= limit {
		return fmt.Sprintf("%q", s)
	}
	i := 0
	for range limit {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return fmt.Sprintf("%q…", s[:i])
}
