package tests

import "fmt"

// familySize is how many movements the large notification of the family
// figure has (a general notification of regular shipments).
const familySize = 1000

// family: the same operations under a notification with 1,000 movements
// and under one with 8 (one per client), 8 clients. Figure "family/get":
// the notification's GetDocument (it counts its movements and lists them);
// "family/transition": a movement's template corrected (its rules count
// every other movement under the notification). The baseline column is
// the rate under the small notification, so the ratio is large ÷ small.
// "family/get50" is family/get against a notification of 50 movements,
// as many as a retrieval document lists (childrenListed): both answers
// list 50, so its ratio is what still grows with the family past what
// the answer carries.
func (b *loadBench) family(clients int) []figure {
	content := func() map[string]any {
		c := shippable(familySize + clients)
		c["totalQuantity"] = map[string]any{"tonnes": map[string]any{"units": "1000000"}}
		return c
	}
	// A movement keeps at most 100 corrections (its history's maxItems),
	// so each client corrects spread movements of its own in turn: under
	// the large notification, and under as many small notifications of
	// clients movements each (small is the first of them).
	const spread = 8
	large := b.d.consented(b.t, content())
	var smalls []string
	for range spread {
		smalls = append(smalls, b.d.consented(b.t, content()))
	}
	small, fifty := smalls[0], b.d.consented(b.t, content())
	create := func(nid string) (string, float64) {
		mv := b.d.ok(b.t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 1)})
		return mv["id"].(string), mv["movementTemplate"].(map[string]any)["sequenceNumber"].(float64)
	}
	for range familySize - clients*spread {
		create(large)
	}
	for range 50 {
		create(fifty)
	}
	type movement struct {
		id  string
		seq float64
	}
	// mine[side][c*spread+k]: client c's k-th movement
	mine := map[string][]movement{}
	for range clients {
		for k := range spread {
			id, seq := create(smalls[k])
			mine[small] = append(mine[small], movement{id, seq})
			id, seq = create(large)
			mine[large] = append(mine[large], movement{id, seq})
		}
	}
	var ids []string
	for _, nid := range []string{small, large} {
		for _, mv := range mine[nid] {
			ids = append(ids, mv.id)
		}
	}
	vers := b.versionsOf(ids)
	alice := b.d.token(b.t, "alice")
	get := func(nid string) func(c, i int) error {
		body := []byte(fmt.Sprintf(`{"documentId":%q}`, nid))
		return func(c, i int) error { return b.post(co+"GetDocument", alice, body) }
	}
	correct := func(nid string) func(c, i int) error {
		return func(c, i int) error {
			mv := mine[nid][c*spread+i%spread]
			return vers.moved(mv.id, func(v int64) error {
				body := fmt.Sprintf(`{"documentId":%q,"version":"%d","movementTemplate":{"sequenceNumber":%v,"actualDateOfShipment":"2026-12-07","actualQuantity":{"tonnes":{"units":"%d"}},`+
					`"packagingTypes":["DRUM"],"carriers":[{"organisationId":"truck","meansOfTransport":"ROAD"}]}}`, mv.id, v, mv.seq, 1+(i/spread)%2) // each visit of a movement changes its quantity
				return b.post(co+"SetMovementTemplate", alice, []byte(body))
			})
		}
	}
	largeGet, largeGetP99 := b.run(clients, get(large))
	smallGet, _ := b.run(clients, get(small))
	fiftyGet, _ := b.run(clients, get(fifty))
	largeMove, largeMoveP99 := b.run(clients, correct(large))
	smallMove, _ := b.run(clients, correct(small))
	return []figure{
		{name: "family/get", db: b.db, clients: clients, server: largeGet, baseline: smallGet, p99: largeGetP99},
		{name: "family/get50", db: b.db, clients: clients, server: largeGet, baseline: fiftyGet, p99: largeGetP99},
		{name: "family/transition", db: b.db, clients: clients, server: largeMove, baseline: smallMove, p99: largeMoveP99},
	}
}
