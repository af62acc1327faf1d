package tests

import (
	"fmt"
	"sync"
)

// historyLength is how many transitions the long documents of the
// history figure have been through (the speed issue's measure).
const historyLength = 1000

// history: the same operations on documents with a long history (1,000
// transitions: 500 information requests answered) and on fresh ones
// (acknowledged, one request answered), 8 clients each, one document per
// client. Figure "history/get": GetDocument's rate on long documents; the
// baseline column is the rate on fresh ones, so its ratio is long ÷ fresh
// (1 would be no cost of history). "history/transition": the same for a
// request and its reply.
func (b *loadBench) history(clients int) []figure {
	tok := []string{b.d.token(b.t, "noor"), b.d.token(b.t, "alice")}
	cycle := func(id string) {
		b.d.ok(b.t, "noor", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"the analysis"}}})
		b.d.ok(b.t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
	}
	fresh, long := b.freshDocs(clients), b.freshDocs(clients)
	for _, id := range fresh {
		cycle(id)
	}
	var wg sync.WaitGroup
	for _, id := range long { // one client per document: the documents' locks do not meet
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range historyLength / 2 {
				cycle(id)
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
	freshGet, _ := b.run(clients, get(fresh))
	// Transitions add history as they run: the fresh side rotates over a
	// pool of 128 (tens of transitions each in the run, as the transition
	// figure), the long side stays on its 8 (a few hundred more each).
	pool := b.freshDocs(docPool)
	vers := b.versionsOf(pool, long)
	mine := len(pool) / clients
	paths := []string{au + "SetRequestInformation", co + "SetReplyToRequestInformation"}
	move := func(doc func(c, i int) string) func(c, i int) error {
		return func(c, i int) error {
			id := doc(c, i)
			return vers.moved(id, func(v int64) error {
				body := fmt.Sprintf(`{"documentId":%q,"version":"%d","requestInformation":{"questions":["the analysis, please"]}}`, id, v)
				if i%2 == 1 {
					body = fmt.Sprintf(`{"documentId":%q,"version":"%d","replyToRequestInformation":{"answers":["attached"],"complete":true}}`, id, v)
				}
				return b.post(paths[i%2], tok[i%2], []byte(body))
			})
		}
	}
	run := func(op func(c, i int) error) (float64, float64) {
		lat, d := b.runFor(clients, b.dur/2, op, make([]int, clients))
		return rate(lat, d), pct99(lat)
	}
	longMove, longMoveP99 := run(move(func(c, _ int) string { return long[c] }))
	freshMove, _ := run(move(func(c, i int) string { return pool[c+clients*((i/2)%mine)] }))
	return []figure{
		{name: "history/get", db: b.db, clients: clients, server: longGet, baseline: freshGet, p99: longGetP99},
		{name: "history/transition", db: b.db, clients: clients, server: longMove, baseline: freshMove, p99: longMoveP99},
	}
}
