package handlers_test

import (
	"slices"
	"testing"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The intent matrix, generated from the declarations of the kinds
// SetByIntent serves (the notification, the Annex VII document): for
// documents in several states and each of their parties, every intent the
// document offers the caller as a follow-up is taken by SetByIntent with
// the document as read (it reaches the rules: 200, with business errors
// when the pre-filled block is not enough, or 400 naming a field; never
// refused as forbidden or not permitted), and every other intent of the
// kind is refused (400, code 9, or 403) with nothing written.
func TestIntentMatrix(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	type kindCase struct {
		kind, container string
		states          map[string]func() string
		callers         map[string]string // user: the face they call
	}
	announced := func() string {
		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		return id
	}
	cases := []kindCase{
		{kind: "NOTIFICATION", container: "notification", states: map[string]func() string{
			"SUBMITTED": func() string { return d.submitted(t) },
			"ACKNOWLEDGED": func() string {
				id := d.submitted(t)
				d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
				return id
			},
			"CONSENTED": func() string { return d.consented(t, shippable(3)) },
		}, callers: map[string]string{"alice": co, "rita": co, "noor": au, "bernd": au, "bart": au}},
		{kind: "ANNEX_VII", container: "annex7", states: map[string]func() string{
			"DRAFT": func() string {
				return d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
			},
			"ANNOUNCED": announced,
		}, callers: map[string]string{"alice": co, "rita": co, "tom": co, "noor": au, "bernd": au}},
	}
	read := func(user, face, container, id string) (map[string]any, []string, bool) {
		st, m, raw := d.call(t, user, face+"GetDocument", map[string]any{"documentId": id})
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
		return m["document"].(map[string]any)[container].(map[string]any), intents, true
	}
	version := func(id string) string {
		var v string
		if err := d.db.Raw("SELECT CAST(version AS TEXT) FROM documents WHERE id = ?", id).Scan(&v).Error; err != nil {
			t.Fatal(err)
		}
		return v
	}
	offered, refused, cells := 0, 0, 0
	for _, kc := range cases {
		k, ok := d.notes.Kinds.Kind(kc.kind)
		if !ok {
			t.Fatalf("no kind %s", kc.kind)
		}
		var all []string
		for _, in := range k.Def.Intents {
			if !in.System && in.Creates == "" {
				all = append(all, in.Name)
			}
		}
		for state, build := range kc.states {
			for user, face := range kc.callers {
				id := build()
				doc, intents, party := read(user, face, kc.container, id)
				if !party {
					continue
				}
				cells++
				if doc["state"] != state {
					t.Fatalf("built %s %s, got %v", kc.kind, state, doc["state"])
				}
				for _, name := range all {
					if slices.Contains(intents, name) {
						fresh := build() // taking it changes the document: each on its own
						fdoc, _, _ := read(user, face, kc.container, fresh)
						st, m, raw := d.call(t, user, face+"SetByIntent", map[string]any{"document": map[string]any{kc.container: fdoc}, "intent": name})
						offered++
						if st != 200 && !(st == 400 && m["code"] == float64(3)) {
							t.Errorf("%s %s: %s was offered %s, SetByIntent refused it: %d %s", kc.kind, state, user, name, st, raw)
						}
						continue
					}
					before := version(id)
					st, m, raw := d.call(t, user, face+"SetByIntent", map[string]any{"document": map[string]any{kc.container: doc}, "intent": name})
					refused++
					if !(st == 400 && m["code"] == float64(9)) && st != 403 {
						t.Errorf("%s %s: %s not offered %s, SetByIntent answered %d %s", kc.kind, state, user, name, st, raw)
					}
					if after := version(id); after != before {
						t.Errorf("%s %s: %s's refused %s changed the document (version %s → %s)", kc.kind, state, user, name, before, after)
					}
				}
			}
		}
	}
	t.Logf("intent matrix: %d kind × state × party cells; %d offered intents taken, %d others refused", cells, offered, refused)
}
