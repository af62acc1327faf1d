// Package wastecodes validates the waste classification codes and the
// recovery and disposal operation codes named in transboundary waste
// shipment notifications (Regulation (EU) 2024/1157).
//
// A classification code is checked against the list it claims:
//
//   - EU_LIST_OF_WASTE: the European List of Waste (Decision 2000/532/EC as
//     amended by 2014/955/EU, as transposed by the German AVV). Only six-digit
//     entries are codes; chapter and sub-chapter headings are not. A
//     hazardous entry must be written with an asterisk, a non-hazardous one
//     without.
//   - BASEL_ANNEX_VIII and BASEL_ANNEX_IX: list A and list B of the Basel
//     Convention. The embedded data is the 2014 text of the annexes: entries
//     added later (for example A1181, A3210, B3011) are not known and are
//     rejected.
//   - OECD: the package holds no OECD list data, so only the format of an
//     amber or green list code is checked (see [Lookup]).
//   - NATIONAL: any short printable code (see [Lookup]).
//
// Code lists are embedded in the binary and parsed once, on first use. All
// functions are safe for concurrent use.
package wastecodes

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lists a classification code can claim (JSON enum names, public contract).
const (
	EUListOfWaste  = "EU_LIST_OF_WASTE"
	BaselAnnexVIII = "BASEL_ANNEX_VIII"
	BaselAnnexIX   = "BASEL_ANNEX_IX"
	OECD           = "OECD"
	National       = "NATIONAL"
)

// maxNationalCodeLength is the longest NATIONAL code accepted, in characters.
const maxNationalCodeLength = 20

// Lists returns the list names above in that order.
func Lists() []string {
	return []string{EUListOfWaste, BaselAnnexVIII, BaselAnnexIX, OECD, National}
}

// Entry describes a known code.
//
// List is the list the code belongs to and Code its canonical spelling (see
// [Canonical]). Description is the English text of the entry for the EU list
// and the Basel annexes and is empty for OECD and NATIONAL codes, for which
// the package has no data. Hazardous is set for EU list entries marked with
// an asterisk; it is false for all other lists.
type Entry struct {
	List, Code, Description string
	Hazardous               bool
}

// Lookup finds code in list. Leading and trailing white space is ignored.
// When ok is false, e is the zero Entry and reason says in English why the
// code is not valid, naming the code and the list, for use in the business
// error WASTE_CLASSIFICATION_INVALID_CODE.
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
// that names the right list.
//
// OECD accepts any code of the format of the OECD amber and green lists: two
// letters, the first A (amber) or G (green), then three digits, for example
// "AA010", "AC150", "GB040" or "GC010", in either letter case. The package
// has no OECD list data, so whether such a code exists is not checked.
//
// NATIONAL accepts any non-empty code of at most 20 printable characters.
func Lookup(list, code string) (e Entry, ok bool, reason string) {
	switch list {
	case EUListOfWaste:
		return lookupEU(code)
	case BaselAnnexVIII, BaselAnnexIX:
		return lookupBasel(list, code)
	case OECD:
		return lookupOECD(code)
	case National:
		return lookupNational(code)
	}
	return Entry{}, false, fmt.Sprintf("waste code %s: unknown code list %s (want one of %s)",
		quote(code), quote(list), strings.Join(Lists(), ", "))
}

// Canonical returns the normalised spelling of a valid code ("16 02 13*" for
// the EU list, "A1010" for Basel, upper case for OECD, the trimmed code for
// NATIONAL). If code is not valid in list, Canonical returns it unchanged.
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

func invalid(list, code, format string, args ...any) (Entry, bool, string) {
	return Entry{}, false, fmt.Sprintf("waste code %s is not valid in list %s: ", quote(code), list) +
		fmt.Sprintf(format, args...)
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
		return invalid(list, code, "a Basel Annex %s code is the letter %s and four digits, such as %q",
			want.annex, want.list, want.list+"1010")
	}
	e, ok := data().basel[s]
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

// oecdCode is the format of OECD amber (A…) and green (G…) list codes.
var oecdCode = regexp.MustCompile(`^[AG][A-Z][0-9]{3}$`)

func lookupOECD(code string) (Entry, bool, string) {
	s := asciiUpper(strings.TrimSpace(code))
	if !oecdCode.MatchString(s) {
		return invalid(OECD, code, `an OECD code is A (amber list) or G (green list), a second letter and three digits, such as "AC150" or "GC010"`)
	}
	return Entry{List: OECD, Code: s}, true, ""
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
	return Entry{List: National, Code: s}, true, ""
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
