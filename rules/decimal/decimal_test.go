package decimal_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules/decimal"
)

func TestArithmetic(t *testing.T) {
	a := decimal.Decimal{Units: 20, Nanos: 500_000_000}
	b := decimal.Decimal{Units: 79, Nanos: 600_000_000}
	if s := a.Add(b); s != (decimal.Decimal{Units: 100, Nanos: 100_000_000}) || s.String() != "100.1" {
		t.Fatalf("20.5 + 79.6 = %v (%s)", s, s)
	}
	if a.Cmp(b) != -1 || b.Cmp(a) != 1 || a.Cmp(a) != 0 {
		t.Fatal("Cmp")
	}
	neg := decimal.Decimal{Units: -1, Nanos: -250_000_000}
	if s := neg.Add(decimal.Decimal{Units: 1}); s != (decimal.Decimal{Nanos: -250_000_000}) || s.String() != "-0.25" {
		t.Fatalf("-1.25 + 1 = %v (%s)", s, s)
	}
	large := decimal.Decimal{Units: 4_000_000_000_000_000_000, Nanos: 999_999_999}
	if s := large.Add(large); s.String() != "8000000000000000001.999999998" {
		t.Fatalf("large sum: %s", s)
	}
}
