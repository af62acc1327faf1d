package kinds_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/kinds"
)

// TestEveryStateIntentAndRoleHasWords: each kind labels every state, every
// intent (create and system ones too) and every role its intents name, in
// English and German, and building the machine makes them the label lists
// state/<kind>, intent/<kind> and role.
func TestEveryStateIntentAndRoleHasWords(t *testing.T) {
	all := kinds.All()
	if _, err := documents.NewRegistry(all...); err != nil {
		t.Fatal(err)
	}
	for _, k := range all {
		def := k.Machine().Def
		if missing := engine.Unlabelled(def); len(missing) > 0 {
			t.Errorf("%s: no label for %v", def.Kind, missing)
		}
		kind := engine.ListKind(def.Kind)
		for _, st := range def.States {
			if l, ok := labels.Code(labels.State(kind), st); !ok || l.Empty() {
				t.Errorf("%s: state %s is not in the list %s", def.Kind, st, labels.State(kind))
			}
		}
		for _, in := range def.Intents {
			if l, ok := labels.Code(labels.Intent(kind), in.Name); !ok || l.Empty() {
				t.Errorf("%s: intent %s is not in the list %s", def.Kind, in.Name, labels.Intent(kind))
			}
		}
	}
	if l, _ := labels.Code("state/annex7", "ANNOUNCED"); l.DE != "Angekündigt" {
		t.Errorf("state/annex7 ANNOUNCED = %+v", l)
	}
	if l, _ := labels.Code("role", "AUTHORITY_DESTINATION"); l.EN != "Authority of destination" {
		t.Errorf("role AUTHORITY_DESTINATION = %+v", l)
	}
}
