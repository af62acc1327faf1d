package rpc

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// The gRPC face writes an operation's answer straight from its Go value
// to the Protocol Buffers wire format, by a plan made once per Go type and
// message: the same field names the codec renders as JSON, the numbers and
// kinds of the committed descriptors. The JSON detour (the REST answer
// read by protojson into a dynamic message, then marshalled) costs as
// much as the operation itself; the detour stays for what has no Go value
// at hand (a replayed Idempotency-Key answer, a file) and as the tests'
// oracle (Deps.WireCheck).

type wireField struct {
	num      protowire.Number
	kind     protoreflect.Kind
	index    []int
	shape    codec.Shape // of the Go value after pointers and lists
	list     bool
	mapOf    bool
	optional bool // a pointer to a scalar: present even when zero
	sub      *wirePlan
	valueSub *wireField // a map's value
	wkt      string     // google.protobuf.Timestamp, Value, Struct
}

type wirePlan struct {
	fields []wireField
	// last is the size of the latest message written by this plan at the
	// top level: the next one's buffer starts at about that capacity.
	last atomic.Int64
}

// encode writes v (a struct) as a whole message.
func (p *wirePlan) encode(v reflect.Value) ([]byte, error) {
	n := p.last.Load()
	b, err := p.appendMessage(make([]byte, 0, n+n/8+64), v)
	if err == nil {
		p.last.Store(int64(len(b)))
	}
	return b, err
}

type planKey struct {
	t reflect.Type
	m protoreflect.FullName
}

var wirePlans sync.Map // planKey -> *wirePlan

// planFor is the plan of Go struct type t as message md.
// Encode writes value (a pointer to a response struct) as message md,
// as the face writes an answer.
func Encode(value any, md protoreflect.MessageDescriptor) ([]byte, error) {
	v := reflect.ValueOf(value)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("rpc: Encode takes a pointer to a struct, not %T", value)
	}
	plan, err := planFor(v.Elem().Type(), md)
	if err != nil {
		return nil, err
	}
	return plan.encode(v.Elem())
}

func planFor(t reflect.Type, md protoreflect.MessageDescriptor) (*wirePlan, error) {
	key := planKey{t, md.FullName()}
	if p, ok := wirePlans.Load(key); ok {
		return p.(*wirePlan), nil
	}
	d, err := codec.Describe(t)
	if err != nil {
		return nil, err
	}
	p, err := buildPlan(d, md, map[planKey]*wirePlan{})
	if err != nil {
		return nil, err
	}
	wirePlans.Store(key, p)
	return p, nil
}

func buildPlan(d *codec.Desc, md protoreflect.MessageDescriptor, building map[planKey]*wirePlan) (*wirePlan, error) {
	key := planKey{d.Type, md.FullName()}
	if p := building[key]; p != nil {
		return p, nil
	}
	p := &wirePlan{}
	building[key] = p
	for _, f := range d.Fields {
		fd := md.Fields().ByJSONName(f.Name)
		if fd == nil {
			return nil, fmt.Errorf("wire: %s has no field %q of %v", md.FullName(), f.Name, d.Type)
		}
		wf := wireField{num: fd.Number(), kind: fd.Kind(), index: f.Index, list: fd.IsList(), mapOf: fd.IsMap()}
		t := f.Type
		if t.Shape == codec.ShapePointer {
			t = t.Elem
			wf.optional = fd.HasPresence() && fd.Message() == nil
		}
		switch {
		case fd.IsMap():
			v := t.Elem
			if v.Shape == codec.ShapePointer {
				v = v.Elem
			}
			vf := fd.MapValue()
			sub := &wireField{num: 2, kind: vf.Kind(), shape: v.Shape}
			if err := fillMessage(sub, v, vf, building); err != nil {
				return nil, err
			}
			wf.valueSub = sub
		case fd.IsList():
			t = t.Elem
			if t.Shape == codec.ShapePointer {
				t = t.Elem
			}
			fallthrough
		default:
			wf.shape = t.Shape
			if err := fillMessage(&wf, t, fd, building); err != nil {
				return nil, err
			}
		}
		p.fields = append(p.fields, wf)
	}
	return p, nil
}

// fillMessage completes a field whose values are messages.
func fillMessage(wf *wireField, t *codec.Desc, fd protoreflect.FieldDescriptor, building map[planKey]*wirePlan) error {
	wf.shape = t.Shape
	if fd.Kind() != protoreflect.MessageKind {
		return nil
	}
	switch name := fd.Message().FullName(); name {
	case "google.protobuf.Timestamp", "google.protobuf.Value", "google.protobuf.Struct":
		wf.wkt = string(name)
		return nil
	}
	if t.Shape != codec.ShapeMessage {
		return fmt.Errorf("wire: %s is a message, %v is not a struct", fd.FullName(), t.Type)
	}
	sub, err := buildPlan(t, fd.Message(), building)
	wf.sub = sub
	return err
}

// appendMessage appends v (a struct) as the fields of a message.
func (p *wirePlan) appendMessage(b []byte, v reflect.Value) ([]byte, error) {
	var err error
	for i := range p.fields {
		f := &p.fields[i]
		var fv reflect.Value
		if len(f.index) == 1 {
			fv = v.Field(f.index[0])
		} else {
			fv = v.FieldByIndex(f.index)
		}
		switch {
		case f.mapOf:
			b, err = f.appendMap(b, fv)
		case f.list:
			b, err = f.appendList(b, fv)
		default:
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
				if f.optional {
					b = f.appendScalar(b, fv, true)
					continue
				}
			}
			b, err = f.appendSingle(b, fv, false)
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendSingle appends one value of the field; always says to write a
// zero scalar too (a list's or map's element, an optional's value).
func (f *wireField) appendSingle(b []byte, v reflect.Value, always bool) ([]byte, error) {
	if f.kind != protoreflect.MessageKind {
		return f.appendScalar(b, v, always), nil
	}
	var err error
	switch f.wkt {
	case "google.protobuf.Timestamp":
		t, _ := v.Interface().(time.Time)
		if t.IsZero() {
			return b, nil // null: unset
		}
		b, at := openBytes(b, f.num)
		if s := t.Unix(); s != 0 {
			b = protowire.AppendTag(b, 1, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(s))
		}
		if n := t.Nanosecond(); n != 0 {
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(n))
		}
		return closeBytes(b, at), nil
	case "google.protobuf.Value":
		var x any
		if raw, ok := v.Interface().(json.RawMessage); ok {
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &x); err != nil {
					return nil, err
				}
			}
		} else if x, err = jsonValue(v.Interface()); err != nil {
			return nil, err
		}
		b, at := openBytes(b, f.num)
		return closeBytes(appendValue(b, x), at), nil
	case "google.protobuf.Struct":
		if v.Kind() == reflect.Map && v.IsNil() {
			return b, nil
		}
		x, err := jsonValue(v.Interface())
		if err != nil {
			return nil, err
		}
		m, _ := x.(map[string]any)
		b, at := openBytes(b, f.num)
		return closeBytes(appendStruct(b, m), at), nil
	}
	b, at := openBytes(b, f.num)
	if b, err = f.sub.appendMessage(b, v); err != nil {
		return nil, err
	}
	return closeBytes(b, at), nil
}

// openBytes appends the tag of a length-delimited field num and a
// one-byte placeholder of its length; the field's content is appended
// after it, in place, and closeBytes writes the length (moving the
// content when the length needs more than one byte). Nested messages
// are so written once, not copied at every level.
func openBytes(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return append(b, 0), len(b)
}

var zeros [binary.MaxVarintLen64]byte

// closeBytes writes the length of what follows the placeholder at.
func closeBytes(b []byte, at int) []byte {
	n := len(b) - at - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		b = append(b, zeros[:size-1]...)
		copy(b[at+size:], b[at+1:at+1+n])
	}
	protowire.AppendVarint(b[:at], uint64(n))
	return b
}

// jsonValue is v as encoding/json reads it back (any, map[string]any).
func jsonValue(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	err = json.Unmarshal(raw, &x)
	return x, err
}

func (f *wireField) appendScalar(b []byte, v reflect.Value, always bool) []byte {
	switch f.kind {
	case protoreflect.BoolKind:
		if !v.Bool() && !always {
			return b
		}
		b = protowire.AppendTag(b, f.num, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.StringKind:
		if v.Len() == 0 && !always {
			return b
		}
		b = protowire.AppendTag(b, f.num, protowire.BytesType)
		return protowire.AppendString(b, v.String())
	case protoreflect.BytesKind:
		if v.Len() == 0 && !always {
			return b
		}
		b = protowire.AppendTag(b, f.num, protowire.BytesType)
		return protowire.AppendBytes(b, v.Bytes())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		x := v.Float()
		if x == 0 && !math.Signbit(x) && !always {
			return b
		}
		if f.kind == protoreflect.FloatKind {
			b = protowire.AppendTag(b, f.num, protowire.Fixed32Type)
			return protowire.AppendFixed32(b, math.Float32bits(float32(x)))
		}
		b = protowire.AppendTag(b, f.num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(x))
	default: // the varint kinds: ints, enums
		n := intOf(v)
		if n == 0 && !always {
			return b
		}
		b = protowire.AppendTag(b, f.num, protowire.VarintType)
		return protowire.AppendVarint(b, n)
	}
}

// intOf is an integer value as its varint (negative numbers sign-extended).
func intOf(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(v.Int())
	default:
		return v.Uint()
	}
}

func (f *wireField) packable() bool {
	switch f.kind {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

func (f *wireField) appendList(b []byte, v reflect.Value) ([]byte, error) {
	n := v.Len()
	if n == 0 {
		return b, nil
	}
	if f.packable() {
		b, at := openBytes(b, f.num)
		for i := 0; i < n; i++ {
			e := v.Index(i)
			switch f.kind {
			case protoreflect.BoolKind:
				b = protowire.AppendVarint(b, protowire.EncodeBool(e.Bool()))
			case protoreflect.FloatKind:
				b = protowire.AppendFixed32(b, math.Float32bits(float32(e.Float())))
			case protoreflect.DoubleKind:
				b = protowire.AppendFixed64(b, math.Float64bits(e.Float()))
			default:
				b = protowire.AppendVarint(b, intOf(e))
			}
		}
		return closeBytes(b, at), nil
	}
	var err error
	for i := 0; i < n; i++ {
		e := v.Index(i)
		if e.Kind() == reflect.Pointer {
			if e.IsNil() {
				continue
			}
			e = e.Elem()
		}
		if b, err = f.appendSingle(b, e, true); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (f *wireField) appendMap(b []byte, v reflect.Value) ([]byte, error) {
	if v.Len() == 0 {
		return b, nil
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		e := v.MapIndex(k)
		if e.Kind() == reflect.Pointer {
			if e.IsNil() {
				continue
			}
			e = e.Elem()
		}
		var at int
		b, at = openBytes(b, f.num)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k.String())
		var err error
		if b, err = f.valueSub.appendSingle(b, e, true); err != nil {
			return nil, err
		}
		b = closeBytes(b, at)
	}
	return b, nil
}

// appendValue appends the fields of a google.protobuf.Value holding x (as
// encoding/json decodes JSON).
func appendValue(b []byte, x any) []byte {
	switch x := x.(type) {
	case nil:
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		return protowire.AppendVarint(b, 0)
	case float64:
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(x))
	case string:
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendString(b, x)
	case bool:
		b = protowire.AppendTag(b, 4, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(x))
	case map[string]any:
		b, at := openBytes(b, 5)
		return closeBytes(appendStruct(b, x), at)
	case []any:
		b, list := openBytes(b, 6)
		for _, e := range x {
			var at int
			b, at = openBytes(b, 1)
			b = closeBytes(appendValue(b, e), at)
		}
		return closeBytes(b, list)
	}
	return b
}

// appendStruct appends the fields of a google.protobuf.Struct.
func appendStruct(b []byte, m map[string]any) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var entry int
		b, entry = openBytes(b, 1)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k)
		var at int
		b, at = openBytes(b, 2)
		b = closeBytes(appendValue(b, m[k]), at)
		b = closeBytes(b, entry)
	}
	return b
}
