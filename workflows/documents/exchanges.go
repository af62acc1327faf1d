package documents

// A long-lived document's exchanges (requests for information and their
// replies, requests for change, acknowledgements, signals, corrections)
// grow with its history; its retrieval document carries what a party
// needs to act: every open exchange, then the latest closed ones
// (ClosedListed a list), with a count of those it leaves out. The whole
// lists stay in the stored aggregate (which the printed form, the
// register and the replay read), each act's input in the audit trail,
// and GetDocument with fullHistory returns them (issue 49.4).

// ClosedListed is how many closed exchanges a list of a retrieval
// document carries, after its open ones.
const ClosedListed = 10

// Latest is list as a retrieval document carries it: every item open
// says is open, and the last keep others, in list's order (oldest
// first); omitted counts the others. A list with no more than keep
// closed items comes back whole (the same slice).
func Latest[T any](list []T, open func(*T) bool, keep int) (out []T, omitted int32) {
	closed := 0
	for i := range list {
		if !open(&list[i]) {
			closed++
		}
	}
	if closed <= keep {
		return list, 0
	}
	skip := closed - keep // the oldest closed ones
	out = make([]T, 0, len(list)-skip)
	for i := range list {
		if skip > 0 && !open(&list[i]) {
			skip--
			continue
		}
		out = append(out, list[i])
	}
	return out, int32(closed - keep)
}

// AllClosed is Latest's open for a list whose items are closed once
// given (acknowledgements, signals).
func AllClosed[T any](*T) bool { return false }
