package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/schedulers"
	"github.com/wasteflow/wasteflow/workflows/mail"
)

const mailAPI = "/svc.core.v1.api.MailPreferencesApi/"

// mailpit is a real SMTP server on loopback (Mailpit, built from its Go
// module: .ci/run installs it) whose API shows what arrived.
type mailpit struct {
	smtpPort int
	api      string
	cmd      *exec.Cmd
	dir      string
	bin      string
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func mailpitBinary(t *testing.T) string {
	if p := os.Getenv("WASTEFLOW_TEST_MAILPIT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("mailpit"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		if p := filepath.Join(strings.TrimSpace(string(out)), "bin", "mailpit"); fileExists(p) {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("mailpit is missing: go install github.com/axllent/mailpit@v1.33.1 (.ci/run does)")
	}
	t.Skip("mailpit is not installed (go install github.com/axllent/mailpit@v1.33.1)")
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// newMailpit picks its ports; start runs it (a test may start it late:
// a mail server that is down).
func newMailpit(t *testing.T) *mailpit {
	return &mailpit{smtpPort: freePort(t), api: "http://127.0.0.1:" + strconv.Itoa(freePort(t)), dir: t.TempDir(), bin: mailpitBinary(t)}
}

func (m *mailpit) start(t *testing.T) {
	t.Helper()
	m.cmd = exec.Command(m.bin, "--smtp", "127.0.0.1:"+strconv.Itoa(m.smtpPort), "--listen", strings.TrimPrefix(m.api, "http://"),
		"--database", filepath.Join(m.dir, "mailpit.db"), "--quiet")
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.cmd.Process.Kill(); _ = m.cmd.Wait() })
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(m.api + "/api/v1/messages"); err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(m.smtpPort)); err == nil {
				c.Close()
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("mailpit did not start")
		}
	}
}

// received is a mail as Mailpit shows it.
type received struct {
	ID, Subject, Text, HTML string
	To                      string
	Headers                 map[string][]string
}

func (m *mailpit) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(m.api + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("mailpit %s: %v %s", path, err, raw)
	}
}

// mails lists every mail to address, oldest first.
func (m *mailpit) mails(t *testing.T, address string) []received {
	t.Helper()
	var list struct {
		Messages []struct {
			ID      string
			Subject string
			To      []struct{ Address string }
		}
	}
	m.get(t, "/api/v1/messages?limit=500", &list)
	var out []received
	for i := len(list.Messages) - 1; i >= 0; i-- {
		x := list.Messages[i]
		if len(x.To) == 0 || x.To[0].Address != address {
			continue
		}
		var full struct{ Text, HTML string }
		m.get(t, "/api/v1/message/"+x.ID, &full)
		r := received{ID: x.ID, Subject: x.Subject, Text: full.Text, HTML: full.HTML, To: address}
		m.get(t, "/api/v1/message/"+x.ID+"/headers", &r.Headers)
		out = append(out, r)
	}
	return out
}

// waitMail waits for a mail to address whose subject contains part.
func (m *mailpit) waitMail(t *testing.T, address, part string) received {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		for _, r := range m.mails(t, address) {
			if strings.Contains(r.Subject, part) {
				return r
			}
		}
		if time.Now().After(deadline) {
			var subjects []string
			for _, r := range m.mails(t, address) {
				subjects = append(subjects, r.Subject)
			}
			t.Fatalf("no mail %q to %s within 30 s; it has %q", part, address, subjects)
		}
	}
}

// useMailpit points the server's mails at m and runs the mail scan as the
// server does, by cron, every second.
func (d *docEnv) useMailpit(t *testing.T, m *mailpit) {
	d.mails.SMTP = mail.SMTP{Host: "127.0.0.1", Port: m.smtpPort, Security: "none", From: "wasteflow <noreply@wasteflow.test>", Timeout: 5 * time.Second}
	d.mails.BaseURL = d.url
	d.workJobs(t)
	sched := schedulers.New(testLog(), nil)
	if err := sched.Add("mail-scan", "@every 1s", func(ctx context.Context, _ time.Time) error {
		_, err := d.mails.Scan(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	sched.Start()
	t.Cleanup(func() { sched.Stop(context.Background()) })
}

var linkRe = regexp.MustCompile(`https?://[^\s<>"]+/mail/(confirm|unsubscribe)\?t=[A-Za-z0-9._%-]+`)

// follow GETs a mail's link (a page with one button), then POSTs its form.
func follow(t *testing.T, link string) string {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `<form method="post">`) {
		t.Fatalf("GET %s: %d %s", link, resp.StatusCode, page)
	}
	u, _ := url.Parse(link)
	resp, err = http.PostForm(link, url.Values{"t": {u.Query().Get("t")}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", link, resp.StatusCode, page)
	}
	return string(page)
}

func (d *docEnv) setMail(t *testing.T, user string, prefs map[string]any) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, user, mailAPI+"SetMailPreferences", map[string]any{"preferences": prefs})
	if st != 200 {
		t.Fatalf("SetMailPreferences as %s: %d %s", user, st, raw)
	}
	return m["preferences"].(map[string]any)
}

// confirmed sets user's address and follows the confirmation mail's link.
func (d *docEnv) confirmed(t *testing.T, m *mailpit, user, address string, prefs map[string]any) {
	t.Helper()
	prefs["email"] = address
	if p := d.setMail(t, user, prefs); p["emailConfirmed"] != false {
		t.Fatalf("a new address is confirmed at once: %v", p)
	}
	c := m.waitMail(t, address, "wasteflow")
	link := linkRe.FindString(c.Text)
	if link == "" || !strings.Contains(link, "/mail/confirm") {
		t.Fatalf("the confirmation mail has no link: %s", c.Text)
	}
	follow(t, link)
	st, got, raw := d.call(t, user, mailAPI+"GetMailPreferences", map[string]any{})
	if st != 200 || got["preferences"].(map[string]any)["emailConfirmed"] != true {
		t.Fatalf("after the confirmation: %s", raw)
	}
}

// TestReminderMails: people get their deadlines by mail in a real SMTP
// server: a document waiting for the Dutch authority's action, the
// reminder three working days before its decision is due, the daily
// digest in German for the German authority, each exactly once however
// often the scan runs and on a second instance; a confirmation before any
// reminder; one-click unsubscribe (RFC 8058); a mail server that is down
// delays mails and fails no request.
func TestReminderMails(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		m := newMailpit(t)
		d := startDocs(t, dbcfg)
		d.useMailpit(t, m)

		// The mail server is down: the preferences are kept, the confirmation waits.
		start := time.Now()
		d.setMail(t, "noor", map[string]any{"email": "noor@auth-nl.test", "language": "en", "awaitingAction": true, "dueSoon": true, "dueSoonWorkingDays": 3, "overdue": true})
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("SetMailPreferences waited %v for the mail server", took)
		}
		time.Sleep(500 * time.Millisecond) // some attempts fail
		if q := d.metric(t, "wasteflow_mails_queued"); q != 1 || d.metric(t, "wasteflow_mails_queued_over_an_hour") != 0 {
			t.Fatalf("/metrics: %v mails queued while the mail server is down, want 1", q)
		}
		m.start(t)
		d.confirmed(t, m, "noor", "noor@auth-nl.test", map[string]any{"language": "en", "awaitingAction": true, "dueSoon": true, "dueSoonWorkingDays": 3, "overdue": true})
		d.confirmed(t, m, "bernd", "bernd@auth-de.test", map[string]any{"language": "de", "digest": true, "digestTime": "00:00"})

		// Filed: the acknowledgement waits for the Dutch authority.
		id := d.submitted(t)
		doc, _ := d.get(t, "noor", id)
		number := doc["number"].(string)
		ack := m.waitMail(t, "noor@auth-nl.test", "Waiting for your organisation: acknowledge the notification, "+number)
		for _, want := range []string{number, "Notification", "Art. 8(2)", "CET", d.url + "/ui#/doc/" + id, "/mail/unsubscribe?t="} {
			if !strings.Contains(ack.Text, want) || !strings.Contains(ack.HTML, strings.ReplaceAll(want, "&", "&amp;")) {
				t.Errorf("the mail lacks %q:\n%s\n%s", want, ack.Text, ack.HTML)
			}
		}
		if ack.Headers["List-Unsubscribe-Post"][0] != "List-Unsubscribe=One-Click" || !strings.HasPrefix(ack.Headers["List-Unsubscribe"][0], "<"+d.url+"/mail/unsubscribe?t=") {
			t.Fatalf("unsubscribe headers: %v", ack.Headers)
		}

		// Acknowledged: the decision is due in 30 days; three working days before, the reminder.
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "received"}})
		doc, _ = d.get(t, "noor", id)
		var due time.Time
		for _, dl := range doc["deadlines"].([]any) {
			x := dl.(map[string]any)
			if x["rule"] == "DECISION_DUE" && x["party"] == "auth-nl" {
				due, _ = time.Parse(time.RFC3339, x["dueAt"].(string))
			}
		}
		if due.IsZero() {
			t.Fatalf("no decision deadline: %v", doc["deadlines"])
		}
		m.waitMail(t, "noor@auth-nl.test", "decide on the notification, "+number)
		if n := len(m.mails(t, "noor@auth-nl.test")); n != 3 { // confirmation, acknowledgement, decision
			t.Fatalf("noor got %d mails before the reminder", n)
		}
		d.clockTo(t, due.AddDate(0, 0, -2).Format(time.DateOnly))
		reminder := m.waitMail(t, "noor@auth-nl.test", "Due ")
		if !strings.Contains(reminder.Subject, "decide on the notification, "+number) || !strings.Contains(reminder.Text, "working day") ||
			!strings.Contains(reminder.Text, "Art. 9") {
			t.Fatalf("the reminder: %s\n%s", reminder.Subject, reminder.Text)
		}
		// It counts the working days on the provider's (test) clock, as
		// GetDocument does (issue 45.7), not on the server's real one.
		doc, _ = d.get(t, "noor", id)
		left := fmt.Sprintf("(%v working days)", deadline(doc, "DECISION_DUE", "auth-nl")["workingDaysLeft"])
		if left == "(1 working days)" {
			left = "(1 working day)"
		}
		if !strings.Contains(reminder.Text, left) {
			t.Errorf("the reminder does not say %s, GetDocument's count by the provider's clock:\n%s", left, reminder.Text)
		}

		// The digest, in German, once.
		digest := m.waitMail(t, "bernd@auth-de.test", "wasteflow-Übersicht")
		for _, want := range []string{"Entscheidung über die Notifizierung", number, "Rechtsgrundlage", "Fällig bis", "Mit einem Klick abbestellen"} {
			if !strings.Contains(digest.Text, want) {
				t.Errorf("the digest lacks %q:\n%s", want, digest.Text)
			}
		}

		// Once each: more scans, and a second instance's, queue nothing new.
		second := &mail.Service{Store: models.NewMailStore(d.db), Jobs: d.queue, Keyring: d.mails.Keyring, Clocks: d.mails.Clocks, Now: d.mails.Now,
			SMTP: d.mails.SMTP, BaseURL: d.url}
		time.Sleep(2 * time.Second)
		if res, err := second.Scan(context.Background()); err != nil || res.Queued != 0 {
			t.Fatalf("a second instance's scan queued %d mails (%v)", res.Queued, err)
		}
		seen := map[string]bool{}
		for _, addr := range []string{"noor@auth-nl.test", "bernd@auth-de.test"} {
			for _, r := range m.mails(t, addr) {
				if seen[addr+r.Subject] {
					t.Errorf("%s got %q twice", addr, r.Subject)
				}
				seen[addr+r.Subject] = true
			}
		}

		// One click unsubscribes (RFC 8058), and the link then is spent.
		link := strings.Trim(reminder.Headers["List-Unsubscribe"][0], "<>")
		resp, err := http.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("one-click unsubscribe: %v %v", resp, err)
		}
		resp.Body.Close()
		_, got, _ := d.call(t, "noor", mailAPI+"GetMailPreferences", map[string]any{})
		p := got["preferences"].(map[string]any)
		if p["dueSoon"] != false || p["overdue"] != false || p["awaitingAction"] != false || p["digest"] != false || p["emailConfirmed"] != true {
			t.Fatalf("after unsubscribing: %v", p)
		}
		resp, _ = http.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
		if resp.StatusCode != 404 {
			t.Fatalf("a spent unsubscribe link: %d", resp.StatusCode)
		}
		resp.Body.Close()
		before := len(m.mails(t, "noor@auth-nl.test"))
		d.clockTo(t, due.AddDate(0, 0, 2).Format(time.DateOnly)) // overdue now, but noor unsubscribed
		time.Sleep(2 * time.Second)
		if n := len(m.mails(t, "noor@auth-nl.test")); n != before {
			t.Fatalf("noor got %d mails after unsubscribing", n-before)
		}

		// Bad preferences are refused and change nothing.
		for field, prefs := range map[string]map[string]any{
			"preferences.email":              {"email": "not an address", "digest": true},
			"preferences.language":           {"email": "x@y.test", "language": "fr"},
			"preferences.digestTime":         {"email": "x@y.test", "digestTime": "25:00"},
			"preferences.dueSoonWorkingDays": {"email": "x@y.test", "dueSoonWorkingDays": 40},
		} {
			st, _, raw := d.call(t, "bernd", mailAPI+"SetMailPreferences", map[string]any{"preferences": prefs})
			wantError(t, 400, 3, st, raw, field)
		}
		_, got, _ = d.call(t, "bernd", mailAPI+"GetMailPreferences", map[string]any{})
		if got["preferences"].(map[string]any)["email"] != "bernd@auth-de.test" || got["preferences"].(map[string]any)["timeZone"] != "Europe/Berlin" {
			t.Fatalf("after refused changes: %v", got)
		}
	})
}
