package tests

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
)

// Every RPC protocol is served (issue 48.3): connect-go's client, with the
// messages generated from the committed protos, calls one operation over
// native gRPC (HTTP/2 cleartext), gRPC-Web, and the Connect protocol in
// binary and JSON, over HTTP/1.1 and HTTP/2. Each answers the document as
// REST does, and refuses a missing document with NOT_FOUND and a call
// without a token with UNAUTHENTICATED, each in its protocol's own error
// shape (connect-go reads the code from it). Before, a Connect call went
// to gin: binary ones got REST's 400, JSON ones REST's error shape.
func TestEveryRPCProtocolAnswersAsREST(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		rest, _ := d.annex7(t, "alice", id)
		token := d.token(t, "alice")
		// Each protocol's client has connections of its own: the server
		// hands a cleartext HTTP/2 connection whose first call is native
		// gRPC to grpc-go for good (handlers/rpc/listen.go).
		transport := func(http2 bool) *http.Transport {
			var p http.Protocols
			p.SetHTTP1(!http2)
			p.SetUnencryptedHTTP2(http2)
			return &http.Transport{Protocols: &p}
		}
		for _, p := range []struct {
			name  string
			http2 bool
			opts  []connect.ClientOption
		}{
			{"gRPC over HTTP/2", true, []connect.ClientOption{connect.WithGRPC()}},
			{"gRPC-Web over HTTP/1.1", false, []connect.ClientOption{connect.WithGRPCWeb()}},
			{"Connect binary over HTTP/1.1", false, nil},
			{"Connect JSON over HTTP/1.1", false, []connect.ClientOption{connect.WithProtoJSON()}},
			{"Connect binary over HTTP/2", true, nil},
			{"Connect JSON over HTTP/2", true, []connect.ClientOption{connect.WithProtoJSON()}},
		} {
			t.Run(p.name, func(t *testing.T) {
				tr := transport(p.http2)
				var protos []string // what each answer came over
				hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
					resp, err := tr.RoundTrip(r)
					if err == nil {
						protos = append(protos, resp.Proto)
					}
					return resp, err
				})}
				c := connect.NewClient[diwass.GetAnnex7Request, diwass.GetAnnex7Response](hc, d.url+co+"GetAnnex7", p.opts...)
				call := func(id, token string) (*connect.Response[diwass.GetAnnex7Response], error) {
					req := connect.NewRequest(&diwass.GetAnnex7Request{DocumentId: id})
					req.Header().Set("provider_id", "dev-1")
					if token != "" {
						req.Header().Set("Authorization", "Bearer "+token)
					}
					return c.CallUnary(context.Background(), req)
				}
				resp, err := call(id, token)
				if err != nil {
					t.Fatalf("GetAnnex7: %v", err)
				}
				doc := resp.Msg.GetDocument()
				got, _ := protojson.Marshal(doc)
				if doc.GetId() != rest["id"] || doc.GetNumber() != rest["number"] || doc.GetState() != rest["state"] || doc.GetVersion() != 1 ||
					doc.GetMetadata().GetDiwass().GetState() != "NOT_CONNECTED" || doc.GetAnnex7().GetUsualDescription() != "PET bottle flakes" {
					t.Fatalf("the document: %s, REST %v", got, rest)
				}
				for _, c := range []struct {
					id, token string
					want      connect.Code
				}{{"a7_nope", token, connect.CodeNotFound}, {id, "", connect.CodeUnauthenticated}} {
					_, err := call(c.id, c.token)
					var ce *connect.Error
					if !errors.As(err, &ce) || ce.Code() != c.want || ce.Message() == "" {
						t.Errorf("%s with token %t: %v, want %s", c.id, c.token != "", err, c.want)
					}
				}
				want := map[bool]string{true: "HTTP/2.0", false: "HTTP/1.1"}[p.http2]
				for _, got := range protos {
					if got != want {
						t.Errorf("an answer came over %s, not %s", got, want)
					}
				}
			})
		}
	})
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
