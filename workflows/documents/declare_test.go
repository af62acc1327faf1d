package documents_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// A typed toy kind: its retrieval document's content is TypedContent
// (the block of EDIT among it), the blocks of PUSH (shared with
// PUSH_AGAIN) and ZAP are made from the intents.
type (
	typedData    struct{ Note string }
	typedPush    struct{ Note string }
	typedZap     struct{ Why string }
	TypedContent struct {
		documents.Header `json:",inline"`
		Content          typedPush `json:"content" doc:"the content; also the block of EDIT"`
	}
)

func typedToy() documents.KindOf[typedData, TypedContent] {
	type intent[I any] = engine.IntentOf[typedData, I]
	apply := func(*engine.On[typedData], *typedPush) error { return nil }
	move := []engine.Transition{{From: []string{"A"}, To: "A"}}
	return documents.KindOf[typedData, TypedContent]{
		Declaration: &engine.Declaration[typedData]{
			Kind: "TYPED", States: []string{"A"}, Initial: "A",
			Create: intent[typedPush]{Name: "CREATE", Operation: "/x/Create", Roles: []string{"R"}, Apply: apply},
			Intents: []engine.Step[typedData]{
				intent[typedPush]{Name: "EDIT", Operation: "/x/Edit", Block: "content", Roles: []string{"R"}, Transitions: move, Apply: apply},
				intent[typedPush]{Name: "PUSH", Operation: "/x/Push", Block: "push", Roles: []string{"R"}, Transitions: move, Apply: apply,
					Prefill: func(d *typedData, b *typedPush) { b.Note = d.Note }},
				intent[engine.None]{Name: "TICK", System: true, Transitions: move},
				intent[typedZap]{Name: "ZAP", Operation: "/x.Api/SetByIntent", Block: "zap", Roles: []string{"R"}, Transitions: move,
					Apply: func(*engine.On[typedData], *typedZap) error { return nil }},
				intent[typedPush]{Name: "PUSH_AGAIN", Operation: "/x/Push", Block: "push", Roles: []string{"R"}, Transitions: move, Apply: apply,
					Prefill: func(d *typedData, b *typedPush) { b.Note += "!" }},
			},
		},
		IDPrefix:     "typ_",
		NumberPrefix: func(string, time.Time) string { return "TYP" },
		ContainerKey: "typed",
		Parties:      func(*typedData) []engine.Party { return nil },
		Document: func(v *documents.View, d *typedData) *TypedContent {
			return &TypedContent{Header: v.Header(), Content: typedPush{Note: "content " + d.Note}}
		},
	}
}

// The retrieval document of a KindOf is R followed by a field per block
// the intents take that R does not hold, in the intents' order, described
// as today's hand-written fields were, pre-filled by the intents; Block
// finds every block in it, content or made.
func TestKindOfMakesTheDocumentType(t *testing.T) {
	k := typedToy().Kind()
	if _, err := documents.NewRegistry(k); err != nil {
		t.Fatalf("the typed toy is refused: %v", err)
	}
	if k.DocumentName != "TypedContent" || k.DocumentPackage != "documents_test" {
		t.Errorf("the made type is named %s.%s, want documents_test.TypedContent", k.DocumentPackage, k.DocumentName)
	}
	dt := k.DocumentType
	if dt.Name() != "" || dt.NumField() != 3 {
		t.Fatalf("document type %v: want an unnamed struct of R and two blocks", dt)
	}
	if f := dt.Field(0); !f.Anonymous || f.Type != reflect.TypeFor[TypedContent]() || f.Tag != `json:",inline"` {
		t.Errorf("first field %+v: want TypedContent embedded inline", f)
	}
	for i, want := range []struct {
		typ reflect.Type
		tag reflect.StructTag
	}{
		{reflect.TypeFor[typedPush](), `json:"push" doc:"input block of PUSH and PUSH_AGAIN"`},
		{reflect.TypeFor[typedZap](), `json:"zap" doc:"input block of ZAP (SetByIntent)"`},
	} {
		if f := dt.Field(i + 1); f.Type != want.typ || f.Tag != want.tag {
			t.Errorf("block field %d: %v %s, want %v %s", i+1, f.Type, f.Tag, want.typ, want.tag)
		}
	}

	v := &documents.View{Kind: k, Doc: models.Document{ID: "typ_1", Kind: "TYPED", State: "A", Version: 3}, Data: &typedData{Note: "hello"}}
	doc := k.Document(v)
	if reflect.TypeOf(doc) != reflect.PointerTo(dt) {
		t.Fatalf("Document made a %T, want a *%v", doc, dt)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"typ_1","number":"","kind":"TYPED","state":"A","version":3,"content":{"Note":"content hello"},"push":{"Note":"hello!"},"zap":{"Why":""}}`
	if string(raw) != want {
		t.Errorf("document\n got %s\nwant %s", raw, want)
	}

	for name, want := range map[string]any{"content": &typedPush{Note: "content hello"}, "push": &typedPush{Note: "hello!"}, "zap": &typedZap{}} {
		in := intentWithBlock(t, k, name)
		got, ok := k.Block(doc, in)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Block(%s) = %#v, %v; want %#v", name, got, ok, want)
		}
	}
	// The block is the document's own field: what a client fills in.
	b, _ := k.Block(doc, intentWithBlock(t, k, "push"))
	b.(*typedPush).Note = "edited"
	if got := reflect.ValueOf(doc).Elem().Field(1).Interface().(typedPush); got.Note != "edited" {
		t.Errorf("Block is not the document's field: %+v", got)
	}
}

func intentWithBlock(t *testing.T, k *documents.Kind, block string) *engine.Intent {
	t.Helper()
	for i := range k.Def.Intents {
		if k.Def.Intents[i].Block == block {
			return &k.Def.Intents[i]
		}
	}
	t.Fatalf("no intent takes %s", block)
	return nil
}

// BlockOrder orders the made blocks; a declaration mistake stops the
// start-up; a content block of the wrong type is the registry's to catch.
func TestKindOfBlockOrderAndMistakes(t *testing.T) {
	ordered := typedToy()
	ordered.BlockOrder = []string{"zap", "push"}
	dt := ordered.Kind().DocumentType
	if a, b := dt.Field(1).Tag.Get("json"), dt.Field(2).Tag.Get("json"); a != "zap" || b != "push" {
		t.Errorf("BlockOrder zap, push made %s, %s", a, b)
	}

	for want, breakIt := range map[string]func(k *documents.KindOf[typedData, TypedContent]){
		"BlockOrder [push] does not list the input blocks [push zap]": func(k *documents.KindOf[typedData, TypedContent]) { k.BlockOrder = []string{"push"} },
		`intent EDIT pre-fills "content", a content field`: func(k *documents.KindOf[typedData, TypedContent]) {
			edit := k.Declaration.Intents[0].(engine.IntentOf[typedData, typedPush])
			edit.Prefill = func(*typedData, *typedPush) {}
			k.Declaration.Intents[0] = edit
		},
		"intent TICK takes no block to pre-fill": func(k *documents.KindOf[typedData, TypedContent]) {
			tick := k.Declaration.Intents[2].(engine.IntentOf[typedData, engine.None])
			tick.Prefill = func(*typedData, *engine.None) {}
			k.Declaration.Intents[2] = tick
		},
	} {
		k := typedToy()
		breakIt(&k)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), want) {
					t.Errorf("want a panic with %q, got %v", want, r)
				}
			}()
			k.Kind()
		}()
	}

	k := typedToy()
	k.Declaration.Intents[0] = engine.IntentOf[typedData, typedZap]{Name: "EDIT", Operation: "/x/Edit", Block: "content", Roles: []string{"R"},
		Transitions: []engine.Transition{{From: []string{"A"}, To: "A"}}, Apply: func(*engine.On[typedData], *typedZap) error { return nil }}
	if _, err := documents.NewRegistry(k.Kind()); err == nil || !strings.Contains(err.Error(), `block "content" is a documents_test.typedPush, the intent takes a *documents_test.typedZap`) {
		t.Errorf("a content block of the wrong type: %v", err)
	}
}
