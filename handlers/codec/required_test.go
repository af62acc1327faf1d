package codec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

type EmbeddedRef struct {
	ID string `json:"id" required:"true"`
}

type withRequired struct {
	EmbeddedRef `json:",inline"`
	Kinds       []string `json:"kinds" required:"true"`
	Note        string   `json:"note"`
}

// A field tagged required is listed in the schema (a string at least one
// character, a list at least one item) and CheckRequired refuses its zero
// value, naming it; inlined fields count as the outer message's.
func TestRequiredFields(t *testing.T) {
	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[withRequired](), comps); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(comps["withRequired"])
	want := `{"properties":{"id":{"maxLength":128,"minLength":1,"type":"string"},"kinds":{"items":{"type":"string"},"minItems":1,"type":"array"},"note":{"type":"string"}},"required":["id","kinds"],"type":"object","x-order":["id","kinds","note"]}`
	if string(got) != want {
		t.Errorf("schema\n got: %s\nwant: %s", got, want)
	}
	for body, field := range map[string]string{
		`{}`:                                 "id",
		`{"id":"","kinds":["a"]}`:            "id",
		`{"id":"x"}`:                         "kinds",
		`{"id":"x","kinds":[]}`:              "kinds",
		`{"id":"x","kinds":["a"]}`:           "",
		`{"id":"x","kinds":["a"],"note":""}`: "",
	} {
		var v withRequired
		if err := codec.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		err := codec.CheckRequired(&v)
		var ce *codec.Error
		switch {
		case field == "" && err != nil:
			t.Errorf("%s: %v, want no error", body, err)
		case field != "" && (!errors.As(err, &ce) || ce.Field != field || ce.Reason != "required"):
			t.Errorf("%s: %v, want %s required", body, err, field)
		}
	}
}
