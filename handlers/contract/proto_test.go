package contract_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/handlers/contract"
)

type protoColour int32

func (protoColour) EnumNames() []string { return []string{"PROTO_COLOUR_UNSPECIFIED", "RED", "GREEN"} }

type protoInner struct {
	Label string `json:"label"`
}

type protoV1 struct {
	ID      string                `json:"id"`
	Old     int64                 `json:"old"`
	Count   int32                 `json:"count"`
	Colour  protoColour           `json:"colour"`
	When    time.Time             `json:"when"`
	Maybe   *bool                 `json:"maybe"`
	Inner   *protoInner           `json:"inner"`
	Items   []protoInner          `json:"items"`
	ByKey   map[string]int64      `json:"byKey"`
	Raw     json.RawMessage       `json:"raw"`
	Loose   map[string]any        `json:"loose"`
	Snake   string                `json:"snake_name"`
	Anon    struct{ N uint32 }    `json:"anon"`
	Data    []byte                `json:"data"`
	Ratio   float64               `json:"ratio"`
	Colours []protoColour         `json:"colours"`
	Inners  map[string]protoInner `json:"inners"`
}

type protoV2 struct { // Old is gone, New is new, the order changed
	New   string `json:"new"`
	ID    string `json:"id"`
	Count int32  `json:"count"`
}

func protoOp(req any) api.Operation {
	return api.Made(api.Operation{Package: "svc.test.v1.api", Service: "ShapeApi", Method: "Shape", Summary: "shapes"},
		reflect.TypeOf(req), reflect.TypeOf(req), func(ctx context.Context, r reflect.Value) (any, error) { return r.Addr().Interface(), nil })
}

// Field numbers survive a regeneration: a field keeps its number wherever
// it moves, a new one takes the next free number, and a field that is gone
// is reserved (number and name) so that no later field takes it.
func TestBuildProtoKeepsFieldNumbers(t *testing.T) {
	ctx := context.Background()
	first, err := contract.BuildProto(ctx, []api.Operation{protoOp(protoV1{})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const file = "svc/test/v1/api/shape_api.proto"
	src := string(first[file])
	for _, want := range []string{
		"rpc Shape(ShapeRequest) returns (ShapeResponse);",
		"  int64 old = 2;", "  wasteflow.types.v1.ProtoColour colour = 4;", "  google.protobuf.Timestamp when = 5;",
		"  optional bool maybe = 6;", "  wasteflow.types.v1.ProtoInner inner = 7;", "  repeated wasteflow.types.v1.ProtoInner items = 8;",
		"  map<string, int64> by_key = 9;", "  google.protobuf.Value raw = 10;", "  google.protobuf.Struct loose = 11;",
		`  string snake_name = 12 [json_name = "snake_name"];`, "  Anon anon = 13;", "  message Anon {\n    uint32 n = 1;",
		"  bytes data = 14;", "  double ratio = 15;", "  repeated wasteflow.types.v1.ProtoColour colours = 16;",
		"  map<string, wasteflow.types.v1.ProtoInner> inners = 17;",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("missing %q in\n%s", want, src)
		}
	}
	if _, err := contract.CompileProto(ctx, first); err != nil {
		t.Fatal(err)
	}
	second, err := contract.BuildProto(ctx, []api.Operation{protoOp(protoV2{})}, first)
	if err != nil {
		t.Fatal(err)
	}
	src = string(second[file])
	for _, want := range []string{"  string new = 18;", "  string id = 1;", "  int32 count = 3;", "reserved 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17;", `reserved "anon", "by_key", "colour"`} {
		if !strings.Contains(src, want) {
			t.Errorf("missing %q in\n%s", want, src)
		}
	}
	third, err := contract.BuildProto(ctx, []api.Operation{protoOp(protoV1{})}, second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(third[file]), "int64 old = 19;") { // a returning name gets a new number: the old one is reserved
		t.Errorf("a field back under a reserved name:\n%s", third[file])
	}
}

// protojson renders a message of the generated descriptors exactly as the
// REST face's codec renders the Go value, and reads it back: the two faces
// speak the same JSON.
func TestProtoJSONIsTheCodecsJSON(t *testing.T) {
	ctx := context.Background()
	files, err := contract.BuildProto(ctx, []api.Operation{protoOp(protoV1{})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := contract.CompileProto(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	var desc protoreflect.MessageDescriptor
	for _, fd := range fds {
		if m := fd.Messages().ByName("ShapeResponse"); m != nil {
			desc = m
		}
	}
	yes := true
	v := protoV1{ID: "x", Old: 1 << 40, Count: -3, Colour: 2, When: time.Date(2026, 11, 25, 10, 0, 0, 5000, time.UTC), Maybe: &yes,
		Inner: &protoInner{Label: "in"}, Items: []protoInner{{"a"}, {"b"}}, ByKey: map[string]int64{"k": 7}, Raw: json.RawMessage(`{"a":[1,"x",null]}`),
		Loose: map[string]any{"z": "y"}, Snake: "s", Data: []byte{0, 1, 2}, Ratio: 0.25, Colours: []protoColour{1, 2}, Inners: map[string]protoInner{"q": {"r"}}}
	v.Anon.N = 9
	rest, err := codec.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	msg := dynamicpb.NewMessage(desc)
	if err := protojson.Unmarshal(rest, msg); err != nil {
		t.Fatalf("protojson cannot read the REST JSON: %v\n%s", err, rest)
	}
	out, err := protojson.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back protoV1
	if err := codec.Unmarshal(out, &back); err != nil {
		t.Fatalf("the codec cannot read protojson's JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(normal(t, &back), normal(t, &v)) {
		t.Fatalf("round trip changed the value:\nREST     %s\nprotojson %s", rest, out)
	}
}

// normal is v's REST JSON as a value (protojson spaces the verbatim JSON
// of a RawMessage its own way).
func normal(t *testing.T, v *protoV1) any {
	b, err := codec.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
