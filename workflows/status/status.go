// Package status is wasteflow's one error type: a gRPC-style status code, a
// public message, structured details and a private cause. Workflows and
// handlers return it; exactly one place (the gateway) renders it.
package status

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Code is a gRPC status code. The numbers are the wire contract.
type Code int

const (
	OK                 Code = 0
	Canceled           Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE(%d)", int(c))
}

// HTTPStatus maps a code to the HTTP status grpc-gateway v2 uses. It is the
// only such mapping in the server.
func HTTPStatus(c Code) int {
	switch c {
	case OK:
		return http.StatusOK
	case Canceled:
		return 499 // client closed request (nginx convention, as grpc-gateway)
	case InvalidArgument, FailedPrecondition, OutOfRange:
		return http.StatusBadRequest
	case DeadlineExceeded:
		return http.StatusGatewayTimeout
	case NotFound:
		return http.StatusNotFound
	case AlreadyExists, Aborted:
		return http.StatusConflict
	case PermissionDenied:
		return http.StatusForbidden
	case ResourceExhausted:
		return http.StatusTooManyRequests
	case Unimplemented:
		return http.StatusNotImplemented
	case Unavailable:
		return http.StatusServiceUnavailable
	case Unauthenticated:
		return http.StatusUnauthorized
	default: // Unknown, Internal, DataLoss and anything unassigned
		return http.StatusInternalServerError
	}
}

// Error is a status with a public message. Cause is never shown to clients;
// it is logged.
type Error struct {
	Code    Code
	Message string
	Details []any
	// HTTP overrides HTTPStatus(Code) where the gateway itself answers with
	// another status for the same code (413 for an oversized body is code 8).
	HTTP int
	// Headers are set on the response (Retry-After with code 8).
	Headers map[string]string
	Cause   error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// HTTPStatus is the status the response carries.
func (e *Error) HTTPStatus() int {
	if e.HTTP != 0 {
		return e.HTTP
	}
	return HTTPStatus(e.Code)
}

// New returns an error with a public message. A value the client sent is
// quoted with %q: the message repeats at most echo.Max characters of it.
func New(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: echo.Sprintf(format, args...)}
}

// Wrap attaches a private cause to a public message (values as for New).
func Wrap(cause error, c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: echo.Sprintf(format, args...), Cause: cause}
}

// RetryAfter sets the Retry-After header (whole seconds, at least 1).
func (e *Error) RetryAfter(d time.Duration) *Error {
	secs := int(d.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	e.Headers["Retry-After"] = strconv.Itoa(secs)
	return e
}

// WithDetails appends detail messages and returns e.
func (e *Error) WithDetails(d ...any) *Error {
	e.Details = append(e.Details, d...)
	return e
}

// From converts any error to *Error. An error that is not a status is an
// internal failure: the client sees a generic message, the log sees the cause.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return &Error{Code: Internal, Message: "internal error", Cause: err}
}

// CodeOf returns the code of err (OK for nil).
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	return From(err).Code
}

// FieldViolation is one entry of google.rpc.BadRequest.
type FieldViolation struct {
	Field       string `json:"field"`
	Description string `json:"description"`
}

// BadRequest is google.rpc.BadRequest as the gateway renders it in details.
type BadRequest struct {
	Type            string           `json:"@type"`
	FieldViolations []FieldViolation `json:"fieldViolations"`
}

// ErrorInfo is google.rpc.ErrorInfo: a machine-readable reason.
type ErrorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}

// Domain is the ErrorInfo domain of every reason wasteflow emits.
const Domain = "wasteflow"

// Invalid is a code-3 error naming one field. Neither names a value the
// client sent beyond echo.Max characters (quote it with echo.Quote).
func Invalid(field, description string) *Error {
	return New(InvalidArgument, "invalid value for field %q: %s", field, description).
		WithDetails(BadRequestOf(FieldViolation{Field: field, Description: description}))
}

// Invalidf is Invalid with a description formatted as New formats a
// message: a value quoted with %q repeats at most echo.Max characters.
func Invalidf(field, format string, args ...any) *Error {
	return Invalid(field, echo.Sprintf(format, args...))
}

// BadRequestOf builds a google.rpc.BadRequest detail.
func BadRequestOf(v ...FieldViolation) BadRequest {
	return BadRequest{Type: "type.googleapis.com/google.rpc.BadRequest", FieldViolations: v}
}

// Info builds a google.rpc.ErrorInfo detail.
func Info(reason string, metadata map[string]string) ErrorInfo {
	if metadata == nil {
		metadata = map[string]string{}
	}
	return ErrorInfo{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: reason, Domain: Domain, Metadata: metadata}
}

// Meaning says when wasteflow answers with a code and whether a client
// should retry; the reference's error page is generated from Meanings.
type Meaning struct {
	Code  Code
	When  string
	Retry string
}

// Meanings lists the codes wasteflow answers with, in code order.
var Meanings = []Meaning{
	{InvalidArgument, "The request is malformed or a value breaks a declared limit: bad JSON, a wrong type, a text, id or list too long, a NUL character in a text, a missing block or version. `details` name the field (its JSON path); a value is repeated at most 64 characters.", "No: fix the request."},
	{NotFound, "No such path, or a document, entry or resource the caller may not see (another organisation's gets 404, not 403, so ids reveal nothing).", "No."},
	{AlreadyExists, "A unique thing exists already (a username, a group name), or an `Idempotency-Key` was reused with another request (`IDEMPOTENCY_KEY_REUSED`).", "No: with a reused key, send a new key."},
	{PermissionDenied, "The caller is authenticated but may not do this: a scope its token lacks, an operation of the other kind of organisation, a role on the document it does not hold.", "No."},
	{ResourceExhausted, "Too many attempts (login throttling), or too many large bodies at once; 413 for a body over the limit. `Retry-After` says when.", "Yes, after `Retry-After` (login throttling: after the window)."},
	{FailedPrecondition, "The document's state does not permit the intent (details: `INTENT_NOT_PERMITTED`, or the guard's refusal in words), or a precondition of the server is missing (no mail server configured).", "No: re-read the document and act on its follow-up intents."},
	{Aborted, "The version sent is not the document's version: someone changed it meanwhile (optimistic locking).", "Not as is: re-read the document, re-apply the change, send again."},
	{Unimplemented, "The gateway's answer to a missing provider_id header, an unsupported method on a path, or an operation REST cannot reach (a stream).", "No."},
	{Internal, "A fault of the server; logged with the request id.", "Once, with the same Idempotency-Key; report it with the X-Request-Id."},
	{Unavailable, "The database is unreachable or busy (a connection refused or cut, too many connections, SQLite's write lock held too long), or the server is shutting down. Nothing was changed. `Retry-After` says when.", "Yes, after `Retry-After`, with exponential backoff; a mutation with the same Idempotency-Key."},
	{Unauthenticated, "No token, an expired or revoked one, a used refresh token (each is good for one call), or wrong credentials. An expired token says so (`the access token expired`, and `error_description` in `WWW-Authenticate`): refresh.", "After getting a new access token (RequestAccess with the current refresh token) or logging in again."},
}
