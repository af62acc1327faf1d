package handlers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// A native gRPC request reaches the gateway as the JSON protojson would
// write of it (the codec reads that exactly as a REST body). Decoding into
// a dynamic message and marshalling it with protojson costs about as much
// as the rest of a small read's gRPC-only work, so the usual request is
// written straight from its wire bytes (transcode); whatever transcode
// does not cover the same way protojson does (floating point, the
// well-known types but Timestamp, an enum number the descriptor does not
// name, a message field sent twice, which proto merges, anything
// malformed) takes the dynamic message's way, which also gives the
// errors. With CheckWire both are computed and must agree.

// requestJSON is a request message's bytes as the operation's JSON.
func requestJSON(md protoreflect.MessageDescriptor, b []byte) ([]byte, error) {
	fast, ok := transcode(nil, md, b, 0)
	if ok && !CheckWire {
		return fast, nil
	}
	slow, err := requestJSONDynamic(md, b)
	if err != nil || !ok {
		return slow, err
	}
	var x, y any
	if json.Unmarshal(fast, &x) != nil || json.Unmarshal(slow, &y) != nil || !reflect.DeepEqual(x, y) {
		return nil, fmt.Errorf("the request's direct JSON differs from protojson's:\nwant %s\ngot  %s", slow, fast)
	}
	return fast, nil
}

// requestJSONDynamic is requestJSON by a dynamic message and protojson.
func requestJSONDynamic(md protoreflect.MessageDescriptor, b []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("the request is no %s: %w", md.FullName(), err)
	}
	return protojson.Marshal(m)
}

// maxTranscodeDepth is how deep transcode follows nested messages (ours
// nest a few levels); deeper goes protojson's way.
const maxTranscodeDepth = 32

// wireValue is one occurrence of a field in a message's bytes.
type wireValue struct {
	typ protowire.Type
	n   uint64 // varint, fixed32, fixed64
	b   []byte // bytes
}

// transcode appends message b of md as protojson's JSON; false when it
// does not cover b (see above).
func transcode(out []byte, md protoreflect.MessageDescriptor, b []byte, depth int) ([]byte, bool) {
	if depth > maxTranscodeDepth {
		return nil, false // protobuf's own decoder bounds the recursion, with its error
	}
	fields := md.Fields()
	vals := make([][]wireValue, fields.Len())
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		var v wireValue
		v.typ = typ
		switch typ {
		case protowire.VarintType:
			v.n, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v.n = uint64(x)
		case protowire.Fixed64Type:
			v.n, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v.b, n = protowire.ConsumeBytes(b)
		default: // groups
			return nil, false
		}
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		fd := fields.ByNumber(num)
		if fd == nil {
			continue // unknown: protojson leaves it out
		}
		i := fd.Index()
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() { // the last member set is the one
			for j := range od.Fields().Len() {
				if f := od.Fields().Get(j); f.Number() != num {
					vals[f.Index()] = nil
				}
			}
		}
		if !fd.IsList() && !fd.IsMap() && fd.Kind() == protoreflect.MessageKind && len(vals[i]) > 0 {
			return nil, false // sent twice: proto merges the two
		}
		vals[i] = append(vals[i], v)
	}
	out = append(out, '{')
	first := true
	for i := range vals {
		if len(vals[i]) == 0 {
			continue
		}
		fd := fields.Get(i)
		start := len(out)
		if !first {
			out = append(out, ',')
		}
		out = codec.AppendString(out, fd.JSONName())
		out = append(out, ':')
		var ok, emit bool
		switch {
		case fd.IsMap():
			out, ok = transcodeMap(out, fd, vals[i], depth)
			emit = true
		case fd.IsList():
			out, ok = transcodeList(out, fd, vals[i], depth)
			emit = ok && out[len(out)-2] != '[' // protojson leaves an empty list out (all packed, none inside)
		default:
			v := vals[i][len(vals[i])-1] // the last wins
			out, emit, ok = transcodeValue(out, fd, v, fd.HasPresence(), depth)
		}
		if !ok {
			return nil, false
		}
		if !emit {
			out = out[:start]
			continue
		}
		first = false
	}
	return append(out, '}'), true
}

func transcodeList(out []byte, fd protoreflect.FieldDescriptor, vals []wireValue, depth int) ([]byte, bool) {
	out = append(out, '[')
	first := true
	elem := func(v wireValue) bool {
		if !first {
			out = append(out, ',')
		}
		first = false
		var ok bool
		out, _, ok = transcodeValue(out, fd, v, true, depth)
		return ok
	}
	for _, v := range vals {
		if v.typ == protowire.BytesType && packable(fd.Kind()) { // packed
			b := v.b
			for len(b) > 0 {
				var e wireValue
				var n int
				switch fd.Kind() {
				case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
					var x uint32
					x, n = protowire.ConsumeFixed32(b)
					e = wireValue{typ: protowire.Fixed32Type, n: uint64(x)}
				case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
					var x uint64
					x, n = protowire.ConsumeFixed64(b)
					e = wireValue{typ: protowire.Fixed64Type, n: x}
				default:
					var x uint64
					x, n = protowire.ConsumeVarint(b)
					e = wireValue{typ: protowire.VarintType, n: x}
				}
				if n < 0 || !elem(e) {
					return nil, false
				}
				b = b[n:]
			}
			continue
		}
		if !elem(v) {
			return nil, false
		}
	}
	return append(out, ']'), true
}

// packable: the kinds transcode writes that may come packed.
func packable(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

func transcodeMap(out []byte, fd protoreflect.FieldDescriptor, vals []wireValue, depth int) ([]byte, bool) {
	kd, vd := fd.MapKey(), fd.MapValue()
	out = append(out, '{')
	for i, v := range vals {
		if v.typ != protowire.BytesType {
			return nil, false
		}
		var key, val *wireValue
		b := v.b
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return nil, false
			}
			b = b[n:]
			e := wireValue{typ: typ}
			switch typ {
			case protowire.VarintType:
				e.n, n = protowire.ConsumeVarint(b)
			case protowire.BytesType:
				e.b, n = protowire.ConsumeBytes(b)
			default:
				return nil, false
			}
			if n < 0 {
				return nil, false
			}
			b = b[n:]
			switch num {
			case 1:
				key = &e
			case 2:
				if val != nil && vd.Kind() == protoreflect.MessageKind {
					return nil, false
				}
				val = &e
			}
		}
		if i > 0 {
			out = append(out, ',')
		}
		switch {
		case key == nil && kd.Kind() == protoreflect.StringKind:
			out = codec.AppendString(out, "")
		case key == nil:
			return nil, false
		default:
			k, _, ok := transcodeValue(nil, kd, *key, true, depth)
			if !ok {
				return nil, false
			}
			if k[0] != '"' {
				k = strconv.AppendQuote(nil, string(k)) // numbers and bools as strings
			}
			out = append(out, k...)
		}
		out = append(out, ':')
		if val == nil { // an absent value is the zero value
			val = &wireValue{typ: wireTypeOf(vd.Kind())}
		}
		var ok bool
		if out, _, ok = transcodeValue(out, vd, *val, true, depth); !ok {
			return nil, false
		}
	}
	return append(out, '}'), true
}

// transcodeValue appends one value of fd; emit is false for a zero
// scalar protojson leaves out (always: a list's element, a map's key or
// value, a field with presence).
func transcodeValue(out []byte, fd protoreflect.FieldDescriptor, v wireValue, always bool, depth int) (_ []byte, emit, ok bool) {
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind, protoreflect.GroupKind:
		return nil, false, false
	}
	if v.typ != wireTypeOf(fd.Kind()) {
		return nil, false, false
	}
	zero := v.n == 0 && len(v.b) == 0
	if zero && !always && fd.Kind() != protoreflect.MessageKind {
		return out, false, true
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.Valid(v.b) {
			return nil, false, false
		}
		return codec.AppendString(out, string(v.b)), true, true
	case protoreflect.BytesKind:
		out = append(out, '"')
		out = base64.StdEncoding.AppendEncode(out, v.b)
		return append(out, '"'), true, true
	case protoreflect.BoolKind:
		return strconv.AppendBool(out, v.n != 0), true, true
	case protoreflect.Int32Kind:
		return strconv.AppendInt(out, int64(int32(v.n)), 10), true, true
	case protoreflect.Sint32Kind:
		return strconv.AppendInt(out, int64(int32(protowire.DecodeZigZag(v.n&math.MaxUint32))), 10), true, true
	case protoreflect.Sfixed32Kind:
		return strconv.AppendInt(out, int64(int32(uint32(v.n))), 10), true, true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(out, uint64(uint32(v.n)), 10), true, true
	case protoreflect.Int64Kind, protoreflect.Sfixed64Kind:
		return append(strconv.AppendInt(append(out, '"'), int64(v.n), 10), '"'), true, true
	case protoreflect.Sint64Kind:
		return append(strconv.AppendInt(append(out, '"'), protowire.DecodeZigZag(v.n), 10), '"'), true, true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return append(strconv.AppendUint(append(out, '"'), v.n, 10), '"'), true, true
	case protoreflect.EnumKind:
		ev := fd.Enum().Values().ByNumber(protoreflect.EnumNumber(int32(v.n)))
		if ev == nil {
			return nil, false, false
		}
		return codec.AppendString(out, string(ev.Name())), true, true
	case protoreflect.MessageKind:
		md := fd.Message()
		switch md.FullName() {
		case "google.protobuf.Timestamp":
			return appendTimestamp(out, v.b)
		}
		if md.FullName().Parent() == "google.protobuf" {
			return nil, false, false
		}
		out, ok = transcode(out, md, v.b, depth+1)
		return out, ok, ok
	}
	return nil, false, false
}

// wireTypeOf is the wire type of a value of kind k (not packed).
func wireTypeOf(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// appendTimestamp writes a google.protobuf.Timestamp as protojson does:
// RFC 3339 in UTC, with 0, 3, 6 or 9 fractional digits.
func appendTimestamp(out, b []byte) ([]byte, bool, bool) {
	var secs, nanos int64
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.VarintType {
			return nil, false, false
		}
		b = b[n:]
		x, m := protowire.ConsumeVarint(b)
		if m < 0 {
			return nil, false, false
		}
		b = b[m:]
		switch num {
		case 1:
			secs = int64(x)
		case 2:
			nanos = int64(int32(x))
		}
	}
	if secs < -62135596800 || secs > 253402300799 || nanos < 0 || nanos >= 1e9 {
		return nil, false, false
	}
	t := time.Unix(secs, nanos).UTC()
	out = append(out, '"')
	out = t.AppendFormat(out, "2006-01-02T15:04:05")
	if nanos != 0 {
		frac := fmt.Sprintf("%09d", nanos)
		switch {
		case nanos%1e6 == 0:
			frac = frac[:3]
		case nanos%1e3 == 0:
			frac = frac[:6]
		}
		out = append(append(out, '.'), frac...)
	}
	return append(out, 'Z', '"'), true, true
}

// withUnknownFields adds to body (a request as JSON, an object) one key
// per field number in b (a message's bytes, the top level) that md does
// not know, "field <number>": null, so that a Strict request
// (codec.Strict) refuses a field it does not know over gRPC as over REST,
// through the gateway and after its admission, naming the field. For
// other requests body is returned as it is: protobuf's rule keeps
// unknown fields, and the gateway's ignores them.
func withUnknownFields(op *Operation, md protoreflect.MessageDescriptor, body, b []byte) []byte {
	if op.Request == nil || !codec.IsStrict(op.Request) {
		return body
	}
	var keys []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return body // malformed: protobuf's decoder said so already
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return body
		}
		b = b[n:]
		if md.Fields().ByNumber(num) == nil {
			keys = append(keys, `"field `...)
			keys = strconv.AppendInt(keys, int64(num), 10)
			keys = append(keys, `":null,`...)
		}
	}
	if len(keys) == 0 || len(body) < 2 || body[0] != '{' {
		return body
	}
	out := append(append([]byte{'{'}, keys...), body[1:]...)
	if len(body) == 2 { // {} : drop the comma before }
		out = append(out[:len(out)-2], '}')
	}
	return out
}
