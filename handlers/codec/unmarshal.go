package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
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
// which also makes the last of duplicate keys win. Unknown fields are ignored.
//
// Client mistakes are reported as *Error. On error v may have been partially
// written and must be discarded.
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
	d := decoder{dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntaxErr(err)
	}
	switch tok {
	case nil: // top-level null is the empty message
	case json.Delim('{'):
		if err := d.object(ti, rv); err != nil {
			return err
		}
	default:
		return &Error{Reason: "expected a JSON object, got " + tokenType(tok)}
	}
	if rest := bytes.TrimLeft(data[d.dec.InputOffset():], jsonSpace); len(rest) > 0 {
		return &Error{Reason: fmt.Sprintf("unexpected data after top-level value at offset %d", len(data)-len(rest))}
	}
	return nil
}

const jsonSpace = " \t\r\n"

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

// decoder walks the body as a token stream, driven by the target type. The
// stream (rather than decoding into map[string]any first) keeps key order, so
// "last key wins" holds across a lowerCamel key and its snake_case alias, and
// it allocates far less.
type decoder struct {
	dec   *json.Decoder
	depth int
	path  []pathSeg // current field path, rendered only when reporting an error
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
			sb.WriteString("[" + strconv.Quote(s.name) + "]")
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

func (d *decoder) typeErr(want string, tok any) *Error {
	return d.fieldErr(fmt.Sprintf("expected %s, got %s", want, tokenType(tok)))
}

// syntaxErr converts an error of the token stream into a whole-body *Error.
func (d *decoder) syntaxErr(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &Error{Reason: fmt.Sprintf("malformed JSON at offset %d: %v", se.Offset, se)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Reason: "unexpected end of JSON input"}
	}
	return &Error{Reason: "malformed JSON: " + err.Error()}
}

// enter guards against hostile nesting of recursive message types.
func (d *decoder) enter() error {
	if d.depth++; d.depth > maxDepth {
		return d.fieldErr(fmt.Sprintf("nesting exceeds the maximum depth of %d", maxDepth))
	}
	return nil
}

// leave consumes the closing delimiter of the current object or array.
func (d *decoder) leave() error {
	d.depth--
	if _, err := d.dec.Token(); err != nil {
		return d.syntaxErr(err)
	}
	return nil
}

// discard skips a value while encoding/json still validates its syntax and
// enforces its own nesting limit.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// object decodes the members of an object whose '{' was already consumed.
func (d *decoder) object(ti *typeInfo, v reflect.Value) error {
	if err := d.enter(); err != nil {
		return err
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.syntaxErr(err)
		}
		key, _ := tok.(string) // the stream only yields strings in key position
		f := ti.byName[key]
		if f == nil { // DiscardUnknown, at every depth
			if err := d.dec.Decode(&discard{}); err != nil {
				return d.syntaxErr(err)
			}
			continue
		}
		d.push(pathSeg{name: f.name, index: -1})
		if err := d.value(f.info, v.Field(f.index)); err != nil {
			return err
		}
		d.pop()
	}
	return d.leave()
}

// value decodes the next JSON value into v. null leaves v untouched.
func (d *decoder) value(ti *typeInfo, v reflect.Value) error {
	switch ti.kind {
	case kAny, kRaw:
		return d.decodeStd(ti, v)
	case kPtr:
		if k := ti.elem.kind; k == kAny || k == kRaw {
			p := reflect.New(ti.elem.t)
			if err := d.decodeStd(ti.elem, p.Elem()); err != nil {
				return err
			}
			if !p.Elem().IsZero() {
				v.Set(p)
			}
			return nil
		}
	}
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntaxErr(err)
	}
	if tok == nil {
		return nil
	}
	return d.valueTok(ti, v, tok)
}

// decodeStd hands free-form values (any, map[string]any, json.RawMessage)
// to encoding/json; numbers inside stay json.Number.
func (d *decoder) decodeStd(ti *typeInfo, v reflect.Value) error {
	p := reflect.New(ti.t)
	if err := d.dec.Decode(p.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // only map[string]any can mismatch
			got, _, _ := strings.Cut(te.Value, " ")
			if got == "bool" {
				got = "boolean"
			}
			return d.fieldErr("expected object, got " + got)
		}
		return d.syntaxErr(err)
	}
	e := p.Elem()
	if ti.kind == kRaw && string(e.Bytes()) == "null" || ti.kind == kAny && e.IsNil() {
		return nil
	}
	v.Set(e)
	return nil
}

// valueTok decodes a non-null value whose first token is tok.
func (d *decoder) valueTok(ti *typeInfo, v reflect.Value, tok any) error {
	switch ti.kind {
	case kStruct:
		if tok != json.Delim('{') {
			return d.typeErr("object", tok)
		}
		v.SetZero() // replace, don't merge with an earlier occurrence
		return d.object(ti, v)
	case kPtr:
		p := reflect.New(ti.elem.t)
		if err := d.valueTok(ti.elem, p.Elem(), tok); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case kSlice:
		if tok != json.Delim('[') {
			return d.typeErr("array", tok)
		}
		if err := d.enter(); err != nil {
			return err
		}
		s := reflect.New(ti.t).Elem() // settable, so it can Grow
		s.Set(reflect.MakeSlice(ti.t, 0, 0))
		for i := 0; d.dec.More(); i++ {
			s.Grow(1)
			s.SetLen(i + 1)
			d.push(pathSeg{index: i})
			if err := d.value(ti.elem, s.Index(i)); err != nil {
				return err
			}
			d.pop()
		}
		v.Set(s)
		return d.leave()
	case kMap:
		if tok != json.Delim('{') {
			return d.typeErr("object", tok)
		}
		if err := d.enter(); err != nil {
			return err
		}
		m := reflect.MakeMap(ti.t)
		for d.dec.More() {
			kt, err := d.dec.Token()
			if err != nil {
				return d.syntaxErr(err)
			}
			key, _ := kt.(string)
			ev := reflect.New(ti.elem.t).Elem()
			d.push(pathSeg{name: key, index: -1, isKey: true})
			if err := d.value(ti.elem, ev); err != nil {
				return err
			}
			d.pop()
			m.SetMapIndex(reflect.ValueOf(key).Convert(ti.t.Key()), ev)
		}
		v.Set(m)
		return d.leave()
	}
	return d.scalar(ti, v, tok)
}

func (d *decoder) scalar(ti *typeInfo, v reflect.Value, tok any) error {
	var err error
	switch t := tok.(type) {
	case string:
		if ti.kind == kBool { // proto3 JSON bools are never strings in a body
			return d.typeErr("boolean", tok)
		}
		err = setFromString(ti, v, t, false)
	case json.Number:
		switch ti.kind {
		case kInt, kInt64, kUint, kUint64, kFloat32, kFloat64, kEnum:
			err = setNumber(ti, v, string(t), false)
		default:
			return d.typeErr(expected(ti), tok)
		}
	case bool:
		if ti.kind != kBool {
			return d.typeErr(expected(ti), tok)
		}
		v.SetBool(t)
	default: // '{' or '[' where a scalar belongs
		return d.typeErr(expected(ti), tok)
	}
	if err != nil {
		return d.fieldErr(err.Error())
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
	case kStruct, kMap, kAny:
		return "object"
	case kSlice:
		return "array"
	}
	return "string"
}

func tokenType(tok any) string {
	switch tok {
	case json.Delim('{'):
		return "object"
	case json.Delim('['):
		return "array"
	case nil:
		return "null"
	}
	switch tok.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%v", tok)
}
