package models_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/models"
)

// The reset of a test clock finds the deadline a pending mail is about
// from its dedup key: each deadline mail's key gives its deadline back,
// and a key of another kind gives none.
func TestMailKeyDeadline(t *testing.T) {
	for _, kind := range []string{models.MailDueSoon, models.MailOverdue, models.MailAwaitingAction} {
		if got := models.MailKeyDeadline(kind, models.MailDeadlineKey(kind, "dl_0a1b", 3)); got != "dl_0a1b" {
			t.Errorf("%s: %q", kind, got)
		}
	}
	for _, c := range []struct{ kind, key string }{
		{models.MailDigest, "digest:2026-11-27"},
		{models.MailOverdue, "action:dl_0a1b"},
		{models.MailDueSoon, "due:dl_0a1b"},
		{"CONFIRM", "confirm:a@b.test:2026-11-27T00:00:00Z"},
	} {
		if got := models.MailKeyDeadline(c.kind, c.key); got != "" {
			t.Errorf("%s %s: %q", c.kind, c.key, got)
		}
	}
	if k := models.MailDeadlineKey(models.MailDueSoon, "dl_0a1b", 3); k != "due:dl_0a1b:3" {
		t.Errorf("a due-soon key changed its form (stored keys keep mails from being sent twice): %s", k)
	}
}
