package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxDepth bounds Marshal's recursion, turning a pointer cycle into an error
// instead of a fatal stack overflow. It equals protojson's default recursion
// limit and encoding/json's nesting limit, which bounds Unmarshal.
const maxDepth = 10000

// Marshal encodes v (a struct or pointer to struct) by proto3 JSON output
// rules with every field emitted. A nil pointer encodes as {}, like a nil
// proto message.
func Marshal(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() && rv.Type().Elem().Kind() == reflect.Struct {
			return []byte("{}"), nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("codec: Marshal needs a struct or pointer to struct, got %T", v)
	}
	ti, err := infoOf(rv.Type())
	if err != nil {
		return nil, err
	}
	if ti.kind != kStruct {
		return nil, fmt.Errorf("codec: Marshal needs a message struct, got %v", rv.Type())
	}
	bp := buffers.Get().(*[]byte)
	b, err := appendValue((*bp)[:0], ti, rv, 0)
	var out []byte
	if err == nil {
		out = bytes.Clone(b) // the answer's own bytes, of its size
	}
	if cap(b) <= maxPooled {
		*bp = b[:0]
		buffers.Put(bp)
	}
	return out, err
}

// buffers are Marshal's output buffers, kept between calls (as
// encoding/json keeps its encoder states): a large answer grows its
// buffer once, not at each call, and the answer is one allocation of its
// size. A buffer grown past maxPooled by an outsize answer is left to
// the collector.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooled = 4 << 20

func appendValue(b []byte, ti *typeInfo, v reflect.Value, depth int) ([]byte, error) {
	switch ti.kind {
	case kBool:
		return strconv.AppendBool(b, v.Bool()), nil
	case kInt:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case kUint:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case kInt64: // 64-bit integers are strings: JavaScript numbers lose precision
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), nil
	case kUint64:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), nil
	case kFloat32:
		return appendFloat(b, v.Float(), 32), nil
	case kFloat64:
		return appendFloat(b, v.Float(), 64), nil
	case kString:
		return appendString(b, v.String()), nil
	case kBytes:
		b = append(b, '"')
		return append(base64.StdEncoding.AppendEncode(b, v.Bytes()), '"'), nil
	case kEnum:
		if n := v.Int(); n >= 0 && n < int64(len(ti.enumNames)) {
			return appendString(b, ti.enumNames[n]), nil
		}
		return strconv.AppendInt(b, v.Int(), 10), nil // unknown numbers survive as numbers
	case kTime:
		return appendTime(b, timeOf(v))
	case kRaw:
		raw := v.Bytes()
		if len(raw) == 0 {
			return append(b, "null"...), nil
		}
		if !json.Valid(raw) {
			return nil, fmt.Errorf("codec: invalid json.RawMessage %q", raw)
		}
		return append(b, raw...), nil
	case kAny:
		return appendGeneric(b, v.Interface())
	case kStruct:
		if depth++; depth > maxDepth {
			return nil, errors.New("codec: Marshal exceeded maximum nesting depth (pointer cycle?)")
		}
		b = append(b, '{')
		for i := range ti.fields {
			f := &ti.fields[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, f.key...)
			var err error
			if b, err = appendValue(b, f.info, v.FieldByIndex(f.index), depth); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case kPtr:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendValue(b, ti.elem, v.Elem(), depth)
	case kSlice:
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, ti.elem, v.Index(i), depth); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case kMap:
		return appendMap(b, ti, v, depth)
	}
	return nil, fmt.Errorf("codec: cannot marshal %v", ti.t)
}

func appendMap(b []byte, ti *typeInfo, v reflect.Value, depth int) ([]byte, error) {
	type entry struct {
		key string
		val reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		entries = append(entries, entry{it.Key().String(), it.Value()})
	}
	// Sorted keys make the output deterministic (cacheable, diffable, testable).
	slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(x.key, y.key) })
	b = append(b, '{')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, e.key), ':')
		var err error
		if b, err = appendValue(b, ti.elem, e.val, depth); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendGeneric encodes free-form values with encoding/json (no proto rules),
// with HTML escaping off to match the rest of the output.
func appendGeneric(b []byte, x any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// timeOf avoids copying through an interface when v is addressable.
func timeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return *v.Addr().Interface().(*time.Time)
	}
	return v.Interface().(time.Time)
}

// appendTime renders t like protojson renders google.protobuf.Timestamp:
// UTC, "Z" suffix, and 0, 3, 6 or 9 fraction digits, whichever is the
// shortest exact form. The zero time means "not set" and renders null.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if t.IsZero() {
		return append(b, "null"...), nil
	}
	t = t.UTC()
	if y := t.Year(); y < 1 || y > 9999 {
		return nil, fmt.Errorf("codec: time %v is outside the RFC 3339 range (years 1-9999)", t)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, "2006-01-02T15:04:05")
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1e6 == 0:
		b = appendFraction(b, ns/1e6, 3)
	case ns%1e3 == 0:
		b = appendFraction(b, ns/1e3, 6)
	default:
		b = appendFraction(b, ns, 9)
	}
	return append(b, 'Z', '"'), nil
}

func appendFraction(b []byte, n, width int) []byte {
	b = append(b, '.')
	digits := strconv.Itoa(n)
	for range width - len(digits) {
		b = append(b, '0')
	}
	return append(b, digits...)
}

// appendFloat mirrors encoding/json's float formatting (shortest repr,
// exponent only for very small or large magnitudes), plus protojson's string
// forms for the non-finite values JSON numbers cannot carry.
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, as Marshal writes strings
// (the gRPC face writes requests with it).
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// appendString quotes s exactly like encoding/json with HTML escaping off:
// control characters and U+2028/U+2029 are escaped, invalid UTF-8 becomes
// U+FFFD. It is hand-written because it is the hottest path of Marshal.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
