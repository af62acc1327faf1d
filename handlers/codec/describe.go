package codec

import (
	"reflect"
	"strings"

	"github.com/wasteflow/wasteflow/rules/labels"
)

// Shape is the wire rule of a Go type, as Describe reports it to
// generators of other descriptions (the .proto files): the same analysis
// Marshal, Unmarshal and the OpenAPI schemas use.
type Shape uint8

const (
	ShapeBool Shape = iota
	ShapeInt32
	ShapeUint32
	ShapeInt64
	ShapeUint64
	ShapeFloat
	ShapeDouble
	ShapeString
	ShapeBytes
	ShapeEnum
	ShapeTime
	ShapeRaw    // json.RawMessage: any JSON value, verbatim
	ShapeAny    // any: any JSON value
	ShapeObject // map[string]any: a JSON object
	ShapeMessage
	ShapePointer
	ShapeList
	ShapeMap
)

// Desc describes one Go type by its wire rule. Descs of recursive types
// refer to each other; Describe returns one Desc per type.
type Desc struct {
	Type  reflect.Type
	Shape Shape
	// Name is the type's name (its Go name, or the one NameType gave it);
	// "" for an anonymous struct.
	Name string
	// Elem is the element of a pointer, list or map (map keys are strings).
	Elem *Desc
	// Fields of a message in declaration order, inlined fields in place.
	Fields []FieldDesc
	// EnumNames of an enum: EnumNames()[n] names number n.
	EnumNames []string
	// EnumLabels of an enum that declares them: EnumLabels()[n] labels
	// number n.
	EnumLabels []labels.Text
}

// FieldDesc is one field of a message.
type FieldDesc struct {
	Index []int  // the field's index path in its struct (reflect.Value.FieldByIndex)
	Name  string // the lowerCamel JSON name
	Doc   string // the doc tag
	// Label and Help are the label and help tags (zero when absent);
	// CodeList the codeList tag.
	Label, Help labels.Text
	CodeList    string
	Required    bool
	Type        *Desc
}

// Describe returns the wire description of t, or an error for a type the
// codec cannot represent.
func Describe(t reflect.Type) (*Desc, error) {
	ti, err := infoOf(t)
	if err != nil {
		return nil, err
	}
	return describe(ti, map[*typeInfo]*Desc{}), nil
}

var shapes = map[kind]Shape{
	kBool: ShapeBool, kInt: ShapeInt32, kUint: ShapeUint32, kInt64: ShapeInt64, kUint64: ShapeUint64,
	kFloat32: ShapeFloat, kFloat64: ShapeDouble, kString: ShapeString, kBytes: ShapeBytes, kEnum: ShapeEnum,
	kTime: ShapeTime, kRaw: ShapeRaw, kStruct: ShapeMessage, kPtr: ShapePointer, kSlice: ShapeList, kMap: ShapeMap,
}

func describe(ti *typeInfo, seen map[*typeInfo]*Desc) *Desc {
	if d, ok := seen[ti]; ok {
		return d
	}
	d := &Desc{Type: ti.t, Shape: shapes[ti.kind], Name: nameOf(ti.t), EnumNames: ti.enumNames, EnumLabels: ti.enumLabels}
	if ti.kind == kAny {
		d.Shape = ShapeAny
		if ti.t.Kind() == reflect.Map {
			d.Shape = ShapeObject
		}
	}
	seen[ti] = d
	if ti.elem != nil {
		d.Elem = describe(ti.elem, seen)
	}
	for i := range ti.fields {
		f := &ti.fields[i]
		d.Fields = append(d.Fields, FieldDesc{Index: f.index, Name: f.name, Doc: f.doc, Label: f.label, Help: f.help, CodeList: f.codeList, Required: f.required, Type: describe(f.info, seen)})
	}
	return d
}

// ComponentName is the name of the OpenAPI component schema of a named
// type t in n (of its request form), and t's own name when n does not know
// it; "" for an anonymous struct.
func (n *ComponentNames) ComponentName(t reflect.Type) string {
	if name, ok := n.names[t]; ok {
		return name
	}
	return nameOf(t)
}

// BaseName is t's name without the type arguments of a generic
// instantiation: "Page[pkg/path.Entry]" is "Page".
func BaseName(t reflect.Type) string {
	name := nameOf(t)
	if i := strings.IndexByte(name, '['); i >= 0 {
		return name[:i]
	}
	return name
}
