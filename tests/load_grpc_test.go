package tests

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
	types "github.com/wasteflow/wasteflow/proto/gen/go/wasteflow/types/v1"
)

// rawCodec sends bytes and takes the answer's bytes as they come: the
// bench's gRPC clients, like its REST clients (which read the body and
// look for business errors in it), do not decode answers, so that both
// figures measure the server, not the client library's decoding.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }

func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append((*v.(*[]byte))[:0], data...)
	return nil
}

// businessErrors tells whether an answer's field 3 (businessErrors in
// every document operation's response) holds an entry.
func businessErrors(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		if num == 3 {
			return true
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return false
		}
		b = b[m:]
	}
	return false
}

func (b *loadBench) rawCall(ctx context.Context, conn *grpc.ClientConn, method string, req []byte) error {
	var out []byte
	if err := conn.Invoke(ctx, method, &req, &out, grpc.ForceCodec(rawCodec{})); err != nil {
		return err
	}
	if businessErrors(out) {
		return fmt.Errorf("%s: business errors", method)
	}
	return nil
}

func mustMarshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// grpcConns are the load bench's gRPC connections: as a client library
// does, one HTTP/2 connection carries many calls; a few spread them.
func (b *loadBench) grpcConns(n int) []*grpc.ClientConn {
	conns := make([]*grpc.ClientConn, n)
	for i := range conns {
		conns[i] = dialGRPC(b.t, b.d.url)
	}
	return conns
}

func (b *loadBench) grpcAs(user string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+b.d.token(b.t, user))
}

// grpcTransitions is the transitions' operation over gRPC (binary Protocol
// Buffers over h2c, grpc-go's client), on a pool of its own.
func (b *loadBench) grpcTransitions(clients int) func(c, i int) error {
	docs := b.freshDocs(docPool)
	conns := b.grpcConns(8)
	noor, alice := b.grpcAs("noor"), b.grpcAs("alice")
	mine := len(docs) / clients
	vers := b.versionsOf(docs)
	body := func(step int, id string, v int64) []byte {
		if step == 0 {
			return mustMarshal(&diwass.SetRequestInformationRequest{DocumentId: id, Version: &v, RequestInformation: &types.RequestInformation{Questions: []string{"the analysis, please"}}})
		}
		return mustMarshal(&diwass.SetReplyToRequestInformationRequest{DocumentId: id, Version: &v,
			ReplyToRequestInformation: &types.ReplyToRequestInformation{Answers: []string{"attached"}, Complete: true}})
	}
	methods := []string{"/svc.bxa.diwass.v1.api.AuthorityDocumentApi/SetRequestInformation", "/svc.bxa.diwass.v1.api.CompanyDocumentApi/SetReplyToRequestInformation"}
	callers := []context.Context{noor, alice}
	return func(c, i int) error {
		id := docs[c+clients*((i/2)%mine)]
		return vers.moved(id, func(v int64) error {
			return b.rawCall(callers[i%2], conns[c%len(conns)], methods[i%2], body(i%2, id, v))
		})
	}
}

// grpcGetDocument is getDocument's operation over gRPC.
func (b *loadBench) grpcGetDocument() func(c, i int) error {
	conns := b.grpcConns(8)
	noor := b.grpcAs("noor")
	reqs := make([][]byte, len(b.read))
	for i, id := range b.read {
		reqs[i] = mustMarshal(&diwass.AuthorityDocumentApiGetDocumentRequest{DocumentId: id})
	}
	return func(c, i int) error {
		return b.rawCall(noor, conns[c%len(conns)], "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/GetDocument", reqs[(c+i)%len(reqs)])
	}
}
