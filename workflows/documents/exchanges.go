package documents

// A long-lived document's exchanges (requests for information and their
// replies, requests for change, acknowledgements, signals, corrections)
// grow with its history; its retrieval document carries what a party
// needs to act: every open exchange, then the latest closed ones
// (ClosedListed a list), with a count of those it leaves out. The whole
// lists stay stored (the oldest closed items in the row's archive, below),
// the printed form, the register and the replay read them whole, each
// act's input stays in the audit trail, and GetDocument with fullHistory
// returns them (issue 49.4).

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

// The stored form (issue 49.2): the oldest closed items of a list are kept
// apart from the aggregate an act rewrites (models/archive.go), ArchiveBatch
// or more at a time, so that the aggregate keeps every open item and at
// least the ClosedListed latest closed ones: what a retrieval document
// lists (Latest) is read from it alone (Runner.Get), and an act reads and
// rewrites what it holds, not its whole history (Kind.decodeAct: closed
// items are no act's business; engine.Eval.KeptApart counts them, so that
// an act numbers an item by its place in the whole list and bounds the
// whole list). The printed form, the register, fullHistory and the replay
// read the aggregate whole; the act's digest is of the whole (Record puts
// the archive's JSON back to digest it), so the audit trail means what it
// did.

// ArchiveBatch is how many closed items at least move apart at once: the
// archive is rewritten once in that many closing acts, not with each.
const ArchiveBatch = 10

// ArchiveList is a list of aggregate D whose closed items may be kept
// apart: its JSON name in D and how many of its first items to keep apart
// (archiveCut).
type ArchiveList[D any] struct {
	name string
	cut  func(d *D, before, ahead int) int
}

// Archived declares D's list name (its JSON name), read by list, whose
// items open says are open (the predicate its retrieval document's Latest
// takes).
func Archived[D, T any](name string, list func(d *D) []T, open func(*T) bool) ArchiveList[D] {
	return ArchiveList[D]{name: name, cut: func(d *D, before, ahead int) int { return archiveCut(list(d), open, before, ahead) }}
}

// archiveCut is how many of a list's first items to keep apart, before of
// them being kept apart now; items is the list without its first ahead
// items (0, or before: an act reads the aggregate without what its row
// keeps apart). It is a prefix of closed items that leaves at least
// ClosedListed closed ones after it (so Latest of the rest is Latest of
// the whole), grown only by ArchiveBatch or more; before when it still
// holds and would grow by less. Closed items stay closed, so the items
// kept apart before are such a prefix still.
func archiveCut[T any](items []T, open func(*T) bool, before, ahead int) int {
	closed := 0 // after the first k
	for i := range items {
		if !open(&items[i]) {
			closed++
		}
	}
	k := ahead
	for i := 0; i < len(items) && !open(&items[i]) && closed-1 >= ClosedListed; i++ {
		closed--
		k++
	}
	if before <= k && k-before < ArchiveBatch {
		return before
	}
	return k
}
