package handlers

import "testing"

// Issue 44.8: what is kept and shown of a reader's address.
func TestShortAddress(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.77":            "203.0.113.0/24",
		"203.0.113.0/24":          "203.0.113.0/24", // a stored one stays
		"::ffff:198.51.100.9":     "198.51.100.0/24",
		"2001:db8:1:2:3:4:5:6":    "2001:db8:1::/48",
		"2001:db8:1:ffff::1%eth0": "2001:db8:1::/48",
		"2001:db8:1::/48":         "2001:db8:1::/48",
		"::1":                     "::/48",
		"":                        "",
		"not an address":          "",
	} {
		if got := shortAddress(in); got != want {
			t.Errorf("shortAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
