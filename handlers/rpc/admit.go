package rpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Admission before the message: a gRPC call is admitted from its headers
// (metadata) before a byte of its message is read, as a REST request is
// from its headers (Server.Admit: provider, token, scope and kind of
// organisation, and the most the call may send: the body limit, or the
// unauthenticated limit without a valid token). Then the message's 5-byte
// length prefix is read alone: a message over the admitted limit is
// refused (RESOURCE_EXHAUSTED) before its body is read, and one over
// 1 MiB waits for a large-body slot (UNAVAILABLE after 2 s) as a large
// REST body does. Only then is the message read, by grpc-go's transport
// (receive) or by connect-go (serveCall), and the call dispatched with
// its admission.

// admit admits op's call from its metadata (Server.Admit), before
// its message is read. A refusal is logged and counted as every answer
// is, and comes back as the connect error; a stream's admission is its
// log line. The request id it gives the call goes into header for the
// call's later steps.
func (g *Face) admit(ctx context.Context, op *api.Operation, header http.Header, peer string) (*api.Admission, error) {
	start := time.Now()
	ctx, info := g.callContext(ctx, op, header, peer, nil)
	adm, err := g.core.Admit(ctx, op, header, 0, rpcHeaderBytes(op, header))
	if err != nil {
		return nil, g.fail(ctx, info, op, err, start)
	}
	info.ProviderID, info.Principal = adm.ProviderID, adm.Principal
	adm.Info = info
	if op.Streaming() {
		g.core.LogCall(ctx, info, "grpc", op.Verb, op.Path(), http.StatusOK, status.OK, time.Since(start))
	}
	return adm, nil
}

// refuse answers an admitted call whose message was refused (too large,
// no large-body slot, too slow), logged and counted as every answer is.
func (g *Face) refuse(ctx context.Context, op *api.Operation, header http.Header, peer string, adm *api.Admission, err error) error {
	ctx, info := g.callContext(ctx, op, header, peer, adm)
	return g.fail(ctx, info, op, err, time.Now())
}

// fail is a call's error as its face answers it (rpcError), logged and
// counted.
func (g *Face) fail(ctx context.Context, info *reqctx.Info, op *api.Operation, err error, start time.Time) error {
	ce, se := g.rpcError(ctx, err)
	g.core.LogCall(ctx, info, "grpc", op.Verb, op.Path(), se.HTTPStatus(), se.Code, time.Since(start))
	return ce
}

// rpcHeaderBytes is the size of a call's metadata as headerBytes counts a
// REST request's.
func rpcHeaderBytes(op *api.Operation, h http.Header) int {
	n := len(op.Path())
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// messageSize checks a message's length prefix against the admitted limit
// and takes a large-body slot for a message over 1 MiB; the gateway's
// error (*status.Error) when it is refused.
func (g *Face) messageSize(ctx context.Context, prefix [5]byte, adm *api.Admission) (release func(), err error) {
	n := int64(binary.BigEndian.Uint32(prefix[1:]))
	if n > adm.Limit {
		return nil, api.TooLarge(adm.Limit)
	}
	if n > api.LargeBody {
		return g.core.LargeBodySlot(ctx)
	}
	return func() {}, nil
}

// admittedKey hands serveCall's admission to the connect-go handler's
// function (g.unary, g.serverStream) through the request's context.
type admittedKey struct{}

// connectCall is an operation's procedure on connect-go (gRPC-Web, and
// gRPC over TLS): its handler, and one whose read limit is the
// unauthenticated one for operations that may be called without a token.
type connectCall struct {
	op    *api.Operation
	full  http.Handler
	small http.Handler
}

// serveCall admits a call before connect-go reads its message: admission
// from the headers, the message's length prefix against the admitted
// limit (and a large-body slot), the body held to that limit, then the
// handler made for it.
func (g *Face) serveCall(w http.ResponseWriter, r *http.Request, cc *connectCall) {
	ctx := r.Context()
	refuse := func(err error) {
		if r.ProtoMajor == 1 {
			w.Header().Set("Connection", "close") // the unread message is not waited for
		}
		_ = g.errs.Write(w, r, err)
	}
	adm, err := g.admit(ctx, cc.op, r.Header, r.RemoteAddr)
	if err != nil {
		refuse(err)
		return
	}
	// gRPC and gRPC-Web bodies are length-prefixed messages; what does not
	// start with a whole prefix is left to connect-go to refuse. A unary
	// Connect body is the message alone: its length is the request's
	// (the admitted limit when it does not say), held to the same rules.
	var prefix [5]byte
	var body io.Reader = r.Body
	if connectUnary(r) {
		size := r.ContentLength
		if size < 0 || size > adm.Limit {
			size = min(max(size, adm.Limit), math.MaxUint32)
		}
		binary.BigEndian.PutUint32(prefix[1:], uint32(size))
		err = nil
	} else {
		var n int
		n, err = io.ReadFull(r.Body, prefix[:])
		body = io.MultiReader(bytes.NewReader(prefix[:n]), r.Body)
	}
	if err == nil {
		release, err := g.messageSize(ctx, prefix, adm)
		if err != nil {
			refuse(g.refuse(ctx, cc.op, r.Header, r.RemoteAddr, adm, err))
			return
		}
		defer release()
	}
	// the message, and the prefix of a second one connect-go refuses
	r.Body = http.MaxBytesReader(w, readCloser{body, r.Body}, adm.Limit+2*int64(len(prefix)))
	if cc.op.Streaming() {
		// A stream's request (at most 1 MiB, no slot: Server.Admit) is
		// read whole, to the end of the client's side, under the server's
		// read timeout as a unary call's message is; only then are the
		// timeouts lifted for the stream's life. A request trickled in, or
		// a client that never ends its side, is refused as a REST body
		// would be.
		msg, err := io.ReadAll(r.Body)
		if err != nil {
			refuse(g.refuse(ctx, cc.op, r.Header, r.RemoteAddr, adm, g.core.UnreadBody(err, adm.Limit)))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(msg))
		streaming(w)
	}
	h := cc.full
	if cc.small != nil && adm.Limit < g.core.Config().BodyLimit {
		h = cc.small
	}
	h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, admittedKey{}, adm)))
}

type readCloser struct {
	io.Reader
	io.Closer
}

// transportStream is how grpc-go's transport stream (which
// grpc.ServerTransportStreamFromContext gives a method's handler) reads a
// call's message: its length prefix apart from its body, which is what
// lets the face refuse a message by its length before reading it (grpc-go
// itself knows one limit per server: grpc.MaxRecvMsgSize, here the
// unauthenticated limit, for reflection and health).
type transportStream interface {
	ReadMessageHeader(header []byte) error
	Read(n int) (mem.BufferSlice, error)
}

// receive reads an admitted native call's one request message, held to
// the admitted limit before its body is read, and within the server's read
// timeout (WASTEFLOW_READ_TIMEOUT, REST's http.Server.ReadTimeout): grpc-go
// has no read deadline of its own and keepalive keeps a connection, so a
// call that announced a large message and stalls (or never ends its side)
// would hold its large-body slot for ever. When the timeout passes, the
// slot goes back at once and the call is refused (DEADLINE_EXCEEDED, as
// REST's 408); the read left behind ends when grpc-go ends the call's
// stream. A refusal of the gateway's (a *status.Error: too large, no slot,
// too slow) goes back through the gateway (g.refuse); anything else is the
// transport's, a gRPC status already. The release returned gives the slot
// back; it and the timeout give it back once between them.
func (g *Face) receive(ctx context.Context, adm *api.Admission) (rawRequest, func(), error) {
	ts, ok := grpc.ServerTransportStreamFromContext(ctx).(transportStream)
	if !ok { // a grpc-go whose transport reads otherwise: refuse rather than read unbounded
		return nil, nil, grpcstatus.Error(codes.Internal, "the gRPC transport cannot read a message's length first")
	}
	timeout := g.core.Config().ReadTimeout
	slot := &heldSlot{}
	if timeout <= 0 { // no read timeout, as net/http's
		in, err := g.readMessage(ctx, ts, adm, slot)
		if err != nil {
			slot.drop()
			return nil, nil, err
		}
		return in, slot.drop, nil
	}
	type read struct {
		in  rawRequest
		err error
	}
	done := make(chan read, 1)
	go func() {
		in, err := g.readMessage(ctx, ts, adm, slot)
		done <- read{in, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			slot.drop()
			return nil, nil, r.err
		}
		return r.in, slot.drop, nil
	case <-t.C:
		slot.drop()
		return nil, nil, g.core.ReadTimedOut()
	}
}

// readMessage reads the message for receive: its length prefix, held to
// the admitted limit (and a large-body slot, kept in slot), its body, then
// the end of the client's side.
func (g *Face) readMessage(ctx context.Context, ts transportStream, adm *api.Admission, slot *heldSlot) (rawRequest, error) {
	var prefix [5]byte
	if err := ts.ReadMessageHeader(prefix[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, grpcstatus.Error(codes.Internal, "cardinality violation: received no request message from non-client-streaming RPC")
		}
		return nil, transportError(err)
	}
	if prefix[0] != 0 { // no decompressor is installed: grpc-go refused a grpc-encoding already
		return nil, grpcstatus.Error(codes.Internal, "grpc: compressed flag set with identity or empty encoding")
	}
	release, err := g.messageSize(ctx, prefix, adm)
	if err != nil {
		return nil, err
	}
	if !slot.hold(release) {
		return nil, grpcstatus.Error(codes.DeadlineExceeded, "the message was not read in time") // receive answered already
	}
	data, err := ts.Read(int(binary.BigEndian.Uint32(prefix[1:])))
	if err != nil {
		return nil, transportError(err)
	}
	in := rawRequest(data.Materialize())
	data.Free()
	// one message, then the end of the client's side (as grpc-go checks)
	if err := ts.ReadMessageHeader(prefix[:]); !errors.Is(err, io.EOF) {
		if err == nil {
			err = grpcstatus.Error(codes.Internal, "cardinality violation: received multiple request messages for non-client-streaming RPC")
		}
		return nil, transportError(err)
	}
	return in, nil
}

// heldSlot is a call's large-body slot (if it took one), given back once:
// by whichever of the call and its read timeout comes first.
type heldSlot struct {
	mu      sync.Mutex
	release func()
	dropped bool
}

// hold keeps release; false (and the slot given back) when the slot was
// dropped already.
func (h *heldSlot) hold(release func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped {
		release()
		return false
	}
	h.release = release
	return true
}

// drop gives the slot back, if one is held, and ends holding.
func (h *heldSlot) drop() {
	h.mu.Lock()
	release := h.release
	h.release, h.dropped = nil, true
	h.mu.Unlock()
	if release != nil {
		release()
	}
}

// transportError is a read's error as the call's status.
func transportError(err error) error {
	if _, ok := grpcstatus.FromError(err); ok {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return grpcstatus.Error(codes.Internal, io.ErrUnexpectedEOF.Error())
	}
	return grpcstatus.Error(codes.Unavailable, err.Error())
}

// gatewayRefusal tells the gateway's refusal of a message from the
// transport's errors.
func gatewayRefusal(err error) bool {
	var se *status.Error
	return errors.As(err, &se)
}
