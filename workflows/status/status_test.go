package status_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/status"
)

func TestHTTPStatusCoversEveryCode(t *testing.T) {
	want := []int{200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401}
	for code, httpStatus := range want {
		if got := status.HTTPStatus(status.Code(code)); got != httpStatus {
			t.Errorf("code %d (%s): HTTP %d, want %d", code, status.Code(code), got, httpStatus)
		}
	}
	for _, other := range []status.Code{-1, 17, 99} {
		if got := status.HTTPStatus(other); got != 500 {
			t.Errorf("code %d: HTTP %d, want 500", other, got)
		}
	}
}

func TestFromHidesPlainErrors(t *testing.T) {
	cause := errors.New("SELECT secret FROM table")
	se := status.From(fmt.Errorf("wrapped: %w", cause))
	if se.Code != status.Internal || se.Message != "internal error" || !errors.Is(se, cause) {
		t.Fatalf("From(plain) = %+v", se)
	}
	inner := status.New(status.NotFound, "no such document")
	if got := status.From(fmt.Errorf("ctx: %w", inner)); got != inner {
		t.Fatalf("From(wrapped status) = %+v, want the status itself", got)
	}
	if status.CodeOf(nil) != status.OK {
		t.Fatal("CodeOf(nil) != OK")
	}
	tooBig := &status.Error{Code: status.ResourceExhausted, HTTP: 413}
	if tooBig.HTTPStatus() != 413 {
		t.Fatal("HTTP override ignored")
	}
}
