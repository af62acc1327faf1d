package handlers

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const transcodeProto = `syntax = "proto3";
package t;
import "google/protobuf/timestamp.proto";
import "google/protobuf/struct.proto";
enum E { E_UNSPECIFIED = 0; E_ONE = 1; E_TWO = 2; }
message T {
  string s = 1; int32 i32 = 2; sint32 s32 = 3; int64 i64 = 4; uint64 u64 = 5; bool b = 6; bytes by = 7; E e = 8;
  repeated int32 ri = 9; repeated string rs = 10; map<string, int32> m = 11; T child = 12; repeated T kids = 13;
  google.protobuf.Timestamp ts = 14; optional string os = 15; oneof o { string oa = 16; int32 ob = 17; }
  double d = 18; fixed64 f64 = 19; map<int64, string> mi = 20; sfixed32 sf = 21; sint64 s64 = 22;
  google.protobuf.Value v = 23; repeated E re = 24; map<string, T> mt = 25;
}`

func transcodeMessage(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"t.proto": transcodeProto})})}
	res, err := c.Compile(context.Background(), "t.proto")
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Messages().ByName("T")
}

// msg builds wire bytes from (number, value) pairs: a string or []byte
// is length-delimited, a uint64 a varint, a [4]byte or [8]byte fixed.
func msg(fields ...any) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		num := protowire.Number(fields[i].(int))
		switch v := fields[i+1].(type) {
		case string:
			b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), []byte(v))
		case []byte:
			b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
		case uint64:
			b = protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
		case uint32:
			b = protowire.AppendFixed32(protowire.AppendTag(b, num, protowire.Fixed32Type), v)
		case float64:
			b = protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), uint64(v))
		}
	}
	return b
}

// TestTranscodeIsProtojson: a request written straight from its bytes
// is, as JSON, what protojson writes of the decoded message; what the
// direct way does not cover goes protojson's way, errors included.
func TestTranscodeIsProtojson(t *testing.T) {
	md := transcodeMessage(t)
	packed := protowire.AppendVarint(protowire.AppendVarint(protowire.AppendVarint(nil, 1), 300), uint64(1<<64-1))
	neg := uint64(1<<64 - 5) // -5 as int32/int64 varint
	cases := []struct {
		name   string
		b      []byte
		direct bool // transcode covers it
	}{
		{"empty", nil, true},
		{"scalars", msg(1, "a \"quoted\"\n\x01 ü", 2, neg, 3, protowire.EncodeZigZag(-7), 4, neg, 5, uint64(1<<63), 6, uint64(1), 7, []byte{0, 255, 7}, 8, uint64(2), 21, uint32(1<<32-3), 22, protowire.EncodeZigZag(-1<<40)), true},
		{"zero scalars are left out", msg(1, "", 2, uint64(0), 6, uint64(0), 8, uint64(0)), true},
		{"optional zero is kept", msg(15, ""), true},
		{"the last of a scalar wins", msg(1, "first", 1, "second"), true},
		{"packed and unpacked", msg(9, packed, 9, uint64(9), 10, "x", 10, "", 24, uint64(1)), true},
		{"an empty packed list is left out", msg(9, []byte{}), true},
		{"maps", msg(11, msg(1, "k", 2, uint64(3)), 11, msg(1, "z"), 20, msg(1, neg, 2, "minus five"), 25, msg(1, "c", 2, msg(1, "in"))), true},
		{"a map value absent", msg(25, msg(1, "c"), 11, msg(1, "n")), true},
		{"a map key absent", msg(11, msg(2, uint64(1))), true},
		{"nested", msg(12, msg(1, "child", 12, msg(2, uint64(1))), 13, msg(1, "k1"), 13, []byte{}), true},
		{"timestamps", msg(14, msg(1, uint64(1764633600), 2, uint64(5e6))), true},
		{"timestamp micro", msg(14, msg(1, uint64(1764633600), 2, uint64(123456000))), true},
		{"timestamp nano", msg(14, msg(2, uint64(1))), true},
		{"timestamp zero", msg(14, []byte{}), true},
		{"oneof: the last member set", msg(16, "a", 17, uint64(4)), true},
		{"oneof: back", msg(17, uint64(4), 16, "a"), true},
		{"unknown fields", msg(99, "x", 98, uint64(1)), true},
		{"double", msg(18, float64(0)), false},
		{"fixed64", msg(19, float64(1<<40)), true},
		{"Value", msg(23, msg(3, "s")), false},
		{"an enum number without a name", msg(8, uint64(9)), false},
		{"a message sent twice merges", msg(12, msg(1, "a"), 12, msg(2, uint64(1))), false},
		{"invalid UTF-8", msg(1, "\xff"), false},
		{"wrong wire type", msg(1, uint64(1)), false},
		{"truncated", []byte{0x0a, 5, 'a'}, false},
		{"timestamp out of range", msg(14, msg(1, uint64(1<<62))), false},
	}
	deep := msg(1, "bottom")
	for range maxTranscodeDepth + 1 {
		deep = msg(12, deep)
	}
	cases = append(cases, struct {
		name   string
		b      []byte
		direct bool
	}{"nested deeper than followed", deep, false})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := transcode(nil, md, c.b, 0)
			if ok != c.direct {
				t.Fatalf("covered: %v, want %v (%s)", ok, c.direct, got)
			}
			want, err := requestJSONDynamic(md, c.b)
			if !ok {
				if _, err2 := requestJSON(md, c.b); (err == nil) != (err2 == nil) {
					t.Fatalf("requestJSON's error %v, protojson's %v", err2, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("transcode covered what protojson refuses: %v", err)
			}
			var x, y any
			if err := json.Unmarshal(got, &x); err != nil {
				t.Fatalf("not JSON: %s: %v", got, err)
			}
			_ = json.Unmarshal(want, &y)
			if !reflect.DeepEqual(x, y) {
				t.Fatalf("direct  %s\nprotojson %s", got, want)
			}
		})
	}
}
