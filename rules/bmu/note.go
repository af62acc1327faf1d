package bmu

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/wasteflow/wasteflow/rules/decimal"
)

// Layer is one layer of a note: the fields it sets (a path such as
// "befoerderer[1].kennzeichen" to its text; "" sets a field empty) and the
// list lengths it sets. A layer stores only what it sets or changes.
type Layer struct {
	Index   int // 1 for the innermost
	Type    LayerType
	Role    Role
	Values  map[string]string
	Lengths map[string]int
	Signed  bool // the XML holds a signature of this layer
}

// NewLayer is an empty layer.
func NewLayer(index int, t LayerType, r Role) *Layer {
	return &Layer{Index: index, Type: t, Role: r, Values: map[string]string{}, Lengths: map[string]int{}}
}

// Name is the layer element's name: the document type, the type's
// abbreviation and "Layer" (BGSBEFLayer).
func (l *Layer) Name(docType string) string { return docType + l.Type.Abbreviation() + "Layer" }

// Note is a transport document as its layers, innermost first.
type Note struct {
	Type   string // TypeBGS or TypeUNS
	Layers []*Layer
}

// Top is the newest layer.
func (n *Note) Top() *Layer {
	if len(n.Layers) == 0 {
		return nil
	}
	return n.Layers[len(n.Layers)-1]
}

// Template reports whether the note is only a template (its layers are
// all VORLAGE).
func (n *Note) Template() bool {
	for _, l := range n.Layers {
		if l.Type != LayerVorlage {
			return false
		}
	}
	return len(n.Layers) > 0
}

// Value is the current value of a field: the newest layer that sets it.
func (n *Note) Value(path string) (string, bool) {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		if v, ok := n.Layers[i].Values[path]; ok {
			return v, true
		}
	}
	return "", false
}

// Length is the current length of a list: the newest layer that sets it,
// else one more than the highest position any layer fills.
func (n *Note) Length(list string) int {
	for i := len(n.Layers) - 1; i >= 0; i-- {
		if l, ok := n.Layers[i].Lengths[list]; ok {
			return l
		}
	}
	longest := 0
	for _, l := range n.Layers {
		for p := range l.Values {
			if rest, ok := strings.CutPrefix(p, list+"["); ok {
				if i, err := strconv.Atoi(rest[:strings.IndexByte(rest, ']')]); err == nil && i+1 > longest {
					longest = i + 1
				}
			}
		}
	}
	return longest
}

// Count is the number of layers of type t.
func (n *Note) Count(t LayerType) int {
	c := 0
	for _, l := range n.Layers {
		if l.Type == t {
			c++
		}
	}
	return c
}

// MaxListLength bounds the lists of a note (carriers, acceptance-note
// numbers), so a hostile document cannot ask for a huge view.
const MaxListLength = 100_000

var (
	textType   = reflect.TypeFor[Text]()
	dateType   = reflect.TypeFor[Date]()
	amountType = reflect.TypeFor[Amount]()
)

// contentType is the field struct of a document type.
func contentType(docType string) reflect.Type {
	if docType == TypeUNS {
		return reflect.TypeFor[Uns]()
	}
	return reflect.TypeFor[Bgs]()
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// Kind of a field path in a document type: "text", "date", "amount",
// "group" (a nested party), "list" (of groups or texts), "" unknown.
func Kind(docType, path string) string {
	t := contentType(docType)
	for _, seg := range strings.Split(path, ".") {
		name, hasIndex := strings.CutSuffix(seg, "[]")
		f, ok := fieldByName(t, name)
		if !ok {
			return ""
		}
		t = f.Type
		if t.Kind() == reflect.Slice {
			if !hasIndex {
				return "list"
			}
			t = t.Elem()
		} else if hasIndex {
			return ""
		}
	}
	switch t {
	case textType:
		return "text"
	case dateType:
		return "date"
	case amountType:
		return "amount"
	}
	if t.Kind() == reflect.Struct {
		return "group"
	}
	return ""
}

// Pattern is a field path with its list positions left out, the form
// Kind and MaxLength take ("befoerderer[1].name" is "befoerderer[].name").
func Pattern(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		if i < 0 {
			b.WriteString(path)
			return b.String()
		}
		j := strings.IndexByte(path[i:], ']')
		if j < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i+1])
		path = path[i+j:]
	}
}

// MaxAmountLength is the longest text of a decimal field in XML: a sign,
// 18 digits, a point and 9 decimals (rules/decimal's shape).
const MaxAmountLength = 29

// MaxLength is the most characters a field's text may have, for a field
// path in the form Kind takes (a list entry as "befoerderer[].name"): the
// tightest maxLength tag on the way to it and on its value, the tags the
// JSON decoder reads (0 when the path is no text, date or amount field).
func MaxLength(docType, path string) int {
	t := contentType(docType)
	max := 0
	tighter := func(tag reflect.StructTag) {
		if n, err := strconv.Atoi(tag.Get("maxLength")); err == nil && n > 0 && (max == 0 || n < max) {
			max = n
		}
	}
	for _, seg := range strings.Split(path, ".") {
		f, ok := fieldByName(t, strings.TrimSuffix(seg, "[]"))
		if !ok {
			return 0
		}
		tighter(f.Tag)
		t = f.Type
		if t.Kind() == reflect.Slice {
			t = t.Elem()
		}
	}
	switch t {
	case textType, dateType:
		v, _ := t.FieldByName("Value")
		tighter(v.Tag)
		return max
	case amountType:
		return MaxAmountLength
	}
	return 0
}

func fieldByName(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct || t == textType || t == dateType || t == amountType {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Collect turns the fields of doc's content into a layer's values: with
// onlyMarked, the fields whose meta.inLayer is true (UpdateDocument);
// otherwise also every field with a value (CreateDocument). A non-empty
// list sets its length.
func Collect(doc *Document, onlyMarked bool, into *Layer) error {
	var v reflect.Value
	switch {
	case doc.Bgs != nil && doc.Uns != nil:
		return errors.New("a document is a bgs or an uns, not both")
	case doc.Bgs != nil:
		v = reflect.ValueOf(doc.Bgs).Elem()
	case doc.Uns != nil:
		v = reflect.ValueOf(doc.Uns).Elem()
	default:
		return errors.New("the document needs bgs (consignment note) or uns (acceptance note)")
	}
	return collect(v, "", onlyMarked, into)
}

func collect(v reflect.Value, prefix string, onlyMarked bool, into *Layer) error {
	t := v.Type()
	for i := range t.NumField() {
		path := prefix + jsonName(t.Field(i))
		if err := collectValue(v.Field(i), path, onlyMarked, into); err != nil {
			return err
		}
	}
	return nil
}

func collectValue(f reflect.Value, path string, onlyMarked bool, into *Layer) error {
	switch f.Type() {
	case textType:
		x := f.Interface().(Text)
		if x.Meta.InLayer || (!onlyMarked && x.Value != "") {
			into.Values[path] = x.Value
		}
	case dateType:
		x := f.Interface().(Date)
		if x.Meta.InLayer || (!onlyMarked && x.Value != "") {
			into.Values[path] = x.Value
		}
	case amountType:
		x := f.Interface().(Amount)
		if x.Meta.InLayer || (!onlyMarked && x.Value != nil) {
			s := ""
			if x.Value != nil {
				s = x.Value.String()
			}
			into.Values[path] = s
		}
	default:
		switch f.Kind() {
		case reflect.Struct:
			return collect(f, path+".", onlyMarked, into)
		case reflect.Slice:
			if f.Len() > MaxListLength {
				return fmt.Errorf("%s: at most %d entries", path, MaxListLength)
			}
			if f.Len() > 0 {
				into.Lengths[path] = f.Len()
			}
			for i := range f.Len() {
				if err := collectValue(f.Index(i), fmt.Sprintf("%s[%d]", path, i), onlyMarked, into); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// View renders the note's current fields as the API's document (without
// meta): each field's value from the newest layer that sets it, and
// meta.inLayer true where the top layer sets it. A decimal that does not
// parse is left empty (the XML mapping refuses those).
func View(n *Note) *Document {
	top := n.Top()
	if top == nil {
		top = NewLayer(0, 0, 0)
	}
	doc := &Document{}
	var v reflect.Value
	if n.Type == TypeUNS {
		doc.Uns = &Uns{}
		v = reflect.ValueOf(doc.Uns).Elem()
	} else {
		doc.Bgs = &Bgs{}
		v = reflect.ValueOf(doc.Bgs).Elem()
	}
	fill(v, "", n, top)
	return doc
}

func fill(v reflect.Value, prefix string, n *Note, top *Layer) {
	t := v.Type()
	for i := range t.NumField() {
		fillValue(v.Field(i), prefix+jsonName(t.Field(i)), n, top)
	}
}

func fillValue(f reflect.Value, path string, n *Note, top *Layer) {
	val, _ := n.Value(path)
	_, in := top.Values[path]
	switch f.Type() {
	case textType:
		f.Set(reflect.ValueOf(Text{Value: val, Meta: FieldMeta{InLayer: in}}))
	case dateType:
		f.Set(reflect.ValueOf(Date{Value: val, Meta: FieldMeta{InLayer: in}}))
	case amountType:
		a := Amount{Meta: FieldMeta{InLayer: in}}
		if d, err := decimal.Parse(val); err == nil {
			a.Value = &d
		}
		f.Set(reflect.ValueOf(a))
	default:
		switch f.Kind() {
		case reflect.Struct:
			fill(f, path+".", n, top)
		case reflect.Slice:
			l := min(n.Length(path), MaxListLength)
			s := reflect.MakeSlice(f.Type(), l, l)
			for i := range l {
				fillValue(s.Index(i), fmt.Sprintf("%s[%d]", path, i), n, top)
			}
			f.Set(s)
		}
	}
}

// Paths lists a layer's paths in document order (the order of the fields
// of the document type, list entries by position), for rendering.
func (l *Layer) Paths() []string {
	out := make([]string, 0, len(l.Values))
	for p := range l.Values {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(out[i], out[j]) })
	return out
}

// pathLess orders paths by their segments: names alphabetically does not
// matter for meaning, positions numerically.
func pathLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		an, ai := splitIndex(as[i])
		bn, bi := splitIndex(bs[i])
		if an != bn {
			return an < bn
		}
		return ai < bi
	}
	return len(as) < len(bs)
}

func splitIndex(seg string) (string, int) {
	name, rest, ok := strings.Cut(seg, "[")
	if !ok {
		return seg, -1
	}
	i, _ := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	return name, i
}

// CanFollow checks that a layer of type t may come on top of the note:
// layer types come in the order of their values, and only carriers and
// supplements repeat. The error names the types that may follow.
func CanFollow(n *Note, t LayerType) error {
	if t <= LayerUnspecified || t > LayerZwischenlager {
		return fmt.Errorf("unknown layer type %d", t)
	}
	top := n.Top()
	if top == nil || t > top.Type || (t == top.Type && t.Repeats()) {
		return nil
	}
	var allowed []string
	for next := top.Type; next <= LayerZwischenlager; next++ {
		if next > top.Type || next.Repeats() {
			allowed = append(allowed, next.String())
		}
	}
	return fmt.Errorf("layer type %s cannot follow layer type %s: layers come in the order of their types; after %s: %s",
		t, top.Type, top.Type, strings.Join(allowed, ", "))
}
