package bmu

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// CheckDigit computes the check digit (Prüfziffer) of a number. The BMU's
// official method is in documentation we do not have; methods are
// registered here and chosen by configuration (WASTEFLOW_BMU_CHECK_DIGIT).
type CheckDigit interface {
	// Digit is the check digit of s, or an error when s has characters the
	// method does not take or no usable digit (such numbers are not issued).
	Digit(s string) (string, error)
}

// DefaultCheckDigit is the name of our default method.
const DefaultCheckDigit = "mod11-weighted"

var checkDigits = map[string]CheckDigit{DefaultCheckDigit: mod11{}}

// CheckDigitMethod is the registered method of that name.
func CheckDigitMethod(name string) (CheckDigit, error) {
	if m, ok := checkDigits[name]; ok {
		return m, nil
	}
	names := make([]string, 0, len(checkDigits))
	for n := range checkDigits {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, echo.Errorf("unknown check-digit method %q (known: %s)", name, strings.Join(names, ", "))
}

// mod11 is our unverified assumption, the one common scheme that fits the
// two real consignment-note numbers we saw (11681570210293 -> 4,
// 11681570206792 -> 1): weights 1, 2, 3, ... from the left over the
// characters, digits as their value and letters A=10 ... Z=35 (our
// mapping), the sum mod 11 = r, the digit (11 - r) mod 11; 10 makes the
// number unusable.
type mod11 struct{}

func (mod11) Digit(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("no number")
	}
	sum := 0
	for i, c := range strings.ToUpper(s) {
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		default:
			return "", echo.Errorf("%q is not a digit or a letter", c)
		}
		sum += (i + 1) * v
	}
	d := (11 - sum%11) % 11
	if d == 10 {
		return "", fmt.Errorf("%s has no usable check digit (the method gives 10): such numbers are not issued", s)
	}
	return fmt.Sprint(d), nil
}
