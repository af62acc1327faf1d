package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// rpcError is an error as an RPC face answers it, in one step: the code,
// the message, the details as google.rpc messages (a Retry-After becomes
// a google.rpc.RetryInfo), the request id and answer headers as metadata.
func (g *Face) rpcError(ctx context.Context, err error) (*connect.Error, *status.Error) {
	se, msg, header := g.core.Failure(ctx, err)
	ce := connect.NewError(connect.Code(se.Code), errors.New(msg))
	for _, d := range se.Details {
		raw, err := json.Marshal(d)
		if err != nil {
			continue
		}
		var a anypb.Any
		if err := protojson.Unmarshal(raw, &a); err != nil {
			continue // a detail of a type this server has no descriptor for
		}
		if detail, err := connect.NewErrorDetail(&a); err == nil {
			ce.AddDetail(detail)
		}
	}
	if secs, err := strconv.Atoi(header.Get("Retry-After")); err == nil && secs >= 0 {
		if detail, err := connect.NewErrorDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)}); err == nil {
			ce.AddDetail(detail)
		}
	}
	header.Set(api.RequestIDHeader, reqctx.From(ctx).RequestID)
	copyAnswerHeaders(ce.Meta(), header)
	return ce, se
}

// callContext is an RPC call's request context, as entry makes a REST
// request's: its request id (the client's, or a new one, set in header
// for the passes after), metadata, the caller's address (a trusted
// proxy's forwarded one, as for REST), the address the client called,
// and a logger naming both. The call's admission fills in who calls.
func (g *Face) callContext(ctx context.Context, op *api.Operation, header http.Header, peer string, adm *api.Admission) (context.Context, *reqctx.Info) {
	if adm != nil && adm.Info != nil && adm.Info.Operation == op.FullName() { // made when the call was admitted
		return reqctx.With(ctx, adm.Info), adm.Info
	}
	id := api.RequestID(header.Get(api.RequestIDHeader))
	header.Set(api.RequestIDHeader, id)
	md := make(http.Header, len(header))
	for k, vs := range header {
		if !grpcHopHeader(k) {
			md[k] = vs
		}
	}
	ip, proxied := g.core.ClientIP(peer, header)
	o := originOf(ctx)
	scheme, host := "http", o.host
	if o.tls {
		scheme = "https"
	}
	if proxied {
		if p := strings.ToLower(header.Get("X-Forwarded-Proto")); p == "https" || p == "http" {
			scheme = p
		}
		if h := header.Get("X-Forwarded-Host"); h != "" && !strings.ContainsAny(h, "/@ ,") {
			host = h
		}
	}
	info := &reqctx.Info{RequestID: id, Metadata: api.Metadata(md), ClientIP: ip, UserAgent: header.Get("User-Agent"),
		BaseURL: scheme + "://" + host, Operation: op.FullName()}
	info.Logger = g.core.Logger().With("request_id", id, "operation", op.FullName())
	if adm != nil {
		info.ProviderID, info.Principal = adm.ProviderID, adm.Principal
	}
	return reqctx.With(ctx, info), info
}
