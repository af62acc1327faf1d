package codec_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

type nulTarget struct {
	Text     string            `json:"text"`
	Opt      *string           `json:"opt"`
	List     []string          `json:"list"`
	Labels   map[string]string `json:"labels"`
	Raw      json.RawMessage   `json:"raw"`
	Free     any               `json:"free"`
	Inner    *nulTarget        `json:"inner"`
	Blob     []byte            `json:"blob"`
	Document json.RawMessage   `json:"document"`
}

// Issue 44.11: U+0000 in any string of a request is refused while
// decoding, naming the field (PostgreSQL stores no NUL; SQLite did), in
// typed fields, keys, free-form values and query parameters alike; a
// backslash followed by "u0000" is no NUL, and bytes may hold zeros.
func TestNULIsRefusedInEveryString(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{`{"text":"a\u0000b"}`, "text"},
		{`{"opt":"\u0000"}`, "opt"},
		{`{"list":["ok","x\u0000"]}`, "list[1]"},
		{`{"labels":{"k":"v\u0000"}}`, `labels["k"]`},
		{`{"labels":{"k\u0000":"v"}}`, "labels"},
		{`{"inner":{"inner":{"text":"\u0000"}}}`, "inner.inner.text"},
		{`{"raw":{"a":[1,{"b":"\u0000"}]}}`, "raw.a[1].b"},
		{`{"free":["\u0000"]}`, "free[0]"},
		{`{"document":{"notification":{"id":"x","notes":"free text \u0000"}}}`, "document.notification.notes"},
		{`{"raw":{"k\u0000":1}}`, "raw"},
		{`{"text":"a\\u0000b"}`, ""}, // an escaped backslash: the text \u0000, no NUL
		{`{"raw":"a\\u0000b","free":"\\u0000"}`, ""},
		{`{"blob":"AAAA"}`, ""},      // three zero bytes: bytes are not text
		{`{"unknown":"\u0000"}`, ""}, // ignored, as every unknown field
	} {
		err := codec.Unmarshal([]byte(tc.body), new(nulTarget))
		var ce *codec.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.body, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Reason, "NUL")):
			t.Errorf("%s: %v, want an error naming %s and the NUL", tc.body, err, tc.field)
		}
	}
	q, _ := url.ParseQuery("text=a%00b")
	var ce *codec.Error
	if err := codec.UnmarshalQuery(q, new(nulTarget)); !errors.As(err, &ce) || ce.Field != "text" || !strings.Contains(ce.Reason, "NUL") {
		t.Errorf("a NUL in a query parameter: %v", err)
	}
}

type idTarget struct {
	DocumentID string   `json:"documentId"`
	ID         string   `json:"id"`
	FileIDs    []string `json:"fileIds"`
	VehicleID  string   `json:"vehicleId" maxLength:"200"`
	Idea       string   `json:"idea"`
	Ref        struct {
		ProcessID *string `json:"processId"`
	} `json:"ref"`
}

// Issue 44.15: every id a request names is bounded (codec.IDMaxLength,
// 128 characters, as the integrators guide states) without a tag, and a
// tag still says otherwise; the error names the field and never repeats
// the value.
func TestIDsAreBounded(t *testing.T) {
	long := strings.Repeat("d", 100_000)
	ok := strings.Repeat("d", codec.IDMaxLength)
	for _, tc := range []struct{ body, field string }{
		{`{"documentId":"` + ok + `","id":"` + ok + `","fileIds":["` + ok + `"],"vehicleId":"` + strings.Repeat("v", 200) + `","idea":"` + long + `"}`, ""},
		{`{"documentId":"` + long + `"}`, "documentId"},
		{`{"id":"` + ok + `d"}`, "id"},
		{`{"fileIds":["a","` + long + `"]}`, "fileIds[1]"},
		{`{"vehicleId":"` + strings.Repeat("v", 201) + `"}`, "vehicleId"},
		{`{"ref":{"processId":"` + long + `"}}`, "ref.processId"},
	} {
		err := codec.Unmarshal([]byte(tc.body), new(idTarget))
		var ce *codec.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%.40s: %v, want no error", tc.body, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
			t.Errorf("%.40s: %v, want an error naming %s", tc.body, err, tc.field)
		case err != nil && strings.Contains(err.Error(), "ddd"):
			t.Errorf("%.40s: the error repeats the value: %.100s", tc.body, err)
		}
	}
	q := url.Values{"documentId": {long}}
	var ce *codec.Error
	if err := codec.UnmarshalQuery(q, new(idTarget)); !errors.As(err, &ce) || ce.Field != "documentId" {
		t.Errorf("a long id in a query parameter: %v", err)
	}
	// A huge map key named in a path is cut as any echoed value.
	var m struct {
		Labels map[string]struct {
			N int32 `json:"n"`
		} `json:"labels"`
	}
	err := codec.Unmarshal([]byte(`{"labels":{"`+long+`":{"n":"x"}}}`), &m)
	if !errors.As(err, &ce) || len(ce.Field) > 100 {
		t.Errorf("a long key's path: %.200v", err)
	}
}
