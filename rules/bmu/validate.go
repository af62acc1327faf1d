package bmu

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// Violation is one missing or wrong field (a google.rpc.BadRequest field
// violation), named by its path in the document ("bgs.erzeuger.nummer").
type Violation struct {
	Field       string
	Description string
}

var (
	noteNumber  = regexp.MustCompile(`^[0-9]{14}$`)
	partyNumber = regexp.MustCompile(`^[A-Z][0-9A-Z]{8}[0-9]$`)
	oneDigit    = regexp.MustCompile(`^[0-9]$`)
)

// Calculate fills in every check digit of the note's current numbers into
// the top layer (PRUEFZIFFER_CALCULATE): the note number's pruefziffer,
// and the last character of party numbers given with 9 or 10 characters.
// Numbers it cannot compute a digit for are left for validation to name.
func Calculate(n *Note, cd CheckDigit) {
	top := n.Top()
	if num, _ := n.Value("nummer"); num != "" {
		if d, err := cd.Digit(num); err == nil {
			if cur, _ := n.Value("pruefziffer"); cur != d {
				top.Values["pruefziffer"] = d
			}
		}
	}
	for _, path := range PartyNumberPaths(n) {
		num, _ := n.Value(path)
		base := num
		switch len(num) {
		case 9:
		case 10:
			base = num[:9]
		default:
			continue
		}
		if d, err := cd.Digit(base); err == nil && base+d != num {
			top.Values[path] = base + d
		}
	}
}

// PartyNumberPaths are the fields of a note's official numbers, in the
// order of the chain: producer, carriers, interim storage, disposer.
func PartyNumberPaths(n *Note) []string {
	paths := []string{"erzeuger.nummer"}
	if n.Type == TypeUNS {
		paths = append(paths, "befoerderer.nummer")
	} else {
		for i := range n.Length("befoerderer") {
			paths = append(paths, fmt.Sprintf("befoerderer[%d].nummer", i))
		}
		paths = append(paths, "zwischenlager.nummer")
	}
	return append(paths, "entsorger.nummer")
}

// HolderNumberPaths are the fields naming the official number of the party
// that holds a signature position of n (a position from
// GetValidSignaturePositions): the producer for its layer, the carrier of
// that carrier layer (the k-th BEFOERDERER layer is the k-th carrier), the
// interim storage facility, the disposer; a supplement by the role that
// wrote it. A position of an authority, a template or a role that has no
// number in a note (provider, broker, agent, other) has none.
func HolderNumberPaths(n *Note, p SignaturePosition) []string {
	role := RoleFor(p.LayerType)
	if role == RoleUnspecified {
		role = p.AtbRolle
	}
	switch role {
	case RoleERZ:
		return []string{"erzeuger.nummer"}
	case RoleENT:
		return []string{"entsorger.nummer"}
	case RoleZWL:
		if n.Type == TypeBGS {
			return []string{"zwischenlager.nummer"}
		}
	case RoleBEF:
		if n.Type != TypeBGS {
			return []string{"befoerderer.nummer"}
		}
		if p.LayerType == LayerBefoerderer {
			k := 0
			for _, l := range n.Layers {
				if l.Type == LayerBefoerderer && l.Index <= int(p.LayerIndex) {
					k++
				}
			}
			if k > 0 {
				return []string{fmt.Sprintf("befoerderer[%d].nummer", k-1)}
			}
			return nil
		}
		var out []string
		for i := range n.Length("befoerderer") {
			out = append(out, fmt.Sprintf("befoerderer[%d].nummer", i))
		}
		return out
	}
	return nil
}

// IsNoteNumber reports whether s has the form of a note number (14 digits).
func IsNoteNumber(s string) bool { return noteNumber.MatchString(s) }

// IsPartyNumber reports whether s has the form of a producer, carrier or
// disposer number: a state letter, 8 letters or digits, a check digit.
func IsPartyNumber(s string) bool { return partyNumber.MatchString(s) }

// Validate checks the note's current fields at a level (the unspecified
// level is full) and returns every violation. A note that is only a
// template is checked for types and code lists, not for mandatory fields
// or check digits (a template is incomplete by design: our design).
func Validate(n *Note, level Validation, cd CheckDigit, on time.Time) []Violation {
	if level == ValidationUnspecified {
		level = ValidationFull
	}
	if level == ValidationNone {
		return nil
	}
	prefix := strings.ToLower(n.Type) + "."
	var out []Violation
	add := func(path, format string, args ...any) {
		out = append(out, Violation{Field: prefix + path, Description: echo.Sprintf(format, args...)})
	}
	get := func(path string) string { v, _ := n.Value(path); return v }

	carriers := []string{"befoerderer"}
	if n.Type == TypeBGS {
		carriers = carriers[:0]
		for i := range n.Length("befoerderer") {
			carriers = append(carriers, fmt.Sprintf("befoerderer[%d]", i))
		}
	}
	dates := []string{"uebergabeDatum", "entsorger.annahmeDatum"}
	if n.Type == TypeBGS {
		dates = append(dates, "zwischenlager.annahmeDatum")
	}
	for _, c := range carriers {
		dates = append(dates, c+".uebernahmeDatum")
	}

	// Types.
	for _, p := range dates {
		if v := get(p); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				add(p, "%q is not a date YYYY-MM-DD", v)
			}
		}
	}
	if v := get("menge"); v != "" {
		if d, err := decimal.Parse(v); err != nil {
			add("menge", "%q is not a decimal number", v)
		} else if d.Cmp(decimal.Decimal{}) <= 0 {
			add("menge", "the quantity must be more than 0 tonnes")
		}
	}
	if v := get("nummer"); v != "" && !noteNumber.MatchString(v) {
		add("nummer", "a note number has 14 digits, not %q", v)
	}
	if v := get("pruefziffer"); v != "" && !oneDigit.MatchString(v) {
		add("pruefziffer", "a check digit is one digit, not %q", v)
	}
	for _, p := range PartyNumberPaths(n) {
		if v := get(p); v != "" && !partyNumber.MatchString(v) {
			add(p, "a producer, carrier or disposer number is a state letter, 8 more letters or digits and its check digit (10 characters), not %q", v)
		}
	}
	if level == ValidationTypes {
		return out
	}

	// Mandatory fields.
	template := n.Template()
	if !template {
		required := []string{"nummer", "pruefziffer", "abfallschluessel", "menge", "erzeuger.nummer", "erzeuger.name", "entsorger.nummer", "entsorger.name"}
		if n.Type == TypeBGS {
			required = append(required, "nachweisnummer")
			if len(carriers) == 0 {
				add("befoerderer", "at least one carrier is required")
			}
		}
		for _, c := range carriers {
			required = append(required, c+".nummer", c+".name")
		}
		// The date of each role whose layer exists.
		if n.Count(LayerErzeuger) > 0 {
			required = append(required, "uebergabeDatum")
		}
		if k := n.Count(LayerBefoerderer); k > 0 && len(carriers) > 0 {
			for i := 0; i < k && i < len(carriers); i++ {
				required = append(required, carriers[i]+".uebernahmeDatum")
			}
		}
		if n.Count(LayerZwischenlager) > 0 {
			required = append(required, "zwischenlager.nummer", "zwischenlager.name", "zwischenlager.annahmeDatum")
		}
		if n.Count(LayerEntsorger) > 0 {
			required = append(required, "entsorger.annahmeDatum")
		}
		for _, p := range required {
			if strings.TrimSpace(get(p)) == "" {
				add(p, "required")
			}
		}
	}
	if level == ValidationMandatory {
		return out
	}

	// Code lists, check digits, cross-field rules.
	if v := get("abfallschluessel"); v != "" {
		if _, ok, reason := wastecodes.LookupOn(wastecodes.EUListOfWaste, v, on); !ok {
			add("abfallschluessel", "%s", reason)
		}
	}
	if !template {
		if num, pz := get("nummer"), get("pruefziffer"); noteNumber.MatchString(num) && oneDigit.MatchString(pz) {
			if d, err := cd.Digit(num); err != nil {
				add("nummer", "%v", err)
			} else if d != pz {
				add("pruefziffer", "%s is not the check digit of %s (our method gives %s)", pz, num, d)
			}
		}
		for _, p := range PartyNumberPaths(n) {
			if v := get(p); partyNumber.MatchString(v) {
				if d, err := cd.Digit(v[:9]); err != nil {
					add(p, "%v", err)
				} else if d != v[9:] {
					add(p, "the last character of %s is not its check digit (our method gives %s)", v, d)
				}
			}
		}
	}
	after := func(later, earlier string) {
		l, e := get(later), get(earlier)
		if lt, err1 := time.Parse(time.DateOnly, l); err1 == nil {
			if et, err2 := time.Parse(time.DateOnly, e); err2 == nil && lt.Before(et) {
				add(later, "%s is before %s (%s)", l, earlier, e)
			}
		}
	}
	for _, c := range carriers {
		after(c+".uebernahmeDatum", "uebergabeDatum")
	}
	if len(carriers) > 0 {
		after("entsorger.annahmeDatum", carriers[len(carriers)-1]+".uebernahmeDatum")
	}
	after("entsorger.annahmeDatum", "uebergabeDatum")
	return out
}
