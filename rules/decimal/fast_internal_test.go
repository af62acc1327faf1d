package decimal

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigAdd and bigCmp are Add and Cmp by big.Int alone (what the int64 fast
// path must equal).
func bigAdd(d, e Decimal) Decimal {
	sum := d.nanos()
	sum.Add(sum, e.nanos())
	q, r := new(big.Int).QuoRem(sum, big.NewInt(1_000_000_000), new(big.Int))
	return Decimal{Units: q.Int64(), Nanos: int32(r.Int64())}
}

func bigCmp(d, e Decimal) int { return d.nanos().Cmp(e.nanos()) }

// TestFastPathIsExact: Add and Cmp give big.Int's answers around the
// int64 fast path's bounds, with nanos of either sign, and far beyond.
func TestFastPathIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	units := []int64{0, 1, -1, 999, small - 1, small, small + 1, -small, -small - 1, math.MaxInt64 / 4, math.MinInt64 / 4}
	nanos := []int32{0, 1, -1, 999_999_999, -999_999_999, 500_000_000, -500_000_000}
	var cases []Decimal
	for _, u := range units {
		for _, n := range nanos {
			cases = append(cases, Decimal{u, n})
		}
	}
	for range 2000 {
		cases = append(cases, Decimal{r.Int64N(2*small+10) - small - 5, r.Int32N(2_000_000_000) - 999_999_999})
	}
	for _, d := range cases {
		for _, e := range cases[:80] {
			if got, want := d.Add(e), bigAdd(d, e); got != want {
				t.Fatalf("%v + %v = %v, big.Int says %v", d, e, got, want)
			}
			if got, want := d.Cmp(e), bigCmp(d, e); got != want {
				t.Fatalf("cmp(%v, %v) = %d, big.Int says %d", d, e, got, want)
			}
		}
	}
}
