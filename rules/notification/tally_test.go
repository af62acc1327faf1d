package notification_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// move is a movement as the tally reads it: a sequence number, a quantity
// in one unit, what its facility refused.
type move struct {
	seq     int32
	q       shipment.Quantity
	refused shipment.Quantity
}

func (m move) Shipment() (int32, string, shipment.Quantity) { return m.seq, "2027-01-04", m.q }
func (m move) Refusal() shipment.Quantity                   { return m.refused }

func randomMove(r *rand.Rand) move {
	d := func() *n.Decimal { return &n.Decimal{Units: r.Int64N(50), Nanos: r.Int32N(1e9)} }
	m := move{seq: 1 + r.Int32N(40)}
	if r.IntN(2) == 0 {
		m.q.Tonnes = d()
		if r.IntN(3) == 0 {
			m.refused.Tonnes = d()
		}
	} else {
		m.q.CubicMetres = d()
	}
	return m
}

func text(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestTallyKeptByDifferences: a tally changed one movement at a time
// (created, corrected: out as it was and in as it is, taken out) is, after
// every step, the tally counted afresh over the movements there are, in
// the same form (so that the stored tally compares as text).
func TestTallyKeptByDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 49))
	for round := range 200 {
		var kept n.Tally
		var moves []move
		for step := range 60 {
			switch op := r.IntN(4); {
			case op < 2 || len(moves) == 0:
				m := randomMove(r)
				moves = append(moves, m)
				kept.Add(m, 1)
			case op == 2:
				i := r.IntN(len(moves))
				kept.Add(moves[i], -1)
				moves[i] = randomMove(r)
				kept.Add(moves[i], 1)
			default:
				i := r.IntN(len(moves))
				kept.Add(moves[i], -1)
				moves = append(moves[:i], moves[i+1:]...)
			}
			if got, want := text(t, kept), text(t, n.TallyOf(moves...)); got != want {
				t.Fatalf("round %d, step %d: kept %s, counted %s", round, step, got, want)
			}
		}
	}
}

func TestTallySequences(t *testing.T) {
	q := shipment.Quantity{Tonnes: &n.Decimal{Units: 1}}
	tally := n.TallyOf(move{seq: 1, q: q}, move{seq: 2, q: q}, move{seq: 3, q: q}, move{seq: 7, q: q})
	if got := text(t, tally.Sequences); got != "[[1,3],[7,7]]" {
		t.Fatalf("ranges %s", got)
	}
	if tally.Highest() != 7 || !tally.Uses(2) || tally.Uses(4) || tally.Uses(0) || tally.Uses(8) {
		t.Fatalf("highest %d, uses 2 %v, 4 %v", tally.Highest(), tally.Uses(2), tally.Uses(4))
	}
	tally.Add(move{seq: 2, q: q}, -1)
	if got := text(t, tally.Sequences); got != "[[1,1],[3,3],[7,7]]" || tally.Count != 3 || tally.Tonnes.Units != 3 {
		t.Fatalf("after taking 2 out: %s, count %d, tonnes %v", got, tally.Count, tally.Tonnes)
	}
	if m := n.CountMovements(&n.Content{NumberOfShipments: 5, TotalQuantity: shipment.Quantity{Tonnes: &n.Decimal{Units: 10}}}, tally); m.ShipmentsLeft != 2 ||
		m.QuantityLeft.Tonnes.Units != 7 || m.QuantityUsed.Tonnes.Units != 3 {
		t.Fatalf("counted %+v", m)
	}
}
