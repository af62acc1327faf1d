package tests

import (
	"fmt"
	"slices"
	"sync"
)

// historyLength is how many transitions the long documents of the
// history figure have been through (the speed issue's measure).
const historyLength = 1000

// historyCycle is how many transitions one information request of the
// long documents takes: the request, replies that do not yet complete it,
// the complete one. A notification keeps at most 100 requests
// (HISTORY_FULL), so 1,000 transitions take 50 requests of 20, and the
// transition run has 50 more to make.
const historyCycle = 20

// history: the same operations on documents with a long history (1,000
// transitions: 50 information requests, each answered 19 times) and on fresh ones
// (acknowledged, one request answered), 8 clients each, one document per
// client. Figure "history/get": GetDocument's rate on long documents; the
// baseline column is the rate on fresh ones, so its ratio is long ÷ fresh
// (1 would be no cost of history). "history/transition": the same for
// the acts of a request's cycle (the request, its 19 replies).
func (b *loadBench) history(clients int) []figure {
	tok := []string{b.d.token(b.t, "noor"), b.d.token(b.t, "alice")}
	cycle := func(id string, transitions int) {
		b.d.ok(b.t, "noor", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"the analysis"}}})
		for r := 2; r <= transitions; r++ {
			b.d.ok(b.t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": r == transitions}})
		}
	}
	fresh, long := b.freshDocs(clients), b.freshDocs(clients)
	for _, id := range fresh {
		cycle(id, 2)
	}
	var wg sync.WaitGroup
	for _, id := range long { // one client per document: the documents' locks do not meet
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range historyLength / historyCycle {
				cycle(id, historyCycle)
			}
		}()
	}
	wg.Wait()
	get := func(docs []string) func(c, i int) error {
		return func(c, i int) error {
			return b.post(au+"GetDocument", tok[0], []byte(fmt.Sprintf(`{"documentId":%q}`, docs[c])))
		}
	}
	longGet, longGetP99 := b.run(clients, get(long))
	longAnswer := b.lastAnswer.Load()
	freshGet, _ := b.run(clients, get(fresh))
	var deadlines, stored int64
	if err := b.sql.QueryRow(b.q(`SELECT (SELECT count(*) FROM deadlines WHERE document_id = ?), (SELECT length(CAST(data AS TEXT)) FROM documents WHERE id = ?)`), long[0], long[0]).Scan(&deadlines, &stored); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("history: a long document's GetDocument answer %d KB (a fresh one's %d KB), its stored aggregate %d KB, %d deadline rows",
		longAnswer>>10, b.lastAnswer.Load()>>10, stored>>10, deadlines)
	// Transitions add history as they run: the fresh side rotates over a
	// pool of 128 (a request's cycle each in the run), the long side stays
	// on its 8. Both make the setup's cycle (the request, 18 replies that
	// do not complete it, the complete one), so the two sides do the same
	// acts, and a long document takes a new request once in 20
	// transitions: 50 requests left before HISTORY_FULL are 1,000
	// transitions, far more than a run makes.
	pool := b.freshDocs(docPool)
	vers := b.versionsOf(pool, long)
	cycles := map[string]*int{} // transitions made in the document's current cycle
	for _, id := range append(slices.Clone(pool), long...) {
		cycles[id] = new(int)
	}
	mine := len(pool) / clients
	paths := []string{au + "SetRequestInformation", co + "SetReplyToRequestInformation"}
	move := func(doc func(c, i int) string) func(c, i int) error {
		return func(c, i int) error {
			id := doc(c, i)
			at := cycles[id] // one client per document: no other writes it
			return vers.moved(id, func(v int64) error {
				body, who := fmt.Sprintf(`{"documentId":%q,"version":"%d","requestInformation":{"questions":["the analysis, please"]}}`, id, v), 0
				if *at > 0 {
					body, who = fmt.Sprintf(`{"documentId":%q,"version":"%d","replyToRequestInformation":{"answers":["attached"],"complete":%t}}`, id, v, *at == historyCycle-1), 1
				}
				if err := b.post(paths[who], tok[who], []byte(body)); err != nil {
					return err
				}
				*at = (*at + 1) % historyCycle
				return nil
			})
		}
	}
	run := func(op func(c, i int) error) (float64, float64) {
		lat, d := b.runFor(clients, b.dur/2, op, make([]int, clients))
		return rate(lat, d), pct99(lat)
	}
	longMove, longMoveP99 := run(move(func(c, _ int) string { return long[c] }))
	freshMove, _ := run(move(func(c, i int) string { return pool[c+clients*((i/historyCycle)%mine)] }))
	return []figure{
		{name: "history/get", db: b.db, clients: clients, server: longGet, baseline: freshGet, p99: longGetP99},
		{name: "history/transition", db: b.db, clients: clients, server: longMove, baseline: freshMove, p99: longMoveP99},
	}
}
