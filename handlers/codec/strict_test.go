package codec_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

type strictInner struct {
	Days int32 `json:"days"`
}

type strictMsg struct {
	To    string      `json:"to"`
	Inner strictInner `json:"inner"`
}

func (*strictMsg) StrictFields() {}

type lenientMsg struct {
	To string `json:"to"`
}

// A Strict message refuses a field it does not know, at every depth and
// in the query, naming it (cut to 64 bytes); others ignore it.
func TestStrictMessagesRefuseUnknownFields(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	for body, field := range map[string]string{
		`{"to":"a","dryRun":true}`:         "dryRun",
		`{"inner":{"days":1,"dry_run":1}}`: "inner.dry_run",
		`{"` + long + `":1}`:               strings.Repeat("x", 61) + "...",
	} {
		var m strictMsg
		var ce *codec.Error
		if err := codec.Unmarshal([]byte(body), &m); !errors.As(err, &ce) || ce.Field != field || !strings.Contains(ce.Reason, "unknown field") {
			t.Errorf("%.40s: %v, want an error naming %.70s", body, err, field)
		}
	}
	var m strictMsg
	if err := codec.Unmarshal([]byte(`{"to":"a","inner":{"days":2}}`), &m); err != nil || m.To != "a" || m.Inner.Days != 2 {
		t.Fatalf("known fields: %v %+v", err, m)
	}
	var ce *codec.Error
	if err := codec.UnmarshalQuery(url.Values{"dryRun": {"true"}}, &m); !errors.As(err, &ce) || ce.Field != "dryRun" {
		t.Errorf("query: %v", err)
	}
	var l lenientMsg
	if err := codec.Unmarshal([]byte(`{"to":"a","dryRun":true}`), &l); err != nil || l.To != "a" {
		t.Errorf("a message that is not strict: %v", err)
	}
	if err := codec.UnmarshalQuery(url.Values{"dryRun": {"true"}}, &l); err != nil {
		t.Errorf("query of a message that is not strict: %v", err)
	}
}
