package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// A tiny typed kind: a counter whose ADD intent takes a block, whose guard
// reads the aggregate and whose system intent is given the Party.
type counter struct {
	Total int
	By    []string
}

type add struct{ N int }

func typedToy() *engine.Declaration[counter] {
	return &engine.Declaration[counter]{
		Kind: "COUNTER", States: []string{"OPEN", "FULL"}, Initial: "OPEN", Final: []string{"FULL"},
		Create: engine.IntentOf[counter, add]{Name: "CREATE", Operation: "/x/Create", Roles: []string{"R"},
			Apply: func(ev *engine.On[counter], in *add) error { ev.Doc.Total = in.N; return nil }},
		Intents: []engine.Step[counter]{
			engine.IntentOf[counter, add]{Name: "ADD", Operation: "/x/Add", Block: "add", Roles: []string{"R"},
				Transitions: []engine.Transition{{From: []string{"OPEN"}, Target: "fullness", Targets: []string{"OPEN", "FULL"}, Guard: "notFull"}},
				Validate: func(ev *engine.On[counter], in *add) ([]engine.BusinessError, error) {
					if in.N <= 0 {
						return []engine.BusinessError{{Code: "NOT_POSITIVE", Field: "add.n"}}, nil
					}
					return nil, nil
				},
				Apply: func(ev *engine.On[counter], in *add) error {
					ev.Doc.Total += in.N
					ev.Doc.By = append(ev.Doc.By, ev.Caller.Org)
					return nil
				}},
			engine.IntentOf[counter, engine.Party]{Name: "CLOSE", System: true,
				Transitions: []engine.Transition{{From: []string{"OPEN"}, To: "FULL"}},
				Apply: func(ev *engine.On[counter], p *engine.Party) error {
					ev.Doc.By = append(ev.Doc.By, "closed for "+p.Org)
					return nil
				}},
			engine.IntentOf[counter, engine.None]{Name: "NOOP", System: true,
				Transitions: []engine.Transition{{From: []string{"OPEN"}, To: "OPEN"}}},
		},
		Guards: map[string]func(*engine.On[counter]) bool{"notFull": func(ev *engine.On[counter]) bool { return ev.Doc.Total < 10 }},
		Targets: map[string]func(*engine.On[counter]) string{"fullness": func(ev *engine.On[counter]) string {
			return map[bool]string{true: "FULL", false: "OPEN"}[ev.Doc.Total >= 10]
		}},
	}
}

func TestTypedDeclarationBuildsOneUntypedDefinition(t *testing.T) {
	decl := typedToy()
	def := decl.Build()
	if decl.Build() != def {
		t.Fatal("Build made a second Definition")
	}
	byName := map[string]engine.Intent{}
	for _, in := range def.Intents {
		byName[in.Name] = in
	}
	// The block's type is the intent's I; system intents and None take no
	// decoded block.
	if in, ok := byName["ADD"].Input().(*add); !ok || in == nil {
		t.Fatalf("ADD's Input makes a %T, want *add", byName["ADD"].Input())
	}
	if def.Create.Input == nil || byName["CLOSE"].Input != nil || byName["NOOP"].Input != nil {
		t.Fatal("Input: want one for CREATE and none for system intents")
	}
	if byName["NOOP"].Apply != nil || byName["NOOP"].Validate != nil {
		t.Fatal("NOOP declares no Apply or Validate and must get none")
	}
	m, err := engine.Build(def)
	if err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	doc := &counter{Total: 8}
	ev := &engine.Eval{State: "OPEN", Data: doc, Caller: engine.Caller{Org: "acme", Roles: []string{"R"}}, Input: &add{N: 3}}
	if berrs, err := byName["ADD"].Validate(ev); err != nil || len(berrs) != 0 {
		t.Fatalf("Validate: %v %v", berrs, err)
	}
	ev.Apply = func() error { return byName["ADD"].Apply(ev) }
	if err := m.Fire(ctx, ev, "ADD"); err != nil {
		t.Fatal(err)
	}
	if ev.State != "FULL" || doc.Total != 11 || len(doc.By) != 1 || doc.By[0] != "acme" {
		t.Fatalf("after ADD: state %s, %+v", ev.State, doc)
	}
	// A content rule through the typed Validate.
	ev = &engine.Eval{State: "OPEN", Data: &counter{}, Input: &add{N: -1}}
	if berrs, _ := byName["ADD"].Validate(ev); len(berrs) != 1 || berrs[0].Code != "NOT_POSITIVE" {
		t.Fatalf("Validate of -1: %v", berrs)
	}
	// A system intent is given a value, not a decoded block.
	doc = &counter{}
	ev = &engine.Eval{State: "OPEN", Data: doc, Caller: engine.Caller{System: true}, Input: engine.Party{Org: "auth-de"}}
	if err := byName["CLOSE"].Apply(ev); err != nil || len(doc.By) != 1 || doc.By[0] != "closed for auth-de" {
		t.Fatalf("CLOSE: %v %+v", err, doc)
	}
	// A block of the wrong type is an error naming both types, not a panic.
	ev = &engine.Eval{State: "OPEN", Data: &counter{}, Input: &engine.Chained{}}
	if err := byName["ADD"].Apply(ev); err == nil || !strings.Contains(err.Error(), "add") || !strings.Contains(err.Error(), "Chained") {
		t.Fatalf("wrong block: %v", err)
	}
}

func TestInputOfAndDataOf(t *testing.T) {
	ev := &engine.Eval{Input: engine.Party{Org: "a"}}
	if p, ok := engine.InputOf[engine.Party](ev); !ok || p.Org != "a" {
		t.Fatalf("a Party value: %v %v", p, ok)
	}
	ev.Input = &add{N: 2}
	if in, ok := engine.InputOf[add](ev); !ok || in.N != 2 {
		t.Fatalf("a *add: %v %v", in, ok)
	}
	if _, ok := engine.InputOf[engine.Party](ev); ok {
		t.Fatal("a *add read as a Party")
	}
	ev.Input = (*add)(nil)
	if _, ok := engine.InputOf[add](ev); ok {
		t.Fatal("a nil *add read as present")
	}
	r := &engine.Related{Data: &counter{Total: 4}}
	if d, ok := engine.DataOf[*counter](r); !ok || d.Total != 4 {
		t.Fatalf("DataOf: %v %v", d, ok)
	}
	if _, ok := engine.DataOf[*add](r); ok {
		t.Fatal("a *counter read as a *add")
	}
	if _, ok := engine.DataOf[*counter](nil); ok {
		t.Fatal("no document read as one")
	}
}
