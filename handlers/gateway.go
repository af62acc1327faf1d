package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Authenticator validates bearer tokens. The gateway calls it for every
// operation that takes a token and puts the principal into the context.
type Authenticator interface {
	Authenticate(ctx context.Context, kind api.Security, providerID, token string) (*reqctx.Principal, error)
}

// refuseTokens is the authenticator until token validation is configured:
// it fails closed.
type refuseTokens struct{}

func (refuseTokens) Authenticate(context.Context, api.Security, string, string) (*reqctx.Principal, error) {
	return nil, status.New(status.Unauthenticated, "token validation is not configured on this server")
}

// maxTokenLength bounds the work spent on a bearer token before parsing.
const maxTokenLength = 8192

// errorBody is the gateway's error shape.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// renderError is the one place an error becomes a response.
func renderError(c *gin.Context, err error) {
	se, msg, header := failure(c.Request.Context(), err)
	for k, vs := range header {
		if k == "Retry-After" && c.Writer.Header().Get(k) != "" {
			continue // said already
		}
		c.Header(k, vs[0])
	}
	details := se.Details
	if details == nil {
		details = []any{}
	}
	c.Set(ctxKeyCode, se.Code)
	body, mErr := json.Marshal(errorBody{Code: int(se.Code), Message: msg, Details: details})
	if mErr != nil {
		body = []byte(`{"code":13,"message":"internal error","details":[]}`)
	}
	c.Data(se.HTTPStatus(), "application/json", body)
	c.Abort()
}

const (
	ctxKeyCode      = "wasteflow.code"
	ctxKeyOperation = "wasteflow.operation"
)

// entry is the first middleware of every request: request id, metadata,
// logger, panic recovery, the access log line and the metrics.
func (s *Server) entry(c *gin.Context) {
	start := time.Now()
	id := api.RequestID(c.GetHeader(api.RequestIDHeader))
	c.Header(api.RequestIDHeader, id)
	base := s.log.With("request_id", id)
	clientIP := c.ClientIP()
	info := &reqctx.Info{
		RequestID: id,
		Metadata:  api.Metadata(c.Request.Header),
		ClientIP:  clientIP,
		UserAgent: c.Request.UserAgent(),
		BaseURL:   baseURL(c, clientIP),
		Logger:    base,
	}
	c.Request = c.Request.WithContext(reqctx.With(c.Request.Context(), info))

	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler { //nolint:errorlint // sentinel identity is the contract
				panic(p)
			}
			renderError(c, status.Wrap(fmt.Errorf("panic: %v", p), status.Internal, "internal error"))
		}
		code := status.OK
		if v, ok := c.Get(ctxKeyCode); ok {
			code = v.(status.Code)
		}
		// The route's pattern, not the path sent: a path may carry a
		// credential (/inspect/{token}) or anything a caller typed.
		s.LogCall(c.Request.Context(), info, "rest", c.Request.Method, c.FullPath(), c.Writer.Status(), code, time.Since(start))
	}()
	c.Next()
}

// handle serves one operation over REST: admission from the headers,
// the body read under the admitted limit (a large one in a slot), invoke,
// the answer or the gateway's error written.
func (s *Server) handle(op api.Operation) gin.HandlerFunc {
	name := op.FullName()
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		info := reqctx.From(ctx)
		info.Operation = name
		info.Logger = info.Logger.With("operation", name)
		if t := s.cfg.RequestTimeout; t > 0 {
			// a database that does not answer (a network swallowing its
			// packets, a pooler whose server is gone) ends as a 503
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t)
			defer cancel()
			c.Request = c.Request.WithContext(ctx)
		}
		limit, err := s.admit(c, op, info)
		if err != nil {
			renderError(c, err)
			return
		}
		var decode func(any) error
		var rawBody []byte
		if op.Verb == http.MethodGet {
			decode = func(v any) error { return api.Decode(codec.UnmarshalQuery(c.Request.URL.Query(), v), v) }
		} else {
			// Bodies over 1 MiB (or of unknown length) are read a few at once.
			if c.Request.ContentLength < 0 || c.Request.ContentLength > api.LargeBody {
				release, err := s.LargeBodySlot(ctx)
				if err != nil {
					renderError(c, err)
					return
				}
				defer release()
			}
			body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
			if err != nil {
				renderError(c, s.UnreadBody(err, limit))
				return
			}
			rawBody = body
			decode = func(v any) error { return api.Decode(codec.Unmarshal(body, v), v) }
		}
		a, err := s.Invoke(ctx, &op, decode, rawBody, c.GetHeader(api.IdempotencyHeader))
		if err != nil {
			renderError(c, err)
			return
		}
		for k, vs := range a.Header {
			c.Header(k, vs[0])
		}
		switch {
		case a.File != nil:
			c.Header("Content-Type", a.File.ContentType)
			if a.File.Name != "" {
				c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.File.Name}))
			}
			c.Status(http.StatusOK)
			if err := a.File.Write(c.Writer); err != nil {
				info.Logger.Error("download interrupted", "error", err)
			}
		case a.JSON != nil:
			c.Data(http.StatusOK, "application/json", a.JSON)
		default:
			out, err := codec.Marshal(a.Value)
			if err != nil {
				renderError(c, fmt.Errorf("encode %s response: %w", name, err))
				return
			}
			c.Data(http.StatusOK, "application/json", out)
		}
	}
}

// admit is the admission of a call, from its headers alone, before its
// body is read, on every face: the body's announced length, the headers'
// size, the provider, the token (the three authentication stages), scope
// and kind of organisation. It answers the most the call may send: the
// body limit, or WASTEFLOW_UNAUTHENTICATED_BODY_LIMIT for a call without a
// valid token (no token: no reason for a large body).
func (s *Server) admit(c *gin.Context, op api.Operation, info *reqctx.Info) (int64, error) {
	adm, err := s.Admit(c.Request.Context(), &op, c.Request.Header, c.Request.ContentLength, headerBytes(c.Request))
	if err != nil {
		return 0, err
	}
	info.ProviderID, info.Principal = adm.ProviderID, adm.Principal
	return adm.Limit, nil
}

// UnauthenticatedLimit is the most a call without a valid token may send.
func (s *Server) UnauthenticatedLimit() int64 {
	if n := s.cfg.UnauthenticatedBodyLimit; n > 0 {
		return min(n, s.cfg.BodyLimit)
	}
	return s.cfg.BodyLimit
}

// UnreadBody is the error of a body (or a gRPC message) that could not be
// read whole: too large, not sent within the read timeout
// (WASTEFLOW_READ_TIMEOUT: net/http's ReadTimeout, and the gRPC face's
// for a message, see rpc.Face.receive), or cut off.
func (s *Server) UnreadBody(err error, limit int64) *status.Error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return api.TooLarge(limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return s.ReadTimedOut()
	}
	return status.Wrap(err, status.InvalidArgument, "could not read the request body")
}

// ReadTimedOut refuses a request whose body did not arrive within the read
// timeout: DEADLINE_EXCEEDED, over HTTP 408 (the client was slow, not a
// server behind this one).
func (s *Server) ReadTimedOut() *status.Error {
	e := status.New(status.DeadlineExceeded, "the request was not read within %s (WASTEFLOW_READ_TIMEOUT)", s.cfg.ReadTimeout)
	e.HTTP = http.StatusRequestTimeout
	return e
}

// checkProvider answers like the facade does when it cannot route a call:
// 501 with the backend's 404 folded into the message.
func (s *Server) checkProvider(ctx context.Context, id string) (string, error) {
	unroutable := func(why string) error {
		return status.New(status.Unimplemented, "Bad gRPC response. HTTP 404 Not Found: %s", why)
	}
	if id == "" {
		return "", unroutable("the provider_id header is missing")
	}
	if len(id) > 128 {
		return "", unroutable("unknown provider_id")
	}
	p, err := s.providers.get(ctx, s.db, id)
	if errors.Is(err, models.ErrNotFound) {
		return "", unroutable(echo.Sprintf("unknown provider_id %q", id))
	}
	if err != nil {
		return "", status.Wrap(err, status.Unavailable, "provider directory unavailable")
	}
	if p.Environment != s.cfg.Environment {
		return "", unroutable(echo.Sprintf("provider_id %q belongs to the %s environment, this is %s", id, p.Environment, s.cfg.Environment))
	}
	return p.ID, nil
}

func (s *Server) authenticate(ctx context.Context, op api.Operation, providerID, header string) (*reqctx.Principal, error) {
	scheme, token, ok := strings.Cut(header, " ")
	if header == "" {
		return nil, status.New(status.Unauthenticated, "this operation needs an Authorization: Bearer token")
	}
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, status.New(status.Unauthenticated, "the Authorization header must be \"Bearer <token>\"")
	}
	kind := op.Security
	if kind == api.OptionalAccessToken {
		kind = api.AccessToken
	}
	if len(token) > maxTokenLength {
		return nil, status.New(status.Unauthenticated, "invalid token: too long")
	}
	p, err := s.auth.Authenticate(ctx, kind, providerID, token)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Server) noRoute(c *gin.Context) {
	if c.Request.URL.Path == "/ui/" && c.Request.Method == http.MethodGet { // people type the console's address with a slash
		c.Redirect(http.StatusMovedPermanently, "/ui")
		return
	}
	renderError(c, status.New(status.NotFound, "Not Found"))
}

func (s *Server) noMethod(c *gin.Context) {
	renderError(c, status.New(status.Unimplemented, "Method Not Allowed"))
}

// providerCache keeps the providers the gateway routes to for a few
// seconds: every call names one, and the directory changes only through
// bootstrap and admin commands, whose changes reach a running server within
// providerTTL. Unknown ids are not remembered (no memory for made-up ids).
type providerCache struct {
	mu      sync.Mutex
	entries map[string]cachedProvider
}

type cachedProvider struct {
	p       *models.Provider
	expires time.Time
}

const providerTTL = 10 * time.Second

func (c *providerCache) get(ctx context.Context, db *models.DB, id string) (*models.Provider, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.p, nil
	}
	p, err := models.GetProvider(ctx, db, id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) > 10_000 {
		c.entries = map[string]cachedProvider{}
	}
	c.entries[id] = cachedProvider{p: p, expires: now.Add(providerTTL)}
	c.mu.Unlock()
	return p, nil
}

// maxHeaderBytes bounds the request headers the gateway takes (the server
// reads up to 4 MiB so that what lies between gets the error shape).
const maxHeaderBytes = 1 << 20

func headerBytes(r *http.Request) int {
	n := len(r.RequestURI)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// LargeBodySlot waits up to 2 s for one of the large-body slots.
func (s *Server) LargeBodySlot(ctx context.Context) (func(), error) {
	if s.largeBodies == nil {
		return func() {}, nil
	}
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case s.largeBodies <- struct{}{}:
		return func() { <-s.largeBodies }, nil
	case <-t.C:
		return nil, status.New(status.Unavailable, "too many large requests at once (WASTEFLOW_LARGE_BODY_SLOTS); retry shortly").RetryAfter(time.Second)
	case <-ctx.Done():
		return nil, status.New(status.Unavailable, "the request ended while waiting to be read")
	}
}

// linkBase is the address a link to this server starts with when it
// leaves the request (an inspection link printed on paper):
// WASTEFLOW_PUBLIC_URL. Without it (never in production: serve refuses
// to start), the address the client reached (baseURL) when its host is
// this machine as a developer reaches it (localhost, a loopback or
// private IP address, or WASTEFLOW_ADDR's host), else WASTEFLOW_ADDR: a
// forged Host header never puts a token under another name.
func (s *Server) linkBase(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	listenHost, port, _ := net.SplitHostPort(s.cfg.Addr)
	scheme := "http"
	if s.cfg.TLSCertFile != "" {
		scheme = "https"
	}
	if base := reqctx.From(ctx).BaseURL; base != "" {
		if u, err := url.Parse(base); err == nil {
			h := u.Hostname()
			ip, ipErr := netip.ParseAddr(h)
			if strings.EqualFold(h, "localhost") || (h == listenHost && h != "") ||
				(ipErr == nil && ip.Zone() == "" && (ip.IsLoopback() || ip.IsPrivate())) {
				return base
			}
		}
	}
	if ip, err := netip.ParseAddr(listenHost); listenHost == "" || (err == nil && ip.IsUnspecified()) {
		listenHost = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(listenHost, port)
}

// baseURL is the server's address as the client reached it: the request's
// scheme and host, or those a trusted proxy forwarded (X-Forwarded-Proto,
// X-Forwarded-Host) when gin took the client's address (clientIP) from it.
func baseURL(c *gin.Context, clientIP string) string {
	scheme, host := "http", c.Request.Host
	if c.Request.TLS != nil {
		scheme = "https"
	}
	if clientIP != c.RemoteIP() { // a trusted proxy forwarded the request
		if p := strings.ToLower(c.GetHeader("X-Forwarded-Proto")); p == "https" || p == "http" {
			scheme = p
		}
		if h := c.GetHeader("X-Forwarded-Host"); h != "" && !strings.ContainsAny(h, "/@ ,") {
			host = h
		}
	}
	return scheme + "://" + host
}
