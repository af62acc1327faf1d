package codec_test

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

func richSchema(t *testing.T) (*openapi3.SchemaRef, openapi3.Schemas) {
	t.Helper()
	comps := openapi3.Schemas{}
	ref, err := codec.SchemaRef(reflect.TypeFor[Rich](), comps)
	if err != nil {
		t.Fatalf("SchemaRef: %v", err)
	}
	return ref, comps
}

// docWith wraps components in a minimal, valid OpenAPI 3.0.3 document.
func docWith(comps openapi3.Schemas) *openapi3.T {
	return &openapi3.T{
		OpenAPI:    "3.0.3",
		Info:       &openapi3.Info{Title: "codec test", Version: "1"},
		Paths:      openapi3.NewPaths(),
		Components: &openapi3.Components{Schemas: comps},
	}
}

func TestSchemaShapes(t *testing.T) {
	ref, comps := richSchema(t)
	if ref.Ref != "#/components/schemas/Rich" {
		t.Fatalf("top-level ref = %q", ref.Ref)
	}
	if got := mapKeys(comps); !reflect.DeepEqual(got, []string{"Filter", "QueryParams", "Ref", "Rich", "State"}) {
		t.Errorf("components = %v", got)
	}
	rich := comps["Rich"].Value
	if len(rich.Required) != 0 || rich.AdditionalProperties.Has != nil || rich.AdditionalProperties.Schema != nil {
		t.Errorf("Rich must have no required list and default additionalProperties: %+v", rich)
	}
	wantProps := []string{"anon", "any", "at", "atPtr", "b", "counts", "data", "docXml", "f32", "f64", "i64", "i8", "ids",
		"int", "labels", "meta", "nInt32", "next", "noTag", "nums", "opt", "qpar", "raw", "refs", "s", "state", "statePtr",
		"states", "templateId", "times", "u32", "u64"}
	if got := mapKeys(rich.Properties); !reflect.DeepEqual(got, wantProps) {
		t.Errorf("properties = %v\nwant %v", got, wantProps)
	}

	// Each property rendered as JSON, compared with the expected schema.
	tests := map[string]string{
		"b":          `{"type":"boolean"}`,
		"i8":         `{"format":"int32","type":"integer"}`,
		"nInt32":     `{"format":"int32","type":"integer"}`,
		"u32":        `{"format":"int64","minimum":0,"type":"integer"}`,
		"i64":        `{"anyOf":[{"format":"int64","pattern":"^-?[0-9]+$","type":"string"},{"format":"int64","type":"integer"}]}`,
		"int":        `{"anyOf":[{"format":"int64","pattern":"^-?[0-9]+$","type":"string"},{"format":"int64","type":"integer"}]}`,
		"u64":        `{"anyOf":[{"format":"uint64","pattern":"^[0-9]+$","type":"string"},{"format":"int64","minimum":0,"type":"integer"}]}`,
		"f32":        `{"format":"float","type":"number"}`,
		"f64":        `{"format":"double","type":"number"}`,
		"s":          `{"description":"A plain string.","type":"string"}`,
		"data":       `{"format":"byte","type":"string"}`,
		"state":      `{"allOf":[{"$ref":"#/components/schemas/State"}],"description":"Lifecycle state."}`,
		"states":     `{"items":{"$ref":"#/components/schemas/State"},"type":"array"}`,
		"statePtr":   `{"anyOf":[{"enum":["STATE_UNSPECIFIED","ACTIVE","ARCHIVED"],"nullable":true,"type":"string"},{"format":"int32","nullable":true,"type":"integer"}],"description":"Enum value name; the numeric value is also accepted on input."}`,
		"at":         `{"format":"date-time","nullable":true,"type":"string"}`,
		"atPtr":      `{"format":"date-time","nullable":true,"type":"string"}`,
		"times":      `{"items":{"format":"date-time","nullable":true,"type":"string"},"type":"array"}`,
		"raw":        `{"anyOf":[{"nullable":true,"type":"object"},{"items":{},"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"}]}`,
		"any":        `{"anyOf":[{"nullable":true,"type":"object"},{"items":{},"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"}]}`,
		"meta":       `{"anyOf":[{"nullable":true,"type":"object"},{"items":{},"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"}]}`,
		"labels":     `{"additionalProperties":{"type":"string"},"type":"object"}`,
		"refs":       `{"additionalProperties":{"anyOf":[{"$ref":"#/components/schemas/Ref"},{"not":{"type":"object"},"nullable":true,"type":"object"}]},"type":"object"}`,
		"counts":     `{"additionalProperties":{"anyOf":[{"format":"int64","pattern":"^-?[0-9]+$","type":"string"},{"format":"int64","type":"integer"}]},"type":"object"}`,
		"qpar":       `{"$ref":"#/components/schemas/QueryParams"}`,
		"templateId": `{"anyOf":[{"$ref":"#/components/schemas/Ref"},{"not":{"type":"object"},"nullable":true,"type":"object"}]}`,
		"ids":        `{"items":{"type":"string"},"type":"array"}`,
		"nums":       `{"items":{"anyOf":[{"format":"int64","pattern":"^-?[0-9]+$","type":"string"},{"format":"int64","type":"integer"}]},"type":"array"}`,
		"opt":        `{"format":"int32","nullable":true,"type":"integer"}`,
		"noTag":      `{"type":"string"}`,
		"anon":       `{"properties":{"x":{"format":"int32","type":"integer"}},"type":"object","x-order":["x"]}`,
		"next":       `{"anyOf":[{"$ref":"#/components/schemas/Rich"},{"not":{"type":"object"},"nullable":true,"type":"object"}]}`,
	}
	for prop, want := range tests {
		got, err := json.Marshal(rich.Properties[prop])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("property %s\n got: %s\nwant: %s", prop, got, want)
		}
	}
	state, _ := json.Marshal(comps["State"])
	if want := `{"anyOf":[{"enum":["STATE_UNSPECIFIED","ACTIVE","ARCHIVED"],"type":"string"},{"format":"int32","type":"integer"}],"description":"Enum value name; the numeric value is also accepted on input."}`; string(state) != want {
		t.Errorf("State component\n got: %s\nwant: %s", state, want)
	}
	qp, _ := json.Marshal(comps["QueryParams"])
	if want := `{"properties":{"filter":{"items":{"$ref":"#/components/schemas/Filter"},"type":"array"},"pageSize":{"format":"int32","type":"integer"},"pageStart":{"type":"string"}},"type":"object","x-order":["pageSize","pageStart","filter"]}`; string(qp) != want {
		t.Errorf("QueryParams component\n got: %s\nwant: %s", qp, want)
	}
}

func mapKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// TestSchemaValidatesOutput is the "docs and wire never disagree" check:
// Marshal output must validate against the derived schema, both through the
// in-memory refs and after a JSON round trip of the whole document through
// kin-openapi's loader (which proves the $ref strings resolve).
func TestSchemaValidatesOutput(t *testing.T) {
	ref, comps := richSchema(t)
	doc := docWith(comps)
	ctx := context.Background()
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("document invalid: %v", err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("loading document: %v", err)
	}
	if err := loaded.Validate(ctx); err != nil {
		t.Fatalf("loaded document invalid: %v", err)
	}
	loadedRich := loaded.Components.Schemas["Rich"].Value

	withNils := sampleRich()
	withNils.StatePtr, withNils.AtPtr, withNils.TemplateID, withNils.Opt = nil, nil, nil, nil
	withNils.Refs = map[string]*Ref{"nil": nil}
	withNils.Any, withNils.Meta, withNils.Raw = nil, nil, nil
	withNils.Next.Next = &Rich{Any: "str", Meta: map[string]any{}, Raw: json.RawMessage(`7`)}
	for name, msg := range map[string]*Rich{"sample": sampleRich(), "zero": {}, "nils": withNils} {
		out, err := codec.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		var value any
		if err := json.Unmarshal(out, &value); err != nil {
			t.Fatal(err)
		}
		if err := ref.Value.VisitJSON(value); err != nil {
			t.Errorf("%s: output does not validate against its schema: %v\n%s", name, err, out)
		}
		if err := loadedRich.VisitJSON(value); err != nil {
			t.Errorf("%s: output does not validate against the loaded schema: %v", name, err)
		}
	}

	// The validation above must be able to fail: protojson-incompatible
	// bodies are rejected by the same schema.
	for _, bad := range []string{
		`{"i64":"5x"}`,                 // int64: digits, as a string or a number
		`{"i64":5.5}`,                  // not an integer
		`{"state":"NOPE"}`,             // not an enum name
		`{"ids":null}`,                 // lists are never null
		`{"qpar":null}`,                // non-pointer messages are never null
		`{"qpar":{"pageSize":"1"}}`,    // int32 is a number
		`{"next":{"data":"***"}}`,      // recursive ref, bad base64
		`{"at":"2024-01-02"}`,          // not a date-time
		`{"labels":{"a":1}}`,           // map values typed
		`{"templateId":{"id":true}}`,   // nullable wrapper still checks the message
		`{"anon":{"x":1.5}}`,           // inline struct typed
		`{"times":[null,"bogus"]}`,     // items checked
		`{"statePtr":"STATE_UNKNOWN"}`, // nullable enum still checks names
	} {
		var value any
		if err := json.Unmarshal([]byte(bad), &value); err != nil {
			t.Fatal(err)
		}
		if err := loadedRich.VisitJSON(value); err == nil {
			t.Errorf("%s validated, want a schema error", bad)
		}
	}
}

func TestSchemaScalarsAndReuse(t *testing.T) {
	comps := openapi3.Schemas{}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[int32](), `{"format":"int32","type":"integer"}`},
		{reflect.TypeFor[*int64](), `{"anyOf":[{"format":"int64","nullable":true,"pattern":"^-?[0-9]+$","type":"string"},{"format":"int64","nullable":true,"type":"integer"}]}`},
		{reflect.TypeFor[[]byte](), `{"format":"byte","type":"string"}`},
		{reflect.TypeFor[time.Time](), `{"format":"date-time","nullable":true,"type":"string"}`},
		{reflect.TypeFor[map[string][]State](), `{"additionalProperties":{"items":{"$ref":"#/components/schemas/State"},"type":"array"},"type":"object"}`},
		{reflect.TypeFor[Ref](), `{"$ref":"#/components/schemas/Ref"}`},
		{reflect.TypeFor[Ref](), `{"$ref":"#/components/schemas/Ref"}`}, // second call reuses the component
		{reflect.TypeFor[w[Ref]](), `{"$ref":"#/components/schemas/w_github.com_wasteflow_wasteflow_handlers_codec_test.Ref_"}`},
	} {
		ref, err := codec.SchemaRef(tc.typ, comps)
		if err != nil {
			t.Fatalf("%v: %v", tc.typ, err)
		}
		if got, _ := json.Marshal(ref); string(got) != tc.want {
			t.Errorf("%v\n got: %s\nwant: %s", tc.typ, got, tc.want)
		}
	}
	if err := docWith(comps).Validate(context.Background()); err != nil {
		t.Errorf("document with sanitised generic name invalid: %v", err)
	}
}

func TestSchemaNameCollision(t *testing.T) {
	comps := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[Rich](), comps); err != nil {
		t.Fatal(err)
	}
	before := len(comps)

	type Ref struct { // same Go name as the package-level Ref, different type
		Other int32 `json:"other"`
	}
	type Holder struct {
		R Ref `json:"r"`
	}
	_, err := codec.SchemaRef(reflect.TypeFor[Holder](), comps)
	if err == nil || !strings.Contains(err.Error(), `"Ref" is used by both`) {
		t.Fatalf("error = %v, want a name collision", err)
	}
	if len(comps) != before {
		t.Errorf("comps modified on error: %d entries, had %d", len(comps), before)
	}

	// A hand-written component of the same name is not silently replaced.
	handWritten := openapi3.Schemas{"Ref": openapi3.NewSchemaRef("", openapi3.NewStringSchema())}
	if _, err := codec.SchemaRef(reflect.TypeFor[Ref](), handWritten); err == nil {
		t.Error("overwrote a component SchemaRef did not create")
	}

	if _, err := codec.SchemaRef(reflect.TypeFor[w[chan int]](), openapi3.Schemas{}); err == nil {
		t.Error("unsupported type accepted")
	}
	if _, err := codec.SchemaRef(reflect.TypeFor[Ref](), nil); err == nil {
		t.Error("nil comps accepted")
	}
}

// A nil pointer to a message is null: the null alternative admits null and
// nothing else, and Unwrap finds the message behind it.
func TestNullableMessage(t *testing.T) {
	comps := openapi3.Schemas{}
	ref, err := codec.SchemaRef(reflect.TypeFor[*Ref](), comps)
	if err != nil {
		t.Fatal(err)
	}
	if inner := codec.Unwrap(ref); inner.Ref != "#/components/schemas/Ref" {
		t.Fatalf("Unwrap = %+v", inner)
	}
	null := ref.Value.AnyOf[1].Value
	if !codec.IsNullRef(null) || codec.IsNullRef(comps["Ref"].Value) {
		t.Fatal("IsNullRef")
	}
	for value, ok := range map[string]bool{`null`: true, `{}`: true, `{"id":"x"}`: true, `{"id":5}`: false, `"x"`: false, `[]`: false} {
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			t.Fatal(err)
		}
		if err := ref.Value.VisitJSON(v); (err == nil) != ok {
			t.Errorf("%s: %v, want valid %v", value, err, ok)
		}
		if value != "null" {
			if err := null.VisitJSON(v); err == nil {
				t.Errorf("%s is valid against the null alternative", value)
			}
		}
	}
}
