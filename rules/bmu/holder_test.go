package bmu

import (
	"fmt"
	"testing"
)

// Each position is held by the party whose number the note names for it:
// the k-th carrier layer by the k-th carrier; a supplement by the numbers
// of the role that wrote it; an authority or a template by nobody.
func TestHolderNumberPaths(t *testing.T) {
	bgs := &Note{Type: TypeBGS}
	for i, lt := range []LayerType{LayerErzeuger, LayerBefoerderer, LayerBefoerderer, LayerEntsorger, LayerErgaenzung} {
		l := NewLayer(i+1, lt, RoleFor(lt))
		bgs.Layers = append(bgs.Layers, l)
	}
	bgs.Layers[0].Values["befoerderer[1].nummer"] = "E234F56781" // two carriers
	uns := &Note{Type: TypeUNS, Layers: []*Layer{NewLayer(1, LayerBefoerderer, RoleBEF)}}
	for _, c := range []struct {
		n    *Note
		pos  SignaturePosition
		want string
	}{
		{bgs, SignaturePosition{LayerIndex: 1, LayerType: LayerErzeuger, AtbRolle: RoleERZ}, "[erzeuger.nummer]"},
		{bgs, SignaturePosition{LayerIndex: 2, LayerType: LayerBefoerderer, AtbRolle: RoleBEF}, "[befoerderer[0].nummer]"},
		{bgs, SignaturePosition{LayerIndex: 3, LayerType: LayerBefoerderer, AtbRolle: RoleBEF, Envelope: true}, "[befoerderer[1].nummer]"},
		{bgs, SignaturePosition{LayerIndex: 3, LayerType: LayerBefoerderer, AtbRolle: RoleENT}, "[befoerderer[1].nummer]"}, // the layer decides
		{bgs, SignaturePosition{LayerIndex: 4, LayerType: LayerEntsorger, AtbRolle: RoleENT}, "[entsorger.nummer]"},
		{bgs, SignaturePosition{LayerIndex: 5, LayerType: LayerErgaenzung, AtbRolle: RoleBEF}, "[befoerderer[0].nummer befoerderer[1].nummer]"},
		{bgs, SignaturePosition{LayerIndex: 5, LayerType: LayerErgaenzung, AtbRolle: RoleENT}, "[entsorger.nummer]"},
		{bgs, SignaturePosition{LayerIndex: 5, LayerType: LayerZwischenlager, AtbRolle: RoleZWL}, "[zwischenlager.nummer]"},
		{bgs, SignaturePosition{LayerIndex: 5, LayerType: LayerBehoerde, AtbRolle: RoleBEH}, "[]"},
		{bgs, SignaturePosition{LayerIndex: 5, LayerType: LayerErgaenzung, AtbRolle: RoleMAK}, "[]"},
		{uns, SignaturePosition{LayerIndex: 1, LayerType: LayerBefoerderer, AtbRolle: RoleBEF}, "[befoerderer.nummer]"},
		{uns, SignaturePosition{LayerIndex: 1, LayerType: LayerZwischenlager, AtbRolle: RoleZWL}, "[]"},
	} {
		if got := fmt.Sprint(HolderNumberPaths(c.n, c.pos)); got != c.want {
			t.Errorf("%s %+v: %s, want %s", c.n.Type, c.pos, got, c.want)
		}
	}
}
