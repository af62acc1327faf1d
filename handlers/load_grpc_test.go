package handlers_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
	types "github.com/wasteflow/wasteflow/proto/gen/go/wasteflow/types/v1"
)

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

// grpcTransitions is transitions over gRPC (the generated client, binary
// Protocol Buffers over h2c), on the same documents, beside the REST
// figure and the same raw SQL.
func (b *loadBench) grpcTransitions(clients int, rest figure) figure {
	b.ensureDocs(docPool)
	conns := b.grpcConns(4)
	noor, alice := b.grpcAs("noor"), b.grpcAs("alice")
	mine := len(b.docs) / clients
	server, p99 := b.run(clients, func(c, i int) error {
		id := b.docs[c+clients*((i/2)%mine)]
		conn := conns[c%len(conns)]
		if i%2 == 0 {
			r, err := diwass.NewAuthorityDocumentApiClient(conn).SetRequestInformation(noor, &diwass.SetRequestInformationRequest{DocumentId: id,
				RequestInformation: &types.RequestInformation{Questions: []string{"the analysis, please"}}})
			if err == nil && len(r.GetBusinessErrors()) > 0 {
				err = fmt.Errorf("business errors %v", r.GetBusinessErrors())
			}
			return err
		}
		r, err := diwass.NewCompanyDocumentApiClient(conn).SetReplyToRequestInformation(alice, &diwass.SetReplyToRequestInformationRequest{DocumentId: id,
			ReplyToRequestInformation: &types.ReplyToRequestInformation{Answers: []string{"attached"}, Complete: true}})
		if err == nil && len(r.GetBusinessErrors()) > 0 {
			err = fmt.Errorf("business errors %v", r.GetBusinessErrors())
		}
		return err
	})
	return figure{name: "transition/grpc", db: b.db, clients: clients, server: server, baseline: rest.baseline, p99: p99, rest: rest.server}
}

// grpcGetDocument is getDocument over gRPC.
func (b *loadBench) grpcGetDocument(clients int, rest figure) figure {
	conns := b.grpcConns(4)
	noor := b.grpcAs("noor")
	server, p99 := b.run(clients, func(c, i int) error {
		_, err := diwass.NewAuthorityDocumentApiClient(conns[c%len(conns)]).GetDocument(noor,
			&diwass.AuthorityDocumentApiGetDocumentRequest{DocumentId: b.read[(c+i)%len(b.read)]})
		return err
	})
	return figure{name: "getdocument/grpc", db: b.db, clients: clients, server: server, baseline: rest.baseline, p99: p99, rest: rest.server}
}
