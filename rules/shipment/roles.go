package shipment

import (
	"maps"

	"github.com/wasteflow/wasteflow/rules/labels"
)

// roleWords are the words of the parties' roles every kind shares.
var roleWords = map[string]labels.Text{
	RoleConsignee:            {EN: "Consignee", DE: "Empfänger"},
	RoleFacility:             {EN: "Facility", DE: "Anlage"},
	RoleProducer:             {EN: "Producer", DE: "Erzeuger"},
	RoleCarrier:              {EN: "Carrier", DE: "Transportunternehmen"},
	RoleAuthorityDispatch:    {EN: "Authority of dispatch", DE: "Behörde am Versandort"},
	RoleAuthorityDestination: {EN: "Authority of destination", DE: "Behörde am Bestimmungsort"},
	RoleAuthorityTransit:     {EN: "Authority of transit", DE: "Behörde für die Durchfuhr"},
}

// RoleWords are the words of the shared roles with a kind's own (the
// notifier, the arranger): what a kind's declaration labels its roles
// with, declared once.
func RoleWords(own map[string]labels.Text) map[string]labels.Text {
	out := maps.Clone(roleWords)
	maps.Copy(out, own)
	return out
}
