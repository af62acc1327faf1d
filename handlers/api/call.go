package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// What every face shares of a call: the server admits it from its headers
// (Admission), invokes it with its message (Answer), and each face reads
// the message and writes the answer in its own shape.

// Admission is a call's admission: who calls and the most the call may
// send, decided from its headers before its message is read, on every
// face.
type Admission struct {
	ProviderID string
	Principal  *reqctx.Principal
	Limit      int64
	// Info is an RPC call's request context made when it was admitted,
	// which the call's later steps go on with.
	Info *reqctx.Info
}

// Answer is what an invoked operation answers: its Go value, or the JSON
// of an answer recorded before (an idempotent replay), or a file; with
// the headers that go with it.
type Answer struct {
	Value  any
	JSON   []byte
	File   *File
	Header http.Header
}

// File is a download: its name, media type and the function that writes
// its bytes.
type File struct {
	Name, ContentType string
	Write             func(io.Writer) error
}

// ErrTooLarge is the error of File.Bytes past its limit.
var ErrTooLarge = errors.New("the response is too large for an RPC answer")

// Bytes reads the file into the bytes an RPC answer carries, at most
// limit of them (ErrTooLarge past it).
func (f *File) Bytes(limit int) ([]byte, error) {
	var b bytes.Buffer
	w := &limitedWriter{w: &b, left: limit}
	if err := f.Write(w); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type limitedWriter struct {
	w    io.Writer
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.left {
		return 0, ErrTooLarge
	}
	l.left -= len(p)
	return l.w.Write(p)
}

// RequestIDHeader carries a call's request id, the client's or a new one.
const RequestIDHeader = "X-Request-Id"

// LargeBody is the size from which a body needs a slot to be read.
const LargeBody = 1 << 20

// TooLarge refuses a message larger than limit: RESOURCE_EXHAUSTED, over
// HTTP 413.
func TooLarge(limit int64) *status.Error {
	e := status.New(status.ResourceExhausted, "request body larger than %d bytes", limit)
	e.HTTP = http.StatusRequestEntityTooLarge
	return e
}

// Decode is a request's decoding error as the client reads it (a field
// violation naming the field, or a malformed body), after the fields the
// request type marks required (the description lists them) are checked.
func Decode(err error, v any) error {
	if err == nil {
		err = codec.CheckRequired(v)
	}
	if err == nil {
		return nil
	}
	var ce *codec.Error
	if errors.As(err, &ce) {
		if ce.Field == "" {
			return status.New(status.InvalidArgument, "malformed request: %s", ce.Reason).
				WithDetails(status.BadRequestOf(status.FieldViolation{Field: "", Description: ce.Reason}))
		}
		return status.Invalid(ce.Field, ce.Reason)
	}
	return err
}

// deniedHeaders are not forwarded as metadata (grpc-gateway's list);
// every header starting with "accept" is dropped too.
var deniedHeaders = map[string]bool{
	"connection": true, "host": true, "content-length": true, "content-type": true, "te": true,
	"transfer-encoding": true, "upgrade": true, "proxy-connection": true, "user-agent": true,
	"grpc-encoding": true, "grpc-accept-encoding": true, "grpc-timeout": true,
}

// Metadata is a call's headers as the metadata its context carries.
func Metadata(h http.Header) map[string][]string {
	md := make(map[string][]string, len(h))
	for k, v := range h {
		k = strings.ToLower(k)
		if deniedHeaders[k] || strings.HasPrefix(k, "accept") {
			continue
		}
		md[k] = append(md[k], v...)
	}
	return md
}

// RequestID echoes a sane incoming id and generates one otherwise; an id
// becomes part of every log line, so it must not smuggle control characters.
func RequestID(in string) string {
	if in != "" && len(in) <= 128 && strings.IndexFunc(in, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsPrint(r) }) < 0 {
		return in
	}
	return uuid.NewString()
}
