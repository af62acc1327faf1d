// Package reqctx carries what the gateway learns about a request (its id,
// provider, caller, forwarded metadata, logger) down to the workflows.
package reqctx

import (
	"context"
	"log/slog"
)

type key int

const infoKey key = 0

// Principal is the authenticated caller of a request.
type Principal struct {
	Subject          string // account id, or group id for group tokens
	AccountID        int64  // 0 for group tokens
	GroupID          string // set for group tokens only
	TokenID          string // jti of the presented token
	Generation       int    // refresh tokens: generation within the session
	ProviderID       string
	OrganisationID   string
	OrganisationKind string // company or authority
	Scopes           []string
	SessionID        string
}

// HasScope reports whether the principal holds scope.
func (p *Principal) HasScope(scope string) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Info is the per-request state.
type Info struct {
	RequestID  string
	Operation  string
	ProviderID string
	// Metadata are the forwarded request headers, lower-cased names, after
	// the gateway's deny-list (the gRPC metadata of the facade).
	Metadata  map[string][]string
	ClientIP  string // the peer, or X-Forwarded-For from a trusted proxy
	UserAgent string
	// BaseURL is the server's address as this client reached it
	// ("https://host:port"; the scheme and host a trusted proxy forwarded).
	BaseURL   string
	Principal *Principal
	Logger    *slog.Logger
}

// With returns ctx carrying info.
func With(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, infoKey, info)
}

// From returns the request info of ctx, or an empty one.
func From(ctx context.Context) *Info {
	if info, ok := ctx.Value(infoKey).(*Info); ok {
		return info
	}
	return &Info{Logger: slog.Default(), Metadata: map[string][]string{}}
}

// Logger returns the request's logger (request id and operation attached).
func Logger(ctx context.Context) *slog.Logger {
	if l := From(ctx).Logger; l != nil {
		return l
	}
	return slog.Default()
}

// Detach is ctx without its cancellation but with its deadline: work that
// must not stop because one client went away (a read shared with others,
// bookkeeping after an answer) still ends when the request's time is up,
// so a database that does not answer cannot hold it longer.
func Detach(ctx context.Context) (context.Context, context.CancelFunc) {
	d := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(d, dl)
	}
	return d, func() {}
}
