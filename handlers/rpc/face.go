package rpc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/handlers/contract"
	protofiles "github.com/wasteflow/wasteflow/proto"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The face compiles the committed .proto files (what clients generate
// from is what it speaks), registers every method whose operation the
// server runs with connect-go (gRPC over TLS, gRPC-Web, Connect) and with
// grpc-go (native gRPC in cleartext), beside reflection and
// grpc.health.v1.

// MaxResponseBytes bounds a gRPC response message (the interface's 50 MB
// of Protobuf per response).
const MaxResponseBytes = 50 << 20

// Face is the RPC face of a server (its Core): every operation of the
// committed .proto files over native gRPC, gRPC-Web and the Connect
// protocol.
type Face struct {
	core      Core
	wireCheck func(op string, md protoreflect.MessageDescriptor, value any, wire []byte) error
	mux       map[string]http.Handler // procedure ("/pkg.Service/Method") -> handler
	calls     map[string]*connectCall // the operations' procedures, admitted before connect-go reads their message
	errs      *connect.ErrorWriter
	services  []string
	ops       map[string]*api.Operation // by "<package>.<Service>/<Method>"
	files     *protoregistry.Files      // the descriptors reflection serves
	native    []*grpc.ServiceDesc       // the services as grpc-go's server registers them
	server    *grpc.Server              // grpc-go, for cleartext HTTP/2 (listen.go)
}

// compiledProto compiles the committed .proto files once per process.
var compiledProto = sync.OnceValues(func() ([]protoreflect.FileDescriptor, error) {
	files, err := contract.ReadProtoFiles(protofiles.Files, ".")
	if err != nil {
		return nil, err
	}
	return contract.CompileProto(context.Background(), files)
})

// New is the RPC face of core. wireCheck, when not nil, is shown every
// answer the face writes (a test's oracle).
func New(core Core, wireCheck func(op string, md protoreflect.MessageDescriptor, value any, wire []byte) error) (*Face, error) {
	ops := core.Operations()
	cfg := core.Config()
	fds, err := compiledProto()
	if err != nil {
		return nil, fmt.Errorf("the committed .proto files: %w", err)
	}
	byName := map[string]*api.Operation{}
	for i := range ops {
		op := &ops[i]
		byName[op.Package+"."+op.Service+"/"+op.Method] = op
	}
	files := new(protoregistry.Files)
	g := &Face{core: core, wireCheck: wireCheck, mux: map[string]http.Handler{}, calls: map[string]*connectCall{}, errs: connect.NewErrorWriter(), ops: byName}
	var register func(fd protoreflect.FileDescriptor) error
	register = func(fd protoreflect.FileDescriptor) error {
		if _, err := files.FindFileByPath(fd.Path()); err == nil {
			return nil
		}
		for i := 0; i < fd.Imports().Len(); i++ {
			if err := register(fd.Imports().Get(i).FileDescriptor); err != nil {
				return err
			}
		}
		return files.RegisterFile(fd)
	}
	opts := []connect.HandlerOption{
		connect.WithReadMaxBytes(int(cfg.BodyLimit)),
		connect.WithSendMaxBytes(MaxResponseBytes),
		connect.WithRequestInitializer(func(spec connect.Spec, msg any) error {
			md, ok := spec.Schema.(protoreflect.MethodDescriptor)
			m, isDyn := msg.(*dynamicpb.Message)
			if !ok || !isDyn {
				return fmt.Errorf("grpc: no schema for %s", spec.Procedure)
			}
			*m = *dynamicpb.NewMessage(md.Input())
			return nil
		}),
	}
	// google.rpc's details, so that reflection clients can read them, and
	// grpc.health.v1 as the gRPC project publishes it.
	for _, fd := range []protoreflect.FileDescriptor{errdetails.File_google_rpc_error_details_proto, healthpb.File_grpc_health_v1_health_proto} {
		if err := register(fd); err != nil {
			return nil, err
		}
	}
	for _, fd := range fds {
		if err := register(fd); err != nil {
			return nil, err
		}
		for i := 0; i < fd.Services().Len(); i++ {
			sd := fd.Services().Get(i)
			served := false
			native := &grpc.ServiceDesc{ServiceName: string(sd.FullName()), HandlerType: (*any)(nil), Metadata: fd.Path()}
			for j := 0; j < sd.Methods().Len(); j++ {
				md := sd.Methods().Get(j)
				op := byName[string(sd.FullName())+"/"+string(md.Name())]
				if op == nil {
					continue // this server runs without the operation's service
				}
				procedure := "/" + string(sd.FullName()) + "/" + string(md.Name())
				// one handler per limit a call may be admitted with (the
				// limit bounds a compressed message once decompressed)
				handler := func(limit int64) http.Handler {
					if op.Streaming() { // a stream's request is small (Server.Admit)
						limit = min(limit, api.LargeBody)
					}
					o := slices.Concat(opts, []connect.HandlerOption{connect.WithSchema(md), connect.WithReadMaxBytes(int(limit))})
					if op.Streaming() { // serveCall lifts the timeouts once the request is in
						return connect.NewServerStreamHandler(procedure, g.serverStream(op, md), o...)
					}
					return connect.NewUnaryHandler(procedure, g.unary(op, md), append(o, connect.WithCodec(wireCodec{}), connect.WithCodec(wireJSONCodec{}))...)
				}
				cc := &connectCall{op: op, full: handler(cfg.BodyLimit)}
				if small := core.UnauthenticatedLimit(); small < cfg.BodyLimit && (op.Security == api.NoToken || op.Security == api.OptionalAccessToken) {
					cc.small = handler(small)
				}
				g.calls[procedure] = cc
				if op.Streaming() {
					native.Streams = append(native.Streams, g.nativeStream(op, md))
				} else {
					native.Methods = append(native.Methods, g.nativeMethod(op, md))
				}
				served = true
			}
			if served {
				g.services = append(g.services, string(sd.FullName()))
				g.native = append(g.native, native)
			}
		}
	}
	listed := append(append([]string(nil), g.services...), grpchealth.HealthV1ServiceName)
	reflector := grpcreflect.NewReflector(grpcreflect.NamerFunc(func() []string { return listed }), grpcreflect.WithDescriptorResolver(files))
	// Reflection and health take no token: their messages are held to
	// what a call without one may send.
	unauthenticated := connect.WithReadMaxBytes(int(core.UnauthenticatedLimit()))
	for _, h := range []func(*grpcreflect.Reflector, ...connect.HandlerOption) (string, http.Handler){grpcreflect.NewHandlerV1, grpcreflect.NewHandlerV1Alpha} {
		path, handler := h(reflector, unauthenticated)
		g.addPrefix(path, handler)
	}
	path, handler := grpchealth.NewHandler(healthChecker{g}, unauthenticated)
	g.addPrefix(path, handler)
	g.files = files
	g.server = g.newNativeServer()
	return g, nil
}

// streaming lifts the server's read and write timeouts for a stream,
// which lives as long as its client wants, once its request is in (see
// serveCall).
func streaming(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// serverStream serves a streaming operation over connect-go.
func (g *Face) serverStream(op *api.Operation, md protoreflect.MethodDescriptor) func(context.Context, *connect.Request[dynamicpb.Message], *connect.ServerStream[dynamicpb.Message]) error {
	return func(ctx context.Context, req *connect.Request[dynamicpb.Message], st *connect.ServerStream[dynamicpb.Message]) error {
		body, err := protojson.Marshal(req.Msg)
		if err != nil {
			return connect.NewError(connect.CodeInvalidArgument, err)
		}
		return g.stream(ctx, op, md, req.Header(), req.Peer().Addr, body, func(m proto.Message) error { return st.Send(m.(*dynamicpb.Message)) })
	}
}

// stream runs a streaming operation for either gRPC server, which had it
// admitted (g.admit) before reading its request: the request (body, the
// message as JSON) decoded by the codec (as a REST body would be), a
// Caller that runs the operations it is made of through the gateway with
// the stream's metadata, each message it sends rendered by the codec and
// read into the rpc's response message. Errors are connect errors.
func (g *Face) stream(ctx context.Context, op *api.Operation, md protoreflect.MethodDescriptor, header http.Header, peer string, body []byte, send func(proto.Message) error) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { // the server shutting down ends the stream; the client resumes elsewhere
		select {
		case <-g.core.StreamsDone():
		case <-ctx.Done():
		}
		stop()
	}()
	in := reflect.New(op.Request)
	if err := api.Decode(codec.Unmarshal(body, in.Interface()), in.Interface()); err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	// The operations a stream is made of run as calls of their own (each
	// admitted with the stream's metadata: a token that expired ends the
	// stream), with Go values in and out.
	call := func(ctx context.Context, method string, in, out any) error {
		target := g.ops[method]
		if target == nil {
			return connect.NewError(connect.CodeUnimplemented, fmt.Errorf("%s is not served here", method))
		}
		start := time.Now()
		ctx, info := g.callContext(ctx, target, header.Clone(), peer, nil)
		adm, err := g.core.Admit(ctx, target, header, 0, rpcHeaderBytes(target, header))
		if err != nil {
			return g.fail(ctx, info, target, err, start)
		}
		info.ProviderID, info.Principal = adm.ProviderID, adm.Principal
		a, err := g.core.Invoke(ctx, target, func(v any) error { return api.Decode(assign(v, in), v) }, nil, "")
		if err == nil {
			if a.JSON != nil {
				err = codec.Unmarshal(a.JSON, out)
			} else {
				err = assign(out, a.Value)
			}
		}
		if err != nil {
			return g.fail(ctx, info, target, err, start)
		}
		g.core.LogCall(ctx, info, "grpc", target.Verb, target.Path(), http.StatusOK, status.OK, time.Since(start))
		return nil
	}
	// Each message the stream sends is written straight to the wire, as a
	// unary answer is, and read into the rpc's message.
	sendValue := func(v any) error {
		b, err := g.encode(op, md.Output(), v)
		if err != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("a message does not fit %s: %w", md.Output().FullName(), err))
		}
		m := dynamicpb.NewMessage(md.Output())
		if err := proto.Unmarshal(b, m); err != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("a message does not fit %s: %w", md.Output().FullName(), err))
		}
		return send(m)
	}
	err := op.Stream(ctx, in.Elem(), call, sendValue)
	select {
	case <-g.core.StreamsDone():
		return connect.NewError(connect.CodeUnavailable, errors.New("the server is shutting down: reconnect (and resume from the last cursor received)"))
	default:
	}
	if ctx.Err() != nil {
		return nil // the client went away
	}
	return err
}

// addPrefix registers a handler of a whole service (path "/pkg.Service/").
func (g *Face) addPrefix(prefix string, h http.Handler) { g.mux[prefix] = h }

// IsRPC tells a call of an RPC protocol, not REST: gRPC and gRPC-Web
// (application/grpc…), the Connect protocol's streams
// (application/connect+…), and its unary calls: binary
// (application/proto) or JSON with the protocol's version header (a REST
// body is JSON without it).
func IsRPC(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	ct = strings.ToLower(strings.TrimSpace(ct))
	switch {
	case strings.HasPrefix(ct, "application/grpc"), strings.HasPrefix(ct, "application/connect+"), ct == "application/proto":
		return true
	}
	return r.Header.Get("Connect-Protocol-Version") != ""
}

// connectUnary: a unary call of the Connect protocol, whose body is the
// message itself (no length prefix).
func connectUnary(r *http.Request) bool {
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	return !strings.HasPrefix(ct, "application/grpc") && !strings.HasPrefix(ct, "application/connect+")
}

func (g *Face) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(context.WithValue(r.Context(), originKey{}, callOrigin{host: r.Host, tls: r.TLS != nil}))
	if cc, ok := g.calls[r.URL.Path]; ok {
		g.serveCall(w, r, cc)
		return
	}
	if h, ok := g.mux[r.URL.Path]; ok {
		h.ServeHTTP(w, r)
		return
	}
	if i := strings.LastIndexByte(r.URL.Path, '/'); i > 0 {
		if h, ok := g.mux[r.URL.Path[:i+1]]; ok {
			h.ServeHTTP(w, r)
			return
		}
	}
	_ = g.errs.Write(w, r, connect.NewError(connect.CodeUnimplemented, fmt.Errorf("unknown method %s", r.URL.Path)))
}

// unary serves one operation as a unary method over connect-go.
func (g *Face) unary(op *api.Operation, md protoreflect.MethodDescriptor) func(context.Context, *connect.Request[dynamicpb.Message]) (*connect.Response[wireMessage], error) {
	return func(ctx context.Context, req *connect.Request[dynamicpb.Message]) (*connect.Response[wireMessage], error) {
		body, err := protojson.Marshal(req.Msg)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, err)
		}
		body = withUnknownFields(op, md.Input(), body, req.Msg.GetUnknown())
		adm, _ := ctx.Value(admittedKey{}).(*api.Admission) // serveCall's
		out, answer, err := g.call(ctx, op, md, req.Header(), req.Peer().Addr, body, adm)
		if err != nil {
			return nil, err
		}
		resp := connect.NewResponse(out)
		copyAnswerHeaders(resp.Header(), answer)
		return resp, nil
	}
}

// call runs an admitted unary call for either RPC server: body (the
// request as JSON) decoded as a REST body is, invoke, the answer as a
// wireMessage with the answer's headers, or the connect error (code,
// message, details, metadata); logged and counted as a REST request is.
func (g *Face) call(ctx context.Context, op *api.Operation, md protoreflect.MethodDescriptor, header http.Header, peer string, body []byte, adm *api.Admission) (out *wireMessage, answer http.Header, err error) {
	start := time.Now()
	ctx, info := g.callContext(ctx, op, header, peer, adm)
	code, httpStatus := status.OK, http.StatusOK
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler { //nolint:errorlint // sentinel identity is the contract
				panic(p)
			}
			out, answer = nil, nil
			err = g.fail(ctx, info, op, status.Wrap(fmt.Errorf("panic: %v", p), status.Internal, "internal error"), start)
			return
		}
		if err == nil {
			g.core.LogCall(ctx, info, "grpc", op.Verb, op.Path(), httpStatus, code, time.Since(start))
		}
	}()
	if t := g.core.Config().RequestTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	decode := func(v any) error { return api.Decode(codec.Unmarshal(body, v), v) }
	a, err := g.core.Invoke(ctx, op, decode, body, header.Get(api.IdempotencyHeader))
	if err != nil {
		return nil, nil, g.fail(ctx, info, op, err, start)
	}
	answer = http.Header{api.RequestIDHeader: {info.RequestID}}
	for k, vs := range a.Header {
		answer[k] = vs
	}
	out = &wireMessage{md: md.Output()}
	switch {
	case a.File != nil && op.Response != nil: // an answer written as JSON (StreamJSON): read by protojson when binary is asked for
		data, err := a.File.Bytes(2 * MaxResponseBytes)
		if err != nil {
			return nil, nil, g.fail(ctx, info, op, g.tooLarge(err), start)
		}
		out.json = data
	case a.File != nil: // a file: the rpc's data, file_name, content_type
		data, err := a.File.Bytes(MaxResponseBytes)
		if err != nil {
			return nil, nil, g.fail(ctx, info, op, g.tooLarge(err), start)
		}
		out.dyn = dynamicpb.NewMessage(md.Output())
		fileMessage(out.dyn, a.File, data)
	case a.JSON != nil: // a replayed answer: the REST JSON, read by protojson when binary is asked for
		if len(a.JSON) > 2*MaxResponseBytes {
			return nil, nil, g.fail(ctx, info, op, g.tooLarge(api.ErrTooLarge), start)
		}
		out.json = a.JSON
	default: // the answer's Go value, written straight to the wire
		bin, err := g.encode(op, md.Output(), a.Value)
		if err != nil {
			return nil, nil, g.fail(ctx, info, op, fmt.Errorf("a gRPC answer could not be encoded: %w", err), start)
		}
		out.bin, out.value = bin, a.Value
	}
	return out, answer, nil
}

// tooLarge refuses an answer larger than an RPC answer may be.
func (g *Face) tooLarge(err error) error {
	if errors.Is(err, api.ErrTooLarge) {
		return status.New(status.ResourceExhausted, "the response is larger than %d bytes", MaxResponseBytes)
	}
	return err
}

// encode writes value (a pointer to the operation's response struct) as
// message md (wire.go), shown to the server's WireCheck when it has one.
func (g *Face) encode(op *api.Operation, md protoreflect.MessageDescriptor, value any) ([]byte, error) {
	v := reflect.ValueOf(value)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s answered %T, not a pointer to a struct", op.FullName(), value)
	}
	plan, err := planFor(v.Elem().Type(), md)
	if err != nil {
		return nil, err
	}
	b, err := plan.encode(v.Elem())
	if err == nil && g.wireCheck != nil {
		err = g.wireCheck(op.FullName(), md, value, b)
	}
	return b, err
}

// wireMessage is a unary answer as the codecs need it: the Protocol
// Buffers bytes written from the Go value (or a dynamic message, or the
// REST JSON), and JSON for gRPC-Web's JSON codec.
type wireMessage struct {
	md    protoreflect.MessageDescriptor
	bin   []byte
	value any
	dyn   *dynamicpb.Message
	json  []byte
}

func (w *wireMessage) binary() ([]byte, error) {
	switch {
	case w.bin != nil || w.value != nil:
		return w.bin, nil
	case w.dyn != nil:
		return proto.Marshal(w.dyn)
	}
	m := dynamicpb.NewMessage(w.md)
	if err := protojson.Unmarshal(w.json, m); err != nil {
		return nil, fmt.Errorf("a REST answer does not fit %s: %w", w.md.FullName(), err)
	}
	return proto.Marshal(m)
}

func (w *wireMessage) jsonBytes() ([]byte, error) {
	switch {
	case w.json != nil:
		return w.json, nil
	case w.value != nil:
		return codec.Marshal(w.value)
	case w.dyn != nil:
		return protojson.Marshal(w.dyn)
	}
	return []byte("{}"), nil
}

// wireCodec is connect's "proto" codec for the unary handlers: a
// wireMessage is written as it is; everything else (requests, the
// protocols' own messages) as by proto.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(m any) ([]byte, error) {
	if w, ok := m.(*wireMessage); ok {
		return w.binary()
	}
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("wire codec: %T is no message", m)
	}
	return proto.Marshal(pm)
}

func (wireCodec) Unmarshal(b []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("wire codec: %T is no message", m)
	}
	return proto.Unmarshal(b, pm)
}

// wireJSONCodec is the "json" codec (gRPC-Web's JSON): an answer is the
// REST face's JSON, which protojson readers take as it is.
type wireJSONCodec struct{}

func (wireJSONCodec) Name() string { return "json" }

func (wireJSONCodec) Marshal(m any) ([]byte, error) {
	if w, ok := m.(*wireMessage); ok {
		return w.jsonBytes()
	}
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("json codec: %T is no message", m)
	}
	return protojson.Marshal(pm)
}

func (wireJSONCodec) Unmarshal(b []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("json codec: %T is no message", m)
	}
	return protojson.Unmarshal(b, pm)
}

// answerHeaders are the REST answer's headers a gRPC client gets as
// response metadata.
var answerHeaders = []string{api.RequestIDHeader, "Idempotent-Replay", "Retry-After"}

func copyAnswerHeaders(dst, src http.Header) {
	for _, h := range answerHeaders {
		if v := src.Get(h); v != "" {
			dst.Set(h, v)
		}
	}
}

// grpcHopHeaders are the gRPC transport's own headers: they do not become
// the operation's metadata.
func grpcHopHeader(k string) bool {
	switch k { // the usual spellings first: canonical (HTTP) and lower case (metadata)
	case "Provider_id", "provider_id", "Authorization", "authorization", "Idempotency-Key", "idempotency-key", "User-Agent", "user-agent":
		return false
	}
	k = strings.ToLower(k)
	return k == "content-type" || k == "te" || k == "content-length" || strings.HasPrefix(k, "grpc-") || strings.HasPrefix(k, "connect-") ||
		k == "x-grpc-web" || k == "x-user-agent"
}

// originKey carries the host and transport a gRPC-over-HTTP call came in
// on (connect-go hides the request from the method's handler).
type originKey struct{}

type callOrigin struct {
	host string
	tls  bool
}

// originOf is where a gRPC call came in: what ServeHTTP noted, or, for
// the native server, the :authority pseudo-header and the peer's TLS.
func originOf(ctx context.Context) callOrigin {
	if o, ok := ctx.Value(originKey{}).(callOrigin); ok {
		return o
	}
	var o callOrigin
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if a := md.Get(":authority"); len(a) > 0 {
			o.host = a[0]
		}
	}
	if p, ok := peer.FromContext(ctx); ok && p.AuthInfo != nil {
		o.tls = true
	}
	return o
}

// healthChecker answers grpc.health.v1 as /readyz does: SERVING when the
// database answers and the schema is current.
type healthChecker struct{ g *Face }

func (h healthChecker) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	st, err := nativeHealth(h).status(ctx, req.Service) // one rule for both servers
	if err != nil {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown service %s", req.Service))
	}
	return &grpchealth.CheckResponse{Status: grpchealth.Status(st)}, nil // the same numbers as grpc.health.v1's enum
}

// serves tells a service the face serves.
func (g *Face) serves(name string) bool {
	for _, n := range g.services {
		if n == name {
			return true
		}
	}
	return false
}

// HTTPProtocols are the protocols the server speaks on its port: HTTP/1.1,
// HTTP/2 over TLS, and HTTP/2 in cleartext (h2c, for gRPC without TLS).
func HTTPProtocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// assign sets dst to src's value: pointers to the same type (the Go
// values a stream passes its inner calls), else through the codec.
func assign(dst, src any) error {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Kind() == reflect.Pointer && sv.Kind() == reflect.Pointer && dv.Type() == sv.Type() && !sv.IsNil() {
		dv.Elem().Set(sv.Elem())
		return nil
	}
	b, err := codec.Marshal(src)
	if err != nil {
		return err
	}
	return codec.Unmarshal(b, dst)
}

// fileMessage fills a download's answer: data, file_name, content_type.
func fileMessage(out *dynamicpb.Message, f *api.File, data []byte) {
	fields := out.Descriptor().Fields()
	out.Set(fields.ByName("data"), protoreflect.ValueOfBytes(data))
	out.Set(fields.ByName("content_type"), protoreflect.ValueOfString(f.ContentType))
	if f.Name != "" {
		out.Set(fields.ByName("file_name"), protoreflect.ValueOfString(f.Name))
	}
}
