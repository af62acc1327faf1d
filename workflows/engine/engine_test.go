package engine_test

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

func valid() *engine.Definition {
	return &engine.Definition{
		Kind: "TOY", States: []string{"A", "B", "C"}, Initial: "A", Final: []string{"C"},
		Intents: []engine.Intent{
			{Name: "GO", Operation: "/x/Go", Roles: []string{"R"}, Transitions: []engine.Transition{{From: []string{"A"}, To: "B"}}},
			{Name: "END", Operation: "/x/End", Roles: []string{"R"}, Transitions: []engine.Transition{
				{From: []string{"B"}, To: "C", Guard: "ok"}, {From: []string{"B"}, To: "A", Guard: "!ok"}}},
		},
		Guards: map[string]func(*engine.Eval) bool{"ok": func(ev *engine.Eval) bool { return ev.Input == true }},
	}
}

func TestValidateRejectsBrokenDeclarations(t *testing.T) {
	if err := engine.Validate(valid()); err != nil {
		t.Fatalf("valid declaration refused: %v", err)
	}
	for want, breakIt := range map[string]func(d *engine.Definition){
		`unknown target state "Z"`: func(d *engine.Definition) { d.Intents[0].Transitions[0].To = "Z" },
		`unknown source state "Q"`: func(d *engine.Definition) { d.Intents[0].Transitions[0].From = []string{"Q"} },
		"state D is unreachable":   func(d *engine.Definition) { d.States = append(d.States, "D") },
		"can both hold":            func(d *engine.Definition) { d.Intents[1].Transitions[1].Guard = "ok" },
		"has no operation":         func(d *engine.Definition) { d.Intents[0].Operation = "" },
		`unknown guard "missing"`:  func(d *engine.Definition) { d.Intents[1].Transitions[0].Guard = "missing" },
		"leaves final state C":     func(d *engine.Definition) { d.Intents[0].Transitions[0].From = []string{"A", "C"} },
		"declared twice":           func(d *engine.Definition) { d.Intents = append(d.Intents, d.Intents[0]) },
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
