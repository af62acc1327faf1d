package codec

import (
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

type InlineHead struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
}

type InlineTail struct {
	Note string `json:"note" doc:"a note"`
}

type inlined struct {
	InlineHead `json:",inline"`
	Body       string `json:"body"`
	InlineTail `json:",inline"`
}

// Inlined fields stand in the outer object at their place, in all three
// directions: output, input (body and query) and schema.
func TestInline(t *testing.T) {
	in := inlined{InlineHead: InlineHead{ID: "a", Version: 3}, Body: "b", InlineTail: InlineTail{Note: "n"}}
	out, err := Marshal(&in)
	if err != nil || string(out) != `{"id":"a","version":"3","body":"b","note":"n"}` {
		t.Fatalf("marshal: %s %v", out, err)
	}
	var back inlined
	if err := Unmarshal([]byte(`{"id":"a","version":3,"body":"b","note":"n"}`), &back); err != nil || back != in {
		t.Fatalf("unmarshal: %+v %v", back, err)
	}
	var q inlined
	if err := UnmarshalQuery(url.Values{"id": {"x"}, "note": {"y"}}, &q); err != nil || q.ID != "x" || q.Note != "y" {
		t.Fatalf("query: %+v %v", q, err)
	}
	comps := openapi3.Schemas{}
	if _, err := SchemaRef(reflect.TypeFor[inlined](), comps); err != nil {
		t.Fatal(err)
	}
	var props []string
	for _, s := range comps {
		for name := range s.Value.Properties {
			props = append(props, name)
		}
		if d := s.Value.Properties["note"]; d == nil || d.Value.Description != "a note" {
			t.Errorf("inlined field doc: %v", d)
		}
	}
	slices.Sort(props)
	if len(comps) != 1 || !slices.Equal(props, []string{"body", "id", "note", "version"}) {
		t.Fatalf("schema: %d components, properties %v", len(comps), props)
	}
}

type clash struct {
	InlineHead `json:",inline"`
	ID         string `json:"id"`
}

type namedInline struct {
	H InlineHead `json:"h,inline"`
}

func TestInlineMistakes(t *testing.T) {
	if _, err := Marshal(&clash{}); err == nil {
		t.Error("a clash of inlined and outer names was accepted")
	}
	if _, err := Marshal(&namedInline{}); err == nil {
		t.Error("a named inline field was accepted")
	}
}
