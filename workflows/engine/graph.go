package engine

import (
	"fmt"
	"slices"
	"strings"
)

type edge struct{ from, to, label string }

func (m *Machine) edges() []edge {
	var out []edge
	for _, in := range m.Def.Intents {
		if in.Keeps {
			continue // drawn as a note (Mermaid) or not at all
		}
		for _, t := range in.Transitions {
			targets := t.Targets
			if t.Target == "" {
				targets = []string{t.To}
			}
			label := in.Name
			if t.Guard != "" {
				label += " [" + t.Guard + "]"
			}
			if in.System {
				label += " (system)"
			}
			for _, from := range t.From {
				for _, to := range targets {
					out = append(out, edge{from, to, label})
				}
			}
		}
	}
	return out
}

// Dot renders the machine in Graphviz dot.
func (m *Machine) Dot() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n", strings.ToLower(m.Def.Kind))
	fmt.Fprintf(&b, "  %q [shape=doublecircle];\n", m.Def.Initial)
	for _, s := range m.Def.Final {
		fmt.Fprintf(&b, "  %q [peripheries=2];\n", s)
	}
	for _, e := range m.edges() {
		fmt.Fprintf(&b, "  %q -> %q [label=%q];\n", e.from, e.to, e.label)
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid renders the machine as a Mermaid state diagram.
func (m *Machine) Mermaid() string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    [*] --> %s\n", m.Def.Initial)
	seen := map[edge]bool{}
	for _, e := range m.edges() {
		e.label = strings.NewReplacer("[", "(", "]", ")", "!", "not ").Replace(e.label)
		if seen[e] {
			continue
		}
		seen[e] = true
		fmt.Fprintf(&b, "    %s --> %s : %s\n", e.from, e.to, e.label)
	}
	for _, s := range m.Def.States {
		if slices.Contains(m.Def.Final, s) {
			fmt.Fprintf(&b, "    %s --> [*]\n", s)
		}
	}
	var keepers []string
	first := ""
	for _, in := range m.Def.Intents {
		if in.Keeps && len(in.Transitions) > 0 {
			keepers = append(keepers, in.Name)
			if first == "" {
				first = in.Transitions[0].To
			}
		}
	}
	if len(keepers) > 0 { // one note, not a loop per state
		fmt.Fprintf(&b, "    note right of %s : %s keep the state (in %s and the states after it)\n", first, strings.Join(keepers, ", "), first)
	}
	return b.String()
}
