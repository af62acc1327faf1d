package engine

import (
	"slices"
	"testing"

	"github.com/wasteflow/wasteflow/rules/labels"
)

// TestUnlabelled names what a declaration leaves without words, and
// nothing once everything has both languages.
func TestUnlabelled(t *testing.T) {
	def := &Definition{Kind: "TEST", States: []string{"A", "B"}, Create: &Intent{Name: "CREATE", Roles: []string{"OWNER"}},
		Intents: []Intent{{Name: "GO", Roles: []string{"OWNER"}}}, Rules: []Rule{{Name: "GO_DUE"}},
		Labels: Labels{
			States:  map[string]labels.Text{"A": {EN: "A", DE: "A"}, "B": {EN: "B"}},
			Intents: map[string]labels.Text{"GO": {EN: "Go", DE: "Los"}},
		}}
	got := Unlabelled(def)
	want := []string{"kind TEST", "state B", "rule GO_DUE", "intent CREATE", "role OWNER"}
	if !slices.Equal(got, want) {
		t.Errorf("Unlabelled = %v, want %v", got, want)
	}
	def.Labels.Kind = labels.Text{EN: "Test", DE: "Test"}
	def.Labels.States["B"] = labels.Text{EN: "B", DE: "B"}
	def.Labels.Intents["CREATE"] = labels.Text{EN: "Create", DE: "Anlegen"}
	def.Labels.Roles = map[string]labels.Text{"OWNER": {EN: "Owner", DE: "Inhaber"}}
	def.Labels.Rules = map[string]labels.Text{"GO_DUE": {EN: "Go due", DE: "Los fällig"}}
	if got := Unlabelled(def); len(got) != 0 {
		t.Errorf("Unlabelled of a labelled kind = %v", got)
	}
}
