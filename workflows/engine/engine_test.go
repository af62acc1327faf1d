package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

func valid() *engine.Definition {
	input := func() any { return new(struct{}) }
	apply := func(*engine.Eval) error { return nil }
	return &engine.Definition{
		Kind: "TOY", States: []string{"A", "B", "C"}, Initial: "A", Final: []string{"C"},
		Create: &engine.Intent{Name: "CREATE", Operation: "/x/Create", Roles: []string{"R"}, Input: input, Apply: apply},
		Intents: []engine.Intent{
			{Name: "GO", Operation: "/x/Go", Roles: []string{"R"}, Transitions: []engine.Transition{{From: []string{"A"}, To: "B"}},
				Effects: []engine.Effect{{Op: engine.Start, Rule: "GO_DUE"}}, Input: input, Apply: apply},
			{Name: "END", Operation: "/x/End", Roles: []string{"R"}, Transitions: []engine.Transition{
				{From: []string{"B"}, To: "C", Guard: "ok"}, {From: []string{"B"}, To: "A", Guard: "!ok"}},
				Effects: []engine.Effect{{Op: engine.Stop, Rule: "GO_DUE", Party: "ME"}}, Input: input, Apply: apply},
			{Name: "TIMEOUT", System: true, Transitions: []engine.Transition{{From: []string{"B"}, To: "A"}}},
		},
		Guards: map[string]func(*engine.Eval) bool{"ok": func(ev *engine.Eval) bool { return ev.Input == true }},
		Rules:  []engine.Rule{{Name: "GO_DUE", LegalBasis: "Art. 1", Days: 3, Working: true, Party: "ME", OnExpiry: "TIMEOUT"}},
		Selectors: map[string]func(*engine.Eval) []engine.Party{
			"ME": func(ev *engine.Eval) []engine.Party { return []engine.Party{{Org: ev.Caller.Org, Role: "R"}} },
		},
	}
}

func TestValidateRejectsBrokenDeclarations(t *testing.T) {
	if err := engine.Validate(valid()); err != nil {
		t.Fatalf("valid declaration refused: %v", err)
	}
	// A final state may keep a record without leaving it.
	record := valid()
	record.Intents = append(record.Intents, engine.Intent{Name: "NOTE", System: true, Transitions: []engine.Transition{{From: []string{"B"}, To: "B"}, {From: []string{"C"}, To: "C"}}})
	if err := engine.Validate(record); err == nil || !strings.Contains(err.Error(), "leaves final state C") {
		t.Fatalf("a self-loop on a final state not marked Keeps: %v", err)
	}
	record.Intents[len(record.Intents)-1].Keeps = true
	if err := engine.Validate(record); err != nil {
		t.Fatalf("a self-loop on a final state refused: %v", err)
	}
	for want, breakIt := range map[string]func(d *engine.Definition){
		`unknown target state "Z"`:                     func(d *engine.Definition) { d.Intents[0].Transitions[0].To = "Z" },
		`unknown source state "Q"`:                     func(d *engine.Definition) { d.Intents[0].Transitions[0].From = []string{"Q"} },
		"state D is unreachable":                       func(d *engine.Definition) { d.States = append(d.States, "D") },
		"can both hold":                                func(d *engine.Definition) { d.Intents[1].Transitions[1].Guard = "ok" },
		"has no operation":                             func(d *engine.Definition) { d.Intents[0].Operation = "" },
		`unknown guard "missing"`:                      func(d *engine.Definition) { d.Intents[1].Transitions[0].Guard = "missing" },
		"leaves final state C":                         func(d *engine.Definition) { d.Intents[0].Transitions[0].From = []string{"A", "C"} },
		"keeps the state, but a transition moves it":   func(d *engine.Definition) { d.Intents[0].Keeps = true },
		"declared twice":                               func(d *engine.Definition) { d.Intents = append(d.Intents, d.Intents[0]) },
		`effect START on unknown deadline rule "NOPE"`: func(d *engine.Definition) { d.Intents[0].Effects[0].Rule = "NOPE" },
		`unknown party selector "THEM"`:                func(d *engine.Definition) { d.Intents[1].Effects[0].Party = "THEM" },
		`rule GO_DUE: unknown party selector "X"`:      func(d *engine.Definition) { d.Rules[0].Party = "X" },
		`on expiry "GO" is not a system intent`:        func(d *engine.Definition) { d.Rules[0].OnExpiry = "GO" },
		`on expiry "GONE" is not a system intent`:      func(d *engine.Definition) { d.Rules[0].OnExpiry = "GONE" },
		`unknown date "receivedOn"`:                    func(d *engine.Definition) { d.Rules[0].Days, d.Rules[0].Until = 0, "receivedOn" },
		`unknown effect "PAUSE"`:                       func(d *engine.Definition) { d.Intents[0].Effects[0].Op = "PAUSE" },
		"has no Input or no Apply":                     func(d *engine.Definition) { d.Intents[0].Apply = nil },
		"no Create intent":                             func(d *engine.Definition) { d.Create = nil },
		`private state "Z" is not declared`:            func(d *engine.Definition) { d.Private = []string{"Z"} },
		"private states need a create intent with roles": func(d *engine.Definition) {
			d.Private, d.Create.Roles = []string{"A"}, nil
		},
		`refusal for unknown guard "gone"`: func(d *engine.Definition) {
			d.Refusals = map[string]func(*engine.Eval) string{"gone": func(*engine.Eval) string { return "" }}
		},
		`unknown target function "nowhere"`: func(d *engine.Definition) {
			d.Intents[0].Transitions[0] = engine.Transition{From: []string{"A"}, Target: "nowhere", Targets: []string{"B"}}
		},
	} {
		d := valid()
		breakIt(d)
		err := engine.Validate(d)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error containing %q, got %v", want, err)
		}
		if _, err := engine.Build(d); err == nil {
			t.Errorf("%s: Build accepted an invalid declaration", want)
		}
	}
}

func TestGraphs(t *testing.T) {
	m, err := engine.Build(valid())
	if err != nil {
		t.Fatal(err)
	}
	if dot := m.Dot(); !strings.Contains(dot, `"B" -> "C" [label="END [ok]"]`) || !strings.Contains(dot, `"B" -> "A" [label="END [!ok]"]`) {
		t.Fatalf("dot:\n%s", dot)
	}
	if mmd := m.Mermaid(); !strings.Contains(mmd, "[*] --> A") || !strings.Contains(mmd, "B --> A : END (not ok)") || !strings.Contains(mmd, "C --> [*]") {
		t.Fatalf("mermaid:\n%s", mmd)
	}
}

// A refusal names the guard that blocked the intent and, when the
// definition says why it does not hold, why.
func TestRefusalSaysWhy(t *testing.T) {
	d := valid()
	d.Intents[0].Transitions[0].Guard = "ok"
	d.Refusals = map[string]func(*engine.Eval) string{"ok": func(*engine.Eval) string { return "not ok yet" }}
	m, err := engine.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	ev := &engine.Eval{State: "A", Caller: engine.Caller{Org: "o", Roles: []string{"R"}}}
	var np *engine.NotPermittedError
	if err := m.Check(context.Background(), ev, "GO"); !errors.As(err, &np) || np.Guard != "ok" || np.Reason != "not ok yet" ||
		!strings.Contains(err.Error(), "not ok yet") {
		t.Fatalf("guarded refusal: %#v", err)
	}
	ev.State = "C"
	if err := m.Check(context.Background(), ev, "GO"); !errors.As(err, &np) || np.Guard != "" || np.Reason != "" {
		t.Fatalf("a state without the intent: %#v", err)
	}
	ev.State, ev.Input = "A", true
	if err := m.Check(context.Background(), ev, "GO"); err != nil {
		t.Fatalf("guard holds: %v", err)
	}
}
