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
	"github.com/wasteflow/wasteflow/handlers/codec/internal/testkinds/a"
	"github.com/wasteflow/wasteflow/handlers/codec/internal/testkinds/b"
	dupa "github.com/wasteflow/wasteflow/handlers/codec/internal/testkinds/dup/a"
)

const testkinds = "github.com/wasteflow/wasteflow/handlers/codec/internal/testkinds/"

// kindRoots are the request/response types of a description with two
// document kinds: a.Decision (enum) and b.Decision (struct) share a name;
// b.Decision is reached only as the type argument of a generic wrapper.
func kindRoots() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[a.Notification](),
		reflect.TypeFor[w[b.Decision]](),
		reflect.TypeFor[b.Annex7](),
		reflect.TypeFor[Ref](),
	}
}

// buildAll derives names from roots, then schemas in the order of build, and
// renders the components and the top-level refs as one JSON text.
func buildAll(t *testing.T, roots, build []reflect.Type) (string, openapi3.Schemas) {
	t.Helper()
	names, err := codec.NewComponentNames(roots...)
	if err != nil {
		t.Fatalf("NewComponentNames: %v", err)
	}
	comps := openapi3.Schemas{}
	refs := map[string]*openapi3.SchemaRef{}
	for _, typ := range build {
		ref, err := names.SchemaRef(typ, comps)
		if err != nil {
			t.Fatalf("SchemaRef(%v): %v", typ, err)
		}
		refs[typ.String()] = ref
	}
	out, err := json.Marshal(map[string]any{"components": docWith(comps).Components, "refs": refs})
	if err != nil {
		t.Fatal(err)
	}
	return string(out), comps
}

func TestComponentNamesQualifySharedNames(t *testing.T) {
	names, err := codec.NewComponentNames(kindRoots()...)
	if err != nil {
		t.Fatal(err)
	}
	wName := "w_" + strings.ReplaceAll(testkinds, "/", "_") + "b.Decision_"
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[a.Decision]():     "a.Decision",
		reflect.TypeFor[b.Decision]():     "b.Decision",
		reflect.TypeFor[a.Notification](): "Notification",
		reflect.TypeFor[a.Notifier]():     "Notifier", // reached through a field only
		reflect.TypeFor[b.Annex7]():       "Annex7",
		reflect.TypeFor[Ref]():            "Ref",
		reflect.TypeFor[w[b.Decision]]():  wName,
	} {
		if got, ok := names.Name(typ); !ok || got != want {
			t.Errorf("Name(%v) = %q, %v; want %q", typ, got, ok, want)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[*a.Notification](), reflect.TypeFor[string](), reflect.TypeFor[Rich]()} {
		if got, ok := names.Name(typ); ok {
			t.Errorf("Name(%v) = %q, want not collected", typ, got)
		}
	}

	_, comps := buildAll(t, kindRoots(), kindRoots())
	if got, want := mapKeys(comps), []string{"Annex7", "Notification", "Notifier", "Ref", "a.Decision", "b.Decision", wName}; !slices.Equal(got, want) {
		t.Errorf("components = %v\nwant %v", got, want)
	}
	for comp, want := range map[string]string{
		"a.Decision": `{"anyOf":[{"enum":["DECISION_UNSPECIFIED","CONSENT","OBJECTION"],"type":"string"},{"format":"int32","type":"integer"}],"description":"Enum value name; the numeric value is also accepted on input."}`,
		"b.Decision": `{"properties":{"accepted":{"type":"boolean"},"authority":{"type":"string"}},"type":"object","x-order":["authority","accepted"]}`,
		"Notification": `{"properties":{"decision":{"$ref":"#/components/schemas/a.Decision"},` +
			`"history":{"items":{"$ref":"#/components/schemas/a.Decision"},"type":"array"},` +
			`"notifier":{"$ref":"#/components/schemas/Notifier"}},"type":"object","x-order":["decision","history","notifier"]}`,
		"Annex7": `{"properties":{"byParty":{"additionalProperties":{"$ref":"#/components/schemas/b.Decision"},"type":"object"},` +
			`"decision":{"anyOf":[{"$ref":"#/components/schemas/b.Decision"},{"not":{"type":"object"},"nullable":true,"type":"object"}]}},"type":"object","x-order":["decision","byParty"]}`,
		wName: `{"properties":{"v":{"$ref":"#/components/schemas/b.Decision"}},"type":"object","x-order":["v"]}`,
	} {
		if got, _ := json.Marshal(comps[comp]); string(got) != want {
			t.Errorf("component %s\n got: %s\nwant: %s", comp, got, want)
		}
	}

	// The refs resolve after a round trip through the loader, to the right
	// component: an enum name is valid where a.Decision is referenced and
	// invalid where b.Decision is, and the other way round for an object.
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
	notif, _ := codec.Marshal(&a.Notification{Decision: a.DecisionConsent, History: []a.Decision{a.DecisionObjection}})
	annex, _ := codec.Marshal(&b.Annex7{Decision: &b.Decision{Authority: "DE"}, ByParty: map[string]b.Decision{"x": {Accepted: true}}})
	wrapped, _ := codec.Marshal(&w[b.Decision]{V: b.Decision{Authority: "FR"}})
	for _, tc := range []struct {
		comp, body string
		valid      bool
	}{
		{"Notification", string(notif), true},
		{"Annex7", string(annex), true},
		{wName, string(wrapped), true},
		{"Notification", `{"decision":{"authority":"DE"}}`, false},
		{"Annex7", `{"decision":"CONSENT"}`, false},
		{wName, `{"v":"CONSENT"}`, false},
		{wName, `{"v":{"accepted":"yes"}}`, false},
	} {
		var value any
		if err := json.Unmarshal([]byte(tc.body), &value); err != nil {
			t.Fatal(err)
		}
		err := loaded.Components.Schemas[tc.comp].Value.VisitJSON(value)
		if (err == nil) != tc.valid {
			t.Errorf("%s %s: validation error %v, want valid=%v", tc.comp, tc.body, err, tc.valid)
		}
	}
}

// TestComponentNamesOrderIndependent builds the same description from every
// order of the roots (with repetitions and a nil) and every build order: the
// output must be byte-identical.
func TestComponentNamesOrderIndependent(t *testing.T) {
	roots := kindRoots()
	want, _ := buildAll(t, roots, roots)
	var permute func(k int)
	n := 0
	permute = func(k int) {
		if k == len(roots) {
			n++
			given := append(append([]reflect.Type{nil}, roots...), roots[0])
			build := slices.Clone(roots)
			slices.Reverse(build)
			for _, order := range [][]reflect.Type{roots, build} {
				if got, _ := buildAll(t, given, order); got != want {
					t.Fatalf("roots %v, build order %v:\n got: %s\nwant: %s", roots, order, got, want)
				}
			}
			return
		}
		for i := k; i < len(roots); i++ {
			roots[k], roots[i] = roots[i], roots[k]
			permute(k + 1)
			roots[k], roots[i] = roots[i], roots[k]
		}
	}
	permute(0)
	if n != 24 {
		t.Fatalf("%d permutations", n)
	}
}

// TestComponentNamesBareWithoutCollision: without shared names the result
// is exactly SchemaRef's, so today's component names are kept.
func TestComponentNamesBareWithoutCollision(t *testing.T) {
	roots := []reflect.Type{reflect.TypeFor[Rich](), reflect.TypeFor[a.Notification](), reflect.TypeFor[w[Ref]]()}
	plain := openapi3.Schemas{}
	for _, typ := range roots {
		if _, err := codec.SchemaRef(typ, plain); err != nil {
			t.Fatal(err)
		}
	}
	_, named := buildAll(t, roots, roots)
	got, _ := json.Marshal(named)
	want, _ := json.Marshal(plain)
	if string(got) != string(want) {
		t.Errorf("named components differ from SchemaRef's\n got: %s\nwant: %s", got, want)
	}
	if !slices.Contains(mapKeys(named), "Decision") {
		t.Errorf("components = %v, want a bare Decision", mapKeys(named))
	}
}

func TestComponentNamesErrors(t *testing.T) {
	// Same package name and type name, different import paths: an error
	// naming both paths, the same whatever the order.
	var msgs []string
	for _, roots := range [][]reflect.Type{
		{reflect.TypeFor[a.Notification](), reflect.TypeFor[dupa.Decision](), reflect.TypeFor[b.Decision]()},
		{reflect.TypeFor[b.Decision](), reflect.TypeFor[dupa.Decision](), reflect.TypeFor[a.Notification]()},
	} {
		_, err := codec.NewComponentNames(roots...)
		if err == nil {
			t.Fatal("same package and type name accepted")
		}
		for _, want := range []string{`"a.Decision"`, `"` + testkinds + `a"`, `"` + testkinds + `dup/a"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %s", err, want)
			}
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] {
		t.Errorf("error depends on order:\n%s\n%s", msgs[0], msgs[1])
	}

	// Two local types of one name in one package cannot be qualified apart.
	type Ref struct {
		Other int32 `json:"other"`
	}
	_, err := codec.NewComponentNames(reflect.TypeFor[Rich](), reflect.TypeFor[Ref]())
	if err == nil || !strings.Contains(err.Error(), "local types") {
		t.Errorf("error = %v, want two local types", err)
	}

	if _, err := codec.NewComponentNames(reflect.TypeFor[w[chan int]]()); err == nil {
		t.Error("unsupported type accepted")
	}

	// A type missed by the first pass is an error, leaving comps unchanged.
	names, err := codec.NewComponentNames(reflect.TypeFor[a.Notification]())
	if err != nil {
		t.Fatal(err)
	}
	comps := openapi3.Schemas{}
	if _, err := names.SchemaRef(reflect.TypeFor[a.Notification](), comps); err != nil {
		t.Fatal(err)
	}
	before := len(comps)
	if _, err := names.SchemaRef(reflect.TypeFor[b.Annex7](), comps); err == nil || !strings.Contains(err.Error(), "not collected") {
		t.Errorf("error = %v, want not collected", err)
	}
	if len(comps) != before {
		t.Errorf("comps modified on error: %d entries, had %d", len(comps), before)
	}
	if _, err := names.SchemaRef(reflect.TypeFor[a.Notification](), nil); err == nil {
		t.Error("nil comps accepted")
	}

	// SchemaRef without names keeps rejecting the shared name.
	plain := openapi3.Schemas{}
	if _, err := codec.SchemaRef(reflect.TypeFor[a.Notification](), plain); err != nil {
		t.Fatal(err)
	}
	if _, err := codec.SchemaRef(reflect.TypeFor[b.Annex7](), plain); err == nil || !strings.Contains(err.Error(), `"Decision" is used by both`) {
		t.Errorf("error = %v, want a name collision", err)
	}
}
