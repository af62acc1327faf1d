package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// serverLabels stands in, in the page, for the words the server is to say
// (contract 3 of issue 45: x-labels, x-help, x-order, required and
// x-code-list in /openapi.json, GET /labels.json, the labels of
// /workflows/<kind>.json): it wraps window.fetch before the console's
// script runs and adds them to the server's own answers. The console's
// reading of them is what is tested, before and after the server says
// them itself.
const serverLabels = `(() => {
	const original = window.fetch.bind(window);
	const json = (v) => new Response(JSON.stringify(v), { status: 200, headers: { 'Content-Type': 'application/json' } });
	window.fetch = async (url, opts) => {
		const u = String(url);
		if (u.endsWith('/labels.json')) return json({ lists: { operation: {
			R4: { en: 'Recycling/reclamation of metals and metal compounds', de: 'Recycling/Rückgewinnung von Metallen und Metallverbindungen' },
			R5: { en: 'Recycling/reclamation of other inorganic materials', de: 'Recycling/Rückgewinnung von anderen anorganischen Stoffen' } } } });
		const r = await original(url, opts);
		if (u.endsWith('/openapi.json')) {
			const d = await r.json();
			const c = d.components.schemas['notification.Content'];
			c.properties.wasteDescription['x-labels'] = { en: 'Description of the waste (box 9)', de: 'Bezeichnung des Abfalls (Feld 9)' };
			c.properties.wasteDescription['x-help'] = { en: 'As the producer names it.', de: 'Wie der Erzeuger ihn nennt.' };
			c.properties.wasteDescription.description = 'DEVELOPER NOTE: not for people';
			c.properties.recoveryDisposalCodes['x-code-list'] = 'operation';
			c['x-order'] = ['wasteDescription', ...Object.keys(c.properties).filter((k) => k !== 'wasteDescription')];
			c.required = ['wasteDescription'];
			return json(d);
		}
		if (u.endsWith('/workflows/notification.json')) {
			const m = await r.json();
			m.labels = { states: { DRAFT: { en: 'Draft (not filed)', de: 'Entwurf (nicht eingereicht)' } }, intents: {}, roles: {} };
			return json(m);
		}
		return r;
	};
})()`

func TestConsoleReadsServerLabelsInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))

	bctx := consoleBrowser(t, exe, 90*time.Second)
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: serverLabels}); err != nil {
		t.Fatal(err)
	}
	v := watchView(t, bctx)
	v.strict(t, d.url)
	wait := func(step, expr string) string {
		t.Helper()
		c, cancel := context.WithTimeout(bctx, 15*time.Second)
		defer cancel()
		got, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return fmt.Sprint(got)
	}
	run := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(d.url+"/ui/#/new/NOTIFICATION")); err != nil {
		t.Fatal(err)
	}
	wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
	run(`document.getElementById('username').value = 'alice'; document.getElementById('password').value = ` + jsString(passwords["alice"]) + `; document.getElementById('login').click()`)
	form := `!document.getElementById('new-view').hidden && document.querySelector('#action [data-path="notification.wasteDescription"]') !== null`
	wait("the new notification's form", form)

	// x-order: the description first; x-labels its label, marked required;
	// x-help its help, never the developers' description.
	got := wait("the first field", `(() => { const i = document.querySelector('#action [data-path]:not([data-type=object])');
		const f = i.closest('.field'); return JSON.stringify({path: i.dataset.path, label: f.querySelector('label').textContent, required: i.getAttribute('aria-required'),
		help: (f.querySelector('.kern-hint') || {}).textContent, described: i.getAttribute('aria-describedby').split(' ').map(id => document.getElementById(id).textContent).join('|'), page: document.body.innerText.includes('DEVELOPER NOTE')}); })()`)
	for _, want := range []string{`"path":"notification.wasteDescription"`, `"label":"Description of the waste (box 9) *"`, `"required":"true"`, `"help":"As the producer names it."`, `"described":"As the producer names it.|"`, `"page":false`} {
		if !strings.Contains(got, want) {
			t.Errorf("the first field %s; want %s", got, want)
		}
	}
	if hint := wait("the required note", `String(!document.getElementById('action-hint').hidden)`); hint != "true" {
		t.Error("a form with a required field does not say what * means")
	}
	// x-code-list: the operations offered in words from /labels.json.
	run(`document.querySelector('#action [data-path="notification.recoveryDisposalCodes"] > button:last-child').click()`)
	if opts := wait("the operations offered", `(s => s && s.tagName === 'SELECT' && [...s.options].map(o => o.value + '=' + o.text).join('; '))(document.querySelector('#action [data-path="notification.recoveryDisposalCodes.0"]'))`); !strings.Contains(opts, "R4=R4 – Recycling/reclamation of metals and metal compounds") {
		t.Errorf("the operations offered: %s", opts)
	}
	run(`document.querySelector('#action [data-path="notification.recoveryDisposalCodes.0"]').value = 'R4'`)
	v.views(t, "labelled-form", form+` && document.querySelector('#action [data-path="notification.recoveryDisposalCodes.0"]')?.value === 'R4'`)
	run(`(() => { const s = document.getElementById('lang'); s.value = 'de'; s.dispatchEvent(new Event('change')); })()`)
	if l := wait("in German", `document.documentElement.lang === 'de' && (e => e && e.closest('.field').querySelector('label').textContent)(document.querySelector('#action [data-path="notification.wasteDescription"]'))`); l != "Bezeichnung des Abfalls (Feld 9) *" {
		t.Errorf("the description's label in German: %q", l)
	}
	if o := wait("an operation in German", `(s => s && s.options.length > 1 && s.options[1].text)(document.querySelector('#action [data-path="notification.recoveryDisposalCodes.0"]'))`); !strings.Contains(o, "Rückgewinnung von Metallen") {
		t.Errorf("an operation in German: %q", o)
	}
	run(`(() => { const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change')); })()`)

	// The workflow's labels: the draft's state in the server's words.
	run(`document.querySelector('#action [data-path="notification.wasteDescription"]').value = 'Lead-acid batteries'; document.getElementById('action-submit').click()`)
	if s := wait("the draft's state", `!document.getElementById('doc').hidden && document.getElementById('doc-state').dataset.state === 'DRAFT' && document.getElementById('doc-state').textContent`); s != "Draft (not filed)" {
		t.Errorf("the draft's state reads %q, want the workflow's label", s)
	}
	v.check(t, "the draft")
}
