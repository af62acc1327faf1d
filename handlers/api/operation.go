// Package api declares what an operation of wasteflow's interface is: its
// name, credentials, scope, words and types, and the function that
// answers it. The operation table (package handlers) is made of these;
// the faces that serve it (REST, the RPC face) and the contract derived
// from it (package contract: the OpenAPI description, the .proto files)
// read them, so none of them needs another to know an operation.
package api

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"
)

// Security says which credential an operation takes in Authorization.
type Security int

const (
	// AccessToken is the default: Bearer access token.
	AccessToken Security = iota
	// RefreshToken is RequestAccess's: Bearer refresh token.
	RefreshToken
	// NoToken operations authenticate by their body or not at all.
	NoToken
	// OptionalAccessToken: a token is validated when sent (ChangePassword
	// for another account), absent otherwise.
	OptionalAccessToken
	// GroupToken: Bearer group token of a notifier group.
	GroupToken
)

// Operation is one REST operation, declared once. Routes, authentication,
// metrics labels and the OpenAPI description all derive from it.
type Operation struct {
	Package  string // e.g. "svc.core.v1.api"
	Service  string // e.g. "DiscoveryApi"
	Method   string // e.g. "ListProvider"
	Verb     string // http.MethodPost unless the interface names another
	Security Security
	// NoProvider exempts the operation from the provider_id header (only the
	// provider directory).
	NoProvider bool
	Scope      string // required scope; "" for none (access.go assigns it)
	// Org is the kind of organisation the operation serves ("company",
	// "authority"; "" for both): the one rule of access.go.
	Org         string
	Summary     string
	Description string
	Deprecated  bool
	// GRPCOnly: a gRPC method with no REST route (section 8 of the
	// interface); REST answers it as any path it cannot route.
	GRPCOnly bool

	Request, Response reflect.Type
	call              func(ctx context.Context, decode func(any) error) (any, error)
	// download, instead of call, streams a file (ContentType) to the client.
	download    func(ctx context.Context, decode func(any) error) (filename string, write func(io.Writer) error, err error)
	ContentType string
	// stream, instead of call, answers a server-streaming gRPC method:
	// REST is unary (section 6), so such an operation has no REST route.
	stream func(ctx context.Context, req reflect.Value, call Caller, send func(any) error) error
}

// Caller calls another operation of the table (method: "<package>.<Service>/<Method>")
// through the gateway, with the credentials and metadata of the call that
// streams: every check a client's own call meets applies.
type Caller func(ctx context.Context, method string, req, resp any) error

// Call answers a unary operation that is not a download: decode fills
// the request.
func (o *Operation) Call(ctx context.Context, decode func(any) error) (any, error) {
	return o.call(ctx, decode)
}

// IsDownload tells an operation whose answer is a file (Download,
// StreamJSON).
func (o *Operation) IsDownload() bool { return o.download != nil }

// Fetch answers a download: the file's name and the function that writes
// it.
func (o *Operation) Fetch(ctx context.Context, decode func(any) error) (filename string, write func(io.Writer) error, err error) {
	return o.download(ctx, decode)
}

// Stream runs a server stream with its request (addressable).
func (o *Operation) Stream(ctx context.Context, req reflect.Value, call Caller, send func(any) error) error {
	return o.stream(ctx, req, call, send)
}

// MapErrors is o with each error its Call or Fetch returns passed through
// f, which may read the request again with decode.
func MapErrors(o Operation, f func(decode func(any) error, err error) error) Operation {
	if call := o.call; call != nil {
		o.call = func(ctx context.Context, decode func(any) error) (any, error) {
			resp, err := call(ctx, decode)
			return resp, f(decode, err)
		}
	}
	if download := o.download; download != nil {
		o.download = func(ctx context.Context, decode func(any) error) (string, func(io.Writer) error, error) {
			name, write, err := download(ctx, decode)
			return name, write, f(decode, err)
		}
	}
	return o
}

// IdempotencyHeader names a mutation so that a retry has one effect.
const IdempotencyHeader = "Idempotency-Key"

// mutationPrefixes are the method names of operations that change state.
var mutationPrefixes = []string{"Create", "Set", "Submit", "Reply", "Import", "Add", "Update", "Remove", "Cancel", "Sign", "Decline",
	"Request", "Issue", "Revoke", "Register", "Unregister", "Ack", "Send", "Deliver", "Grant", "Merge"}

// Idempotent reports whether the operation takes an Idempotency-Key: every
// POST that changes state, but the logins (IssueRefreshToken, the group's
// Login, ChangePassword), whose failed attempts must count whatever
// becomes of the request (a retried login makes its own session).
func (o *Operation) Idempotent() bool {
	if o.Verb != http.MethodPost || o.download != nil || o.Method == "IssueRefreshToken" || o.Method == "ChangePassword" {
		return false
	}
	for _, p := range mutationPrefixes {
		if strings.HasPrefix(o.Method, p) {
			return true
		}
	}
	return false
}

// PlainPath is an endpoint beside the API operations: no provider_id, no
// token, GET only. It appears in the OpenAPI description too.
type PlainPath struct {
	Path, Summary, Description string
	ContentType                string // application/json when empty
	// Also are the other media types it may answer with.
	Also []string
	// Query are its optional query parameters: name, description.
	Query [][2]string
	// CSP is the Content-Security-Policy of its HTML answers (cspDefault
	// when empty; see handlers/pages.go).
	CSP string
	Get gin.HandlerFunc
	// Post, when set, answers POST too (PostSummary says what it does).
	Post        gin.HandlerFunc
	PostSummary string
}

// Streaming tells a server stream (no REST route).
func (o *Operation) Streaming() bool { return o.stream != nil }

// NoREST tells an operation REST cannot reach: a stream, or a method
// section 8 gives no route.
func (o *Operation) NoREST() bool { return o.stream != nil || o.GRPCOnly }

// ServerStream builds a server-streaming operation (gRPC only): fn gets
// the decoded request, a Caller for the operations it is made of, and
// sends each *Resp; it returns when the client goes away (nil) or with the
// error that ends the stream.
func ServerStream[Req, Resp any](o Operation, fn func(ctx context.Context, req *Req, call Caller, send func(*Resp) error) error) Operation {
	o.Verb = http.MethodPost
	o.Request, o.Response = reflect.TypeFor[Req](), reflect.TypeFor[Resp]()
	o.stream = func(ctx context.Context, req reflect.Value, call Caller, send func(any) error) error {
		return fn(ctx, req.Addr().Interface().(*Req), call, func(r *Resp) error { return send(r) })
	}
	return o
}

// MadeStream is ServerStream for request and response types made at run
// time: fn gets the request (addressable) and sends pointers to resp.
func MadeStream(o Operation, req, resp reflect.Type, fn func(ctx context.Context, req reflect.Value, call Caller, send func(any) error) error) Operation {
	o.Verb = http.MethodPost
	o.Request, o.Response = req, resp
	o.stream = fn
	return o
}

// Path is the operation's REST path: /<package>.<Service>/<Method>.
func (o *Operation) Path() string { return "/" + o.Package + "." + o.Service + "/" + o.Method }

// FullName is the gRPC method name, used in logs and metrics.
func (o *Operation) FullName() string { return o.Package + "." + o.Service + "/" + o.Method }

// Unary builds an operation from a typed handler: the request is decoded
// into a new Req (body for POST, query for GET) and the *Resp encoded.
func Unary[Req, Resp any](o Operation, fn func(ctx context.Context, req *Req) (*Resp, error)) Operation {
	return Made(o, reflect.TypeFor[Req](), reflect.TypeFor[Resp](), func(ctx context.Context, req reflect.Value) (any, error) {
		return fn(ctx, req.Addr().Interface().(*Req))
	})
}

// Made builds an operation from an untyped handler, for request and
// response types made at run time (reflect.StructOf, named with
// codec.NameType): the request is decoded into a new req, fn gets it
// (addressable) and answers a pointer to a resp.
func Made(o Operation, req, resp reflect.Type, fn func(ctx context.Context, req reflect.Value) (any, error)) Operation {
	if o.Verb == "" {
		o.Verb = http.MethodPost
	}
	o.Request, o.Response = req, resp
	o.call = func(ctx context.Context, decode func(any) error) (any, error) {
		r := reflect.New(req)
		if err := decode(r.Interface()); err != nil {
			return nil, err
		}
		return fn(ctx, r.Elem())
	}
	return o
}

// Download builds an operation that streams a file: fn validates the
// request (errors are rendered as usual) and returns a writer function that
// produces the body; errors after the first byte can only be logged.
func Download[Req any](o Operation, contentType string, fn func(ctx context.Context, req *Req) (string, func(io.Writer) error, error)) Operation {
	if o.Verb == "" {
		o.Verb = http.MethodGet
	}
	o.Request = reflect.TypeFor[Req]()
	o.ContentType = contentType
	o.download = func(ctx context.Context, decode func(any) error) (string, func(io.Writer) error, error) {
		req := new(Req)
		if err := decode(req); err != nil {
			return "", nil, err
		}
		return fn(ctx, req)
	}
	return o
}

// StreamJSON builds an operation whose JSON answer (described as Resp) is
// written as a stream by fn's writer, for answers too large to hold twice.
func StreamJSON[Req, Resp any](o Operation, fn func(ctx context.Context, req *Req) (func(io.Writer) error, error)) Operation {
	o = Download(o, "application/json", func(ctx context.Context, req *Req) (string, func(io.Writer) error, error) {
		w, err := fn(ctx, req)
		return "", w, err
	})
	o.Response = reflect.TypeFor[Resp]()
	return o
}
