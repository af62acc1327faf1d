package bmu

import "testing"

// The default method reproduces the two real numbers it was chosen by.
func TestMod11FitsTheNumbersWeSaw(t *testing.T) {
	for number, want := range map[string]string{"11681570210293": "4", "11681570206792": "1"} {
		if got, err := (mod11{}).Digit(number); err != nil || got != want {
			t.Errorf("%s: %q %v, want %s", number, got, err, want)
		}
	}
	if _, err := (mod11{}).Digit("12-3"); err == nil {
		t.Error("a hyphen was taken")
	}
	if _, err := CheckDigitMethod("luhn"); err == nil {
		t.Error("an unknown method was found")
	}
}
