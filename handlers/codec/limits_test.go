package codec_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

type boundedParty struct {
	ID string `json:"id" maxLength:"8"`
}

type bounded struct {
	Text    string            `json:"text" maxLength:"5" doc:"free text"`
	Opt     *string           `json:"opt" maxLength:"5"`
	Codes   []string          `json:"codes" maxItems:"3" maxLength:"2"`
	Parties []boundedParty    `json:"parties" maxItems:"2"`
	Labels  map[string]string `json:"labels" maxProperties:"2" maxKeyLength:"4" maxLength:"4"`
	Count   int32             `json:"count" minimum:"1"`
	Floor   int32             `json:"floor" minimum:"3"`
	Set     *int32            `json:"set" minimum:"1"`
	Version *int64            `json:"version" minimum:"1"`
	Seq     int64             `json:"seq" minimum:"1"`
	Free    string            `json:"free"`
}

// A limit declared as a tag is enforced while decoding, naming the field's
// path, in characters rather than bytes; 0 is an unset integer, not one
// below the minimum.
func TestLimitsRefuseWhileDecoding(t *testing.T) {
	for _, tc := range []struct{ body, field, reason string }{
		{`{"text":"hello"}`, "", ""},
		{`{"text":"héllö"}`, "", ""}, // 5 characters, 7 bytes
		{`{"text":"hello!"}`, "text", "at most 5 characters, not 6"},
		{`{"opt":"toolong"}`, "opt", "at most 5 characters"},
		{`{"codes":["a","b","c"]}`, "", ""},
		{`{"codes":["a","b","c","d"]}`, "codes", "at most 3 items"},
		{`{"codes":["a","bcd"]}`, "codes[1]", "at most 2 characters"},
		{`{"parties":[{"id":"x"},{"id":"123456789"}]}`, "parties[1].id", "at most 8 characters"},
		{`{"parties":[{},{},{}]}`, "parties", "at most 2 items"},
		{`{"labels":{"a":"1234","b":""}}`, "", ""},
		{`{"labels":{"a":"12345"}}`, `labels["a"]`, "at most 4 characters"},
		{`{"labels":{"abcde":"1"}}`, "labels", "keys of at most 4 characters"},
		{`{"labels":{"a":"","b":"","c":""}}`, "labels", "at most 2 entries"},
		{`{"labels":{"a":"","a":"","b":""}}`, "", ""}, // a repeated key is one entry
		{`{"count":0,"floor":0}`, "", ""},
		{`{"count":1,"floor":3}`, "", ""},
		{`{"count":-3}`, "count", "must be at least 1, not -3"},
		{`{"floor":2}`, "floor", "must be at least 3, not 2"},
		{`{"set":0}`, "set", "must be at least 1, not 0"},
		{`{"version":"1","seq":"0"}`, "", ""},
		{`{"version":"0"}`, "version", "must be at least 1, not 0"},
		{`{"version":0}`, "version", "must be at least 1, not 0"},
		{`{"version":"-2"}`, "version", "must be at least 1, not -2"},
		{`{"seq":"-1"}`, "seq", "must be at least 1, not -1"},
		{`{"free":"` + strings.Repeat("x", 100_000) + `"}`, "", ""},
	} {
		var v bounded
		err := codec.Unmarshal([]byte(tc.body), &v)
		var ce *codec.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%.60s: %v, want no error", tc.body, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Reason, tc.reason)):
			t.Errorf("%.60s: %v, want %s: %s", tc.body, err, tc.field, tc.reason)
		}
	}
	// A huge list stops at its limit: the error comes before the rest is built.
	huge := `{"parties":[` + strings.Repeat(`{"id":"x"},`, 200_000) + `{}]}`
	var v bounded
	if err := codec.Unmarshal([]byte(huge), &v); err == nil || len(v.Parties) > 2 {
		t.Fatalf("200,001 parties: %v, %d decoded", err, len(v.Parties))
	}
}

func TestLimitsInQueries(t *testing.T) {
	for query, field := range map[string]string{
		"text=hello":                      "",
		"text=hello!":                     "text",
		"codes=a&codes=b&codes=c":         "",
		"codes=a&codes=b&codes=c&codes=d": "codes",
		"codes=abc":                       "codes[0]",
		"count=-1":                        "count",
		"count=0":                         "",
		"set=0":                           "set",
	} {
		q, _ := url.ParseQuery(query)
		err := codec.UnmarshalQuery(q, new(bounded))
		var ce *codec.Error
		switch {
		case field == "" && err != nil:
			t.Errorf("%s: %v", query, err)
		case field != "" && (!errors.As(err, &ce) || ce.Field != field):
			t.Errorf("%s: %v, want an error on %s", query, err, field)
		}
	}
}

// The request form of the schema states every limit; the response form
// none (they are what the server checks, not what it promises).
func TestLimitsInSchema(t *testing.T) {
	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[bounded](), comps); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(comps["bounded"].Value.Properties)
	var props map[string]any
	json.Unmarshal(got, &props)
	want := map[string]string{
		"text":    `{"description":"free text","maxLength":5,"type":"string"}`,
		"opt":     `{"maxLength":5,"nullable":true,"type":"string"}`,
		"codes":   `{"items":{"maxLength":2,"type":"string"},"maxItems":3,"type":"array"}`,
		"parties": `{"items":{"$ref":"#/components/schemas/boundedParty"},"maxItems":2,"type":"array"}`,
		"labels":  `{"additionalProperties":{"maxLength":4,"type":"string"},"description":"Keys of at most 4 characters.","maxProperties":2,"type":"object"}`,
		"count":   `{"description":"At least 1 when set (0: not set).","format":"int32","minimum":0,"type":"integer"}`,
		"floor":   `{"description":"At least 3 when set (0: not set).","format":"int32","minimum":0,"not":{"maximum":2,"minimum":1},"type":"integer"}`,
		"set":     `{"format":"int32","minimum":1,"nullable":true,"type":"integer"}`,
		"version": `{"anyOf":[{"format":"int64","nullable":true,"pattern":"^0*[1-9][0-9]*$","type":"string"},{"format":"int64","minimum":1,"nullable":true,"type":"integer"}]}`,
		"seq":     `{"anyOf":[{"format":"int64","pattern":"^[0-9]+$","type":"string"},{"format":"int64","minimum":0,"type":"integer"}]}`,
		"free":    `{"type":"string"}`,
	}
	for name, w := range want {
		g, _ := json.Marshal(props[name])
		if string(g) != w {
			t.Errorf("%s\n got: %s\nwant: %s", name, g, w)
		}
	}
	if s := comps["boundedParty"].Value.Properties["id"].Value; s.MaxLength == nil || *s.MaxLength != 8 {
		t.Errorf("boundedParty.id: %+v", s)
	}
	// The schema and the decoder agree on the samples.
	for body, ok := range map[string]bool{`{"count":0}`: true, `{"count":-3}`: false, `{"floor":2}`: false, `{"floor":0}`: true, `{"floor":3}`: true} {
		var v any
		json.Unmarshal([]byte(body), &v)
		err := comps["bounded"].Value.VisitJSON(v, openapi3.EnableFormatValidation())
		if (err == nil) != ok {
			t.Errorf("schema on %s: %v, want ok=%v", body, err, ok)
		}
		if derr := codec.Unmarshal([]byte(body), new(bounded)); (derr == nil) != ok {
			t.Errorf("decoder on %s: %v, want ok=%v", body, derr, ok)
		}
	}

	out := openapi3.Schemas{}
	if _, err := codec.ResponseSchemaRef(reflect.TypeFor[bounded](), out); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	for _, k := range []string{"maxLength", "maxItems", "maxProperties", "minimum"} {
		if strings.Contains(string(raw), k) {
			t.Errorf("the response form states %s: %s", k, raw)
		}
	}
}

type requiredPtr struct {
	Block *boundedParty `json:"block" required:"true"`
}

// A required message pointer is present or refused: {} is a message, null
// or absence is not; its request schema has no null alternative.
func TestRequiredPointerIsPresence(t *testing.T) {
	for body, want := range map[string]bool{`{}`: false, `{"block":null}`: false, `{"block":{}}`: true, `{"block":{"id":"x"}}`: true} {
		var v requiredPtr
		if err := codec.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if err := codec.CheckRequired(&v); (err == nil) != want {
			t.Errorf("%s: %v, want ok=%v", body, err, want)
		}
	}
	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[requiredPtr](), comps); err != nil {
		t.Fatal(err)
	}
	if got := comps["requiredPtr"].Value.Properties["block"]; got.Ref != "#/components/schemas/boundedParty" {
		t.Errorf("block schema: %+v", got)
	}
}

// A tag that cannot apply, or a malformed one, is a programmer mistake
// reported when the type is first used.
func TestLimitMistakes(t *testing.T) {
	for name, v := range map[string]any{
		"maxLength on an int": &struct {
			N int32 `maxLength:"3"`
		}{},
		"maxItems on a string": &struct {
			S string `maxItems:"3"`
		}{},
		"maxProperties list": &struct {
			L []string `maxProperties:"3"`
		}{},
		"maxKeyLength string": &struct {
			S string `maxKeyLength:"3"`
		}{},
		"maxLength map of int": &struct {
			M map[string]int32 `maxLength:"3"`
		}{},
		"minimum on a string": &struct {
			S string `minimum:"1"`
		}{},
		"minimum 2 on int64": &struct {
			N int64 `minimum:"2"`
		}{},
		"minimum on uint64": &struct {
			N uint64 `minimum:"1"`
		}{},
		"zero maxLength": &struct {
			S string `maxLength:"0"`
		}{},
		"not a number": &struct {
			S string `maxLength:"many"`
		}{},
		"a message without strings": &struct {
			P []struct {
				N int32 `json:"n"`
			} `maxLength:"3"`
		}{},
	} {
		err := codec.Unmarshal([]byte(`{}`), v)
		var ce *codec.Error
		if err == nil || errors.As(err, &ce) {
			t.Errorf("%s: %v, want a programmer error", name, err)
		}
	}
}

func TestErrorsDoNotEchoLargeValues(t *testing.T) {
	type msg struct {
		At time.Time `json:"at"`
	}
	big := strings.Repeat("x", 100000)
	err := codec.Unmarshal([]byte(`{"at":"`+big+`"}`), new(msg))
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "100000 characters") {
		t.Fatalf("error for a 100000-character timestamp: %.400v", err)
	}
}

type boundedText struct {
	Value string `json:"value" maxLength:"10"`
	Note  string `json:"note"`
	On    bool   `json:"on"`
}

type boundedNote struct {
	Name    boundedText   `json:"name" maxLength:"3"`
	Remarks *boundedText  `json:"remarks" maxLength:"20" doc:"free text"`
	Numbers []boundedText `json:"numbers" maxItems:"2" maxLength:"4"`
	Plain   boundedText   `json:"plain"`
}

// Issue 44.3: maxLength on a message bounds every string inside it, more
// tightly than their own tags (a BMU note's Text is a name of 200
// characters in one place and remarks of 2,000 in another), in a body, a
// query and the request schema.
func TestMaxLengthOnAMessage(t *testing.T) {
	for _, tc := range []struct{ body, field, reason string }{
		{`{"name":{"value":"abc","note":"xyz"},"plain":{"value":"0123456789"}}`, "", ""},
		{`{"name":{"value":"abcd"}}`, "name.value", "at most 3 characters, not 4"},
		{`{"name":{"note":"abcd"}}`, "name.note", "at most 3 characters, not 4"},
		{`{"remarks":{"value":"0123456789a"}}`, "remarks.value", "at most 10 characters, not 11"}, // its own tag is tighter
		{`{"remarks":{"note":"` + strings.Repeat("x", 21) + `"}}`, "remarks.note", "at most 20 characters, not 21"},
		{`{"numbers":[{"value":"1234"},{"value":"12345"}]}`, "numbers[1].value", "at most 4 characters, not 5"},
		{`{"plain":{"value":"0123456789a"}}`, "plain.value", "at most 10 characters, not 11"},
		{`{"plain":{"note":"` + strings.Repeat("x", 1000) + `"}}`, "", ""},
	} {
		var v boundedNote
		err := codec.Unmarshal([]byte(tc.body), &v)
		var ce *codec.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Reason, tc.reason)):
			t.Errorf("%s: %v, want %s: %s", tc.body, err, tc.field, tc.reason)
		}
	}
	var v boundedNote
	err := codec.UnmarshalQuery(url.Values{"name.value": {"abcd"}}, &v)
	if err == nil {
		t.Error("a query: no error")
	}
	if ce := (*codec.Error)(nil); !errors.As(err, &ce) || ce.Field != "name.value" {
		t.Errorf("a query: %v", err)
	}

	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[boundedNote](), comps); err != nil {
		t.Fatal(err)
	}
	s := comps["boundedNote"].Value
	bound := func(prop *openapi3.SchemaRef) *openapi3.Schema {
		for _, a := range prop.Value.AllOf {
			if a.Ref == "" && a.Value.Properties["value"] != nil {
				return a.Value
			}
		}
		return nil
	}
	if b := bound(s.Properties["name"]); b == nil || *b.Properties["value"].Value.MaxLength != 3 || *b.Properties["note"].Value.MaxLength != 3 ||
		b.Properties["on"] != nil {
		t.Errorf("name's schema: %+v", s.Properties["name"].Value)
	}
	if b := bound(s.Properties["remarks"]); b == nil || *b.Properties["note"].Value.MaxLength != 20 || s.Properties["remarks"].Value.Description != "free text" {
		t.Errorf("remarks' schema: %+v", s.Properties["remarks"].Value)
	}
	if items := s.Properties["numbers"].Value.Items; items == nil || bound(items) == nil || *bound(items).Properties["value"].Value.MaxLength != 4 {
		t.Errorf("numbers' schema: %+v", s.Properties["numbers"].Value)
	}
	if s.Properties["plain"].Ref == "" {
		t.Errorf("an unbounded message stays a plain $ref: %+v", s.Properties["plain"])
	}
}

// A required 64-bit integer (DocumentRef.version) is stated without null
// in both of its alternatives (null is absent, which required refuses),
// positive as its minimum says.
func TestRequiredInt64InSchema(t *testing.T) {
	type ref struct {
		Version *int64 `json:"version" required:"true" minimum:"1"`
	}
	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[ref](), comps); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(comps["ref"].Value)
	want := `{"properties":{"version":{"anyOf":[{"format":"int64","pattern":"^0*[1-9][0-9]*$","type":"string"},{"format":"int64","minimum":1,"type":"integer"}]}},"required":["version"],"type":"object","x-order":["version"]}`
	if string(got) != want {
		t.Fatalf("\n got: %s\nwant: %s", got, want)
	}
}
