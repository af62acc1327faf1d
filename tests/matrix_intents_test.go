package tests

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// The intent matrix, generated from the workflow declarations of the three
// kinds: starting from a new document, it walks every state that the
// parties' own intents reach (breadth first, each state reached again
// from a new document by the path that first reached it) and in each
// state, for each party (notifier and producer, consignee and facility,
// both carriers, the authorities of dispatch, destination and transit):
//   - every intent the document offers the caller as a follow-up is taken
//     with the document as read (SetByIntent for the notification and the
//     Annex VII document, the intent's own operation for a movement, which
//     SetByIntent refuses): 200, with business errors when the pre-filled
//     block is not enough, or 400 naming a field; never refused as
//     forbidden or not permitted. Its new state, when it moved, is walked
//     in turn;
//   - every other intent of the kind is refused (400, code 9, or 403) and
//     writes nothing;
//   - an organisation that is no party (eve) reads the 404 of a document
//     that does not exist, and every intent operation answers it the same.
//
// States that only the scheduler enters (tacit consent, a consent's
// expiry) are not walked; every state that some party's intent enters is
// reached, or the test fails.
//
// It is one sequential walk of thousands of calls: `make test` runs it
// without the race detector (12 s instead of 150 s), beside the others.
func TestIntentMatrix(t *testing.T) {
	if raceDetector {
		t.Skip("sequential; make test runs it without -race")
	}
	t.Parallel() // one walk after another, but its own server: it runs beside the other tests
	d := startDocs(t, dbtest.SQLite(t))
	users := []string{"alice", "rita", "tom", "sam", "noor", "bernd", "bart"}
	face := func(user string) string {
		if slices.Contains([]string{"noor", "bernd", "bart"}, user) {
			return au
		}
		return co
	}
	today := func() string { return d.clock.Now().UTC().Format(time.DateOnly) }
	set := func(kv ...any) func(map[string]any) {
		return func(b map[string]any) {
			for i := 0; i < len(kv); i += 2 {
				v := kv[i+1]
				if v == "TODAY" {
					v = today()
				}
				b[kv[i].(string)] = v
			}
		}
	}
	// What a person would enter in a block the document pre-fills (each
	// variant taken on a document of its own): from the block's schema,
	// the choices that lead to different states.
	fills := map[string]map[string][]func(map[string]any){
		"NOTIFICATION": {
			"REQUEST_INFORMATION":          {set("questions", []any{"Which carrier?"})},
			"REPLY_TO_REQUEST_INFORMATION": {set("answers", []any{"The truck."}, "complete", true)},
			"DECISION":                     {set("type", "CONSENT"), set("type", "OBJECTION", "grounds", "incomplete")},
			"REQUEST_FOR_CHANGE_AFTER_CONSENT": {func(b map[string]any) {
				p, _ := b["proposed"].(map[string]any)
				if p == nil {
					p = map[string]any{}
				}
				p["packagingTypes"] = []any{"BULK"}
				b["proposed"], b["reason"] = p, "bulk only"
			}},
			"REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT": {set("result", "ACCEPTED"), set("result", "REJECTED", "grounds", "no")},
			"NOTIFICATION_SIGNAL":                       {set("type", "CANCELLATION_OF_CONSENT", "reason", "breach"), set("type", "CLOSURE")},
			"FACILITY_COMPLETION_ARTICLE15":             {set("completedOn", "TODAY", "operationCode", "R4")},
			"WITHDRAWAL":                                {set("reason", "not needed")},
		},
		"ANNEX_VII": {
			"CARRIER_TRANSFER":          {set("transferDate", "TODAY")},
			"CONSIGNEE_CERTIFICATE":     {set("receivedOn", "TODAY")},
			"FACILITY_CERTIFICATE":      {set("receivedOn", "TODAY")},
			"CERTIFICATE_OF_COMPLETION": {set("completedOn", "TODAY")},
			"TAKE_BACK":                 {set("reason", "refused at the gate")},
			"WITHDRAWAL":                {set("reason", "not needed")},
		},
		"MOVEMENT": {
			"CARRIER_TRANSPORT":   {set("takenOverOn", "TODAY")},
			"CONSIGNEE_RECEPTION": {set("receivedOn", "TODAY")},
			"FACILITY_RECEPTION":  {set("receivedOn", "TODAY"), set("receivedOn", "TODAY", "rejected", true, "reason", "contaminated")},
			"FACILITY_COMPLETION": {set("completedOn", "TODAY", "operationCode", "R4")},
			"MOVEMENT_SIGNAL": {set("type", "CONFIRM"), set("type", "REJECT", "reason", "papers missing"),
				set("type", "REQUEST_CORRECTION", "reason", "packaging")},
			"MOVEMENT_TAKE_BACK": {set("reason", "rejected")},
		},
	}
	containers := map[string]string{"NOTIFICATION": "notification", "ANNEX_VII": "annex7", "MOVEMENT": "movement"}
	version := func(id string) string {
		var v string
		if err := d.db.Raw("SELECT CAST(version AS TEXT) FROM documents WHERE id = ?", id).Scan(&v).Error; err != nil {
			t.Fatal(err)
		}
		return v
	}
	read := func(kind, user, id string) (map[string]any, []string, bool) {
		st, m, raw := d.call(t, user, face(user)+"GetDocument", map[string]any{"documentId": id})
		if st == 404 {
			return nil, nil, false // not a party (a draft is its author's)
		}
		if st != 200 {
			t.Fatalf("get as %s: %d %s", user, st, raw)
		}
		var intents []string
		for _, f := range m["followUpIntents"].([]any) {
			intents = append(intents, f.(map[string]any)["intent"].(string))
		}
		return m["document"].(map[string]any)[containers[kind]].(map[string]any), intents, true
	}
	// take fires intent in on the document as user read it, its block
	// changed by fill.
	take := func(kind, user string, in engine.Intent, doc map[string]any, fill func(map[string]any)) (int, map[string]any, []byte) {
		var copied map[string]any
		raw, _ := json.Marshal(doc)
		_ = json.Unmarshal(raw, &copied)
		block, _ := copied[in.Block].(map[string]any)
		if block == nil {
			block = map[string]any{}
		}
		if fill != nil {
			fill(block)
		}
		if in.Block != "" {
			copied[in.Block] = block
		}
		if kind == "MOVEMENT" { // SetByIntent refuses movements: the intent's own operation
			body := map[string]any{"documentId": doc["id"]}
			if in.Block != "" {
				body[in.Block] = block
			}
			return d.call(t, user, in.Operation, body)
		}
		return d.call(t, user, face(user)+"SetByIntent", map[string]any{"document": map[string]any{containers[kind]: copied}, "intent": in.Name})
	}

	type step struct {
		user, intent string
		variant      int
	}
	type figures struct{ situations, cells, offered, moved, refused, hidden int }
	var total figures
	reachedAll := map[string]map[string]bool{}

	// walk explores kind from the documents root makes, in the state they
	// start in; it returns the states it reached.
	walk := func(kind string, root func() string) {
		k, ok := d.notes.Kinds.Kind(kind)
		if !ok {
			t.Fatalf("no kind %s", kind)
		}
		intents := map[string]engine.Intent{}
		var names []string
		for _, in := range k.Def.Intents {
			if !in.System && in.Creates == "" {
				intents[in.Name] = in
				names = append(names, in.Name)
			}
		}
		sort.Strings(names)
		replay := func(path []step) string {
			id := root()
			for _, s := range path {
				doc, _, _ := read(kind, s.user, id)
				var fill func(map[string]any)
				if f := fills[kind][s.intent]; s.variant < len(f) {
					fill = f[s.variant]
				}
				if st, m, raw := take(kind, s.user, intents[s.intent], doc, fill); st != 200 || len(anyList(m["businessErrors"])) > 0 {
					t.Fatalf("%s: replaying %v: %d %s", kind, path, st, raw)
				}
			}
			return id
		}
		// A situation is a state and what it offers to whom: one
		// authority's consent leaves the notification ACKNOWLEDGED, but
		// no longer offers that authority a decision.
		situation := func(id string) (string, string) {
			var state string
			d.db.Raw("SELECT state FROM documents WHERE id = ?", id).Scan(&state)
			key := state
			for _, u := range users {
				_, offered, _ := read(kind, u, id)
				key += " " + u + ":" + strings.Join(offered, ",")
			}
			return state, key
		}
		first := root()
		_, key := situation(first)
		paths := map[string][]step{key: nil}
		queue := []string{key}
		if reachedAll[kind] == nil {
			reachedAll[kind] = map[string]bool{}
		}
		for len(queue) > 0 {
			key := queue[0]
			queue = queue[1:]
			path := paths[key]
			id := replay(path)
			state, _ := situation(id)
			reachedAll[kind][state] = true
			total.situations++
			// No party: the answers of a document that does not exist.
			missing := id[:strings.Index(id, "_")+1] + strings.Repeat("0", len(id)-strings.Index(id, "_")-1)
			st, _, raw := d.call(t, "eve", co+"GetDocument", map[string]any{"documentId": id})
			st2, _, raw2 := d.call(t, "eve", co+"GetDocument", map[string]any{"documentId": missing})
			if st != 404 || st != st2 || strings.ReplaceAll(string(raw), id, missing) != string(raw2) {
				t.Errorf("%s %s: a non-party read %d %s; a missing document %d %s", kind, state, st, raw, st2, raw2)
			}
			for _, name := range names {
				// eve is a company: SetByIntent on the company face, or
				// a movement's company operations
				if in := intents[name]; kind != "MOVEMENT" || strings.HasPrefix(in.Operation, co) {
					before := version(id)
					st, _, raw := take(kind, "eve", in, map[string]any{"id": id, "version": before}, nil)
					total.hidden++
					if st != 404 || version(id) != before {
						t.Errorf("%s %s: a non-party's %s: %d %s", kind, state, name, st, raw)
					}
				}
			}
			for _, user := range users {
				doc, offered, party := read(kind, user, id)
				if !party {
					continue
				}
				total.cells++
				if doc["state"] != state {
					t.Fatalf("%s: replayed to %s, read %v", kind, state, doc["state"])
				}
				for _, name := range names {
					in := intents[name]
					if !slices.Contains(offered, name) {
						before := version(id)
						st, m, raw := take(kind, user, in, doc, nil)
						total.refused++
						if !(st == 400 && m["code"] == float64(9)) && st != 403 {
							t.Errorf("%s %s: %s not offered %s, taking it answered %d %s", kind, state, user, name, st, raw)
						}
						if after := version(id); after != before {
							t.Errorf("%s %s: %s's refused %s changed the document (version %s → %s)", kind, state, user, name, before, after)
						}
						continue
					}
					variants := fills[kind][name]
					if len(variants) == 0 {
						variants = []func(map[string]any){nil}
					}
					for v, fill := range variants {
						fresh := replay(path) // taking it changes the document: each on its own
						fdoc, _, _ := read(kind, user, fresh)
						st, m, raw := take(kind, user, in, fdoc, fill)
						total.offered++
						if st != 200 && !(st == 400 && m["code"] == float64(3)) {
							t.Errorf("%s %s: %s was offered %s, taking it was refused: %d %s", kind, state, user, name, st, raw)
							continue
						}
						if st != 200 || len(anyList(m["businessErrors"])) > 0 {
							continue
						}
						if next, nextKey := situation(fresh); nextKey != key {
							if next != state {
								total.moved++
							}
							if _, seen := paths[nextKey]; !seen {
								paths[nextKey] = append(slices.Clone(path), step{user, name, v})
								queue = append(queue, nextKey)
							}
						}
					}
				}
			}
		}
	}

	// Dates bind the later steps: the test clock starts on Tuesday
	// 2026-12-01; Annex VII documents ship on 2026-12-04 and movements on
	// 2026-12-07, announced at least 2 working days ahead, and taken over
	// on that day or later. So what ships is prepared now, and walked
	// once the clock stands on 2026-12-07.
	walk("NOTIFICATION", func() string {
		return d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": shippable(3)})["id"].(string)
	})
	walk("ANNEX_VII", func() string {
		return d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
	})
	pool := func(n int, mk func() string) func() string {
		ids := prepare(n, mk)
		return func() string {
			if len(ids) == 0 {
				t.Fatal("the pool of prepared documents ran out: make it larger")
			}
			id := ids[0]
			ids = ids[1:]
			return id
		}
	}
	announced := pool(150, func() string {
		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		return id
	})
	var notification string
	left := 0
	movement := pool(250, func() string {
		if left == 0 {
			c := shippable(20)
			notification, left = d.consented(t, c), 20
		}
		left--
		return d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": notification, "movementTemplate": template("2026-12-07", 1)})["id"].(string)
	})
	d.advanceTo(t, "2026-12-07")
	walk("ANNEX_VII", announced)
	walk("MOVEMENT", movement)

	// Every state some party's intent enters was reached.
	for kind, reached := range reachedAll {
		k, _ := d.notes.Kinds.Kind(kind)
		entered := map[string]bool{k.Def.Initial: true}
		for _, in := range k.Def.Intents {
			if in.System || in.Keeps { // a record keeps the state it is fired in
				continue
			}
			for _, tr := range in.Transitions {
				entered[tr.To] = true
				for _, s := range tr.Targets {
					entered[s] = true
				}
			}
		}
		var missed, scheduler []string
		for _, s := range k.Def.States {
			switch {
			case reached[s]:
			case entered[s]:
				missed = append(missed, s)
			default:
				scheduler = append(scheduler, s)
			}
		}
		if len(missed) > 0 {
			t.Errorf("%s: states a party's intent enters, never reached: %v", kind, missed)
		}
		t.Logf("%s: %d of %d states walked; entered by the scheduler only: %v", kind, len(reached), len(k.Def.States), scheduler)
	}
	t.Logf("intent matrix: %d situations (a state and what it offers to whom), %d situation × party cells; %d offered intents taken (%d moved the document on), %d others refused; %d intent calls by a non-party answered as for a missing document",
		total.situations, total.cells, total.offered, total.moved, total.refused, total.hidden)
}

// prepare calls mk n times.
func prepare(n int, mk func() string) []string {
	out := make([]string, 0, n)
	for range n {
		out = append(out, mk())
	}
	return out
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}
