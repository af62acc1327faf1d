package handlers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The intent matrix, generated from the notification's declaration: for
// notifications in several states and each party (notifier, consignee and
// facility, the three authorities), every intent the document offers the
// caller as a follow-up is taken by SetByIntent with the document as read
// (it reaches the rules: 200, with business errors when the pre-filled
// block is not enough, or 400 naming a field; never refused as forbidden
// or not permitted), and every other intent of the kind is refused (400,
// code 9, or 403) with nothing written.
func TestIntentMatrix(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	k, ok := d.notes.Kinds.Kind("NOTIFICATION")
	if !ok {
		t.Fatal("no notification kind")
	}
	var all []string
	for _, in := range k.Def.Intents {
		if !in.System && in.Creates == "" {
			all = append(all, in.Name)
		}
	}
	states := map[string]func() string{
		"SUBMITTED": func() string { return d.submitted(t) },
		"ACKNOWLEDGED": func() string {
			id := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			return id
		},
		"CONSENTED": func() string { return d.consented(t, shippable(3)) },
	}
	callers := map[string]string{"alice": co, "rita": co, "noor": au, "bernd": au, "bart": au}
	read := func(user, face, id string) (map[string]any, []string) {
		st, m, raw := d.call(t, user, face+"GetDocument", map[string]any{"documentId": id})
		if st != 200 {
			t.Fatalf("get as %s: %d %s", user, st, raw)
		}
		var intents []string
		for _, f := range m["followUpIntents"].([]any) {
			intents = append(intents, f.(map[string]any)["intent"].(string))
		}
		return m["document"].(map[string]any)["notification"].(map[string]any), intents
	}
	version := func(id string) string {
		var v string
		if err := d.db.Raw("SELECT CAST(version AS TEXT) FROM documents WHERE id = ?", id).Scan(&v).Error; err != nil {
			t.Fatal(err)
		}
		return v
	}
	offered, refused := 0, 0
	for state, build := range states {
		for user, face := range callers {
			id := build()
			doc, intents := read(user, face, id)
			if doc["state"] != state {
				t.Fatalf("built %s, got %v", state, doc["state"])
			}
			for _, name := range all {
				if slices.Contains(intents, name) {
					fresh := build() // taking it changes the document: each on its own
					fdoc, _ := read(user, face, fresh)
					st, m, raw := d.call(t, user, face+"SetByIntent", map[string]any{"document": map[string]any{"notification": fdoc}, "intent": name})
					offered++
					if st != 200 && !(st == 400 && m["code"] == float64(3)) {
						t.Errorf("%s in %s: %s offered %s, SetByIntent refused it: %d %s", user, state, name, name, st, raw)
					}
					continue
				}
				before := version(id)
				st, m, raw := d.call(t, user, face+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": name})
				refused++
				if !(st == 400 && m["code"] == float64(9)) && st != 403 {
					t.Errorf("%s in %s: %s not offered, SetByIntent answered %d %s", user, state, name, st, raw)
				}
				if after := version(id); after != before {
					t.Errorf("%s in %s: refused %s changed the document (version %s → %s)", user, state, name, before, after)
				}
			}
		}
	}
	t.Logf("intent matrix: %d offered intents taken, %d others refused (%s)", offered, refused, fmt.Sprint(len(states), " states × ", len(callers), " parties × ", len(all), " intents"))
}
