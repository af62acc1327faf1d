package models

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// decodeDeadlines reads both databases' renderings, escapes, nulls and
// numbers, and refuses what is not an array of flat arrays of its
// deadlineFields values.
func TestDecodeDeadlines(t *testing.T) {
	raw := `[["dl_1","d","p","DECISION_DUE","Art. 9(1) \"quoted\" \u00e9",` +
		`"auth-nl","AUTHORITY_DESTINATION","SUSPENDED","2026-12-01T09:00:00+00:00",` +
		`"2026-12-31 22:59:59.999999+00:00",null,"2026-12-05 10:00:00",-3,` +
		`null,"2026-12-05T10:00:00.5Z"] , ["dl_2","","","","","","","","2026-12-01T09:00:00Z","2026-12-01T09:00:00Z","2026-12-01T09:00:00Z",null,0,null,"2026-12-01T09:00:00Z"]]`
	got, err := decodeDeadlines([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v.UTC() }
	since, warn := at("2026-12-05T10:00:00Z"), at("2026-12-01T09:00:00Z")
	want := []Deadline{
		{ID: "dl_1", DocumentID: "d", ProviderID: "p", Rule: "DECISION_DUE", LegalBasis: `Art. 9(1) "quoted" é`, PartyOrg: "auth-nl",
			PartyRole: "AUTHORITY_DESTINATION", State: "SUSPENDED", StartedAt: at("2026-12-01T09:00:00Z"), DueAt: at("2026-12-31T22:59:59.999999Z"),
			SuspendedSince: &since, SuspendedDays: -3, UpdatedAt: at("2026-12-05T10:00:00.5Z")},
		{ID: "dl_2", StartedAt: warn, DueAt: warn, UpdatedAt: warn, WarnAt: &warn},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got, err := decodeDeadlines([]byte(" [ ] ")); err != nil || len(got) != 0 {
		t.Fatalf("empty array: %v %v", got, err)
	}
	full := `"i","d","p","r","l","o","ro","s","2026-12-01T09:00:00Z","2026-12-01T09:00:00Z",null,null,0,null,"2026-12-01T09:00:00Z"`
	if _, err := decodeDeadlines([]byte("[[" + full + "]]")); err != nil {
		t.Fatalf("a whole row: %v", err)
	}
	for _, bad := range []string{``, `{}`, `[{"id":"x"}]`, `[[1.5]]`, `[["x"`, `[["x"]`, `[["x"]]`, `[[true]]`, `[["x]]`,
		"[[" + full + ",1]]", "[[" + strings.Replace(full, `"2026-12-01T09:00:00Z"`, `"yesterday"`, 1) + "]]", "[[" + full + "]"} {
		if _, err := decodeDeadlines([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}
