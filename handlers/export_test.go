package handlers

import (
	"reflect"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
)

// NewWithOperations is New serving the test's operations beside the
// table's. It is compiled into the tests only: production code has no way
// to add an operation.
func NewWithOperations(d Deps, extra ...api.Operation) (*Server, error) { return newServer(d, extra) }

// GetDocumentAnswer reads the REST answer of op's GetDocument (the JSON a
// client got) back into the Go value the operation answers, with the
// response message its RPC face writes: what the encoding benchmarks
// encode.
func (s *Server) GetDocumentAnswer(op string, answer []byte) (any, protoreflect.MessageDescriptor, error) {
	v := reflect.New(s.containers().get).Interface()
	if err := codec.Unmarshal(answer, v); err != nil {
		return nil, nil, err
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(op)) // the generated client's, compiled from the same files
	if err != nil {
		return nil, nil, err
	}
	return v, d.(protoreflect.MethodDescriptor).Output(), nil
}
