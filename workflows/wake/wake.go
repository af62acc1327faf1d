// Package wake wakes the requests that wait for a change (long polls on
// events, waits on signing processes) when the database announces it: on
// PostgreSQL a trigger's NOTIFY, heard by the instance's one listening
// connection (models.Listen) and fanned out here in memory, so a thousand
// idle waits cost no query until something happens. While the listener is
// not live (SQLite, or its connection lost) waiters poll as before; a
// waiter also asks the database now and then while it is live, in case a
// notification was missed.
package wake

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Hub fans the notifications of one channel out to the waiters of their
// keys. The zero Hub is ready; a nil *Hub is never live and wakes no one.
type Hub struct {
	mu      sync.Mutex
	waiters map[string]map[*Waiter]struct{}
	live    atomic.Bool
	waiting atomic.Int64
}

// Waiter is one wait for a key: C receives when the key is notified (or
// the listener starts or stops) after Wait returned.
type Waiter struct {
	C   chan struct{}
	hub *Hub
	key string
}

// Wait registers a waiter for key. Register before reading what the wait
// is for, so a change between the read and the wait still wakes it. Stop
// it when done.
func (h *Hub) Wait(key string) *Waiter {
	w := &Waiter{C: make(chan struct{}, 1), hub: h, key: key}
	if h == nil {
		return w
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiters == nil {
		h.waiters = map[string]map[*Waiter]struct{}{}
	}
	set := h.waiters[key]
	if set == nil {
		set = map[*Waiter]struct{}{}
		h.waiters[key] = set
	}
	set[w] = struct{}{}
	h.waiting.Add(1)
	return w
}

// Stop unregisters w.
func (w *Waiter) Stop() {
	h := w.hub
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.waiters[w.key]; set != nil {
		if _, ok := set[w]; ok {
			delete(set, w)
			h.waiting.Add(-1)
		}
		if len(set) == 0 {
			delete(h.waiters, w.key)
		}
	}
}

// Notify wakes the waiters of key.
func (h *Hub) Notify(key string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.waiters[key] {
		w.wake()
	}
}

func (w *Waiter) wake() {
	select {
	case w.C <- struct{}{}:
	default: // woken already
	}
}

// SetLive records whether the listener is live and wakes every waiter:
// whatever happened while it was not is read again.
func (h *Hub) SetLive(live bool) {
	if h == nil {
		return
	}
	h.live.Store(live)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.waiters {
		for w := range set {
			w.wake()
		}
	}
}

// Live reports whether notifications are heard.
func (h *Hub) Live() bool { return h != nil && h.live.Load() }

// Waiting is how many waiters are registered.
func (h *Hub) Waiting() int64 {
	if h == nil {
		return 0
	}
	return h.waiting.Load()
}

// Safety is how often a waiter reads the database while the listener is
// live, in case a notification was lost: longer than any wait (30 s at
// most), so in practice a waiter reads when it starts, when woken, and
// when the listener reconnects (SetLive wakes every waiter: PostgreSQL
// delivers every notification to a connected listener, and loses them
// only with the connection).
const Safety = time.Minute

// Poll is how long a waiter waits before it reads the database again:
// Safety while notifications are heard, else fast.
func (h *Hub) Poll(fast time.Duration) time.Duration {
	if h.Live() {
		return Safety
	}
	return fast
}

// Reserve is the time a long poll keeps for its answer before its
// request's deadline: what Budget takes off the wait.
const Reserve = 500 * time.Millisecond

// Budget is how long a long poll may wait: wait, but no later than
// Reserve before ctx's deadline, so that a request bounded by a timeout
// answers with what it has (an empty page, the current state) instead of
// running into the timeout.
func Budget(ctx context.Context, wait time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-Reserve)
	}
	return max(wait, 0)
}
