// Package events delivers notification events to notifier groups by cursor.
package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/wake"
)

// Store is where events and the groups' positions are kept;
// models.EventStore implements it. A missing row is models.ErrNotFound.
type Store interface {
	// Group is a notifier group by id.
	Group(ctx context.Context, id string) (*models.NotifierGroup, error)
	// Acked is the position the group acknowledged.
	Acked(ctx context.Context, group string) (int64, error)
	// EventsAfter lists up to limit events of an organisation of the given
	// kinds after a position, in order.
	EventsAfter(ctx context.Context, provider, org string, after int64, kinds []string, limit int) ([]models.Event, error)
	// Ack moves the group's acknowledged position forward (never back).
	Ack(ctx context.Context, group string, id int64) error
	// LatestPosition is the highest position any event has been given:
	// no cursor of this server lies past it.
	LatestPosition(ctx context.Context) (int64, error)
	// Unack moves the group's acknowledged position back to latest when
	// it lies past it (a position acknowledged before such cursors were
	// refused), so the events after latest are listed.
	Unack(ctx context.Context, group string, latest int64) error
}

// Service reads and acknowledges events for the calling group.
type Service struct {
	Store Store
	// Poll is how often a long poll looks for new events when Wake is not
	// live (default 250 ms).
	Poll time.Duration
	// Wake, when live, wakes a long poll when an event of its
	// organisation gets its position (key Key(provider, org)); it then
	// reads the database only when woken and every wake.Safety.
	Wake *wake.Hub

	// reads shares one read among the polls that ask for the same events
	// at the same time (the waiters one notification woke).
	reads singleflight.Group
	// latest is the highest position this instance knows some event was
	// given: positions come from a sequence, which never goes back, so a
	// cursor at or before it needs no look at the database (notPast).
	latest atomic.Int64
	// groups are the groups read, by id: a group's provider, organisation
	// and event kinds never change once registered, and every use of a
	// group token checks first that its group is still registered
	// (auth.Service.Authenticate), so a long poll's return reads them once.
	groups sync.Map
}

// known records that position p was given.
func (s *Service) known(p int64) {
	for {
		cur := s.latest.Load()
		if p <= cur || s.latest.CompareAndSwap(cur, p) {
			return
		}
	}
}

// Key is the wake key of an organisation's events: what the event
// sequencer announces on models.EventChannel (models.SequenceEvents).
func Key(provider, org string) string { return provider + ":" + org }

// Position is e's place in its organisation's stream, what cursors count
// (its id before it has one: never returned by List).
func Position(e *models.Event) int64 {
	if e.Position != nil {
		return *e.Position
	}
	return e.ID
}

// Cursor renders an event position.
func Cursor(id int64) string { return strconv.FormatInt(id, 10) }

func parseCursor(c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(c, 10, 64)
	if err != nil || id < 0 {
		return 0, status.Invalid("cursor", "not a cursor of this server")
	}
	return id, nil
}

// notPast refuses a cursor past the latest position any event has been
// given: it was never handed out, and acknowledging or reading after it
// would pass over every event until the positions reach it.
func (s *Service) notPast(ctx context.Context, id int64) error {
	if id == 0 || id <= s.latest.Load() {
		return nil
	}
	latest, err := s.Store.LatestPosition(ctx)
	if err != nil {
		return err
	}
	s.known(latest)
	if id > latest {
		return status.Invalid("cursor", "this cursor is past the latest event: pass a cursor ListNotifications returned (or none)")
	}
	return nil
}

func (s *Service) group(ctx context.Context) (*models.NotifierGroup, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.GroupID == "" {
		return nil, status.New(status.PermissionDenied, "notifications are read with a group token")
	}
	if g, ok := s.groups.Load(p.GroupID); ok {
		return g.(*models.NotifierGroup), nil
	}
	g, err := s.Store.Group(ctx, p.GroupID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, status.New(status.Unauthenticated, "invalid token: the group is no longer registered")
	case err != nil: // the database's failure, not the token's: the client retries with it
		return nil, err
	}
	s.groups.Store(p.GroupID, g)
	return g, nil
}

// List returns up to limit events after cursor (or after the group's
// acknowledged position), waiting up to wait for the first one.
func (s *Service) List(ctx context.Context, cursor string, limit int, wait time.Duration) ([]models.Event, string, error) {
	g, err := s.group(ctx)
	if err != nil {
		return nil, "", err
	}
	after, err := parseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if err := s.notPast(ctx, after); err != nil {
		return nil, "", err
	}
	if cursor == "" {
		if acked, err := s.Store.Acked(ctx, g.ID); err == nil {
			after = acked
		} else if !errors.Is(err, models.ErrNotFound) {
			return nil, "", err
		}
		if after > 0 { // acknowledged past the end before such cursors were refused: that acknowledged every event there was, no later one
			latest, err := s.Store.LatestPosition(ctx)
			if err != nil {
				return nil, "", err
			}
			if after > latest {
				if err := s.Store.Unack(ctx, g.ID, latest); err != nil {
					return nil, "", err
				}
				after = latest
			}
		}
	}
	switch {
	case limit <= 0:
		limit = 100
	case limit > 500:
		limit = 500
	}
	wait = wake.Budget(ctx, min(max(wait, 0), 30*time.Second))
	poll := s.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	deadline := time.Now().Add(wait)
	var w *wake.Waiter
	if wait > 0 { // registered before the first read: an event stored meanwhile wakes it
		w = s.Wake.Wait(Key(g.ProviderID, g.OrganisationID))
		defer w.Stop()
	}
	for {
		list, err := s.eventsAfter(ctx, g, after, limit)
		if err != nil {
			return nil, "", err
		}
		if len(list) > 0 {
			last := Position(&list[len(list)-1])
			s.known(last)
			return list, Cursor(last), nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return list, Cursor(after), nil
		}
		timer := time.NewTimer(min(s.Wake.Poll(poll), left))
		select {
		case <-ctx.Done():
			timer.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, "", status.Wrap(ctx.Err(), status.Unavailable, "the database did not answer in time; retry the request")
			}
			return nil, "", status.Wrap(ctx.Err(), status.Canceled, "the client went away")
		case <-w.C:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// eventsAfter reads the group's events after a position, one read for
// every poll asking the same at the same time. The list is shared: callers
// do not change it.
func (s *Service) eventsAfter(ctx context.Context, g *models.NotifierGroup, after int64, limit int) ([]models.Event, error) {
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", g.ProviderID, g.OrganisationID, after, limit, strings.Join(g.EventKinds, ","))
	read := s.reads.DoChan(key, func() (any, error) {
		// Not the first caller's cancellation (its client going away must
		// not fail the others), but its deadline: a database that does not
		// answer ends the read when the first caller's time is up.
		rctx, cancel := reqctx.Detach(ctx)
		defer cancel()
		return s.Store.EventsAfter(rctx, g.ProviderID, g.OrganisationID, after, []string(g.EventKinds), limit)
	})
	select {
	case <-ctx.Done(): // each caller waits for the shared read only as long as its own request lasts
		return nil, status.Wrap(ctx.Err(), status.Unavailable, "the database did not answer in time; retry the request")
	case r := <-read:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]models.Event), nil
	}
}

// Ack stores the group's acknowledged position (it never moves back).
func (s *Service) Ack(ctx context.Context, cursor string) error {
	g, err := s.group(ctx)
	if err != nil {
		return err
	}
	id, err := parseCursor(cursor)
	if err != nil || cursor == "" {
		return status.Invalid("cursor", "a cursor from ListNotifications is required")
	}
	if err := s.notPast(ctx, id); err != nil {
		return err
	}
	return s.Store.Ack(ctx, g.ID, id)
}
