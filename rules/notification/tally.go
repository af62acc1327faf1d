package notification

import (
	"slices"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

// Tally is what the movements under a notification add up to: how many
// were created, what they carry and what their facilities refused, in
// each unit, and the sequence numbers they use. Every rule that counts the
// movements (the shipments and the quantity left, a change of the terms, a
// new movement's sequence number and quantity) reads a Tally, not the
// movements: the notification keeps its movements' tally beside it and
// each movement's act changes it by the difference it made (Add with -1
// for the movement before, +1 after), so the cost of an act does not grow
// with the number of movements. Sums are exact (Decimal), so a tally kept
// by differences equals the tally counted afresh.
type Tally struct {
	Count       int32   `json:"count"`
	Tonnes      Decimal `json:"tonnes"`
	CubicMetres Decimal `json:"cubicMetres"`
	// RefusedTonnes and RefusedCubicMetres are what the facilities refused.
	RefusedTonnes      Decimal `json:"refusedTonnes"`
	RefusedCubicMetres Decimal `json:"refusedCubicMetres"`
	// Sequences are the sequence numbers in use, as sorted ranges of
	// consecutive numbers ([first, last]); a number two movements share
	// (none the rules let in) is counted in Shared.
	Sequences [][2]int32 `json:"sequences,omitempty"`
	Shared    []int32    `json:"shared,omitempty"`
}

// TallyOf counts shipped afresh.
func TallyOf[S Shipped](shipped ...S) Tally {
	var t Tally
	for _, s := range shipped {
		t.Add(s, 1)
	}
	return t
}

// Add adds s to the tally (sign 1) or takes it out (sign -1).
func (t *Tally) Add(s Shipped, sign int) {
	seq, _, q := s.Shipment()
	t.Count += int32(sign)
	addTo(&t.Tonnes, &t.CubicMetres, q, sign)
	if r, ok := s.(shipment.Refused); ok {
		addTo(&t.RefusedTonnes, &t.RefusedCubicMetres, r.Refusal(), sign)
	}
	if sign > 0 {
		t.use(seq)
	} else {
		t.release(seq)
	}
}

func addTo(tonnes, cubic *Decimal, q Quantity, sign int) {
	if q.Tonnes != nil {
		*tonnes = tonnes.Add(signed(*q.Tonnes, sign))
	}
	if q.CubicMetres != nil {
		*cubic = cubic.Add(signed(*q.CubicMetres, sign))
	}
}

func signed(d Decimal, sign int) Decimal {
	if sign < 0 {
		return Decimal{Units: -d.Units, Nanos: -d.Nanos}
	}
	return d
}

// Uses reports whether sequence number n is in use.
func (t *Tally) Uses(n int32) bool {
	_, ok := t.find(n)
	return ok
}

// Highest is the highest sequence number in use (0: none).
func (t *Tally) Highest() int32 {
	if len(t.Sequences) == 0 {
		return 0
	}
	return t.Sequences[len(t.Sequences)-1][1]
}

// Used is the quantity of the movements in q's unit (tonnes when q gives
// tonnes, else cubic metres: a movement's quantity has one unit).
func (t *Tally) Used(q Quantity) Decimal {
	if q.Tonnes != nil {
		return t.Tonnes
	}
	return t.CubicMetres
}

// find is the index of the range holding n (ok), or where one would go.
func (t *Tally) find(n int32) (int, bool) {
	i, _ := slices.BinarySearchFunc(t.Sequences, n, func(r [2]int32, n int32) int {
		switch {
		case r[1] < n:
			return -1
		case r[0] > n:
			return 1
		}
		return 0
	})
	return i, i < len(t.Sequences) && t.Sequences[i][0] <= n && n <= t.Sequences[i][1]
}

func (t *Tally) use(n int32) {
	i, ok := t.find(n)
	if ok {
		t.Shared = append(t.Shared, n)
		slices.Sort(t.Shared)
		return
	}
	joinsLeft := i > 0 && t.Sequences[i-1][1] == n-1
	joinsRight := i < len(t.Sequences) && t.Sequences[i][0] == n+1
	switch {
	case joinsLeft && joinsRight:
		t.Sequences[i-1][1] = t.Sequences[i][1]
		t.Sequences = slices.Delete(t.Sequences, i, i+1)
	case joinsLeft:
		t.Sequences[i-1][1] = n
	case joinsRight:
		t.Sequences[i][0] = n
	default:
		t.Sequences = slices.Insert(t.Sequences, i, [2]int32{n, n})
	}
}

func (t *Tally) release(n int32) {
	if j := slices.Index(t.Shared, n); j >= 0 { // still used by the other
		t.Shared = slices.Delete(t.Shared, j, j+1)
		if len(t.Shared) == 0 {
			t.Shared = nil
		}
		return
	}
	i, ok := t.find(n)
	if !ok {
		return
	}
	r := t.Sequences[i]
	switch {
	case r[0] == n && r[1] == n:
		t.Sequences = slices.Delete(t.Sequences, i, i+1)
	case r[0] == n:
		t.Sequences[i][0] = n + 1
	case r[1] == n:
		t.Sequences[i][1] = n - 1
	default:
		t.Sequences[i][1] = n - 1
		t.Sequences = slices.Insert(t.Sequences, i+1, [2]int32{n + 1, r[1]})
	}
	if len(t.Sequences) == 0 {
		t.Sequences = nil
	}
}
