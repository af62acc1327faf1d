package diwass

import (
	"context"
	"sync"
	"time"
)

// Health is what the last ping of DIWASS found: /readyz reports it, and
// stays ready when DIWASS is down (the job queue holds the work).
type Health struct {
	mu      sync.Mutex
	client  *Client
	checked time.Time
	status  string
	err     string
}

// HealthReport is Health as /readyz shows it.
type HealthReport struct {
	// State: UP (the last ping was answered), DOWN (it was not),
	// UNKNOWN (no ping yet).
	State     string `json:"state"`
	CheckedAt string `json:"checkedAt,omitempty"`
	Status    string `json:"status,omitempty"`
	Error     string `json:"error,omitempty"`
}

// NewHealth watches client (nil: DIWASS is not configured).
func NewHealth(client *Client) *Health { return &Health{client: client} }

// Run pings DIWASS now and every interval until ctx ends.
func (h *Health) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		h.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Check pings DIWASS once.
func (h *Health) Check(ctx context.Context) {
	status, err := h.client.Ping(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checked, h.status, h.err = time.Now().UTC(), status, ""
	if err != nil {
		h.err = err.Error()
	}
}

// Report is the last ping's finding.
func (h *Health) Report() HealthReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.checked.IsZero():
		return HealthReport{State: "UNKNOWN"}
	case h.err != "":
		return HealthReport{State: "DOWN", CheckedAt: h.checked.Format(time.RFC3339), Error: h.err}
	}
	return HealthReport{State: "UP", CheckedAt: h.checked.Format(time.RFC3339), Status: h.status}
}
