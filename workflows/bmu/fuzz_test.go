package bmu

import (
	"testing"
	"time"
)

// FuzzParse: whatever bytes come in, parsing answers a note or an error,
// never a panic, and a note it accepts renders and reads back alike.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`<BGS xmlns="urn:wasteflow:eanv:1"><BGSERZLayer xmlns="urn:wasteflow:eanv:1" Id="layer-1" index="1" layerType="ERZEUGER" atbRolle="ERZ"><Felder><nummer>1</nummer><befoerderer pos="0"><name>x</name></befoerderer><liste feld="befoerderer" anzahl="1"/></Felder></BGSERZLayer></BGS>`,
		`<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`,
		`<UNS xmlns="urn:wasteflow:eanv:1"></UNS>`,
		`<a><b></a>`,
		"\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Ours{}.Parse(data)
		if err != nil {
			return
		}
		out, err := d.Bytes()
		if err != nil {
			t.Fatalf("an accepted note does not render: %v", err)
		}
		again, err := Ours{}.Parse(out)
		if err != nil {
			t.Fatalf("a rendered note does not parse: %v\n%s", err, out)
		}
		if len(again.Note().Layers) != len(d.Note().Layers) {
			t.Fatal("layers changed in a round trip")
		}
		_ = Positions(d)
		_ = d.Signatures(&Trust{Now: func() time.Time { return time.Unix(0, 0) }})
	})
}
