package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// The exchange with DIWASS as a person reads it in the console (issue
// 47.4): under the document's state, where the exchange stands in words,
// DIWASS's number or the fault; the arranger sends a rejected document
// again and resolves an uncertain one with the number DIWASS shows, from
// the document's actions. Each view is checked (layout, raw names,
// axe-core) in English and German at phone and desktop width.
func TestDIWASSExchangeInTheConsoleInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	fake := d.connectDIWASS(t)
	d.workJobs(t)
	announced := func() (string, string) {
		t.Helper()
		doc := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": doc["id"], "annex7": announcement()})
		return doc["id"].(string), doc["number"].(string)
	}
	first, _ := announced() // registers the companies as operators
	d.diwassState(t, first, "SENT")
	fake.Next(diwassfake.Mishap{Hang: true})
	uncertain, uncertainNo := announced()
	d.diwassState(t, uncertain, "UNCERTAIN")
	fake.Release()
	fake.Next(diwassfake.Mishap{Status: 400, Fault: "validation: at least one recovery facility is required"})
	rejected, rejectedNo := announced()
	d.diwassState(t, rejected, "REJECTED")

	bctx := consoleBrowser(t, exe, 3*time.Minute)
	v := watchView(t, bctx)
	v.strict(t, d.url)
	wait := func(step, expr string) string {
		t.Helper()
		c, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		got, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			page, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('doc').innerText`))
			t.Fatalf("%s: %v; the document reads: %s", step, err, page)
		}
		return fmt.Sprint(got)
	}
	run := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatal(err)
		}
	}
	exchange := func(state string) string {
		return `!document.getElementById('doc').hidden && document.getElementById('action').hidden && (b => b && b.dataset.diwass === ` + jsString(state) + `)(document.querySelector('#doc-diwass [data-diwass]'))`
	}
	open := func(id, number, state string) {
		t.Helper()
		run(`location.hash = '#/doc/` + id + `'`)
		wait("the document "+number, `document.getElementById('doc-number').textContent === `+jsString(number)+` && (`+exchange(state)+`)`)
	}
	act := func(intent string) {
		t.Helper()
		wait("intent "+intent+" offered", `document.querySelector('#intents button[data-intent="`+intent+`"]') !== null`)
		run(`document.querySelector('#intents button[data-intent="` + intent + `"]').click()`)
		wait("the form of "+intent, `!document.getElementById('action').hidden && document.getElementById('action-fields').children.length > 0`)
	}

	if err := chromedp.Do(bctx, chromedp.Navigate(d.url+"/ui/")); err != nil {
		t.Fatal(err)
	}
	wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
	run(`document.getElementById('username').value = 'alice'; document.getElementById('password').value = ` + jsString(passwords["alice"]) + `; document.getElementById('login').click()`)
	wait("alice's work queue", `!document.getElementById('list-view').hidden && document.querySelector('#list tbody tr') !== null`)
	// The rejected document waits in the arranger's work queue with what to do.
	row := `document.querySelector('#list tbody tr[data-id="` + rejected + `"]')`
	if r := wait("the rejected document in the work queue", `(r => r && r.innerText)(`+row+`)`); !strings.Contains(r, "Send to DIWASS again") {
		t.Errorf("the work queue's row reads %q", r)
	}
	v.views(t, "diwass-work-queue", `!document.getElementById('list-view').hidden && `+row+` !== null`)

	// Rejected: the state in words, DIWASS's fault, the action to send it again.
	open(rejected, rejectedNo, "REJECTED")
	line := wait("the exchange", `document.getElementById('doc-diwass').innerText`)
	for _, want := range []string{"Rejected: correct and send again", "1 attempt", "DIWASS answered HTTP 400", "at least one recovery facility is required"} {
		if !strings.Contains(line, want) {
			t.Errorf("the rejected exchange reads %q, want %q in it", line, want)
		}
	}
	v.views(t, "diwass-rejected", exchange("REJECTED")+` && document.querySelector('#intents button[data-intent="DIWASS_RESUBMISSION"]') !== null`)
	act("DIWASS_RESUBMISSION")
	v.views(t, "diwass-resubmission", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="diwassResubmission.comment"]') !== null`)
	run(`document.querySelector('#action [data-path="diwassResubmission.comment"]').value = 'the facility is named in box 7 again'; document.getElementById('action-submit').click()`)
	wait("sent again", exchange("PENDING")+` || `+exchange("SENT"))

	// Uncertain: resolved with the number DIWASS shows.
	open(uncertain, uncertainNo, "UNCERTAIN")
	if l := wait("the uncertain exchange", `document.getElementById('doc-diwass').innerText`); !strings.Contains(l, "Uncertain: check in DIWASS") {
		t.Errorf("the uncertain exchange reads %q", l)
	}
	act("DIWASS_RESOLUTION")
	v.views(t, "diwass-resolution", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="diwassResolution.documentNumber"]') !== null`)
	run(`document.querySelector('#action [data-path="diwassResolution.documentNumber"]').value = 'GLW.DE260000000042x'; document.getElementById('action-submit').click()`)
	v.views(t, "diwass-sent", exchange("SENT")+` && document.querySelector('#doc-diwass .diwass-number').textContent === 'GLW.DE260000000042x'`)
	// The history names who recorded each outcome: the arranger, or
	// wasteflow exchanging with DIWASS (not the deadline scheduler).
	run(`(() => { const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change')); })()`)
	if h := wait("the history", `(l => l.length >= 4 && l.map(li => li.dataset.intent + ': ' + li.querySelector('.what').innerText).join('; '))([...document.querySelectorAll('#timeline li')])`); !strings.Contains(h, "DIWASS_RESOLUTION: Resolve the DIWASS exchange · alice (acme)") ||
		!strings.Contains(h, "DIWASS_EXCHANGE: Exchange with DIWASS · wasteflow, exchanging with DIWASS") {
		t.Errorf("the history reads: %s", h)
	}
	if n := fake.Received("CreateAnnex7DocumentTypeRequest"); n != 4 {
		t.Errorf("DIWASS received %d creates, want 4 (the uncertain one once)", n)
	}
}
