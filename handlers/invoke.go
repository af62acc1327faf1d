package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// One call path for every face (issue 48): a call is admitted from its
// headers before its message is read (admission), then invoked with its
// message (invoke), which answers a Go value, a recorded answer's JSON or
// a file, or a *status.Error. REST (Server.handle) and the RPC face
// (rpc.Face.call) are adapters around the two: they read the message
// under the admitted limit and write the answer in their own shape.

// Admit admits op's call from its headers alone: the announced
// length of its message, the headers' size, the provider, the token (the
// three authentication stages), scope and kind of organisation. It
// answers who calls and the most the call may send: the body limit, or
// WASTEFLOW_UNAUTHENTICATED_BODY_LIMIT for a call without a valid token
// (no token: no reason for a large body).
func (s *Server) Admit(ctx context.Context, op *api.Operation, h http.Header, length int64, headerSize int) (*api.Admission, error) {
	limit := s.cfg.BodyLimit
	if op.Security == api.NoToken {
		limit = s.UnauthenticatedLimit()
	}
	if op.Streaming() { // a stream's request is small: it never takes a large-body slot (for the stream's life)
		limit = min(limit, api.LargeBody)
	}
	if length > limit {
		return nil, api.TooLarge(limit)
	}
	if headerSize > maxHeaderBytes {
		e := status.New(status.ResourceExhausted, "request headers of %d bytes, more than the %d allowed", headerSize, maxHeaderBytes)
		e.HTTP = http.StatusRequestHeaderFieldsTooLarge
		return nil, e
	}
	adm := &api.Admission{}
	if !op.NoProvider {
		pid, err := s.checkProvider(ctx, h.Get("provider_id"))
		if err != nil {
			return nil, err
		}
		adm.ProviderID = pid
	}
	authz := h.Get("Authorization")
	if op.Security != api.NoToken && (op.Security != api.OptionalAccessToken || authz != "") {
		p, err := s.authenticate(ctx, *op, adm.ProviderID, authz)
		if err != nil {
			return nil, err
		}
		if err := checkAccess(op, p); err != nil {
			return nil, err
		}
		adm.Principal = p
	}
	if adm.Principal == nil { // a password change without a token, say
		limit = s.UnauthenticatedLimit()
		if length > limit {
			return nil, api.TooLarge(limit)
		}
	}
	adm.Limit = limit
	return adm, nil
}

// Invoke runs an admitted call of op (ctx carries its reqctx.Info, filled
// with the admission): the message through decode (body is its bytes as
// JSON, for an Idempotency-Key's hash), the operation, once per key. It
// never writes a response.
func (s *Server) Invoke(ctx context.Context, op *api.Operation, decode func(any) error, body []byte, key string) (*api.Answer, error) {
	if key != "" && op.Idempotent() {
		return s.idempotently(ctx, op, key, body, decode)
	}
	if op.IsDownload() {
		name, write, err := op.Fetch(ctx, decode)
		if err != nil {
			return nil, err
		}
		return &api.Answer{File: &api.File{Name: name, ContentType: op.ContentType, Write: write}}, nil
	}
	v, err := op.Call(ctx, decode)
	if err != nil {
		return nil, err
	}
	return &api.Answer{Value: v}, nil
}

// idempotently runs a mutation with an Idempotency-Key in one transaction
// with the key: the first request with a key claims it, runs, and records
// its answer in the transaction of its effect; a later one with the same
// key and the same request gets that answer again (Idempotent-Replay:
// true); the same key with another request is refused (409, code 6). A
// request that fails records nothing (nothing happened), so its retry runs
// again. Keys are scoped to the caller's provider, organisation and session
// (or group) and kept for WASTEFLOW_IDEMPOTENCY_RETENTION.
func (s *Server) idempotently(ctx context.Context, op *api.Operation, key string, body []byte, decode func(any) error) (*api.Answer, error) {
	info := reqctx.From(ctx)
	if len(key) > 200 {
		return nil, status.Invalid(api.IdempotencyHeader, "at most 200 characters")
	}
	// A key is the caller's own: its organisation's, and within it the
	// session's (a login and the tokens refreshed from it) or the group's,
	// so another account or session reusing a key never receives an answer
	// that was not its own (an access token, a secret shown once).
	org, scoped := "", key
	if p := info.Principal; p != nil {
		org, scoped = p.OrganisationID, p.Subject+"/"+p.SessionID+"/"+key
	}
	sum := sha256.Sum256(append([]byte(op.FullName()+"\n"), body...))
	hash := hex.EncodeToString(sum[:])
	now := time.Now().UTC()
	replay, out, err := models.RunIdempotent(ctx, s.db, &models.IdempotencyKey{ProviderID: info.ProviderID, OrganisationID: org, Key: scoped,
		Operation: op.FullName(), RequestHash: hash, CreatedAt: now}, s.cfg.IdempotencyRetention,
		func(ctx context.Context) ([]byte, error) {
			resp, err := op.Call(ctx, decode)
			if err != nil {
				return nil, err
			}
			return codec.Marshal(resp)
		})
	switch {
	case replay != nil:
		switch {
		case replay.RequestHash != hash:
			return nil, status.New(status.AlreadyExists, "Idempotency-Key %q was used for another request (%s) within its retention: use a new key", key, replay.Operation).
				WithDetails(status.Info("IDEMPOTENCY_KEY_REUSED", map[string]string{"operation": replay.Operation}))
		case replay.Status == 0:
			return nil, status.New(status.Aborted, "a request with Idempotency-Key %q is still running", key)
		}
		return &api.Answer{JSON: replay.Body, Header: http.Header{"Idempotent-Replay": {"true"}}}, nil
	case err != nil:
		return nil, err
	}
	return &api.Answer{JSON: out}, nil
}

// failure is an error as every face answers it: its status (a database
// that cannot be reached is UNAVAILABLE, retry after a second), the
// message the client reads (an internal error's cause stays in the log,
// the client gets the request id to quote) and the headers that go with
// it (WWW-Authenticate, Retry-After on every 503 and 504).
func failure(ctx context.Context, err error) (se *status.Error, msg string, header http.Header) {
	info := reqctx.From(ctx)
	se = status.From(err)
	if (se.Code == status.Internal || se.Code == status.Unknown) && models.IsUnavailable(err) {
		// The database's failure, not the request's: the client may retry.
		info.Logger.Warn("database unavailable", "error", err)
		se = status.Wrap(err, status.Unavailable, "the database is not reachable right now; retry the request").RetryAfter(time.Second)
	}
	msg = se.Message
	if se.Code == status.Internal || se.Code == status.Unknown || se.Code == status.DataLoss {
		info.Logger.Error("internal error", "error", err)
		msg = fmt.Sprintf("internal error; quote request id %s when reporting it", info.RequestID)
	}
	header = http.Header{}
	if se.Code == status.Unauthenticated {
		header.Set("WWW-Authenticate", `Bearer realm="wasteflow"`)
	}
	for k, v := range se.Headers {
		header.Set(k, v)
	}
	if st := se.HTTPStatus(); (st == http.StatusServiceUnavailable || st == http.StatusGatewayTimeout) && header.Get("Retry-After") == "" {
		header.Set("Retry-After", "1")
	}
	return se, msg, header
}

// ClientIP is the caller's address as gin reads a REST request's: the
// peer's, or, when the peer is a trusted proxy (WASTEFLOW_TRUSTED_PROXIES),
// the last address of X-Forwarded-For that is not one (else X-Real-IP);
// proxied says it came from a proxy.
func (s *Server) ClientIP(peer string, h http.Header) (ip string, proxied bool) {
	host, _, err := net.SplitHostPort(strings.TrimSpace(peer))
	if err != nil {
		host = peer
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !s.trusted(addr) {
		return host, false
	}
	if xff := h.Get("X-Forwarded-For"); xff != "" {
		items := strings.Split(xff, ",")
		for i := len(items) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(items[i]))
			if err != nil {
				break
			}
			if i == 0 || !s.trusted(a) {
				return strings.TrimSpace(items[i]), true
			}
		}
	}
	if real := strings.TrimSpace(h.Get("X-Real-IP")); real != "" {
		if _, err := netip.ParseAddr(real); err == nil {
			return real, true
		}
	}
	return host, false
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.trustedProxies {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// LogCall writes a call's access log line and counts it, for every face:
// the request id, the operation, the face, the provider, the route (its
// pattern, never the path sent: a path may carry a credential or anything
// a caller typed), the status and the code.
func (s *Server) LogCall(ctx context.Context, info *reqctx.Info, transport, method, path string, httpStatus int, code status.Code, elapsed time.Duration) {
	op := info.Operation
	if op == "" {
		op = "unmatched" // one label for every unknown path keeps the metric bounded
	}
	s.metrics.observe(op, code, httpStatus, elapsed)
	level := slog.LevelInfo
	if httpStatus >= 500 && code != status.Unimplemented {
		level = slog.LevelError
	}
	if path == "" {
		path = "unmatched"
	}
	s.log.Log(ctx, level, "request", "request_id", info.RequestID, "operation", op, "transport", transport, "provider", info.ProviderID,
		"method", method, "path", path, "status", httpStatus, "code", code.String(), "duration_ms", float64(elapsed.Microseconds())/1000)
}

// trustedPrefixes reads WASTEFLOW_TRUSTED_PROXIES as gin does: addresses
// and CIDR prefixes.
func trustedPrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
