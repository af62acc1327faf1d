package documents_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

type toyBlock struct{ Note string }

type toyDocument struct {
	ID   string   `json:"id"`
	Push toyBlock `json:"push"`
}

func toy() *documents.Kind {
	input := func() any { return new(toyBlock) }
	apply := func(*engine.Eval) error { return nil }
	return &documents.Kind{
		Def: &engine.Definition{
			Kind: "TOY", States: []string{"A", "B"}, Initial: "A", Final: []string{"B"},
			Create: &engine.Intent{Name: "CREATE", Operation: "/x/Create", Roles: []string{"R"}, Input: input, Apply: apply},
			Intents: []engine.Intent{
				{Name: "PUSH", Operation: "/x/Push", Block: "push", Roles: []string{"R"}, Transitions: []engine.Transition{{From: []string{"A"}, To: "B"}},
					Input: input, Apply: apply, Then: []engine.Chain{{Ref: "parent", Intent: "PUSHED"}}},
				{Name: "PUSHED", System: true, Transitions: []engine.Transition{{From: []string{"A"}, To: "B"}}},
			},
			Refs: map[string]func(*engine.Eval) string{"parent": func(*engine.Eval) string { return "" }},
		},
		IDPrefix:     "toy_",
		NumberPrefix: func(string, time.Time) string { return "TOY" },
		ContainerKey: "toy",
		NewData:      func() any { return new(toyBlock) },
		Parties:      func(any) []engine.Party { return nil },
		Document:     func(*documents.View) any { return nil },
		DocumentType: reflect.TypeFor[toyDocument](),
	}
}

// The kinds this server runs register; a broken registration stops the
// server with a message naming the kind, the intent and the problem.
func TestRegistryChecksEveryKind(t *testing.T) {
	if _, err := documents.NewRegistry(kinds.All()...); err != nil {
		t.Fatalf("the served kinds: %v", err)
	}
	if _, err := documents.NewRegistry(toy()); err != nil {
		t.Fatalf("valid toy kind refused: %v", err)
	}
	for want, breakIt := range map[string]func(k *documents.Kind){
		`intent PUSH: the retrieval document documents_test.toyDocument has no block "pull"`: func(k *documents.Kind) { k.Def.Intents[0].Block = "pull" },
		`block "push" is a documents_test.toyBlock, the intent takes a *string`: func(k *documents.Kind) {
			k.Def.Intents[0].Input = func() any { return new(string) }
		},
		"intent PUSH chains to GONE, which no kind declares as a system intent": func(k *documents.Kind) { k.Def.Intents[0].Then[0].Intent = "GONE" },
		"ContainerKey are required":     func(k *documents.Kind) { k.ContainerKey = "" },
		"DocumentType and ContainerKey": func(k *documents.Kind) { k.DocumentType = nil },
		`unknown target state "Z"`:      func(k *documents.Kind) { k.Def.Intents[0].Transitions[0].To = "Z" },
	} {
		k := toy()
		breakIt(k)
		_, err := documents.NewRegistry(k)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
	if _, err := documents.NewRegistry(toy(), toy()); err == nil || !strings.Contains(err.Error(), "kind TOY registered twice") {
		t.Errorf("a kind registered twice: %v", err)
	}
}
