package auth

import (
	"sync"
	"sync/atomic"
	"time"
)

// SessionCache keeps the sessions that access tokens name, so that a
// request does not read its session's row before anything else (a whole
// round trip to the database: a fifth of a read's CPU).
//
// It holds only while an invalidation feed tells it of every change to a
// session row, from every instance and every process sharing the database
// (on PostgreSQL, a trigger's NOTIFY, see models.ListenSessionChanges; on
// SQLite, a trigger's row in session_changes, read every 250 ms by
// models.PollSessionChanges).
// Without a live feed it holds nothing and every request reads its row:
// when the feed goes down the cache is emptied at once, when it comes up
// again it starts empty (a change made while it was down is not missed).
// A revoked session is so refused by every instance as soon as its
// notification arrives, within milliseconds (SQLite: within the poll's
// quarter of a second); the feed's health is checked every half second,
// so a feed that died silently stops the caching within that.
//
// Only active sessions are kept, with their expiry (checked against the
// service's clock on every use, so a test clock moves them too); what is
// not active is always read again.
type SessionCache struct {
	mu      sync.RWMutex
	live    bool
	gen     uint64 // counts invalidations: a row read before one is not kept
	entries map[string]cachedSession
	max     int
	// hits and misses count the access tokens' session checks answered
	// from the cache and from the database (metrics).
	hits, misses atomic.Uint64
}

// groupKey is the cache's key of notifier group id: the feed's payload for
// it (migration 00036); session ids never start so.
func groupKey(id string) string { return "group:" + id }

// maxTime is a kept group's expiry: a group lasts until it is removed.
var maxTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

type cachedSession struct {
	account int64
	subject string // the account id as tokens carry it
	expires time.Time
}

// NewSessionCache holds at most max sessions (beyond that it starts over).
func NewSessionCache(max int) *SessionCache {
	return &SessionCache{entries: map[string]cachedSession{}, max: max}
}

// SetLive says whether the invalidation feed runs; either way the cache
// starts empty.
func (c *SessionCache) SetLive(live bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.gen++
	clear(c.entries)
}

// Live tells whether the cache holds sessions (its feed runs).
func (c *SessionCache) Live() bool {
	if c == nil {
		return false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.live
}

// Evict forgets session id (its row changed).
func (c *SessionCache) Evict(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, id)
}

// Clear forgets every session (many rows changed).
func (c *SessionCache) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}

// get returns session id if it is kept and active at now.
func (c *SessionCache) get(id string, now time.Time) (cachedSession, bool) {
	if c == nil {
		return cachedSession{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[id]
	if !ok || !now.Before(e.expires) {
		c.misses.Add(1)
		return cachedSession{}, false
	}
	c.hits.Add(1)
	return e, true
}

// Stats are the session checks answered from the cache (hits) and from
// the database (misses) so far.
func (c *SessionCache) Stats() (hits, misses uint64) {
	if c == nil {
		return 0, 0
	}
	return c.hits.Load(), c.misses.Load()
}

// generation is taken before a session's row is read; put keeps the row
// only if nothing was invalidated since (an eviction that raced the read
// could otherwise be undone by it).
func (c *SessionCache) generation() (uint64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen, c.live
}

func (c *SessionCache) put(id string, gen uint64, e cachedSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.gen != gen {
		return
	}
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[id] = e
}
