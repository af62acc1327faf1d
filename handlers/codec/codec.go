// Package codec is the JSON codec every wasteflow handler uses.
//
// wasteflow must look, on the wire, exactly like a grpc-gateway v2 facade
// using its default marshaler (protojson with EmitUnpopulated and
// DiscardUnknown), but its request and response messages are plain Go
// structs. This package reproduces the proto3 JSON mapping for such structs
// and derives OpenAPI schemas from the same per-type analysis, so that the
// published documents and the wire format cannot disagree.
//
// Go type mapping (output / accepted input):
//
//	bool                     true/false
//	int8, int16, int32       number / number or numeric string
//	uint8, uint16, uint32    number / number or numeric string
//	int, int64, uint, uint64 decimal string / number or numeric string
//	float32, float64         number, "NaN", "Infinity", "-Infinity"
//	string                   string
//	[]byte                   standard base64 / standard or URL-safe, padding optional
//	Enum (named int32)       name / name or number
//	time.Time                RFC 3339 UTC, zero value is null
//	json.RawMessage          verbatim
//	any, map[string]any      encoding/json
//	struct                   object with every field, in declaration order
//	*T                       null when nil
//	[]T                      array ([] when nil)
//	map[string]T             object ({} when nil), keys sorted
//
// Embedded struct fields are not promoted: they are ordinary fields named
// after their type. A struct field tagged `json:",inline"` is: its fields
// stand in the outer object at its place (the names must not clash).
// Custom json.Marshaler / json.Unmarshaler implementations are ignored;
// only the rules above apply.
//
// Struct tags beside `json` declare, once for the decoder and the schemas:
// `doc` (the description), `required:"true"` (see CheckRequired) and the
// input limits maxLength, maxItems, maxProperties, maxKeyLength and minimum
// (see limits); a field named as an id is bounded without a tag
// (IDMaxLength). The words a person sees are declared the same way:
// `label:"English|Deutsch"` (the field's label: the schema's title and
// x-labels), `help:"English|Deutsch"` (help for the person filling the
// form: x-help; `doc` stays the developers' description) and
// `codeList:"<list>"` (the rules/labels list the field's codes come from:
// x-code-list). An enum type labels its values with a method
// EnumLabels() []labels.Text beside EnumNames (x-enum-labels).
package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/rules/labels"
)

// Error is returned by Unmarshal and UnmarshalQuery for client mistakes.
// Any other error from those functions is a programmer mistake (an
// unsupported Go type or a bad target argument).
type Error struct {
	// Field is the dotted lowerCamel path of the offending field, e.g.
	// "qpar.filter[0].op"; map entries appear as `labels["key"]`. It is ""
	// for whole-body problems such as malformed JSON.
	Field  string
	Reason string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "invalid request body: " + e.Reason
	}
	return echo.Sprintf("invalid value for field %q: %s", e.Field, e.Reason)
}

// Enum is implemented (with a value receiver) by named int32 types that are
// proto enums. EnumNames()[n] is the name of number n; index 0 is the
// "not set" value. The names are read once per type and cached, so the method
// must return the same slice contents for every value of the type.
type Enum interface{ EnumNames() []string }

// kind classifies a Go type by the wire rule that applies to it. It is
// computed once per type so the hot paths switch on a small integer instead
// of re-inspecting reflect.Type.
type kind uint8

const (
	// Scalar kinds: settable from a single string (query parameters).
	// The zero kind is a real one: every type is classified before use.
	kBool   kind = iota
	kInt         // int8, int16, int32: JSON number
	kUint        // uint8, uint16, uint32: JSON number
	kInt64       // int, int64: decimal string
	kUint64      // uint, uint64: decimal string
	kFloat32
	kFloat64
	kString
	kBytes
	kEnum
	kTime
	// Non-scalar kinds.
	kRaw // json.RawMessage: verbatim
	kAny // any, map[string]any: delegated to encoding/json
	kStruct
	kPtr
	kSlice
	kMap
)

func (k kind) scalar() bool { return k >= kBool && k <= kTime }

// typeInfo is the cached analysis of one Go type. It is immutable once
// published in infoCache.
type typeInfo struct {
	t    reflect.Type
	kind kind
	elem *typeInfo // kPtr, kSlice, kMap (value type)

	fields []field           // kStruct, in declaration order
	byName map[string]*field // kStruct: lowerCamel and snake_case names

	enumNames  []string         // kEnum
	enumLabels []labels.Text    // kEnum: EnumLabels(), when the type declares them
	enumByName map[string]int32 // kEnum
}

type field struct {
	index []int  // index path in the struct (reflect.Value.FieldByIndex); longer for inlined fields
	name  string // lowerCamel JSON name
	key   []byte // `"name":`, pre-rendered for Marshal
	doc   string // `doc` tag, used as schema description
	// label and help (tags `label:"English|Deutsch"`, `help:"…|…"`): the
	// words a person sees for the field and the help for filling it;
	// codeList (tag `codeList:"operation"`): the code list whose codes
	// the field's strings are (see rules/labels).
	label, help labels.Text
	codeList    string
	// required (tag `required:"true"`): the field must be present and not
	// its zero value; the schema lists it as required, and CheckRequired
	// enforces it after decoding.
	required bool
	lim      limits
	info     *typeInfo
}

var (
	infoCache sync.Map // reflect.Type -> *typeInfo

	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
	enumType = reflect.TypeFor[Enum]()
)

// infoOf returns the analysis of t, building and caching it on first use.
// Types that cannot be represented (chan, func, non-string map keys, ...)
// yield an error, which is not cached: they are programmer mistakes.
func infoOf(t reflect.Type) (*typeInfo, error) {
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo), nil
	}
	b := infoBuilder{}
	ti, err := b.build(t)
	if err != nil {
		return nil, err
	}
	// Publish only complete graphs, so readers never see a half-built entry.
	// A concurrent builder may win some entries; both results are equivalent.
	for typ, info := range b {
		infoCache.LoadOrStore(typ, info)
	}
	return ti, nil
}

// infoBuilder holds the types under construction, so that recursive types
// (type Node struct{ Kids []*Node }) terminate.
type infoBuilder map[reflect.Type]*typeInfo

func (b infoBuilder) build(t reflect.Type) (*typeInfo, error) {
	if ti, ok := b[t]; ok {
		return ti, nil
	}
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo), nil
	}
	ti := &typeInfo{t: t}
	b[t] = ti
	switch {
	case t == timeType:
		ti.kind = kTime
	case t == rawType:
		ti.kind = kRaw
	case t.Implements(enumType) && isSignedInt(t.Kind()):
		ti.kind = kEnum
		ti.enumNames = reflect.Zero(t).Interface().(Enum).EnumNames()
		if l, ok := reflect.Zero(t).Interface().(interface{ EnumLabels() []labels.Text }); ok {
			ti.enumLabels = l.EnumLabels()
			if len(ti.enumLabels) != len(ti.enumNames) {
				return nil, fmt.Errorf("codec: enum %v has %d names and %d labels", t, len(ti.enumNames), len(ti.enumLabels))
			}
			for i, lb := range ti.enumLabels {
				if lb.Empty() {
					return nil, fmt.Errorf("codec: enum %v value %s has no label in English or German", t, ti.enumNames[i])
				}
			}
		}
		ti.enumByName = make(map[string]int32, len(ti.enumNames))
		for i, n := range ti.enumNames {
			if _, dup := ti.enumByName[n]; !dup {
				ti.enumByName[n] = int32(i)
			}
		}
	default:
		if err := b.classify(ti); err != nil {
			return nil, err
		}
	}
	return ti, nil
}

func isSignedInt(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Int64
}

func (b infoBuilder) classify(ti *typeInfo) error {
	t := ti.t
	var err error
	switch t.Kind() {
	case reflect.Bool:
		ti.kind = kBool
	case reflect.Int8, reflect.Int16, reflect.Int32:
		ti.kind = kInt
	case reflect.Int, reflect.Int64:
		ti.kind = kInt64
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		ti.kind = kUint
	case reflect.Uint, reflect.Uint64:
		ti.kind = kUint64
	case reflect.Float32:
		ti.kind = kFloat32
	case reflect.Float64:
		ti.kind = kFloat64
	case reflect.String:
		ti.kind = kString
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("codec: unsupported interface type %v (only any)", t)
		}
		ti.kind = kAny
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer {
			return fmt.Errorf("codec: unsupported pointer-to-pointer type %v", t)
		}
		ti.kind = kPtr
		ti.elem, err = b.build(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			ti.kind = kBytes
			return nil
		}
		ti.kind = kSlice
		ti.elem, err = b.build(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("codec: unsupported map type %v: keys must be strings", t)
		}
		if e := t.Elem(); e.Kind() == reflect.Interface && e.NumMethod() == 0 {
			ti.kind = kAny // map[string]any: encoding/json, no special rules
			return nil
		}
		ti.kind = kMap
		ti.elem, err = b.build(t.Elem())
	case reflect.Struct:
		ti.kind = kStruct
		err = b.structFields(ti)
	default:
		return fmt.Errorf("codec: unsupported type %v", t)
	}
	return err
}

func (b infoBuilder) structFields(ti *typeInfo) error {
	t := ti.t
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",") // options other than inline, such as omitempty, are ignored
		if slices.Contains(strings.Split(opts, ","), "inline") {
			if sf.Type.Kind() != reflect.Struct || name != "" {
				return fmt.Errorf("codec: field %v.%s: only an unnamed struct field can be inlined", t, sf.Name)
			}
			in, err := b.build(sf.Type)
			if err != nil {
				return fmt.Errorf("%w (in field %v.%s)", err, t, sf.Name)
			}
			for _, f := range in.fields {
				f.index = append([]int{i}, f.index...)
				ti.fields = append(ti.fields, f)
			}
			continue
		}
		if name == "" {
			r, n := utf8.DecodeRuneInString(sf.Name)
			name = string(unicode.ToLower(r)) + sf.Name[n:]
		}
		fi, err := b.build(sf.Type)
		if err != nil {
			return fmt.Errorf("%w (in field %v.%s)", err, t, sf.Name)
		}
		lim, err := parseLimits(sf.Tag, fi)
		if err != nil {
			return fmt.Errorf("codec: field %v.%s: %w", t, sf.Name, err)
		}
		if lim.maxLength == 0 && isIDName(name) && isStrings(fi) {
			lim.maxLength = IDMaxLength
		}
		key := append(appendString(nil, name), ':')
		words := sf.Tag
		if _, ok := words.Lookup("label"); !ok {
			words = wordsFrom(t, name, words)
		}
		f := field{index: []int{i}, name: name, key: key, doc: sf.Tag.Get("doc"), required: sf.Tag.Get("required") == "true", lim: lim, info: fi,
			codeList: words.Get("codeList")}
		for _, w := range []struct {
			tag string
			to  *labels.Text
		}{{"label", &f.label}, {"help", &f.help}} {
			if v, ok := words.Lookup(w.tag); ok {
				if *w.to = labels.Parse(v); w.to.Empty() || !strings.Contains(v, "|") {
					return fmt.Errorf("codec: field %v.%s: tag %s wants \"English|Deutsch\", both not empty", t, sf.Name, w.tag)
				}
			}
		}
		ti.fields = append(ti.fields, f)
	}
	ti.byName = make(map[string]*field, 2*len(ti.fields))
	for i := range ti.fields {
		f := &ti.fields[i]
		if _, dup := ti.byName[f.name]; dup {
			return echo.Errorf("codec: struct %v has two fields named %q", t, f.name)
		}
		ti.byName[f.name] = f
	}
	// snake_case aliases are input-only; a real field name always wins.
	for i := range ti.fields {
		f := &ti.fields[i]
		if s := SnakeCase(f.name); s != f.name {
			if _, taken := ti.byName[s]; !taken {
				ti.byName[s] = f
			}
		}
	}
	return nil
}

// isStrings reports whether ti is a string, or a pointer to or list of
// strings: an id's own value, not a message that holds one (its fields
// have their own limits).
func isStrings(ti *typeInfo) bool {
	for ti != nil && (ti.kind == kPtr || ti.kind == kSlice) {
		ti = ti.elem
	}
	return ti != nil && ti.kind == kString
}

// IDMaxLength is the limit of an id: a string field named "id" or ending
// in "Id" (a list of them: "Ids") holds at most this many characters
// unless its maxLength tag says otherwise, so that no id a request names
// (documentId, processId, endpointId, ...) is unbounded, whoever declares
// the field. The integrators guide states it ("organisation and document
// ids 128").
const IDMaxLength = 128

func isIDName(name string) bool {
	return name == "id" || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "Ids")
}

// SnakeCase derives the proto field name from its lowerCamel JSON name, the
// inverse of protoc's json_name rule: "documentId" -> "document_id",
// "nInt32" -> "n_int32" (digits stay with the preceding letters). The
// codec accepts both spellings.
func SnakeCase(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				sb.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// CheckRequired reports the first field of v (a pointer to a decoded
// struct) tagged `required:"true"` that holds its zero value, as an *Error
// naming it; nil when every required field is set.
func CheckRequired(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	ti, err := infoOf(rv.Elem().Type())
	if err != nil {
		return err
	}
	for i := range ti.fields {
		f := &ti.fields[i]
		fv := rv.Elem().FieldByIndex(f.index)
		if f.required && (fv.IsZero() || (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0) {
			return &Error{Field: f.name, Reason: "required"}
		}
	}
	return nil
}

// labelSources maps a struct type to the type its fields without a label
// take their words from (LabelsFrom).
var labelSources sync.Map // reflect.Type -> reflect.Type

// LabelsFrom makes the fields of the struct type t that have no label tag
// take the label, help and codeList tags of the field of the same JSON
// name of the struct type from, if it has one: for a type that repeats
// another's fields (a kind's retrieval document repeats its data's), so
// that the words stay declared once, beside from's fields. Call it before
// t is first used by the codec; a later call has no effect on t.
func LabelsFrom(t, from reflect.Type) {
	labelSources.Store(t, from)
}

// wordsFrom is tag with the words of the field named name of t's label
// source added.
func wordsFrom(t reflect.Type, name string, tag reflect.StructTag) reflect.StructTag {
	src, ok := labelSources.Load(t)
	if !ok {
		return tag
	}
	from := src.(reflect.Type)
	for i := 0; i < from.NumField(); i++ {
		sf := from.Field(i)
		if n, _, _ := strings.Cut(sf.Tag.Get("json"), ","); n != name {
			continue
		}
		out := string(tag)
		for _, w := range []string{"label", "help", "codeList"} {
			if v, ok := sf.Tag.Lookup(w); ok {
				out += " " + w + ":" + strconv.Quote(v)
			}
		}
		return reflect.StructTag(strings.TrimSpace(out))
	}
	return tag
}
