package codec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// namedRef is inlined into the made request.
type namedRef struct {
	ID  string `json:"documentId" required:"true"`
	Rev int32  `json:"rev"`
}

type namedBlock struct {
	Note string `json:"note" maxLength:"5"`
}

// A request made at run time, named like the Go type it stands for.
func madeRequest(t *testing.T, name string) reflect.Type {
	t.Helper()
	typ := reflect.StructOf([]reflect.StructField{
		{Name: "Ref", Type: reflect.TypeFor[namedRef](), Tag: reflect.StructTag(`json:",inline" made:"` + name + `"`)},
		{Name: "Push", Type: reflect.TypeFor[namedBlock](), Tag: `json:"push"`},
	})
	if err := codec.NameType(typ, "handlers", name); err != nil {
		t.Fatal(err)
	}
	return typ
}

func TestNameTypeMakesAComponentOfAMadeType(t *testing.T) {
	a, b := madeRequest(t, "PushRequest"), madeRequest(t, "ShoveRequest")
	if a == b {
		t.Fatal("the tags should make two types")
	}
	if err := codec.NameType(a, "handlers", "Other"); err == nil {
		t.Fatal("renaming a made type: no error")
	}
	if err := codec.NameType(reflect.TypeFor[namedRef](), "handlers", "Other"); err == nil {
		t.Fatal("naming a named type: no error")
	}
	names, err := codec.NewComponentNames(a, b)
	if err != nil {
		t.Fatal(err)
	}
	comps := openapi3.Schemas{}
	ref, err := names.SchemaRef(a, comps)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Ref != "#/components/schemas/PushRequest" {
		t.Fatalf("ref %q", ref.Ref)
	}
	s := comps["PushRequest"].Value
	if s == nil || len(s.Properties) != 3 || s.Properties["push"].Ref != "#/components/schemas/namedBlock" || strings.Join(s.Required, ",") != "documentId" {
		out, _ := json.Marshal(comps)
		t.Fatalf("components %s", out)
	}

	// The wire: inline fields, required, limits and field names as for a Go type.
	v := reflect.New(a)
	if err := codec.Unmarshal([]byte(`{"document_id":"d1","rev":"3","push":{"note":"hi"}}`), v.Interface()); err != nil {
		t.Fatal(err)
	}
	if ref := v.Elem().Field(0).Interface().(namedRef); ref.ID != "d1" || ref.Rev != 3 {
		t.Fatalf("decoded %+v", ref)
	}
	err = codec.Unmarshal([]byte(`{"push":{"note":"too long"}}`), reflect.New(a).Interface())
	var ce *codec.Error
	if !errors.As(err, &ce) || ce.Field != "push.note" {
		t.Fatalf("limit: %v", err)
	}
	if err := codec.CheckRequired(reflect.New(a).Interface()); err == nil || !strings.Contains(err.Error(), "documentId") {
		t.Fatalf("required: %v", err)
	}
	out, err := codec.Marshal(v.Interface())
	if err != nil || string(out) != `{"documentId":"d1","rev":3,"push":{"note":"hi"}}` {
		t.Fatalf("marshal %s %v", out, err)
	}
}
