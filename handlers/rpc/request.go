package rpc

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
)

// requestJSON is a native gRPC request's bytes as the JSON the codec reads
// (exactly as a REST body): a dynamic message of the rpc's request, in
// protojson's mapping, the way connect-go's handlers take (Face.unary).
func requestJSON(md protoreflect.MessageDescriptor, b []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("the request is no %s: %w", md.FullName(), err)
	}
	return protojson.Marshal(m)
}

// withUnknownFields adds to body (a request as JSON, an object) one key
// per field number in b (a message's bytes, the top level) that md does
// not know, "field <number>": null, so that a Strict request
// (codec.Strict) refuses a field it does not know over gRPC as over REST,
// through the gateway and after its admission, naming the field. For
// other requests body is returned as it is: protobuf's rule keeps
// unknown fields, and the gateway's ignores them.
func withUnknownFields(op *api.Operation, md protoreflect.MessageDescriptor, body, b []byte) []byte {
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
