package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Unmarshal decodes a JSON request body into v, which must be a non-nil
// pointer to a struct.
//
// Fields absent from the body, or given as null, are left as they were, so
// callers may pre-populate defaults; an empty or all-whitespace body, or a
// top-level null, leaves v untouched. A field that is present replaces the
// previous value entirely (nested messages, lists and maps are not merged),
// which also makes the last of duplicate keys win, including across a
// lowerCamel key and its snake_case alias. Unknown fields are ignored,
// except in a Strict message, which refuses them at every depth.
//
// Client mistakes are reported as *Error. Syntax is checked before anything
// is written, but a type or range error may leave v partially written, so
// callers must discard v on error.
func Unmarshal(data []byte, v any) error {
	rv, ti, err := target(v)
	if err != nil {
		return err
	}
	if len(bytes.TrimLeft(data, jsonSpace)) == 0 {
		return nil
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return &Error{Reason: "byte order mark is not allowed"}
	}
	// encoding/json silently replaces invalid UTF-8 with U+FFFD; protojson
	// rejects it, and so do we.
	if !utf8.Valid(data) {
		return &Error{Reason: fmt.Sprintf("invalid UTF-8 at offset %d", invalidUTF8Offset(data))}
	}
	// encoding/json validates the syntax, rejects trailing data and enforces
	// its nesting limit (which also bounds our recursion); the reader below
	// then only sees valid JSON. json.Valid is a single allocation-free pass;
	// only on failure is the input scanned again for the error's offset.
	if !json.Valid(data) {
		err := json.Unmarshal(data, &discard{})
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 && se.Offset <= int64(len(data)) && !strings.HasPrefix(se.Error(), "unexpected end") {
			// Offset counts the offending byte as read; report its index.
			return &Error{Reason: fmt.Sprintf("malformed JSON at offset %d: %v", se.Offset-1, se)}
		}
		return &Error{Reason: "malformed JSON: " + fmt.Sprint(err)}
	}
	d := decoder{r: reader{data: data}, strict: IsStrict(rv.Type())}
	switch c := d.r.peek(); c {
	case 'n': // top-level null is the empty message
		return nil
	case '{':
		d.r.pos++
		return d.object(ti, rv, nil)
	default:
		return &Error{Reason: "expected a JSON object, got " + jsonType(c)}
	}
}

const jsonSpace = " \t\r\n"

// discard accepts any valid JSON value; used to obtain syntax errors.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// target validates a decode destination and returns the struct it points to.
func target(v any) (reflect.Value, *typeInfo, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, nil, fmt.Errorf("codec: decode target must be a non-nil pointer to a struct, got %T", v)
	}
	rv = rv.Elem()
	ti, err := infoOf(rv.Type())
	if err != nil {
		return reflect.Value{}, nil, err
	}
	if ti.kind != kStruct {
		return reflect.Value{}, nil, fmt.Errorf("codec: decode target must be a message struct, got %v", rv.Type())
	}
	return rv, ti, nil
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// decoder walks the validated body, driven by the target type. Walking the
// text (rather than decoding into map[string]any first) keeps key order, so
// "last key wins" holds, and allocates little.
type decoder struct {
	r    reader
	path []pathSeg // current field path, rendered only when reporting an error
	// strict refuses unknown fields (a Strict message) instead of
	// skipping them.
	strict bool
}

type pathSeg struct {
	name  string // field name, or map key when isKey
	index int    // list index, -1 for fields and map keys
	isKey bool
}

func (d *decoder) push(s pathSeg) { d.path = append(d.path, s) }
func (d *decoder) pop()           { d.path = d.path[:len(d.path)-1] }

func (d *decoder) fieldErr(reason string) *Error {
	var sb strings.Builder
	for _, s := range d.path {
		switch {
		case s.isKey:
			sb.WriteString("[" + quoted(s.name) + "]") // a key may be huge
		case s.index >= 0:
			sb.WriteString("[" + strconv.Itoa(s.index) + "]")
		default:
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(s.name)
		}
	}
	return &Error{Field: sb.String(), Reason: reason}
}

// typeErr reports a JSON value of the wrong type; c is its first byte.
func (d *decoder) typeErr(want string, c byte) *Error {
	return d.fieldErr(fmt.Sprintf("expected %s, got %s", want, jsonType(c)))
}

// object decodes the members of an object whose '{' was already consumed;
// outer is the limits of the field that holds it (its maxLength bounds
// every string inside), or nil.
func (d *decoder) object(ti *typeInfo, v reflect.Value, outer *limits) error {
	for d.r.more() {
		key := d.r.key()
		f := ti.byName[string(key)] // no allocation for the lookup
		if f == nil {
			if d.strict {
				d.push(pathSeg{name: shortKey(key), index: -1})
				return d.fieldErr(unknownField)
			}
			d.r.skip() // DiscardUnknown, at every depth
			continue
		}
		d.push(pathSeg{name: f.name, index: -1})
		if err := d.value(f.info, v.FieldByIndex(f.index), f.lim.within(outer)); err != nil {
			return err
		}
		d.pop()
	}
	return nil
}

// value decodes the next JSON value into v, within the limits of the field
// it belongs to. null leaves v untouched (proto3: a null field is an absent
// field).
func (d *decoder) value(ti *typeInfo, v reflect.Value, lim *limits) error {
	c := d.r.peek()
	if c == 'n' {
		d.r.pos += len("null")
		return nil
	}
	switch ti.kind {
	case kRaw:
		if err := d.nulIn(); err != nil {
			return err
		}
		v.SetBytes(bytes.Clone(d.r.rawValue())) // never alias the caller's buffer
		return nil
	case kAny:
		if err := d.nulIn(); err != nil {
			return err
		}
		return d.generic(ti, v, c)
	case kStruct:
		if c != '{' {
			return d.typeErr("object", c)
		}
		d.r.pos++
		v.SetZero() // replace, don't merge with an earlier occurrence
		return d.object(ti, v, lim)
	case kPtr:
		p := reflect.New(ti.elem.t)
		if err := d.value(ti.elem, p.Elem(), lim); err != nil {
			return err
		}
		if reason := lim.checkMinimum(p.Elem(), true); reason != "" {
			return d.fieldErr(reason)
		}
		v.Set(p)
		return nil
	case kSlice:
		if c != '[' {
			return d.typeErr("array", c)
		}
		d.r.pos++
		s := reflect.New(ti.t).Elem() // settable, so it can Grow
		s.Set(reflect.MakeSlice(ti.t, 0, 0))
		for i := 0; d.r.more(); i++ {
			if reason := lim.tooMany(kSlice, i+1); reason != "" {
				return d.fieldErr(reason) // before building more of it
			}
			s.Grow(1)
			s.SetLen(i + 1)
			d.push(pathSeg{index: i})
			if err := d.value(ti.elem, s.Index(i), lim); err != nil {
				return err
			}
			d.pop()
		}
		v.Set(s)
		return nil
	case kMap:
		if c != '{' {
			return d.typeErr("object", c)
		}
		d.r.pos++
		m := reflect.MakeMap(ti.t)
		for d.r.more() {
			key := string(d.r.key())
			if reason := lim.checkKey(key); reason != "" {
				return d.fieldErr(reason)
			}
			ev := reflect.New(ti.elem.t).Elem()
			d.push(pathSeg{name: key, index: -1, isKey: true})
			if err := d.value(ti.elem, ev, lim); err != nil {
				return err
			}
			d.pop()
			m.SetMapIndex(reflect.ValueOf(key).Convert(ti.t.Key()), ev)
			if reason := lim.tooMany(kMap, m.Len()); reason != "" {
				return d.fieldErr(reason)
			}
		}
		v.Set(m)
		return nil
	}
	return d.scalar(ti, v, c, lim)
}

// nulIn refuses a free-form value (json.RawMessage, any) holding a string
// or key with U+0000, naming the path to it, as a typed field's string is
// refused (noNUL); the reader stays where it was.
func (d *decoder) nulIn() error {
	start := d.r.pos
	raw := d.r.rawValue()
	d.r.pos = start
	if !bytes.Contains(raw, []byte(`\u0000`)) { // a NUL is always escaped in valid JSON
		return nil
	}
	sub := decoder{r: reader{data: raw}, path: slices.Clip(d.path)}
	return sub.findNUL()
}

func (d *decoder) findNUL() error {
	switch d.r.peek() {
	case '"':
		if bytes.IndexByte(d.r.key(), 0) >= 0 {
			return d.fieldErr(noNUL)
		}
	case '{':
		d.r.pos++
		for d.r.more() {
			k := d.r.key()
			if bytes.IndexByte(k, 0) >= 0 {
				return d.fieldErr("keys without the NUL character (\\u0000)")
			}
			d.push(pathSeg{name: string(k), index: -1, isKey: !plainName(k)})
			if err := d.findNUL(); err != nil {
				return err
			}
			d.pop()
		}
	case '[':
		d.r.pos++
		for i := 0; d.r.more(); i++ {
			d.push(pathSeg{index: i})
			if err := d.findNUL(); err != nil {
				return err
			}
			d.pop()
		}
	default:
		d.r.literal()
	}
	return nil
}

// plainName tells a key that a path may show as a field name: short,
// letters, digits and underscores.
func plainName(k []byte) bool {
	if len(k) == 0 || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// generic hands free-form values (any, map[string]any) to encoding/json;
// numbers inside stay json.Number, so no precision is lost.
func (d *decoder) generic(ti *typeInfo, v reflect.Value, c byte) error {
	if ti.t.Kind() == reflect.Map && c != '{' {
		d.r.skip()
		return d.typeErr("object", c)
	}
	dec := json.NewDecoder(bytes.NewReader(d.r.rawValue()))
	dec.UseNumber()
	p := reflect.New(ti.t)
	if err := dec.Decode(p.Interface()); err != nil { // unreachable: valid JSON, matching type
		return d.fieldErr(err.Error())
	}
	v.Set(p.Elem())
	return nil
}

func (d *decoder) scalar(ti *typeInfo, v reflect.Value, c byte, lim *limits) error {
	var err error
	switch {
	case c == '"':
		if ti.kind == kBool { // proto3 JSON bools are never strings in a body
			return d.typeErr("boolean", c)
		}
		s := d.r.str()
		if ti.kind == kString {
			if reason := lim.checkString(s); reason != "" {
				return d.fieldErr(reason)
			}
		}
		err = setFromString(ti, v, s, false)
	case c == 't' || c == 'f':
		if ti.kind != kBool {
			return d.typeErr(expected(ti), c)
		}
		d.r.literal()
		v.SetBool(c == 't')
	case c == '-' || isDigit(c):
		switch ti.kind {
		case kInt, kInt64, kUint, kUint64, kFloat32, kFloat64, kEnum:
			err = setNumber(ti, v, string(d.r.literal()), false)
		default:
			return d.typeErr(expected(ti), c)
		}
	default: // '{' or '[' where a scalar belongs
		return d.typeErr(expected(ti), c)
	}
	if err != nil {
		return d.fieldErr(err.Error())
	}
	if reason := lim.checkMinimum(v, false); reason != "" {
		return d.fieldErr(reason)
	}
	return nil
}

// expected names what a field of this type accepts, for error messages.
func expected(ti *typeInfo) string {
	switch ti.kind {
	case kBool:
		return "boolean"
	case kInt, kUint, kInt64, kUint64:
		return "integer"
	case kFloat32, kFloat64:
		return "number"
	case kEnum:
		return "enum name or number"
	case kBytes:
		return "base64 string"
	case kTime:
		return "RFC 3339 timestamp string"
	}
	return "string"
}

// jsonType names the type of a JSON value from its first byte.
func jsonType(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Strict is implemented (with a pointer receiver) by request messages
// that refuse a field they do not know, at every depth, with an *Error
// naming it, where the house rule (protojson's DiscardUnknown) ignores it:
// requests in which a misspelt or invented field (a "dryRun") would have
// the call do what the caller did not ask, with nothing to tell it. Query
// parameters of such a message are held to the same rule.
type Strict interface{ StrictFields() }

var strictType = reflect.TypeFor[Strict]()

// IsStrict reports whether message type t refuses unknown fields.
func IsStrict(t reflect.Type) bool { return reflect.PointerTo(t).Implements(strictType) }

// unknownField is the reason a Strict message gives for a field it does
// not know.
const unknownField = "unknown field: this request takes only the fields its schema names"

// shortKey is an unknown key as an error names it: at most 64 bytes (cut
// at a character's start), so an answer never echoes more of a sent value.
func shortKey(key []byte) string {
	if len(key) <= 64 {
		return string(key)
	}
	n := 61
	for n > 0 && !utf8.RuneStart(key[n]) {
		n--
	}
	return string(key[:n]) + "..."
}
