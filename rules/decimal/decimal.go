// Package decimal is the one decimal value of the API: units plus nanos, as
// the query operand n and notified quantities use it.
package decimal

import (
	"cmp"
	"fmt"
	"math/big"
	"strings"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Decimal is units + nanos × 10⁻⁹ (google.type.Money without currency).
type Decimal struct {
	Units int64 `json:"units"`
	Nanos int32 `json:"nanos"`
}

// nanos is d as an exact count of 10⁻⁹ units.
func (d Decimal) nanos() *big.Int {
	n := big.NewInt(d.Units)
	n.Mul(n, big.NewInt(1_000_000_000))
	return n.Add(n, big.NewInt(int64(d.Nanos)))
}

// small is how large units may be for d's count of nanos to fit an int64
// with room for a sum of two (4·10⁹ units is 4·10¹⁸ nanos).
const small = 4_000_000_000

// smallNanos is d's exact count of nanos when it fits an int64 with room
// for a sum of two (ok false: use nanos).
func (d Decimal) smallNanos() (int64, bool) {
	if d.Units > small || d.Units < -small {
		return 0, false
	}
	return d.Units*1_000_000_000 + int64(d.Nanos), true
}

// Add returns d + e, exactly (units carry, nanos take the sign of units).
func (d Decimal) Add(e Decimal) Decimal {
	if a, ok := d.smallNanos(); ok {
		if b, ok := e.smallNanos(); ok { // Go's / and % truncate as big.Int's QuoRem does
			sum := a + b
			return Decimal{Units: sum / 1_000_000_000, Nanos: int32(sum % 1_000_000_000)}
		}
	}
	sum := d.nanos()
	sum.Add(sum, e.nanos())
	q, r := new(big.Int).QuoRem(sum, big.NewInt(1_000_000_000), new(big.Int))
	return Decimal{Units: q.Int64(), Nanos: int32(r.Int64())}
}

// Cmp compares d and e: -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int {
	if a, ok := d.smallNanos(); ok {
		if b, ok := e.smallNanos(); ok {
			return cmp.Compare(a, b)
		}
	}
	return d.nanos().Cmp(e.nanos())
}

// String renders d in plain decimal notation ("20.5").
func (d Decimal) String() string {
	n := d.nanos()
	neg := n.Sign() < 0
	n.Abs(n)
	q, r := new(big.Int).QuoRem(n, big.NewInt(1_000_000_000), new(big.Int))
	s := q.String()
	if r.Sign() != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", r.Int64()), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Parse reads plain decimal notation ("20.5", "-3", "0.000000001"): an
// optional minus, digits, and at most nine decimals.
func Parse(s string) (Decimal, error) {
	bad := echo.Errorf("%q is not a decimal number (digits, at most nine decimals, a point)", s)
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if whole == "" || len(whole) > 18 || len(frac) > 9 || strings.Contains(s, ".") && frac == "" {
		return Decimal{}, bad
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return Decimal{}, bad
			}
		}
	}
	var d Decimal
	for _, c := range whole {
		d.Units = d.Units*10 + int64(c-'0')
	}
	for i := 0; i < 9; i++ {
		d.Nanos *= 10
		if i < len(frac) {
			d.Nanos += int32(frac[i] - '0')
		}
	}
	if neg {
		d.Units, d.Nanos = -d.Units, -d.Nanos
	}
	return d, nil
}
