package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/wasteflow/wasteflow/handlers/api"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// The native gRPC server (grpc-go) for cleartext HTTP/2 connections (see
// listen.go): every operation registered as a method of its service from
// the compiled descriptors, run by the same call (g.call, g.stream) as
// connect-go's handlers, so the two servers differ in transport only.

// rawRequest is a request message's bytes, as grpc-go read them.
type rawRequest []byte

// nativeCodec is grpc-go's "proto" codec on this server: a request's
// bytes are kept as they come (the face decodes them against the
// method's descriptor), an answer's wireMessage is written as it is, the
// protocol's own messages (reflection, health) as by proto.
type nativeCodec struct{}

func (nativeCodec) Name() string { return "proto" }

func (nativeCodec) Marshal(v any) (mem.BufferSlice, error) {
	var b []byte
	var err error
	switch m := v.(type) {
	case *wireMessage:
		b, err = m.binary()
	case proto.Message:
		b, err = proto.Marshal(m)
	default:
		err = fmt.Errorf("native codec: %T is no message", v)
	}
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (nativeCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *rawRequest:
		*m = data.Materialize()
		return nil
	case proto.Message:
		return proto.Unmarshal(data.Materialize(), m)
	}
	return fmt.Errorf("native codec: %T is no message", v)
}

var _ encoding.CodecV2 = nativeCodec{}

// streamWorkers is how many goroutines grpc-go keeps for calls.
const streamWorkers = 64

// newNativeServer builds the grpc-go server of the face.
func (g *Face) newNativeServer() *grpc.Server {
	cfg := g.core.Config()
	gs := grpc.NewServer(
		grpc.ForceServerCodecV2(nativeCodec{}),
		// The operations read their messages themselves, held to the
		// limit their call was admitted with (receive); grpc-go's one
		// limit is for what takes no token: reflection and health.
		grpc.MaxRecvMsgSize(int(g.core.UnauthenticatedLimit())),
		grpc.MaxSendMsgSize(MaxResponseBytes),
		grpc.MaxHeaderListSize(4<<20), // as net/http's MaxHeaderBytes; the gateway refuses more than 1 MiB with the error shape
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: cfg.IdleTimeout}),
		// Clients that keep a stream alive through a load balancer ping;
		// grpc-go's default (one ping in 5 minutes, none without a call)
		// would close their connections with too_many_pings.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		// Calls run on goroutines kept from call to call (beyond these, a
		// call starts its own), as a net/http connection's requests run on
		// its goroutine: the stack a call grows (gin, the store, SQLite's
		// deep frames) is grown once, not per call (a new goroutine's
		// copying of its growing stack was 8 % of a read's CPU).
		grpc.NumStreamWorkers(streamWorkers),
	)
	for _, svc := range g.native {
		gs.RegisterService(svc, nil)
	}
	healthpb.RegisterHealthServer(gs, nativeHealth{g})
	opts := reflection.ServerOptions{Services: gs, DescriptorResolver: g.files}
	reflectionv1.RegisterServerReflectionServer(gs, reflection.NewServerV1(opts))
	reflectionv1alpha.RegisterServerReflectionServer(gs, reflection.NewServer(opts))
	return gs
}

// nativeMethod is one operation as a grpc-go unary method.
func (g *Face) nativeMethod(op *api.Operation, md protoreflect.MethodDescriptor) grpc.MethodDesc {
	// grpc-go reads a unary call's message when the handler decodes it
	// (dec); the handler reads it itself (receive), once admitted.
	return grpc.MethodDesc{MethodName: string(md.Name()), Handler: func(_ any, ctx context.Context, _ func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		header, remote := incoming(ctx)
		adm, err := g.admit(ctx, op, header, remote)
		if err != nil {
			return nil, nativeError(ctx, err)
		}
		in, release, err := g.receive(ctx, adm)
		if gatewayRefusal(err) {
			return nil, nativeError(ctx, g.refuse(ctx, op, header, remote, adm, err))
		}
		if err != nil {
			return nil, err
		}
		defer release()
		body, err := requestJSON(md.Input(), in)
		if err != nil {
			return nil, grpcstatus.Error(codes.InvalidArgument, err.Error())
		}
		body = withUnknownFields(op, md.Input(), body, in)
		in = nil
		out, answer, err := g.call(ctx, op, md, header, remote, body, adm)
		if err != nil {
			return nil, nativeError(ctx, err)
		}
		_ = grpc.SetHeader(ctx, answerMetadata(answer))
		return out, nil
	}}
}

// nativeStream is one streaming operation as a grpc-go server stream.
func (g *Face) nativeStream(op *api.Operation, md protoreflect.MethodDescriptor) grpc.StreamDesc {
	return grpc.StreamDesc{StreamName: string(md.Name()), ServerStreams: true, Handler: func(_ any, st grpc.ServerStream) error {
		ctx := st.Context()
		header, remote := incoming(ctx)
		adm, err := g.admit(ctx, op, header, remote)
		if err != nil {
			return nativeError(ctx, err)
		}
		in, release, err := g.receive(ctx, adm)
		if gatewayRefusal(err) {
			return nativeError(ctx, g.refuse(ctx, op, header, remote, adm, err))
		}
		if err != nil {
			return err
		}
		body, err := requestJSON(md.Input(), in)
		release() // a stream's request is small; the slot is not held for its life
		if err != nil {
			return grpcstatus.Error(codes.InvalidArgument, err.Error())
		}
		err = g.stream(ctx, op, md, header, remote, body, func(m proto.Message) error { return st.SendMsg(m) })
		if err != nil {
			return nativeError(st.Context(), err)
		}
		return nil
	}}
}

// incoming is a call's metadata as the gateway's headers, and its peer.
func incoming(ctx context.Context) (http.Header, string) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(http.Header, len(md))
	for k, vs := range md {
		if strings.HasPrefix(k, ":") || grpcHopHeader(k) {
			continue
		}
		h[http.CanonicalHeaderKey(k)] = vs
	}
	remote := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		remote = p.Addr.String()
	}
	return h, remote
}

// answerMetadata is the answer's headers a client gets as metadata.
func answerMetadata(h http.Header) metadata.MD {
	md := metadata.MD{}
	for _, k := range answerHeaders {
		if v := h.Get(k); v != "" {
			md.Set(k, v)
		}
	}
	return md
}

// nativeError turns the face's error (a connect error: code, message,
// google.rpc details, metadata) into grpc-go's status, its metadata into
// trailers.
func nativeError(ctx context.Context, err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		if s, ok := grpcstatus.FromError(err); ok {
			return s.Err()
		}
		return grpcstatus.Error(codes.Internal, err.Error())
	}
	st := &spb.Status{Code: int32(ce.Code()), Message: ce.Message()}
	for _, d := range ce.Details() {
		st.Details = append(st.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type(), Value: d.Bytes()})
	}
	md := metadata.MD{}
	for k, vs := range ce.Meta() {
		md[strings.ToLower(k)] = vs
	}
	if len(md) > 0 {
		_ = grpc.SetTrailer(ctx, md)
	}
	return grpcstatus.FromProto(st).Err()
}

// nativeHealth answers grpc.health.v1 as /readyz does.
type nativeHealth struct {
	g *Face
}

func (h nativeHealth) status(ctx context.Context, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	if service != "" && !h.g.serves(service) {
		return healthpb.HealthCheckResponse_SERVICE_UNKNOWN, grpcstatus.Errorf(codes.NotFound, "unknown service %s", service)
	}
	if err := h.g.core.Ready(ctx); err != nil {
		return healthpb.HealthCheckResponse_NOT_SERVING, nil
	}
	return healthpb.HealthCheckResponse_SERVING, nil
}

func (h nativeHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	s, err := h.status(ctx, req.GetService())
	if err != nil {
		return nil, err
	}
	return &healthpb.HealthCheckResponse{Status: s}, nil
}

func (h nativeHealth) List(ctx context.Context, _ *healthpb.HealthListRequest) (*healthpb.HealthListResponse, error) {
	s, _ := h.status(ctx, "")
	out := &healthpb.HealthListResponse{Statuses: map[string]*healthpb.HealthCheckResponse{"": {Status: s}}}
	for _, name := range h.g.services {
		out.Statuses[name] = &healthpb.HealthCheckResponse{Status: s}
	}
	return out, nil
}

// Watch sends the status at once and on each change (checked every
// second), until the client or the server's shutdown ends it.
func (h nativeHealth) Watch(req *healthpb.HealthCheckRequest, st grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	last := healthpb.HealthCheckResponse_UNKNOWN
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s, err := h.status(st.Context(), req.GetService())
		if err != nil {
			s = healthpb.HealthCheckResponse_SERVICE_UNKNOWN // Watch reports it instead of failing
		}
		if s != last {
			if err := st.Send(&healthpb.HealthCheckResponse{Status: s}); err != nil {
				return err
			}
			last = s
		}
		select {
		case <-tick.C:
		case <-st.Context().Done():
			return nil
		case <-h.g.core.StreamsDone():
			return grpcstatus.Error(codes.Unavailable, "the server is shutting down")
		}
	}
}

// Listen is the listener to give net/http's server (whose handler is the server):
// it yields the connections net/http serves and hands native gRPC ones
// (cleartext HTTP/2 whose first request is gRPC) to the grpc-go server.
// Shutdown ends the latter's calls.
func (g *Face) Listen(ln net.Listener) net.Listener {
	split := newSplitListener(ln, g.core.Config().ReadHeaderTimeout)
	go func() { _ = g.server.Serve(split.grpc) }()
	return split
}

// Shutdown ends the gRPC face: streams end with UNAVAILABLE (their
// clients resume elsewhere), unary calls in flight finish unless ctx
// ends first (then they are cut, and Shutdown says so). net/http's server
// is shut down beside it.
func (g *Face) Shutdown(ctx context.Context) error {
	g.core.StopStreams()
	done := make(chan struct{})
	go func() {
		g.server.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		g.server.Stop()
		<-done
		return fmt.Errorf("gRPC calls in flight: %w", ctx.Err())
	}
}
