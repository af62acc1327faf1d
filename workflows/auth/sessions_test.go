package auth

import (
	"testing"
	"time"
)

func TestSessionCacheKeepsOnlyWhatItsFeedCovers(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := cachedSession{account: 7, subject: "7", expires: now.Add(time.Hour)}
	c := NewSessionCache(2)

	gen, live := c.generation()
	c.put("s1", gen, e)
	if _, ok := c.get("s1", now); ok || live {
		t.Fatal("kept a session without a live feed")
	}

	c.SetLive(true)
	gen, _ = c.generation()
	c.put("s1", gen, e)
	if got, ok := c.get("s1", now); !ok || got.account != 7 {
		t.Fatal("a session read while the feed is live is not kept")
	}
	if _, ok := c.get("s1", e.expires); ok {
		t.Fatal("an expired session is answered from the cache")
	}

	// A row read before an eviction is not kept after it: the eviction may
	// be of that very row's change.
	gen, _ = c.generation()
	c.Evict("other")
	c.put("s2", gen, e)
	if _, ok := c.get("s2", now); ok {
		t.Fatal("a row read before an eviction was kept")
	}

	c.Evict("s1")
	if _, ok := c.get("s1", now); ok {
		t.Fatal("an evicted session is still kept")
	}

	gen, _ = c.generation()
	c.put("s1", gen, e)
	c.SetLive(false) // the feed stopped: a change from now on would not be heard
	if _, ok := c.get("s1", now); ok || c.Live() {
		t.Fatal("the cache holds sessions after its feed stopped")
	}
	c.SetLive(true) // listening again: what was kept before is not trusted
	if _, ok := c.get("s1", now); ok {
		t.Fatal("a session kept before the feed stopped came back")
	}

	gen, _ = c.generation()
	for _, id := range []string{"a", "b", "c"} {
		c.put(id, gen, e)
	}
	if len(c.entries) > 2 {
		t.Fatalf("%d sessions kept, more than the bound of 2", len(c.entries))
	}
	if _, ok := c.get("c", now); !ok {
		t.Fatal("the newest session is not kept")
	}
	var nilCache *SessionCache // no cache: every session is read
	nilCache.Evict("x")
	nilCache.Clear()
	if _, ok := nilCache.get("x", now); ok {
		t.Fatal("a nil cache answered")
	}
}
