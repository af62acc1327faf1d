package tests

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/mail"
)

// TestTestClockResetUnderWrites: ResetTestClock is consistent while
// documents are written (issue 44.13, review). Four writers create and
// submit notifications without pause while the provider's clock is reset
// again and again: every reset answers 200 (on PostgreSQL the reset
// re-read the provider's documents at each step, and a document committed
// between the deletes of its rows and of the documents broke a foreign key:
// 500), a writer whose document a reset took meanwhile is told 404, and
// afterwards every document is whole (parties, list entries, deadlines,
// the whole audit chain), no row hangs on a document that is gone, and
// each created document was either deleted by a reset or is still there.
func TestTestClockResetUnderWrites(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		tok := d.token(t, "alice")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					st, m, raw := d.post(t, co+"CreateSubmission", hdr("dev-1", tok), map[string]any{"notification": content()})
					if st != 200 {
						t.Errorf("CreateSubmission during resets: %d %s", st, raw)
						return
					}
					mu.Lock()
					created++
					mu.Unlock()
					doc := m["document"].(map[string]any)
					id := doc["id"].(string)
					st, _, raw = d.post(t, co+"SetSubmission", hdr("dev-1", tok), map[string]any{"documentId": id, "version": doc["version"], "notification": content()})
					if st != 200 && st != 404 {
						t.Errorf("SetSubmission during resets: %d %s", st, raw)
						return
					}
				}
			}()
		}
		deleted, resets := 0, 0
		for end := time.Now().Add(4 * time.Second); time.Now().Before(end) || resets < 10; resets++ {
			time.Sleep(15 * time.Millisecond)
			st, m, raw := d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true})
			if st != 200 {
				t.Errorf("reset %d while documents are written: %d %s", resets+1, st, raw)
				continue
			}
			deleted += int(m["deleted"].(map[string]any)["documents"].(float64))
		}
		close(stop)
		wg.Wait()

		var docs []struct {
			ID, State string
			AuditSeq  int64
		}
		if err := d.db.Raw("SELECT id, state, audit_seq FROM documents WHERE provider_id = 'dev-1'").Scan(&docs).Error; err != nil {
			t.Fatal(err)
		}
		t.Logf("%d resets, %d documents created, %d deleted by the resets, %d left", resets, created, deleted, len(docs))
		if deleted == 0 || created == 0 {
			t.Fatalf("nothing was written or deleted: %d created, %d deleted", created, deleted)
		}
		if deleted+len(docs) != created {
			t.Errorf("%d documents created, %d deleted by resets, %d left", created, deleted, len(docs))
		}
		count := func(q string, args ...any) int64 {
			t.Helper()
			var n int64
			if err := d.db.Raw(q, args...).Scan(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, doc := range docs {
			parties := count("SELECT COUNT(*) FROM document_parties WHERE document_id = ?", doc.ID)
			entries := count("SELECT COUNT(*) FROM document_entries WHERE document_id = ?", doc.ID)
			audit := count("SELECT COUNT(*) FROM audit_events WHERE document_id = ?", doc.ID)
			deadlines := count("SELECT COUNT(*) FROM deadlines WHERE document_id = ?", doc.ID)
			if parties == 0 || entries == 0 || audit == 0 || audit != doc.AuditSeq || (doc.State != "DRAFT") != (deadlines > 0) {
				t.Errorf("document %s (%s) is not whole: %d parties, %d list entries, %d of %d audit rows, %d deadlines",
					doc.ID, doc.State, parties, entries, audit, doc.AuditSeq, deadlines)
			}
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM events e WHERE COALESCE(e.document_id, '') <> '' AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = e.document_id)",
			"SELECT COUNT(*) FROM deadlines x WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = x.document_id)",
			"SELECT COUNT(*) FROM audit_events x WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = x.document_id)",
			"SELECT COUNT(*) FROM document_parties x WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = x.document_id)",
			"SELECT COUNT(*) FROM document_entries x WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = x.document_id)",
		} {
			if n := count(q); n != 0 {
				t.Errorf("%d orphans: %s", n, q)
			}
		}
		if n := count("SELECT COUNT(*) FROM test_clock_advances WHERE provider_id = 'dev-1'"); n != int64(resets) {
			t.Errorf("%d resets recorded, want %d", n, resets)
		}
	})
}

// TestTestClockResetMails: a reset sets back what the mails kept in the
// provider's time and drops what they would say of deleted documents
// (issue 44.13, review). An account switched its reminders on while the
// clock stood five years ahead (their since, the provider's time, then
// 2031); after the reset a new document's awaiting-action mail and, once
// its deadline passes, its overdue mail are queued (before, since held
// both back until real time reached 2031), and the pending mail about a
// deleted document's deadline is gone (before, it would have been sent
// with a link to a document that no longer exists); the confirmation
// mail stays.
func TestTestClockResetMails(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		real := d.clock.Now().UTC()
		// A mail server that is down and no job worker: queued mails stay pending.
		d.mails.SMTP = mail.SMTP{Host: "127.0.0.1", Port: freePort(t), Security: "none", From: "wasteflow <noreply@wasteflow.test>", Timeout: time.Second}
		d.mails.BaseURL = d.url
		const address = "noor@auth-nl.test"
		on := map[string]any{"email": address, "language": "en", "awaitingAction": true, "overdue": true}
		d.setMail(t, "noor", on)
		var body string
		if err := d.db.Raw("SELECT text_body FROM mail_outbox WHERE kind = 'CONFIRM' AND recipient = ?", address).Scan(&body).Error; err != nil {
			t.Fatal(err)
		}
		link := linkRe.FindString(body)
		if link == "" {
			t.Fatalf("no confirmation link in %q", body)
		}
		follow(t, link)
		scan := func() {
			t.Helper()
			if _, err := d.mails.Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		pending := func(kind string) []string {
			t.Helper()
			var keys []string
			if err := d.db.Raw("SELECT dedup_key FROM mail_outbox WHERE kind = ? AND state = 'QUEUED' AND recipient = ? ORDER BY id", kind, address).Scan(&keys).Error; err != nil {
				t.Fatal(err)
			}
			return keys
		}

		// A document waiting for noor's action: its mail is pending.
		d.submitted(t)
		scan()
		before := pending("AWAITING_ACTION")
		if len(before) != 1 {
			t.Fatalf("pending awaiting-action mails before the reset: %v", before)
		}
		// Five years ahead, noor switches the mails off and on again.
		d.clockTo(t, real.AddDate(5, 0, 0).Format(time.DateOnly))
		d.setMail(t, "noor", map[string]any{"email": address, "language": "en"})
		d.setMail(t, "noor", on)
		var since time.Time
		sinceOf := func() time.Time {
			t.Helper()
			if err := d.db.Raw("SELECT since FROM mail_preferences p JOIN accounts a ON a.id = p.account_id WHERE a.username = 'noor'").Scan(&since).Error; err != nil {
				t.Fatal(err)
			}
			return since.UTC()
		}
		if s := sinceOf(); s.Year() != real.Year()+5 {
			t.Fatalf("since before the reset: %s", s)
		}

		st, _, raw := d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true})
		if st != 200 {
			t.Fatalf("reset: %d %s", st, raw)
		}
		if s := sinceOf(); s.After(real.Add(time.Minute)) {
			t.Errorf("since after the reset: %s, real time %s", s, real)
		}
		if keys := pending("AWAITING_ACTION"); len(keys) != 0 {
			t.Errorf("mails about deleted documents still pending after the reset: %v", keys)
		}
		if n := len(pending("CONFIRM")); n != 1 {
			t.Errorf("%d confirmation mails pending after the reset, want 1 (it is about no document)", n)
		}

		// The mails work again for the sandbox's new documents.
		d.submitted(t)
		scan()
		after := pending("AWAITING_ACTION")
		if len(after) != 1 || after[0] == before[0] {
			t.Errorf("awaiting-action mails after the reset: %v (before: %v)", after, before)
		}
		d.clockTo(t, real.AddDate(0, 0, 40).Format(time.DateOnly))
		scan()
		if keys := pending("OVERDUE"); len(keys) == 0 {
			t.Errorf("no overdue mail after the reset (since %s)", sinceOf())
		}
	})
}

// TestTestClockResetManyDocuments: a reset deletes by its list of the
// provider's documents in chunks (of 500, below either database's limit
// of parameters in one statement); 1,201 documents, parents with their
// children among them, go in one reset.
func TestTestClockResetManyDocuments(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.submitted(t)
		dbtest.CloneDocuments(t, d.db, 1200)
		var parent string
		d.db.Raw("SELECT id FROM documents WHERE id LIKE '%-c1200'").Scan(&parent)
		if err := d.db.Exec("UPDATE documents SET parent_id = ? WHERE id LIKE '%-c1_'", parent).Error; err != nil {
			t.Fatal(err)
		}
		st, m, raw := d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true})
		if st != 200 || m["deleted"].(map[string]any)["documents"] != float64(1201) {
			t.Fatalf("reset of 1201 documents: %d %s", st, raw)
		}
		var left int64
		d.db.Raw("SELECT (SELECT COUNT(*) FROM documents) + (SELECT COUNT(*) FROM document_parties)").Scan(&left)
		if left != 0 {
			t.Fatalf("%d documents and parties left", left)
		}
	})
}
