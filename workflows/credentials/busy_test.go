package credentials

import (
	"context"
	"errors"
	"testing"
	"time"
)

// With every slot taken, a caller whose context ends while it waits gets
// ErrBusy instead of queueing forever.
func TestHashWaitsThenGivesUp(t *testing.T) {
	h := NewHasher(2)
	h.slots <- struct{}{}
	h.slots <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.Hash(ctx, "some-password-1"); !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	<-h.slots
	if _, err := h.Hash(context.Background(), "some-password-1"); err != nil {
		t.Fatalf("with a free slot: %v", err)
	}
}
