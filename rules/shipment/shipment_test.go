package shipment_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

func TestCompletionCertificateDue(t *testing.T) {
	for _, c := range []struct{ received, completed, want string }{
		{"", "", ""},                               // no receipt: nothing due
		{"2026-13-01", "", ""},                     // no valid receipt
		{"2026-12-04", "", "2027-12-04"},           // a year after receipt
		{"2026-12-04", "2027-01-10", "2027-02-09"}, // 30 days after completion, sooner
		{"2026-12-04", "2027-11-20", "2027-12-04"}, // a year after receipt, sooner
		{"2026-12-04", "not a date", "2027-12-04"}, // an unreadable completion moves nothing
		{"2028-02-29", "", "2029-03-01"},           // a leap day's year ends with March
	} {
		if got := shipment.CompletionCertificateDue(c.received, c.completed); got != c.want {
			t.Errorf("CompletionCertificateDue(%q, %q) = %q, want %q", c.received, c.completed, got, c.want)
		}
	}
}
