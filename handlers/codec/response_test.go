package codec_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// The response form requires every property, recursively, and every
// output of Marshal validates against it; a body lacking a field does not,
// though the request form takes it. Enums have one component for both.
func TestResponseForm(t *testing.T) {
	comps := openapi3.Schemas{}
	req, err := codec.SchemaRef(reflect.TypeFor[Rich](), comps)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := codec.ResponseSchemaRef(reflect.TypeFor[Rich](), comps)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Ref != "#/components/schemas/Rich-Output" {
		t.Fatalf("response form ref = %q", resp.Ref)
	}
	want := []string{"Filter", "Filter-Output", "QueryParams", "QueryParams-Output", "Ref", "Ref-Output", "Rich", "Rich-Output", "State"}
	if got := mapKeys(comps); !slices.Equal(got, want) {
		t.Fatalf("components = %v\nwant %v", got, want)
	}
	rich := comps["Rich-Output"].Value
	if len(rich.Required) != len(rich.Properties) || rich.Required[0] != "b" || rich.Required[len(rich.Required)-1] != "next" {
		t.Errorf("required = %v, want every property in declaration order", rich.Required)
	}
	if len(comps["Rich"].Value.Required) != 0 {
		t.Errorf("request form requires %v", comps["Rich"].Value.Required)
	}
	for prop, want := range map[string]string{
		"next":       `{"anyOf":[{"$ref":"#/components/schemas/Rich-Output"},{"not":{"type":"object"},"nullable":true,"type":"object"}]}`,
		"qpar":       `{"$ref":"#/components/schemas/QueryParams-Output"}`,
		"state":      `{"allOf":[{"$ref":"#/components/schemas/State"}],"description":"Lifecycle state."}`,
		"templateId": `{"anyOf":[{"$ref":"#/components/schemas/Ref-Output"},{"not":{"type":"object"},"nullable":true,"type":"object"}]}`,
	} {
		if got, _ := json.Marshal(rich.Properties[prop]); string(got) != want {
			t.Errorf("property %s\n got: %s\nwant: %s", prop, got, want)
		}
	}

	doc := docWith(comps)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("document invalid: %v", err)
	}
	withNils := sampleRich()
	withNils.StatePtr, withNils.AtPtr, withNils.TemplateID, withNils.Opt, withNils.Next = nil, nil, nil, nil, nil
	for name, msg := range map[string]*Rich{"sample": sampleRich(), "zero": {}, "nils": withNils} {
		out, err := codec.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		var value map[string]any
		if err := json.Unmarshal(out, &value); err != nil {
			t.Fatal(err)
		}
		if err := resp.Value.VisitJSON(value); err != nil {
			t.Errorf("%s: output does not validate against the response form: %v\n%s", name, err, out)
		}
		delete(value, "s")
		if err := resp.Value.VisitJSON(value); err == nil || !strings.Contains(err.Error(), `"s"`) {
			t.Errorf("%s: output without s validated against the response form (%v)", name, err)
		}
		if err := req.Value.VisitJSON(value); err != nil {
			t.Errorf("%s: output without s does not validate against the request form: %v", name, err)
		}
	}
}

// The input rules of a required tag (not empty) belong to the request
// form; the response form only names the fields (x-input-required), for a
// form built from it.
func TestResponseFormDropsInputRules(t *testing.T) {
	comps := openapi3.Schemas{}
	if _, err := codec.ResponseSchemaRef(reflect.TypeFor[withRequired](), comps); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(comps["withRequired-Output"])
	want := `{"properties":{"id":{"type":"string"},"kinds":{"items":{"type":"string"},"type":"array"},"note":{"type":"string"}},"required":["id","kinds","note"],"type":"object","x-input-required":["id","kinds"],"x-order":["id","kinds","note"]}`
	if string(got) != want {
		t.Errorf("schema\n got: %s\nwant: %s", got, want)
	}
}

type reqOnly struct {
	Shared *Ref `json:"shared"`
}

type respOnly struct {
	Shared Ref   `json:"shared"`
	State  State `json:"state"`
	Mine   Inner `json:"mine"`
}

type Inner struct {
	N int32 `json:"n"`
}

// NewComponentNamesFor gives the suffix to the response form of the
// messages requests use too, and to nothing else.
func TestComponentNamesForResponses(t *testing.T) {
	names, err := codec.NewComponentNamesFor([]reflect.Type{reflect.TypeFor[reqOnly]()}, []reflect.Type{reflect.TypeFor[respOnly]()})
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[reflect.Type][2]string{
		reflect.TypeFor[Ref]():      {"Ref", "Ref-Output"},
		reflect.TypeFor[respOnly](): {"respOnly", "respOnly"},
		reflect.TypeFor[Inner]():    {"Inner", "Inner"},
		reflect.TypeFor[State]():    {"State", "State"},
	} {
		name, _ := names.Name(typ)
		resp, ok := names.ResponseName(typ)
		if name != want[0] || resp != want[1] || !ok {
			t.Errorf("%v: names %q, %q (%v); want %q", typ, name, resp, ok, want)
		}
	}
	if _, ok := names.ResponseName(reflect.TypeFor[reqOnly]()); ok {
		t.Error("a request type has a response name")
	}

	comps := openapi3.Schemas{}
	if _, err := names.SchemaRef(reflect.TypeFor[reqOnly](), comps); err != nil {
		t.Fatal(err)
	}
	if _, err := names.ResponseSchemaRef(reflect.TypeFor[respOnly](), comps); err != nil {
		t.Fatal(err)
	}
	if got, want := mapKeys(comps), []string{"Inner", "Ref", "Ref-Output", "State", "reqOnly", "respOnly"}; !slices.Equal(got, want) {
		t.Errorf("components = %v, want %v", got, want)
	}
	if _, err := names.ResponseSchemaRef(reflect.TypeFor[reqOnly](), comps); err == nil {
		t.Error("the response form of a request type was built")
	}
	if _, err := names.SchemaRef(reflect.TypeFor[respOnly](), comps); err == nil {
		t.Error("the request form of a response type was built")
	}
}
