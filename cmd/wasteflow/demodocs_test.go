package main

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/movements"
)

// A demo create step is the kind's create request, decoded by the fields
// its face declares; a child gets its parent's id from the step.
func TestDemoCreateInput(t *testing.T) {
	kinds, err := documents.NewRegistry(documentKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	kind := func(name string) *documents.Kind {
		k, ok := kinds.Kind(name)
		if !ok {
			t.Fatalf("no kind %s", name)
		}
		return k
	}
	in, err := demoCreateInput(kind(movements.Kind), []byte(`{"movementTemplate": {"actualDateOfShipment": "2026-12-01"}}`), "ntf_1")
	if err != nil {
		t.Fatal(err)
	}
	if m := in.(*movements.CreateInput); m.NotificationID != "ntf_1" || m.Template.ActualDateOfShipment != "2026-12-01" {
		t.Fatalf("movement create input: %+v", m)
	}
	in, err = demoCreateInput(kind(annex7.Kind), []byte(`{"annex7": {"recoveryCode": "R3"}, "metadata": {}}`), "")
	if err != nil || in.(*annex7.CreateInput).Content.RecoveryCode != "R3" {
		t.Fatalf("Annex VII create input: %+v %v", in, err)
	}
	for _, c := range []struct {
		kind, block, parent, want string
	}{
		{annex7.Kind, `{"annex": {}}`, "", `has no field "annex"`},
		{annex7.Kind, `{"annex7": {"recoveryCode": 3}}`, "", "annex7"},
		{movements.Kind, `{"movementTemplate": {}}`, "", "created under a NOTIFICATION"},
	} {
		if _, err := demoCreateInput(kind(c.kind), []byte(c.block), c.parent); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.kind, c.block, err, c.want)
		}
	}
}
