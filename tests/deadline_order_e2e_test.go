package tests

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Deadlines started together (every authority's decision period) come in
// one order on every read: oldest first, then by rule, party role and
// party, in the answer of the intent that started them and in every Get
// after it, and in the deadline report and its CSV (the store's order
// broke ties by random ids, so the walk-throughs of the guides could not
// show them line by line; issue 44).
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
		// The deadline report, its CSV (and the terminal report, which
		// reads the same way): due together, by document, rule and party.
		// Three documents: random ids put one in this order by chance.
		wantParties := "[auth-be auth-de auth-nl]"
		ids := []string{id}
		for range 2 {
			other := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": other})
			ids = append(ids, other)
		}
		for _, id := range ids {
			st, m, raw := d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
				"filter": []any{filter("document_id", "EQUAL", s(id)), filter("rule", "EQUAL", s("DECISION_DUE"))}}})
			if st != 200 {
				t.Fatalf("ListDeadlines: %d %s", st, raw)
			}
			var parties []string
			for _, e := range m["entries"].([]any) {
				parties = append(parties, e.(map[string]any)["party"].(string))
			}
			if fmt.Sprint(parties) != wantParties {
				t.Fatalf("ListDeadlines of %s: %v, want %s", id, parties, wantParties)
			}
			st, _, body := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?rule=DECISION_DUE", headers: hdr("dev-1", d.token(t, "noor"))})
			rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
			if st != 200 || err != nil || len(rows) == 0 {
				t.Fatalf("ExportDeadlines: %d %v %s", st, err, body)
			}
			col := slices.Index(rows[0], "party")
			parties = nil
			for _, r := range rows[1:] {
				if r[0] == id {
					parties = append(parties, r[col])
				}
			}
			if col < 0 || fmt.Sprint(parties) != wantParties {
				t.Fatalf("ExportDeadlines of %s: %v (column %d), want %s", id, parties, col, wantParties)
			}
		}
	})
}
