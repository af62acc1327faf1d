package handlers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Test clocks of sandbox environments (our design, after Stripe's test
// clocks): a provider moves its own time forward.

type GetTestClockRequest struct{}

type AdvanceTestClockRequest struct {
	To   *time.Time `json:"to" doc:"the new time of the clock (RFC 3339), after its current time and at most 10 years after real time; give to or days. Retry with to: an advance to a time already reached is refused, so a retry never advances twice"`
	Days int32      `json:"days" doc:"move the clock this many days (of 24 hours) forward, to at most 10 years after real time; give to or days"`
}

type ResetTestClockRequest struct {
	DeleteDocuments bool `json:"deleteDocuments" required:"true" doc:"must be true: the reset deletes every document of the provider (notifications, Annex VII documents, movements) with their deadlines, audit trails, events, list entries and inspection links"`
}

// The TestClockApi's requests refuse a field they do not know (400, code
// 3, naming it) instead of ignoring it as other requests do: a "dryRun"
// the server ignored would move the clock for good, or delete documents.
func (*GetTestClockRequest) StrictFields()     {}
func (*AdvanceTestClockRequest) StrictFields() {}
func (*ResetTestClockRequest) StrictFields()   {}

// TestClockState is a provider's test clock.
type TestClockState struct {
	Now         time.Time `json:"now" doc:"the provider's time: what its documents, content rules, deadlines, sweep, reports and events read"`
	Environment string    `json:"environment" doc:"this server's environment (development or test: production and staging have no test clocks)"`
	AdvancedBy  string    `json:"advancedBy" doc:"how far the clock runs ahead of real time, as a duration in seconds (e.g. 2592000s); it keeps running at real speed"`
}

// SweepCounts says what the sweep of an advance did.
type SweepCounts struct {
	DueSoon     int32 `json:"dueSoon" doc:"deadlines that entered their warning window"`
	Overdue     int32 `json:"overdue" doc:"deadlines that passed their due time with the duty unmet"`
	Lapsed      int32 `json:"lapsed" doc:"periods that ended as the law foresees (tacit consent, end of a consent's validity)"`
	Transitions int32 `json:"transitions" doc:"automatic transitions fired (tacit consents, expiries)"`
}

type GetTestClockResponse TestClockState

type AdvanceTestClockResponse struct {
	Now         time.Time   `json:"now" doc:"the clock's new time"`
	Environment string      `json:"environment"`
	AdvancedBy  string      `json:"advancedBy" doc:"how far the clock now runs ahead of real time (e.g. 2592000s)"`
	Swept       SweepCounts `json:"swept" doc:"what the passing time brought, processed before this answer, each deadline as of its own due time"`
}

// ResetCounts says what a reset deleted.
type ResetCounts struct {
	Documents int32 `json:"documents" doc:"documents deleted (notifications, Annex VII documents, movements)"`
	Deadlines int32 `json:"deadlines" doc:"their deadlines"`
	Events    int32 `json:"events" doc:"their notification events (cursors handed out stay valid)"`
	AuditRows int32 `json:"auditRows" doc:"rows of their audit trails"`
}

type ResetTestClockResponse struct {
	Now         time.Time   `json:"now" doc:"the clock's time: real time again"`
	Environment string      `json:"environment"`
	AdvancedBy  string      `json:"advancedBy" doc:"0s: the clock runs on real time"`
	From        time.Time   `json:"from" doc:"the clock's time before the reset"`
	Deleted     ResetCounts `json:"deleted" doc:"what the reset deleted"`
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// sandbox refuses test clocks outside development and test.
func (s *Server) sandbox() error {
	if !clock.Sandbox(s.cfg.Environment) {
		return status.New(status.PermissionDenied, "test clocks exist only in the development and test environments; this server runs %s", s.cfg.Environment).
			WithDetails(status.Info("NO_TEST_CLOCKS", map[string]string{"environment": s.cfg.Environment}))
	}
	return nil
}

func noClocks(err error) error {
	if errors.Is(err, documents.ErrNoClocks) {
		return status.New(status.PermissionDenied, "this server runs no test clocks")
	}
	return err
}

func (s *Server) getTestClock(ctx context.Context, _ *GetTestClockRequest) (*GetTestClockResponse, error) {
	if err := s.sandbox(); err != nil {
		return nil, err
	}
	c, err := s.docs.TestClock(ctx)
	if err != nil {
		return nil, noClocks(err)
	}
	return &GetTestClockResponse{Now: c.Now.UTC(), Environment: s.cfg.Environment, AdvancedBy: seconds(c.AdvancedBy)}, nil
}

func (s *Server) advanceTestClock(ctx context.Context, r *AdvanceTestClockRequest) (*AdvanceTestClockResponse, error) {
	if err := s.sandbox(); err != nil {
		return nil, err
	}
	switch {
	case r.To == nil && r.Days == 0:
		return nil, status.Invalid("to", "give the new time (to) or a number of days (days)")
	case r.To != nil && r.Days != 0:
		return nil, status.Invalid("days", "give to or days, not both")
	case r.Days < 0:
		return nil, status.Invalid("days", "the test clock only moves forward: days must be positive")
	case r.Days > maxClockDays:
		return nil, status.Invalid("days", fmt.Sprintf("at most %d days: the test clock runs at most %d years ahead of real time", maxClockDays, clock.MaxAheadYears))
	}
	field := "days"
	if r.To != nil {
		field = "to"
	}
	target := func(from time.Time) time.Time {
		if r.To != nil {
			return *r.To
		}
		return from.Add(time.Duration(r.Days) * 24 * time.Hour)
	}
	c, err := s.docs.AdvanceTestClock(ctx, field, target)
	if err != nil {
		return nil, noClocks(err)
	}
	w := c.Swept
	return &AdvanceTestClockResponse{Now: c.Now.UTC(), Environment: s.cfg.Environment, AdvancedBy: seconds(c.AdvancedBy),
		Swept: SweepCounts{DueSoon: int32(w.DueSoon), Overdue: int32(w.Overdue), Lapsed: int32(w.Lapsed), Transitions: int32(w.Transitions)}}, nil
}

// maxClockDays is the most days one advance may name (the clock's limit
// decides exactly): ten years with their leap days.
const maxClockDays = clock.MaxAheadYears*366 + 1

func (s *Server) resetTestClock(ctx context.Context, r *ResetTestClockRequest) (*ResetTestClockResponse, error) {
	if err := s.sandbox(); err != nil {
		return nil, err
	}
	if !r.DeleteDocuments {
		return nil, status.Invalid("deleteDocuments", "required: true, to delete the provider's documents with the clock's time")
	}
	c, err := s.docs.ResetTestClock(ctx)
	if err != nil {
		return nil, noClocks(err)
	}
	n := c.Deleted
	return &ResetTestClockResponse{Now: c.Now.UTC(), Environment: s.cfg.Environment, AdvancedBy: seconds(0), From: c.From,
		Deleted: ResetCounts{Documents: int32(n.Documents), Deadlines: int32(n.Deadlines), Events: int32(n.Events), AuditRows: int32(n.AuditRows)}}, nil
}

func (s *Server) clockOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	const svc = "TestClockApi"
	sandbox := " Only in the development and test environments: in production and staging it answers 403, code 7, and no clock is read anywhere. " +
		"One clock per provider, shared by its organisations; it runs at real speed, ahead of real time by advancedBy, at most 10 years, and only ever moves forward (ResetTestClock sets it back, with the provider's documents). " +
		"A field the request does not name (a dryRun, say) is 400, code 3, where other operations ignore it. " +
		"Everything that reads the provider's today follows it: content rules (dates in the past or future, prior notice, consent validity), deadlines and " +
		"their working days, the deadline sweep, reports and the times of documents and events. Token lifetimes, login throttling and " +
		"Idempotency-Key retention stay on real time."
	return []api.Operation{
		api.Unary(api.Operation{Package: pkgCore, Service: svc, Method: "GetTestClock", Scope: "usermgt",
			Summary: "Your provider's test clock", Description: "The provider's current time and how far its clock runs ahead of real time." + sandbox}, s.getTestClock),
		api.Unary(api.Operation{Package: pkgCore, Service: svc, Method: "AdvanceTestClock", Scope: "usermgt",
			Summary: "Move your provider's test clock forward",
			Description: "Moves the clock to `to` or by `days`, records who moved it from when to when, and sweeps the provider's deadlines up to the new time " +
				"before it answers, each change as of its own time: a transit authority's silence becomes tacit consent when its period ends, a consent " +
				"expires at its end, deadlines become due soon and overdue, and what they fire starts its own periods then. A time not after the clock's is " +
				"400, code 3 (retry an advance with to: a second call with the same to is refused instead of advancing twice), and so is a time more than " +
				"10 years after real time, naming to or days." + sandbox}, s.advanceTestClock),
		api.Unary(api.Operation{Package: pkgCore, Service: svc, Method: "ResetTestClock", Scope: "usermgt",
			Summary: "Set your provider's test clock back to real time, deleting its documents",
			Description: "The sandbox's way back, from a clock moved too far included: sets the clock back to real time and deletes, in one transaction, " +
				"every document of the provider (notifications, Annex VII documents, movements) with their parties, deadlines, audit trails, events " +
				"(and their webhook deliveries), list entries and inspection links, the pending (unsent) mails about their deadlines and pending " +
				"digests, and the provider's Idempotency-Keys (their stored answers hold the documents); mail preferences switched on while the clock " +
				"stood ahead take real time as the time they were switched on. The documents are those there when the reset begins: one created " +
				"meanwhile stays whole, a change to a deleted one that waited for the reset is 404. Cursors handed out stay valid: an event position " +
				"is never given twice. deleteDocuments must be true. The reset is recorded like an advance (who, from when, to when) and logged with " +
				"its counts. Transport notes (BmuApi), file areas, signing processes, accounts, organisations, notifier groups, webhook endpoints, " +
				"events about no document, sent mails, register exports already made and number sequences stay. The operator's way is " +
				"wasteflow admin reset-test-clock." + sandbox}, s.resetTestClock),
	}
}
