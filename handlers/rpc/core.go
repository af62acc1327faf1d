// Package rpc is wasteflow's RPC face: every operation of the committed
// .proto files (proto/, derived from the operation table) as a native
// gRPC, a gRPC-Web and a Connect method on the server's own port. It is
// an adapter, as REST is: a call is admitted from its metadata before its
// message is read (Core.Admit), its message is read under the admitted
// limit and decoded as a REST body is, the operation is invoked
// (Core.Invoke), and the answer's Go value is written straight to the
// wire (wire.go); an error becomes the RPC status with its google.rpc
// details in one step. Native gRPC in cleartext is served by grpc-go
// (Listen splits the connections), everything else by connect-go behind
// net/http (ServeHTTP).
package rpc

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Core is the server a face serves (package handlers' Server): the two
// steps of every call, and what an adapter needs around them.
type Core interface {
	// Operations is the operation table.
	Operations() []api.Operation
	Config() *configs.Config
	// UnauthenticatedLimit is the most a call without a valid token may
	// send.
	UnauthenticatedLimit() int64
	// Admit admits op's call from its headers alone (the announced
	// length of its message, the headers' size).
	Admit(ctx context.Context, op *api.Operation, h http.Header, length int64, headerBytes int) (*api.Admission, error)
	// Invoke runs an admitted call: the message through decode (body is
	// its JSON, for an Idempotency-Key's hash), the operation, once per
	// key. It never writes a response.
	Invoke(ctx context.Context, op *api.Operation, decode func(any) error, body []byte, key string) (*api.Answer, error)
	// ClientIP is the caller's address (a trusted proxy's forwarded one).
	ClientIP(peer string, h http.Header) (ip string, proxied bool)
	Logger() *slog.Logger
	// LogCall writes a call's access log line and counts it.
	LogCall(ctx context.Context, info *reqctx.Info, transport, method, path string, httpStatus int, code status.Code, elapsed time.Duration)
	// Failure is an error as every face answers it: its status, the
	// message the client reads and the headers that go with it.
	Failure(ctx context.Context, err error) (*status.Error, string, http.Header)
	// UnreadBody is the error of a message that could not be read whole.
	UnreadBody(err error, limit int64) *status.Error
	// ReadTimedOut refuses a message not read within the read timeout.
	ReadTimedOut() *status.Error
	// LargeBodySlot waits for a large-body slot; the function gives it
	// back.
	LargeBodySlot(ctx context.Context) (func(), error)
	// StreamsDone closes when the server shuts down; StopStreams closes
	// it.
	StreamsDone() <-chan struct{}
	StopStreams()
	// Ready answers nil when the server can serve (the database answers,
	// the schema is current).
	Ready(ctx context.Context) error
}
