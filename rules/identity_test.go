package rules_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules"
)

func TestCheckPassword(t *testing.T) {
	for _, c := range []struct {
		user, pw string
		ok       bool
	}{
		{"alice", "correct-horse", true},
		{"alice", "short", false},
		{"alice", "elevenchars", false},
		{"longusername1", "LongUsername1", false},
		{"alice", "äöüäöüäöüäöü", true}, // 12 characters, 24 bytes
	} {
		if err := rules.CheckPassword(c.user, c.pw); (err == nil) != c.ok {
			t.Errorf("CheckPassword(%q, %q) = %v, want ok=%v", c.user, c.pw, err, c.ok)
		}
	}
}

func TestCheckCountryAndRegion(t *testing.T) {
	for v, ok := range map[string]bool{"DE": true, "NL": true, "de": false, "XX": false, "DEU": false, "": false, "EU": false} {
		if err := rules.CheckCountry(v); (err == nil) != ok {
			t.Errorf("CheckCountry(%q) = %v, want ok=%v", v, err, ok)
		}
	}
	for v, ok := range map[string]bool{"": true, "BY": true, "VLG": true, "DE-BY": false, "by": false} {
		if err := rules.CheckRegion(v); (err == nil) != ok {
			t.Errorf("CheckRegion(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

func TestCheckIdentifierAndScope(t *testing.T) {
	for v, ok := range map[string]bool{"dev-1": true, "auth-de-by": true, "Dev": false, "-x": false, "": false, "a b": false} {
		if err := rules.CheckIdentifier(v); (err == nil) != ok {
			t.Errorf("CheckIdentifier(%q) = %v, want ok=%v", v, err, ok)
		}
	}
	for v, ok := range map[string]bool{"usermgt": true, "documents:read": true, "documents:write": true, "transport": true, "signing": true,
		"documents": false, "frobnicate": false, "User": false, "": false} {
		if err := rules.CheckScope(v); (err == nil) != ok {
			t.Errorf("CheckScope(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}
