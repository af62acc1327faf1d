package codec_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/rules/labels"
)

type wordsKind int32

func (wordsKind) EnumNames() []string { return []string{"WORDS_KIND_UNSPECIFIED", "CONSENT"} }
func (wordsKind) EnumLabels() []labels.Text {
	return []labels.Text{{EN: "Not set", DE: "Nicht angegeben"}, {EN: "Consent", DE: "Zustimmung"}}
}

type wordsParty struct {
	Name string `json:"name" label:"Name|Name"`
}

type wordsForm struct {
	Zeta  wordsParty `json:"zeta" label:"Notifier|Notifizierende Person" help:"Who ships.|Wer verbringt." doc:"developers' note"`
	Codes []string   `json:"codes" label:"Operations|Verfahren" codeList:"operation"`
	Kind  wordsKind  `json:"kind" label:"Decision|Entscheidung"`
	Alpha string     `json:"alpha" label:"Remarks|Bemerkungen"`
	Plain int32      `json:"plain"`
}

// TestWordsInSchema: labels, help, code lists and enum labels reach the
// schema as title, x-labels, x-help, x-code-list, x-enum-labels; a $ref
// property carries them beside an allOf; x-order is the declaration's
// order, and OrderProperties writes the properties in it.
func TestWordsInSchema(t *testing.T) {
	comps := openapi3.Schemas{}
	ref, err := codec.SchemaRef(reflect.TypeFor[wordsForm](), comps)
	if err != nil {
		t.Fatal(err)
	}
	s := ref.Value
	zeta := s.Properties["zeta"].Value
	if zeta.Title != "Notifier" || len(zeta.AllOf) != 1 || zeta.Description != "developers' note" {
		t.Errorf("zeta: %+v", zeta)
	}
	if got, _ := json.Marshal(zeta.Extensions); string(got) != `{"x-help":{"en":"Who ships.","de":"Wer verbringt."},"x-labels":{"en":"Notifier","de":"Notifizierende Person"}}` {
		t.Errorf("zeta extensions: %s", got)
	}
	if codes := s.Properties["codes"].Value; codes.Extensions["x-code-list"] != "operation" || codes.Title != "Operations" {
		t.Errorf("codes: %+v", codes)
	}
	if p := s.Properties["plain"].Value; p.Title != "" || p.Extensions != nil {
		t.Errorf("an unlabelled field got words: %+v", p)
	}
	enum, _ := json.Marshal(comps["wordsKind"].Value.Extensions["x-enum-labels"])
	if string(enum) != `{"CONSENT":{"en":"Consent","de":"Zustimmung"},"WORDS_KIND_UNSPECIFIED":{"en":"Not set","de":"Nicht angegeben"}}` {
		t.Errorf("x-enum-labels: %s", enum)
	}
	raw, _ := json.Marshal(s)
	ordered, err := codec.OrderProperties(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"zeta":`, `"codes":`, `"kind":`, `"alpha":`, `"plain":`}
	at := -1
	for _, w := range want {
		i := strings.Index(string(ordered), w)
		if i <= at {
			t.Fatalf("properties not in declaration order (%s): %s", w, ordered)
		}
		at = i
	}
	if !strings.Contains(string(ordered), `"x-order":["zeta","codes","kind","alpha","plain"]`) {
		t.Errorf("x-order: %s", ordered)
	}
	var a, b any
	_ = json.Unmarshal(raw, &a)
	_ = json.Unmarshal(ordered, &b)
	if !reflect.DeepEqual(a, b) {
		t.Error("OrderProperties changed the document's content")
	}
}

type badLabels int32

func (badLabels) EnumNames() []string       { return []string{"A", "B"} }
func (badLabels) EnumLabels() []labels.Text { return []labels.Text{{EN: "A", DE: "A"}} }

type halfLabel struct {
	X string `json:"x" label:"English only"`
}

// TestWordsMistakes: an enum with fewer labels than names, and a label
// without its German half, are refused when the type is analysed.
func TestWordsMistakes(t *testing.T) {
	if _, err := codec.SchemaRef(reflect.TypeFor[badLabels](), openapi3.Schemas{}); err == nil || !strings.Contains(err.Error(), "2 names and 1 labels") {
		t.Errorf("enum with a missing label: %v", err)
	}
	if _, err := codec.SchemaRef(reflect.TypeFor[halfLabel](), openapi3.Schemas{}); err == nil || !strings.Contains(err.Error(), "English|Deutsch") {
		t.Errorf("label without German: %v", err)
	}
}
