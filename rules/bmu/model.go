// Package bmu holds the German transport documents of the electronic record
// procedure (NachwV): the consignment note (Begleitschein, BGS) and the
// acceptance note (Übernahmeschein, UNS), as layers of fields. It is pure:
// the document model of the API, the layered note, the order of layers,
// validation at the levels the interface names, and the check digit.
//
// The official BMU schema is not public; the field names, the layer model's
// details and the check-digit method are our design (see docs/transport-documents.md).
package bmu

import (
	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/labels"
)

// Decimal is units plus nanos, as every decimal of the API.
type Decimal = decimal.Decimal

// Document types.
const (
	TypeBGS = "BGS" // consignment note
	TypeUNS = "UNS" // acceptance note
)

// Validation is the validation level of an operation (xmlOptions.validation).
type Validation int32

// Validation levels (section 2.8 of the interface).
const (
	ValidationUnspecified Validation = iota // the call's default: full
	ValidationFull                          // types, mandatory fields, code lists, check digits, cross-field rules
	ValidationMandatory                     // types and mandatory fields
	ValidationTypes                         // types only
	ValidationNone                          // nothing
)

// EnumNames implements the codec's enum contract.
func (Validation) EnumNames() []string {
	return []string{"VALIDATION_UNSPECIFIED", "VALIDATION_FULL", "VALIDATION_MANDATORY", "VALIDATION_TYPES", "VALIDATION_NONE"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (Validation) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Full validation", DE: "Vollständige Prüfung"},
		{EN: "Mandatory fields only", DE: "Nur Pflichtfelder"},
		{EN: "Data types only", DE: "Nur Datentypen"},
		{EN: "No validation", DE: "Keine Prüfung"},
	}
}

// Pruefziffer says what happens to check digits (xmlOptions.pruefziffer).
type Pruefziffer int32

// Check-digit handling.
const (
	PruefzifferUnspecified Pruefziffer = iota // validate
	PruefzifferValidate
	PruefzifferCalculate
)

// EnumNames implements the codec's enum contract.
func (Pruefziffer) EnumNames() []string {
	return []string{"PRUEFZIFFER_UNSPECIFIED", "PRUEFZIFFER_VALIDATE", "PRUEFZIFFER_CALCULATE"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (Pruefziffer) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Check the check digits", DE: "Prüfziffern prüfen"},
		{EN: "Calculate the check digits", DE: "Prüfziffern berechnen"},
	}
}

// LayerType is the kind of a layer; layers come in the order of these
// values.
type LayerType int32

// Layer types (section 2.8).
const (
	LayerUnspecified LayerType = iota // not set: VORLAGE
	LayerVorlage
	LayerErzeuger
	LayerBefoerderer
	LayerEntsorger
	LayerBehoerde
	LayerErgaenzung
	LayerZwischenlager
)

// EnumNames implements the codec's enum contract.
func (LayerType) EnumNames() []string {
	return []string{"LAYER_TYPE_UNSPECIFIED", "VORLAGE", "ERZEUGER", "BEFOERDERER", "ENTSORGER", "BEHOERDE", "ERGAENZUNG", "ZWISCHENLAGER"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (LayerType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Template", DE: "Vorlage"},
		{EN: "Producer", DE: "Erzeuger"},
		{EN: "Carrier", DE: "Beförderer"},
		{EN: "Disposer", DE: "Entsorger"},
		{EN: "Authority", DE: "Behörde"},
		{EN: "Supplement", DE: "Ergänzung"},
		{EN: "Interim storage", DE: "Zwischenlager"},
	}
}

// String is the layer type's name.
func (t LayerType) String() string {
	if n := t.EnumNames(); t >= 0 && int(t) < len(n) {
		return n[t]
	}
	return "LAYER_TYPE_UNSPECIFIED"
}

// Abbreviation is the layer type's part of the layer element's name
// (BGSBEFLayer: our design after the handbooks' BGSBEFLayer).
func (t LayerType) Abbreviation() string {
	switch t {
	case LayerVorlage:
		return "VOR"
	case LayerErzeuger:
		return "ERZ"
	case LayerBefoerderer:
		return "BEF"
	case LayerEntsorger:
		return "ENT"
	case LayerBehoerde:
		return "BEH"
	case LayerErgaenzung:
		return "ERG"
	case LayerZwischenlager:
		return "ZWL"
	}
	return ""
}

// Repeats reports whether layers of this type may follow each other
// (several carriers, several supplements).
func (t LayerType) Repeats() bool { return t == LayerBefoerderer || t == LayerErgaenzung }

// Role is a party's role in the procedure (xmlOptions.atbRolle).
type Role int32

// Roles (section 2.8).
const (
	RoleUnspecified Role = iota
	RoleERZ              // producer
	RoleBEF              // carrier
	RoleZWL              // interim storage
	RoleENT              // disposer
	RoleBEH              // authority
	RolePROV             // provider
	RoleBEVERZ           // producer's agent
	RoleMAK              // broker
	RoleSONST            // other
)

// EnumNames implements the codec's enum contract.
func (Role) EnumNames() []string {
	return []string{"ATB_ROLLE_UNSPECIFIED", "ERZ", "BEF", "ZWL", "ENT", "BEH", "PROV", "BEVERZ", "MAK", "SONST"}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (Role) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Producer", DE: "Erzeuger"},
		{EN: "Carrier", DE: "Beförderer"},
		{EN: "Interim storage", DE: "Zwischenlager"},
		{EN: "Disposer", DE: "Entsorger"},
		{EN: "Authority", DE: "Behörde"},
		{EN: "Provider", DE: "Provider"},
		{EN: "Producer's agent", DE: "Bevollmächtigter des Erzeugers"},
		{EN: "Broker", DE: "Makler"},
		{EN: "Other", DE: "Sonstige"},
	}
}

// String is the role's name.
func (r Role) String() string {
	if n := r.EnumNames(); r >= 0 && int(r) < len(n) {
		return n[r]
	}
	return "ATB_ROLLE_UNSPECIFIED"
}

// LayerFor is the layer a role writes its own part of a note in (0 when
// the role has none of its own).
func LayerFor(r Role) LayerType {
	switch r {
	case RoleERZ:
		return LayerErzeuger
	case RoleBEF:
		return LayerBefoerderer
	case RoleZWL:
		return LayerZwischenlager
	case RoleENT:
		return LayerEntsorger
	case RoleBEH:
		return LayerBehoerde
	}
	return LayerUnspecified
}

// RoleFor is the role that owns a layer type (0 for templates and
// supplements, whose role is given).
func RoleFor(t LayerType) Role {
	switch t {
	case LayerErzeuger:
		return RoleERZ
	case LayerBefoerderer:
		return RoleBEF
	case LayerZwischenlager:
		return RoleZWL
	case LayerEntsorger:
		return RoleENT
	case LayerBehoerde:
		return RoleBEH
	}
	return RoleUnspecified
}

// XMLOptions are the options of one call.
type XMLOptions struct {
	Validation  Validation  `json:"validation" doc:"VALIDATION_FULL when not set" label:"Validation|Prüfung"`
	Pruefziffer Pruefziffer `json:"pruefziffer" doc:"PRUEFZIFFER_VALIDATE when not set: a wrong check digit is a validation error; PRUEFZIFFER_CALCULATE fills them in. The check-digit method is our unverified assumption (weights 1, 2, 3, ... from the left, sum mod 11, (11 - r) mod 11; letters A=10 ... Z=35), not the BMU's official one" label:"Check digits|Prüfziffern"`
	AtbRolle    Role        `json:"atbRolle" doc:"the role the call acts in: the base layer of CreateDocument (ERZ when not set for a BGS; ERZ, BEF or ENT required for a UNS), the role of an ERGAENZUNG layer" label:"Acting in the role of|Handelnd in der Rolle"`
}

// FieldMeta says, in a response, whether the current top layer sets the
// field; in an UpdateDocument request, whether to write it.
type FieldMeta struct {
	InLayer bool `json:"inLayer" label:"In this layer|In dieser Schicht"`
}

// Text is a writable text field. Each field of a note bounds its text
// with its own maxLength tag (see MaxLength); 4000 is the most any has.
type Text struct {
	Value string    `json:"value" maxLength:"4000" label:"Value|Wert"`
	Meta  FieldMeta `json:"meta" label:"Layer information|Schichtangaben"`
}

// Date is a writable date field (YYYY-MM-DD).
type Date struct {
	Value string    `json:"value" maxLength:"64" doc:"YYYY-MM-DD" label:"Date|Datum"`
	Meta  FieldMeta `json:"meta" label:"Layer information|Schichtangaben"`
}

// Amount is a writable decimal field.
type Amount struct {
	Value *Decimal  `json:"value" label:"Amount|Menge"`
	Meta  FieldMeta `json:"meta" label:"Layer information|Schichtangaben"`
}

// The longest text each field of a note takes is its maxLength tag (in
// characters), the longest a real note needs with some room: note, proof
// and acceptance-note numbers 20 (14 digits, ENI123456789), a party's
// official number 16 (9 characters and a check digit), a check digit 2, a
// waste code 12 ("170503*"), a name 200, an address on one line 300, a
// vehicle registration 64 (a trailer's included), a date 32 (YYYY-MM-DD,
// with room for a wrong one to be named by validation), remarks 2000. The
// JSON decoder (handlers/codec: maxLength on a message bounds its text)
// and the XML mapping (MaxLength) read the same tags, so a field is bounded
// alike whichever way it comes; docs/transport-documents.md lists them.

// Producer is the waste producer (Erzeuger).
type Producer struct {
	Nummer    Text `json:"nummer" maxLength:"16" doc:"producer number: 9 characters and its check digit" label:"Producer number|Erzeugernummer"`
	Name      Text `json:"name" maxLength:"200" label:"Name|Name"`
	Anschrift Text `json:"anschrift" maxLength:"300" label:"Address|Anschrift"`
}

// Carrier is one carrier (Beförderer).
type Carrier struct {
	Nummer          Text `json:"nummer" maxLength:"16" doc:"carrier number: 9 characters and its check digit" label:"Carrier number|Beförderernummer"`
	Name            Text `json:"name" maxLength:"200" label:"Name|Name"`
	Kennzeichen     Text `json:"kennzeichen" maxLength:"64" doc:"vehicle registration" label:"Vehicle registration|Kennzeichen"`
	UebernahmeDatum Date `json:"uebernahmeDatum" maxLength:"32" doc:"day the carrier took the waste over" label:"Date of takeover|Übernahmedatum"`
}

// Facility is the disposer (Entsorger) or an interim storage (Zwischenlager).
type Facility struct {
	Nummer       Text `json:"nummer" maxLength:"16" doc:"disposer number: 9 characters and its check digit" label:"Disposer number|Entsorgernummer"`
	Name         Text `json:"name" maxLength:"200" label:"Name|Name"`
	AnnahmeDatum Date `json:"annahmeDatum" maxLength:"32" doc:"day the facility accepted the waste" label:"Date of acceptance|Annahmedatum"`
}

// Bgs is the consignment note (Begleitschein).
type Bgs struct {
	Nummer           Text      `json:"nummer" maxLength:"20" doc:"note number (14 digits, issued by the Länder system)" label:"Note number|Belegnummer"`
	Pruefziffer      Text      `json:"pruefziffer" maxLength:"2" doc:"check digit of the note number (our unverified method, see xmlOptions.pruefziffer)" label:"Check digit|Prüfziffer"`
	Nachweisnummer   Text      `json:"nachweisnummer" maxLength:"20" doc:"number of the disposal proof (Entsorgungsnachweis) the note belongs to" label:"Disposal proof number|Nachweisnummer"`
	Abfallschluessel Text      `json:"abfallschluessel" maxLength:"12" doc:"waste code of the European list of waste, six digits, * for hazardous (170503*)" label:"Waste code|Abfallschlüssel" help:"Six digits of the European List of Waste, * for hazardous waste (170503*).|Sechs Ziffern des Abfallverzeichnisses, * für gefährliche Abfälle (170503*)."`
	Menge            Amount    `json:"menge" doc:"quantity in tonnes" label:"Quantity (tonnes)|Menge (Tonnen)"`
	Erzeuger         Producer  `json:"erzeuger" label:"Producer|Erzeuger"`
	Befoerderer      []Carrier `json:"befoerderer" maxItems:"100000" label:"Carriers|Beförderer"`
	Zwischenlager    Facility  `json:"zwischenlager" doc:"interim storage, if the waste passes one" label:"Interim storage|Zwischenlager"`
	Entsorger        Facility  `json:"entsorger" label:"Disposer|Entsorger"`
	UebergabeDatum   Date      `json:"uebergabeDatum" maxLength:"32" doc:"day the producer handed the waste over" label:"Date of handover|Übergabedatum"`
	UnsNrn           []Text    `json:"unsNrn" maxItems:"100000" maxLength:"20" doc:"numbers of the acceptance notes of a collection run" label:"Acceptance note numbers|Übernahmescheinnummern"`
	Vermerke         Text      `json:"vermerke" maxLength:"2000" doc:"remarks" label:"Remarks|Vermerke"`
}

// Uns is the acceptance note (Übernahmeschein): one carrier, no interim
// storage.
type Uns struct {
	Nummer           Text     `json:"nummer" maxLength:"20" label:"Note number|Belegnummer"`
	Pruefziffer      Text     `json:"pruefziffer" maxLength:"2" label:"Check digit|Prüfziffer"`
	Nachweisnummer   Text     `json:"nachweisnummer" maxLength:"20" label:"Disposal proof number|Nachweisnummer"`
	Abfallschluessel Text     `json:"abfallschluessel" maxLength:"12" label:"Waste code|Abfallschlüssel" help:"Six digits of the European List of Waste, * for hazardous waste (170503*).|Sechs Ziffern des Abfallverzeichnisses, * für gefährliche Abfälle (170503*)."`
	Menge            Amount   `json:"menge" label:"Quantity (tonnes)|Menge (Tonnen)"`
	Erzeuger         Producer `json:"erzeuger" label:"Producer|Erzeuger"`
	Befoerderer      Carrier  `json:"befoerderer" label:"Carrier|Beförderer"`
	Entsorger        Facility `json:"entsorger" label:"Disposer|Entsorger"`
	UebergabeDatum   Date     `json:"uebergabeDatum" maxLength:"32" label:"Date of handover|Übergabedatum"`
	Vermerke         Text     `json:"vermerke" maxLength:"2000" label:"Remarks|Vermerke"`
}

// LayerInfo describes one layer of a note, innermost first.
type LayerInfo struct {
	Index     int32     `json:"index" doc:"1 for the innermost layer" label:"Layer|Schicht"`
	LayerType LayerType `json:"layerType" label:"Kind of layer|Schichtart"`
	AtbRolle  Role      `json:"atbRolle" label:"Role|Rolle"`
	Name      string    `json:"name" doc:"the layer element's name, e.g. BGSBEFLayer" label:"Layer name|Schichtname"`
	Signed    bool      `json:"signed" label:"Signed|Signiert"`
	SignedBy  string    `json:"signedBy" doc:"subject of the signing certificate" label:"Signed by|Signiert von"`
	SignedAt  string    `json:"signedAt" doc:"signing time the signature states, if any" label:"Signed at|Signiert am"`
}

// SignatureInfo is one XML signature of a note, checked.
type SignatureInfo struct {
	LayerIndex   int32   `json:"layerIndex" label:"Layer|Schicht"`
	Envelope     bool    `json:"envelope" doc:"the signature covers the whole document (the root element), not only the layer" label:"Covers the whole note|Umfasst den ganzen Beleg"`
	Signer       string  `json:"signer" label:"Signer|Unterzeichner"`
	SignedAt     string  `json:"signedAt" label:"Signed at|Signiert am"`
	Valid        bool    `json:"valid" doc:"the signed content is intact and the certificate is trusted" label:"Valid|Gültig"`
	Reason       string  `json:"reason" doc:"why not valid" label:"Why not valid|Warum ungültig"`
	CoversLayers []int32 `json:"coversLayers" label:"Layers covered|Umfasste Schichten"`
}

// SignaturePosition is a place a signature can go.
type SignaturePosition struct {
	ID         string    `json:"id" doc:"pass it to the signing service" label:"Signature position|Signaturposition"`
	LayerIndex int32     `json:"layerIndex" label:"Layer|Schicht"`
	LayerType  LayerType `json:"layerType" label:"Kind of layer|Schichtart"`
	AtbRolle   Role      `json:"atbRolle" doc:"who signs there" label:"Who signs|Wer signiert"`
	Envelope   bool      `json:"envelope" doc:"false: the signature covers the layer (and every layer beneath it); true: the whole document" label:"Covers the whole note|Umfasst den ganzen Beleg"`
	Open       bool      `json:"open" label:"Open|Offen"`
}

// Meta is what a note is made of beside its fields.
type Meta struct {
	DocumentType       string              `json:"documentType" doc:"BGS or UNS" label:"Kind of note|Belegart"`
	Layers             []LayerInfo         `json:"layers" label:"Layers|Schichten"`
	Signatures         []SignatureInfo     `json:"signatures" label:"Signatures|Signaturen"`
	SignaturePositions []SignaturePosition `json:"signaturePositions" label:"Signature positions|Signaturpositionen"`
}

// Document is the API's view of a note: exactly one of bgs and uns, and
// its meta.
type Document struct {
	Bgs  *Bgs  `json:"bgs" label:"Consignment note|Begleitschein"`
	Uns  *Uns  `json:"uns" label:"Acceptance note|Übernahmeschein"`
	Meta *Meta `json:"meta" doc:"in responses: layers, checked signatures, signature positions; ignored in requests" label:"Layers and signatures|Schichten und Signaturen"`
}
