package handlers_test

import (
	"fmt"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Deadlines started together (every authority's decision period) come in
// one order on every read: oldest first, then by rule, party role and
// party, in the answer of the intent that started them and in every Get
// after it (the store's order broke ties by random ids, so the walk-throughs
// of the guides could not show them line by line; issue 44).
func TestDeadlinesStartedTogetherKeepOneOrder(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		order := func(doc map[string]any) string {
			var out []string
			for _, dl := range doc["deadlines"].([]any) {
				dl := dl.(map[string]any)
				out = append(out, fmt.Sprint(dl["rule"], " ", dl["partyRole"], " ", dl["party"]))
			}
			return fmt.Sprint(out)
		}
		want := "[ACKNOWLEDGEMENT_DUE AUTHORITY_DESTINATION auth-nl DECISION_DUE AUTHORITY_DESTINATION auth-nl " +
			"DECISION_DUE AUTHORITY_DISPATCH auth-de DECISION_DUE AUTHORITY_TRANSIT auth-be]"
		if got := order(d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})); got != want {
			t.Fatalf("the acknowledgement's answer: %s, want %s", got, want)
		}
		for i := 0; i < 5; i++ {
			doc, _ := d.get(t, "alice", id)
			if got := order(doc); got != want {
				t.Fatalf("read %d: %s, want %s", i, got, want)
			}
		}
	})
}
