package diwass_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// The ping's finding, as /readyz reports it: UNKNOWN before the first,
// UP when DIWASS answers, DOWN with the reason when it does not.
func TestHealthReportsThePing(t *testing.T) {
	fake, url := startFake(t)
	h := diwass.NewHealth(client(url))
	if r := h.Report(); r.State != "UNKNOWN" {
		t.Fatalf("before a ping: %+v", r)
	}
	h.Check(context.Background())
	if r := h.Report(); r.State != "UP" || r.Status != "OK" || r.CheckedAt == "" {
		t.Fatalf("DIWASS up: %+v", r)
	}
	fake.Next(diwassfake.Mishap{Status: 503, Plain: "maintenance"})
	h.Check(context.Background())
	if r := h.Report(); r.State != "DOWN" || !strings.Contains(r.Error, "HTTP 503") {
		t.Fatalf("DIWASS down: %+v", r)
	}
}
