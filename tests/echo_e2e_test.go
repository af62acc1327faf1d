package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	recho "github.com/wasteflow/wasteflow/rules/echo"
)

// TestAnswersRepeatAtMost64Characters: a value a client sent is repeated
// in an answer cut to echo.Max characters wherever the message is made,
// also where a value is not an id held to its limit first (issue 44.15):
// a query parameter's unknown segment, a provider_id, a webhook host that
// does not resolve, a list's filter path.
func TestAnswersRepeatAtMost64Characters(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		echoes := func(raw []byte, c string) bool { return strings.Contains(string(raw), strings.Repeat(c, recho.Max+1)) }

		if !overGRPC(t) { // a query string and a header are REST's
			st, _, raw := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?documentId." + strings.Repeat("q", 100_000) + "=1", headers: hdr("dev-1", d.token(t, "noor"))})
			if st != http.StatusBadRequest || echoes(raw, "q") {
				t.Fatalf("a query parameter's segment: %d %.300s", st, raw)
			}
			p := strings.Repeat("p", 128)
			st, _, raw = d.do(t, call{method: http.MethodPost, path: co + "ListDocuments", headers: hdr(p, d.token(t, "alice")), body: []byte(`{}`)})
			if st < 400 || echoes(raw, "p") || !strings.Contains(string(raw), "(128 characters)") {
				t.Fatalf("an unknown provider_id: %d %.300s", st, raw)
			}
		}

		gt := d.hookGroup(t, "alice", "DOCUMENT_STATE_CHANGED")
		host := strings.Repeat("h", 60) + "." + strings.Repeat("h", 60) + "." + strings.Repeat("h", 60) + ".invalid"
		st, _, raw := d.post(t, hooksAPI+"CreateWebhookEndpoint", hdr("dev-1", gt), map[string]any{"url": "http://" + host + "/x", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		wantError(t, 400, 3, st, raw, "does not resolve")
		if strings.Contains(string(raw), host) {
			t.Fatalf("the host is repeated whole: %.400s", raw)
		}

		path := strings.Repeat("f", 1000)
		st, _, raw = d.call(t, "alice", co+"ListDocuments", map[string]any{"qpar": map[string]any{"filter": []map[string]any{{"path": path, "op": "EQUAL", "operands": []map[string]any{{"s": "x"}}}}}})
		if st != http.StatusBadRequest || echoes(raw, "f") {
			t.Fatalf("a filter path: %d %.300s", st, raw)
		}
	})
}
