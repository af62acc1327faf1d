package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// pageTab is a browser tab for the view tests of the pages for people
// other than the console: what a person sees is watched from the first
// page on (watchView), and the page must keep its Content-Security-Policy.
type pageTab struct {
	t   *testing.T
	ctx context.Context
	v   *viewWatch
	csp *cspWatch
}

// openTab starts a browser (English, 1280 × 900) for one test; it ends
// with the test, failing it on a broken Content-Security-Policy.
func openTab(t *testing.T, timeout time.Duration) *pageTab {
	t.Helper()
	bctx := consoleBrowser(t, chromium(t), timeout)
	p := &pageTab{t: t, ctx: bctx}
	p.v = watchView(t, bctx)
	wctx, stop := context.WithCancel(bctx)
	var watchers sync.WaitGroup
	p.csp = watchCSP(wctx, &watchers)
	t.Cleanup(func() {
		if v := p.csp.violations(); len(v) > 0 {
			t.Errorf("the page broke its Content-Security-Policy: %q", v)
		}
		stop()
		watchers.Wait()
	})
	return p
}

func (p *pageTab) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", step, err)
	}
}

// wait polls a JavaScript expression until it is truthy and returns it.
// An expression that throws is not yet true: a page still loading (its
// lang set, its body not yet parsed) has no element the expression reads;
// one that throws until the end fails as a timeout, with the page shown.
func (p *pageTab) wait(step, expr string) string {
	p.t.Helper()
	expr = "(() => { try { return (" + expr + "); } catch (e) { return false; } })()"
	c, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
	for err != nil && c.Err() == nil && strings.Contains(err.Error(), "Cannot find context") { // a page left while polling: poll the next
		time.Sleep(50 * time.Millisecond)
		v, err = chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
	}
	if err != nil {
		body, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 600)`))
		p.t.Fatalf("%s: %v; page: %q", step, err, body)
	}
	return fmt.Sprint(v)
}

func (p *pageTab) eval(step, expr string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", step, err)
	}
	return fmt.Sprint(v)
}

// key presses a key (Tab, Enter, ...) as a keyboard does.
func (p *pageTab) key(step, key string) {
	p.t.Helper()
	p.do(step, chromedp.KeyEvent(key))
}

// typeText types text into the focused element.
func (p *pageTab) typeText(step, text string) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		p.t.Fatalf("%s: %v", step, err)
	}
}

// tabTo presses Tab until the element of the selector has the focus (at
// most 40 times) and fails unless the focus is visible on it: an outline
// or a box shadow of its own, or of its KERN wrapper.
func (p *pageTab) tabTo(step, selector string) {
	p.t.Helper()
	for i := 0; i < 40; i++ {
		p.key(step+": Tab", "\t")
		if p.eval(step, fmt.Sprintf(`document.activeElement === document.querySelector(%s)`, jsString(selector))) == "true" {
			if seen := p.eval(step, focusVisible); seen != "true" {
				p.t.Errorf("%s: the focus on %s is not visible (%s)", step, selector, seen)
			}
			return
		}
	}
	p.t.Fatalf("%s: 40 presses of Tab did not reach %s (focus on %s)", step, selector, p.eval(step, `document.activeElement.outerHTML.slice(0, 120)`))
}

// focusVisible is true when the focused element shows its focus.
const focusVisible = `(() => {
	const e = document.activeElement;
	if (!e || !e.matches(':focus-visible')) return 'not :focus-visible';
	for (const x of [e, ...(e.matches('select') ? [e.parentElement] : [])]) {
		const s = getComputedStyle(x);
		if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) return true;
		if (s.boxShadow && s.boxShadow !== 'none') return true;
	}
	return 'no outline: ' + getComputedStyle(e).outline;
})()`

// setWidth lays the page out at width px.
func (p *pageTab) setWidth(width int64) {
	p.t.Helper()
	height := int64(900)
	if width < 600 {
		height = 844
	}
	if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: width, Height: height, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
		p.t.Fatal(err)
	}
	p.wait(fmt.Sprintf("laid out at %d px", width), fmt.Sprintf(`innerWidth === %d`, width))
}

// viewsByAddress checks a page without a language select, at 390 and 1280
// px, in English and German, by its own mechanism: the address with
// ?lang=de or ?lang=en (address is a function of the language). As
// views does, it saves screenshots under bin/views with
// WASTEFLOW_VIEW_SHOTS set, and leaves the page in English at 1280 px.
func (p *pageTab) viewsByAddress(name string, address func(lang string) string, ready string) {
	p.t.Helper()
	for _, lang := range []string{"de", "en"} {
		p.do(name+": open in "+lang, chromedp.Navigate(address(lang)))
		for _, width := range []int64{390, 1280} {
			p.setWidth(width)
			p.wait(fmt.Sprintf("%s in %s at %d px", name, lang, width), fmt.Sprintf(`document.documentElement.lang === %s && (%s)`, jsString(lang), ready))
			p.v.check(p.t, fmt.Sprintf("%s (%s, %d px)", name, lang, width))
			p.shot(fmt.Sprintf("%s-%s-%d", name, lang, width))
		}
	}
}

// shot saves a screenshot of the whole page as bin/views/<name>.png when
// WASTEFLOW_VIEW_SHOTS is set.
func (p *pageTab) shot(name string) {
	p.t.Helper()
	if os.Getenv("WASTEFLOW_VIEW_SHOTS") == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatal(err)
	}
	dir := filepath.Join("..", "bin", "views")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// labelsAbsent tells the watcher that GET /labels.json may answer 404: the
// pages read the server's words for codes there when it has them, and
// stand in with their own otherwise.
func (p *pageTab) labelsAbsent(base string) {
	resp, err := http.Get(base + "/labels.json")
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		p.v.expect("/labels.json", http.StatusNotFound)
	}
}

// The deadline page as a person sees it (issue 45.2, 45.4, 45.5, 45.6): the
// login and the report, at 390 and 1280 px, in English and German, with no
// axe-core finding, nothing cut off or running past the window, no raw
// name and no leftover word; on a phone the rows stand as cards, at 1280
// px the Due and Remaining columns show in both languages; a person logs
// in, sorts and opens a document with the keyboard alone, and sees where
// the focus is. WASTEFLOW_VIEW_SHOTS saves the screenshots (bin/views).
func TestDeadlinePageViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	overdueID := d.submitted(t)
	d.advance(20 * 24 * time.Hour)
	openID := d.submitted(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.notes.Sweep(ctx, d.clock.Now()); err != nil {
		t.Fatal(err)
	}
	now := d.clock.Now()
	began, ended, since := now.AddDate(0, 0, -40), now.AddDate(0, 0, -10), now.AddDate(0, 0, -2)
	for _, dl := range []models.Deadline{
		{ID: "dl_tacit", Rule: "DECISION_DUE", PartyOrg: "auth-be", PartyRole: "AUTHORITY_TRANSIT", State: "LAPSED", ClosedAt: &ended},
		{ID: "dl_expiry", Rule: "CONSENT_VALIDITY", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "LAPSED", ClosedAt: &ended},
		{ID: "dl_paused", Rule: "DECISION_DUE", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION", State: "SUSPENDED", SuspendedSince: &since},
		{ID: "dl_met", Rule: "INFORMATION_REPLY_DUE", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "MET_LATE", ClosedAt: &ended},
	} {
		dl.DocumentID, dl.ProviderID, dl.LegalBasis, dl.StartedAt, dl.UpdatedAt = openID, "dev-1", "Art. 9 Regulation (EU) 2024/1157", began, now
		dl.DueAt = ended
		if dl.SuspendedSince != nil {
			dl.DueAt = since.Add(2677981 * time.Second)
		}
		dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
		if err := d.db.Create(&dl).Error; err != nil {
			t.Fatal(err)
		}
	}
	warned := now.AddDate(0, 0, -1)
	if err := d.db.Create(&models.Deadline{ID: "dl_soon", DocumentID: overdueID, ProviderID: "dev-1", Rule: "INFORMATION_REPLY_DUE",
		LegalBasis: "Art. 8(3) Regulation (EU) 2024/1157", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "DUE_SOON",
		StartedAt: began, DueAt: now.AddDate(0, 0, 4), WarnAt: &warned, UpdatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}

	p := openTab(t, 150*time.Second)
	p.v.strict(t, d.url)
	p.labelsAbsent(d.url)
	p.do("open the deadline page", chromedp.Navigate(d.url+"/ui/deadlines"))
	p.v.views(t, "deadlines-login", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)

	// A wrong password: the alert says so, and is checked as a view.
	p.v.expect("AuthApi/IssueRefreshToken", http.StatusUnauthorized)
	p.eval("a wrong password", `(() => { document.getElementById('username').value = 'noor'; document.getElementById('password').value = 'not-noors'; document.getElementById('login').click(); })()`)
	p.wait("the login's alert", `!document.getElementById('login-error').hidden && document.getElementById('login-error').textContent.trim() !== ''`)
	p.v.check(t, "deadlines-login-refused (en, 1280 px)")
	p.eval("clear the form", `(() => { document.getElementById('username').value = ''; document.getElementById('password').value = ''; document.body.focus(); })()`)

	// Logging in with the keyboard alone: the provider is the first one
	// offered; the username and the password typed; Enter sends the form.
	p.tabTo("to the username", "#username")
	p.typeText("type the username", "noor")
	p.tabTo("to the password", "#password")
	p.typeText("type the password", passwords["noor"])
	p.key("log in with Enter", "\r")
	rows := `document.getElementById('table').getAttribute('aria-busy') === 'false' && document.querySelectorAll('#table tbody tr[data-state]').length >= 7 && document.getElementById('summary').textContent !== ''`
	p.wait("the report", rows)
	p.v.views(t, "deadlines", rows)

	// At 1280 px the Due and Remaining columns show in full in both
	// languages; at 390 px the rows stand as cards, each cell named.
	for _, lang := range []string{"de", "en"} {
		p.eval("switch to "+lang, `(() => { const s = document.getElementById('lang'); s.value = `+jsString(lang)+`; s.dispatchEvent(new Event('change')); })()`)
		p.setWidth(1280)
		got := p.wait("the columns at 1280 px in "+lang, `document.documentElement.lang === `+jsString(lang)+` && JSON.stringify([...document.querySelectorAll('#table thead th')].slice(-3).map(th => {
			const r = th.getBoundingClientRect(); return {text: th.innerText.trim(), shown: r.width > 0 && r.right <= innerWidth}; }))`)
		var cols []struct {
			Text  string
			Shown bool
		}
		if err := json.Unmarshal([]byte(got), &cols); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{"en": {"Due", "State", "Remaining"}, "de": {"Fällig", "Stand", "Verbleibend"}}[lang]
		for i, c := range cols {
			if !c.Shown || !strings.HasPrefix(c.Text, want[i]) {
				t.Errorf("%s at 1280 px: column %d is %+v, want %q shown", lang, i, c, want[i])
			}
		}
		p.setWidth(390)
		card := p.wait("the rows as cards at 390 px in "+lang, `(r => r && JSON.stringify({display: getComputedStyle(r).display,
			labels: [...r.cells].map(c => getComputedStyle(c, '::before').content), right: Math.max(...[...r.cells].map(c => c.getBoundingClientRect().right))}))(document.querySelector('#table tbody tr[data-state="OVERDUE"]'))`)
		var c struct {
			Display string
			Labels  []string
			Right   float64
		}
		if err := json.Unmarshal([]byte(card), &c); err != nil {
			t.Fatal(err)
		}
		if c.Display != "block" || len(c.Labels) != 6 || c.Labels[5] != jsString(want[2]) || c.Right > 390 {
			t.Errorf("%s at 390 px: the overdue row is %+v, want a card whose cells say their columns (the last %q) within the window", lang, c, want[2])
		}
	}
	// The German words of the report.
	p.eval("German", `(() => { const s = document.getElementById('lang'); s.value = 'de'; s.dispatchEvent(new Event('change')); })()`)
	de := p.wait("the report in German", `document.documentElement.lang === 'de' && document.querySelector('#table tbody tr[data-state="OVERDUE"]').innerText + ' | ' + document.getElementById('summary').textContent + ' | ' + document.querySelector('#table tbody tr[data-state="SUSPENDED"] td.days').textContent`)
	for _, w := range []string{"Überfällig", "Empfangsbestätigung fällig", "Tage überfällig", "Behörde am Bestimmungsort", "Notifizierung", "überfällig", "abgelaufen (wie vorgesehen)", "noch 31 Tage (ausgesetzt)"} {
		if !strings.Contains(de, w) {
			t.Errorf("the report in German lacks %q: %s", w, de)
		}
	}
	p.eval("English", `(() => { const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change')); })()`)

	// Sorting and opening a document with the keyboard, at 1280 px.
	p.setWidth(1280)
	p.tabTo("to the Due header", `th[data-sort="due_at"] button`)
	p.shot("deadlines-focus-en-1280")
	p.key("sort by due date", "\r")
	p.wait("sorted by due date", `document.querySelector('th[data-sort="due_at"]').getAttribute('aria-sort') === 'ascending' && document.getElementById('table').getAttribute('aria-busy') === 'false'`)
	if got := p.eval("order", `document.getElementById('order').textContent`); got != "Sorted by due date, ascending" {
		t.Errorf("order after sorting by the Due header: %q", got)
	}
	p.tabTo("to the first document", `#table tbody tr:first-child a.doc-link`)
	p.key("open the document", "\r")
	p.wait("the document shown", `document.getElementById('document-view').open && document.getElementById('document-json').textContent !== ''`)
	p.v.check(t, "deadlines-document (en, 1280 px)")
	p.shot("deadlines-document-en-1280")
	p.key("close the document with Escape", "\x1b")
	p.wait("the document closed", `!document.getElementById('document-view').open`)

	// On a phone the order is chosen with a select instead of the headers.
	p.setWidth(390)
	p.tabTo("to the order select", "#sort")
	p.eval("choose an order", `(() => { const s = document.getElementById('sort'); s.value = 'state:DESC'; s.dispatchEvent(new Event('change')); })()`)
	p.wait("sorted by state", `document.getElementById('order').textContent === 'Sorted by state, descending' && document.getElementById('table').getAttribute('aria-busy') === 'false'`)
	p.v.check(t, "deadlines sorted on a phone (en, 390 px)")

	// Logging out says what happened and what to do.
	p.eval("log out", `document.getElementById('logout').click()`)
	got := p.wait("logged out", `!document.getElementById('login-view').hidden && !document.getElementById('login-notice').hidden && document.getElementById('login-notice').textContent.trim()`)
	if got != "You have logged out. To go on, log in again." {
		t.Errorf("after logging out the page says %q", got)
	}
	p.v.check(t, "deadlines-logged-out (en, 390 px)")
}

// The signing page as a person sees it (issue 45.4, 45.5, 45.6): the login,
// what the carrier is asked to sign and the signed note, at 390 and 1280
// px, in English and German, with no axe-core finding, nothing cut off, no
// raw name (layer types, roles and the process's state in words) and no
// leftover word; the carrier logs in and signs with the keyboard alone,
// seeing where the focus is.
func TestSigningPageViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	carrier := newSigner(t, "Tom (Spedition Schnell)")
	d.signKeys.add("tom", carrier.key, carrier.cert)
	x := d.carrierNote(t)
	proc := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2", "signer": "tom"}))

	p := openTab(t, 150*time.Second)
	p.v.strict(t, d.url)
	p.do("open the signing link", chromedp.Navigate(d.url+proc["signingUrl"].(string)))
	p.v.views(t, "sign-login", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)

	p.tabTo("to the username", "#username")
	p.typeText("type the username", "tom")
	p.tabTo("to the password", "#password")
	p.typeText("type the password", passwords["tom"])
	p.key("log in with Enter", "\r")
	ready := `!document.getElementById('process-view').hidden && document.querySelectorAll('#layers section').length === 2`
	p.wait("what tom is asked to sign", ready)
	p.v.views(t, "sign", ready)
	p.eval("German", `(() => { const s = document.getElementById('lang'); s.value = 'de'; s.dispatchEvent(new Event('change')); })()`)
	de := p.wait("the page in German", `document.documentElement.lang === 'de' && document.getElementById('process-view').innerText`)
	for _, w := range []string{"Wartet auf Ihre Unterschrift", "Schicht 2 (Beförderer, unterschrieben als Beförderer)", "Beförderer 1 › Übernahmedatum", "02.12.2026", "Unterschreiben"} {
		if !strings.Contains(de, w) {
			t.Errorf("the signing page in German lacks %q: %s", w, de)
		}
	}
	p.eval("English", `(() => { const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change')); })()`)

	// Signing with the keyboard: Tab to Sign, Enter.
	p.tabTo("to the Sign button", "#sign")
	p.shot("sign-focus-en-1280")
	p.key("sign with Enter", "\r")
	signed := `document.getElementById('state').dataset.state === 'SIGNED' && !document.getElementById('done').hidden && document.querySelector('#layers section[data-index="2"]')?.dataset.signed === 'true'`
	p.wait("signed", signed)
	p.v.views(t, "sign-signed", signed)
	if got := p.eval("state", `document.getElementById('state').textContent + ' | ' + document.getElementById('done').textContent.trim()`); got != "Signed | Signed. The document went back to whoever asked for your signature." {
		t.Errorf("after signing the page says %q", got)
	}
}

// The inspection page as an inspector sees it (issue 45.4, 45.5, 45.6):
// the page of a printed notification's QR code, without logging in, at
// 390 and 1280 px, in English and German (the page has no script: its
// language is its address's ?lang=, and it links to the other language,
// which is how the test switches), with no axe-core finding, nothing cut
// off, no raw name (the document's kind and state in words) and no
// leftover word; the link to the other language and to the PDF are
// reached with the keyboard, the focus visible.
func TestInspectionPageViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	id := d.submitted(t)
	_, m := d.printed(t, "alice", co, id, "en")
	link := m["inspectionLink"].(string)
	doc, _ := d.get(t, "alice", id)

	p := openTab(t, 120*time.Second)
	p.v.strict(t, d.url)
	ready := `document.querySelector('.number') !== null && document.querySelector('.block h2') !== null`
	p.viewsByAddress("inspection", func(lang string) string { return link + "?lang=" + lang }, ready)
	text := p.eval("the page", `document.querySelector('.facts').innerText`)
	if !strings.Contains(text, "Notification") || strings.Contains(text, doc["state"].(string)) || !strings.Contains(text, "Submitted") {
		t.Errorf("the inspection page's facts %q: want the kind and the state (%s) in words", text, doc["state"])
	}
	// To the other language with the keyboard.
	p.tabTo("to the other language", `a[hreflang="de"]`)
	p.key("follow it", "\r")
	p.wait("the page in German", `document.documentElement.lang === 'de' && document.querySelector('.facts').innerText.includes('Notifizierung')`)
	p.tabTo("to the PDF", `a[href^="?format=pdf"]`)
}

// The documentation as a reader sees it (issue 45.4, 45.5, 45.6): its
// index and a long guide with tables and code (the transport documents'),
// at 390 and 1280 px, with no axe-core finding, nothing cut off or running
// past the window (a wide table or code block scrolls alone, in a region
// the keyboard reaches), and no leftover word. The guides are written in
// English only: they are checked in English (lang="en"), the language
// they declare; raw names there stand in code, which the check leaves
// alone, as a guide for integrators quotes the contract.
func TestDocsViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	p := openTab(t, 120*time.Second)
	// The intents and states of the machines, which the reference of the
	// operations names as the contract does ("A carrier takes custody
	// (CARRIER_TRANSPORT)"): right where they are shown, there only.
	var contract []string
	for _, kind := range []string{"notification", "annex_vii", "movement"} {
		var m struct {
			States  []string `json:"states"`
			Intents []struct {
				Name string `json:"name"`
			} `json:"intents"`
		}
		getJSON(t, d.url+"/workflows/"+kind+".json", &m)
		contract = append(contract, m.States...)
		for _, i := range m.Intents {
			contract = append(contract, i.Name)
		}
	}
	for _, c := range []struct {
		page    string
		allowed []string
	}{
		{"README.md", nil},
		// a BMU note's layer, named in German beside its English name:
		// "5. A supplement (ERGAENZUNG)"
		{"transport-documents.md", []string{"ERGAENZUNG"}},
		{"reference/operations.md", append(contract, "CONSENT", "CONSENT_WITH_CONDITIONS", "OBJECTION")},
	} {
		p.v.strict(t, d.url, c.allowed...)
		name := "docs-" + strings.TrimSuffix(strings.ReplaceAll(c.page, "/", "-"), ".md")
		p.do("open "+c.page, chromedp.Navigate(d.url+"/docs/"+c.page))
		for _, width := range []int64{390, 1280} {
			p.setWidth(width)
			p.wait(c.page+" shown", `document.documentElement.lang === 'en' && document.querySelector('main h1') !== null`)
			// axe-core at the desktop's width only (its slowest check; the
			// guides are in English, their layout is checked at both)
			p.v.noAxe = width == 390
			p.checkQuoting(fmt.Sprintf("%s (en, %d px)", name, width))
			p.v.noAxe = false
			p.shot(fmt.Sprintf("%s-en-%d", name, width))
		}
	}
	// The keyboard reaches a table's region and the navigation's links,
	// the focus visible.
	p.setWidth(390)
	p.do("back to the top", chromedp.Navigate(d.url+"/docs/reference/operations.md"))
	p.wait("the reference", `document.querySelector('.scroll') !== null`)
	p.tabTo("to the first table", `.scroll`)
	if got := p.eval("its name", `document.activeElement.getAttribute('aria-label')`); !strings.HasPrefix(got, "Table 1") {
		t.Errorf("the first table's region is named %q", got)
	}
	p.do("back to the top", chromedp.Navigate(d.url+"/docs/README.md"))
	p.tabTo("to the guide for integrators", `header a[href="integrators.md"]`)
	p.key("follow it", "\r")
	p.wait("the guide for integrators", `location.pathname === '/docs/integrators.md' && document.querySelector('main h1') !== null`)
}

// checkQuoting is v.check for a page of the guides: as v.check, except
// that the word null inside a code block or code span is no script's
// leftover but what the guide quotes (JSON's null, jq's, a shell's
// /dev/null). The view check looks for leftovers in code too (its raw
// name check leaves code alone); this is the one place it is told apart.
func (p *pageTab) checkQuoting(view string) {
	p.t.Helper()
	c, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	shown, err := chromedp.Run(c, chromedp.Evaluate[[]string](viewProblems))
	if err != nil {
		p.t.Fatalf("%s: the view could not be read: %v", view, err)
	}
	kept := shown[:0]
	for _, s := range shown {
		if !quotedNull.MatchString(s) {
			kept = append(kept, s)
		}
	}
	if p.v.strictNames != nil {
		kept = append(kept, p.v.strictProblems(p.t, c, view)...)
	}
	p.v.mu.Lock()
	problems := append(p.v.problems, kept...)
	p.v.problems = nil
	clear(p.v.expected)
	p.v.mu.Unlock()
	for _, s := range problems {
		p.t.Errorf("%s: %s", view, s)
	}
}

// quotedNull is the view check's line for the word null in code.
var quotedNull = regexp.MustCompile(`^shows "null" in (code|pre)[.#: ]`)
