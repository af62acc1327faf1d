package wake

import (
	"testing"
	"time"
)

func woken(w *Waiter) bool {
	select {
	case <-w.C:
		return true
	case <-time.After(20 * time.Millisecond):
		return false
	}
}

// A notification wakes the waiters of its key only, once however often it
// comes; the listener starting or stopping wakes everyone; a stopped
// waiter is forgotten; a nil hub is never live and wakes no one.
func TestHub(t *testing.T) {
	h := &Hub{}
	a, a2, b := h.Wait("dev-1:acme"), h.Wait("dev-1:acme"), h.Wait("dev-1:auth-nl")
	if h.Waiting() != 3 || h.Live() || h.Poll(time.Second) != time.Second {
		t.Fatalf("waiting %d, live %v, poll %s", h.Waiting(), h.Live(), h.Poll(time.Second))
	}
	h.Notify("dev-1:acme")
	h.Notify("dev-1:acme")
	if !woken(a) || !woken(a2) || woken(b) || woken(a) {
		t.Fatal("a notification woke the wrong waiters, or twice")
	}
	h.SetLive(true)
	if !woken(a) || !woken(b) || !h.Live() || h.Poll(time.Second) != Safety {
		t.Fatal("the listener starting did not wake every waiter or make the waits slow")
	}
	a.Stop()
	a.Stop()
	if h.Waiting() != 2 {
		t.Fatalf("waiting %d after one stopped", h.Waiting())
	}
	h.Notify("dev-1:acme")
	if woken(a) || !woken(a2) {
		t.Fatal("a stopped waiter was woken, or the other not")
	}
	a2.Stop()
	b.Stop()
	if h.Waiting() != 0 || len(h.waiters) != 0 {
		t.Fatalf("%d waiters, %d keys left", h.Waiting(), len(h.waiters))
	}
	var none *Hub
	w := none.Wait("x")
	none.Notify("x")
	none.SetLive(true)
	w.Stop()
	if woken(w) || none.Live() || none.Waiting() != 0 {
		t.Fatal("a nil hub did something")
	}
}
