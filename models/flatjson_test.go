package models

import (
	"reflect"
	"testing"
	"time"
)

// decodeDeadlines reads both databases' renderings, escapes, nulls and
// numbers, and refuses what is not an array of flat objects.
func TestDecodeDeadlines(t *testing.T) {
	raw := `[{"id":"dl_1","document_id":"d","provider_id":"p","rule":"DECISION_DUE","legal_basis":"Art. 9(1) \"quoted\" \u00e9",` +
		`"party_org":"auth-nl","party_role":"AUTHORITY_DESTINATION","state":"SUSPENDED","started_at":"2026-12-01T09:00:00+00:00",` +
		`"due_at":"2026-12-31 22:59:59.999999+00:00","warn_at":null,"suspended_since":"2026-12-05 10:00:00","suspended_days":-3,` +
		`"closed_at":null,"updated_at":"2026-12-05T10:00:00.5Z"} , {"id":"dl_2","started_at":"2026-12-01T09:00:00Z","due_at":"2026-12-01T09:00:00Z","updated_at":"2026-12-01T09:00:00Z","warn_at":"2026-12-01T09:00:00Z"}]`
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
	for _, bad := range []string{``, `{}`, `[{"id":1.5}]`, `[{"id":"x"`, `[{"id":"x"}`, `[{"due_at":"yesterday"}]`, `[{"id":true}]`, `[{"id":"x}]`} {
		if _, err := decodeDeadlines([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}
