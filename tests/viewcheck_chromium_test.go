package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// viewWatch looks at a browser tab as a person would (issue 45.6, first
// step): what went wrong behind the view (a console error, an uncaught
// exception, a request that failed) and what the view shows that a person
// should never see (an element marked hidden that is displayed, the words
// null, undefined, NaN or [object Object]). Other tests create one with
// watchView before the tab opens its first page and call check on each view.
type viewWatch struct {
	ctx context.Context

	// strictNames, once strict is called: the raw names (enum values,
	// states, intents) visible text must not show; nil: the strict checks
	// (axe-core, overflow, raw names) are off.
	strictNames []string
	// noAxe leaves axe-core out of the next check (views runs it on two
	// of its four views).
	noAxe bool

	mu       sync.Mutex
	problems []string         // seen since the last check
	expected map[string]int64 // an operation's path suffix → a status the page handles
	pending  map[network.RequestID]string
}

// watchView starts watching the tab of ctx (a chromedp context). Events are
// collected with chromedp.Listen: it sees an event before the reply to any
// command sent after it, so the page evaluation in check sees every event of
// the view so far.
func watchView(t *testing.T, ctx context.Context) *viewWatch {
	t.Helper()
	w := &viewWatch{ctx: ctx, expected: map[string]int64{}, pending: map[network.RequestID]string{}}
	err := chromedp.Listen(ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			w.pending[e.RequestID] = e.Request.Method + " " + e.Request.URL
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 && !w.expects(e.Response.URL, e.Response.Status) {
				w.problems = append(w.problems, fmt.Sprintf("request %s answered %d %s", w.pending[e.RequestID], e.Response.Status, e.Response.StatusText))
			}
		case *network.EventLoadingFailed:
			// a download the page saves (a blob link) is no failed request
			if !e.Canceled && !strings.HasPrefix(w.pending[e.RequestID], "GET blob:") {
				w.problems = append(w.problems, fmt.Sprintf("request %s failed: %s", w.pending[e.RequestID], e.ErrorText))
			}
		case *runtime.EventExceptionThrown:
			text := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				text += " " + e.ExceptionDetails.Exception.Description
			}
			w.problems = append(w.problems, "uncaught: "+text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					if a.Description != "" {
						parts = append(parts, a.Description)
					} else {
						parts = append(parts, string(a.Value))
					}
				}
				w.problems = append(w.problems, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			// The browser's own line for a failed request is reported above
			// (or expected); any other error it logs is a problem.
			if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				w.problems = append(w.problems, "browser log: "+e.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// expect declares a failed answer the page is meant to handle (a business
// refusal it shows, a stale copy it offers to reload): op is the end of
// the request's path. It holds until the next check.
func (w *viewWatch) expect(op string, status int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expected[op] = status
}

func (w *viewWatch) expects(rawURL string, status int64) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	for op, s := range w.expected {
		if s == status && strings.HasSuffix(u.Path, op) {
			return true
		}
	}
	return false
}

// viewProblems is evaluated in the page: elements with the hidden attribute
// that are displayed, and visible words that are a script's leftovers.
const viewProblems = `(() => {
	const out = [];
	const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
	for (const e of document.querySelectorAll('[hidden]')) {
		const d = getComputedStyle(e).display;
		if (d !== 'none') out.push('hidden but displayed (' + d + '): ' + name(e));
	}
	const bad = /(^|[^A-Za-z])(null|undefined|NaN|\[object Object\])(?![A-Za-z])/;
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const p = n.parentElement;
		if (!p || !p.checkVisibility({ visibilityProperty: true }) || p.closest('script, style, template')) continue;
		const m = n.textContent.match(bad);
		if (m) out.push('shows ' + JSON.stringify(m[2]) + ' in ' + name(p) + ': ' + JSON.stringify(n.textContent.trim().slice(0, 120)));
	}
	for (const e of document.querySelectorAll('input:not([type=hidden]), textarea, select')) {
		if (!e.checkVisibility({ visibilityProperty: true })) continue;
		const v = e.tagName === 'SELECT' ? [...e.options].map((o) => o.text).join(' | ') : e.value;
		const m = String(v).match(bad);
		if (m) out.push('shows ' + JSON.stringify(m[2]) + ' in ' + name(e) + ': ' + JSON.stringify(String(v).slice(0, 120)));
	}
	return out;
})()`

// check fails t for each problem of the view now shown, and for what went
// wrong behind it since the last check; view names it in the messages.
// Expectations end with it.
func (w *viewWatch) check(t *testing.T, view string) {
	t.Helper()
	c, cancel := context.WithTimeout(w.ctx, 10*time.Second)
	defer cancel()
	shown, err := chromedp.Run(c, chromedp.Evaluate[[]string](viewProblems))
	if err != nil {
		t.Fatalf("%s: the view could not be read: %v", view, err)
	}
	if w.strictNames != nil {
		shown = append(shown, w.strictProblems(t, c, view)...)
	}
	w.mu.Lock()
	problems := append(w.problems, shown...)
	w.problems = nil
	clear(w.expected)
	w.mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: %s", view, p)
	}
}

// views checks the view now shown at 390 and 1280 px, in English and
// German (switched with the page's #lang select; two of the four unless
// allViews), and with
// WASTEFLOW_VIEW_SHOTS set saves a screenshot of each under
// bin/views/<name>-<lang>-<width>.png (not committed) to look at. ready is
// a JavaScript expression true once the view shows (again) after a
// change of language. It leaves the page in English at 1280 px.
func (w *viewWatch) views(t *testing.T, name, ready string) {
	t.Helper()
	c, cancel := context.WithTimeout(w.ctx, 20*time.Second)
	_, err := chromedp.Run(c, chromedp.Poll[any](ready, chromedp.WithPollingInterval(50*time.Millisecond)))
	cancel()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, lang := range []string{"de", "en"} {
		if _, err := chromedp.Run(w.ctx, chromedp.Evaluate[any](`(() => { const s = document.getElementById('lang'); s.value = `+jsString(lang)+`; s.dispatchEvent(new Event('change')); })()`)); err != nil {
			t.Fatalf("%s: switch to %s: %v", name, lang, err)
		}
		for _, width := range []int64{390, 1280} {
			if (lang == "de") != (width == 390) && !allViews() {
				continue
			}
			height := int64(900)
			if width == 390 {
				height = 844
			}
			if _, err := chromedp.Call(w.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: height, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
				t.Fatal(err)
			}
			c, cancel := context.WithTimeout(w.ctx, 20*time.Second)
			// the language's re-render done (a form closes and reopens in it)
			_, err := chromedp.Run(c, chromedp.Poll[any](fmt.Sprintf(`document.documentElement.lang === %s && innerWidth === %d && !document.body.hasAttribute('data-rendering') && (%s)`, jsString(lang), width, ready),
				chromedp.WithPollingInterval(50*time.Millisecond)))
			cancel()
			if err != nil {
				t.Fatalf("%s in %s at %d px: %v", name, lang, width, err)
			}
			view := fmt.Sprintf("%s (%s, %d px)", name, lang, width)
			// axe-core, the slowest check (seconds on a long page), runs
			// on two of the four: German at the phone's width, English at
			// the desktop's, so each language and each width has it once
			// (the layout and raw-name checks run on all four).
			w.noAxe = (lang == "de") != (width == 390)
			w.check(t, view)
			w.noAxe = false
			if os.Getenv("WASTEFLOW_VIEW_SHOTS") == "" {
				continue
			}
			png, err := chromedp.Run(w.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("..", "bin", "views")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%d.png", name, lang, width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// allViews: views checks each view in both languages at both widths when
// WASTEFLOW_VIEWS_ALL or WASTEFLOW_VIEW_SHOTS is set (make stress sets
// the first); make test checks two of the four, German at the phone's
// width (the longest words in the least room) and English at the
// desktop's, so each language and each width is seen.
func allViews() bool {
	return os.Getenv("WASTEFLOW_VIEWS_ALL") != "" || os.Getenv("WASTEFLOW_VIEW_SHOTS") != ""
}

// strict turns on, for every later check, what a person sees beyond a
// script's leftovers (issue 45.5, 45.6):
//   - axe-core (tests/testdata/axe, tools/axe/vendor.sh) with the WCAG
//     2.0/2.1 A and AA rules: every violation, with the elements it names;
//   - horizontal overflow: the page wider than the window, or an element
//     whose content is cut (overflow hidden or clip, or text-overflow) or
//     that reaches past the window's right edge;
//   - raw names in visible text: an enum value, state or intent of the
//     server's contract (read from base's /openapi.json and /workflows/*.json)
//     shown as a word, or a field path (a.b.c in camelCase).
//
// allowed lists words that are raw names but right where they are shown
// (a country code, a format's name).
func (w *viewWatch) strict(t *testing.T, base string, allowed ...string) {
	t.Helper()
	names := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if e, ok := x["enum"].([]any); ok {
				for _, n := range e {
					if s, ok := n.(string); ok {
						names[s] = true
					}
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	var api any
	getJSON(t, base+"/openapi.json", &api)
	walk(api)
	for _, kind := range []string{"notification", "annex_vii", "movement"} {
		var m struct {
			States  []string `json:"states"`
			Intents []struct {
				Name string `json:"name"`
			} `json:"intents"`
		}
		getJSON(t, base+"/workflows/"+kind+".json", &m)
		for _, s := range m.States {
			names[s] = true
		}
		for _, i := range m.Intents {
			names[i.Name] = true
		}
	}
	for _, a := range allowed {
		delete(names, a)
	}
	w.strictNames = []string{}
	for n := range names {
		// a raw name is an upper-case identifier of three letters or more
		// (two-letter values are country and language codes people read)
		if len(n) >= 3 && strings.ToUpper(n) == n && strings.Trim(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" && strings.ContainsAny(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			w.strictNames = append(w.strictNames, n)
		}
	}
	sort.Strings(w.strictNames)
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

var (
	axeOnce   sync.Once
	axeSource string
)

// axeScript is axe-core's source (read once per test process).
func axeScript(t *testing.T) string {
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
		if err == nil {
			axeSource = string(b)
		}
	})
	if axeSource == "" {
		t.Fatal("testdata/axe/axe.min.js is missing: run tools/axe/vendor.sh")
	}
	return axeSource
}

// viewLayout is evaluated in the page with the raw names: overflow, cut
// content, raw names and field paths in visible text.
const viewLayout = `((raw) => {
	const out = [];
	const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
	const root = document.documentElement;
	if (root.scrollWidth > innerWidth + 1) out.push('the page is ' + root.scrollWidth + ' px wide in a window of ' + innerWidth + ' px (it scrolls sideways)');
	for (const e of document.body.querySelectorAll('*')) {
		if (!e.checkVisibility({ visibilityProperty: true }) || e.closest('svg')) continue;
		const cs = getComputedStyle(e);
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		const scrolls = (v) => v === 'auto' || v === 'scroll';
		// a visually hidden element (clipped to a pixel for screen readers) and a form control's own scrolling are no cut
		const hiddenForEyes = e.clientWidth <= 1 || e.clientHeight <= 1 || cs.clipPath === 'inset(50%)' || (cs.clip && cs.clip !== 'auto');
		if (!hiddenForEyes && !e.matches('input, textarea, select') && !scrolls(cs.overflowX) && (cs.overflowX === 'hidden' || cs.overflowX === 'clip' || cs.textOverflow === 'ellipsis') && e.scrollWidth > e.clientWidth + 1 && !e.matches('.sr-only, .kern-sr-only, [class*=visually-hidden]'))
			out.push('content cut off in ' + name(e) + ' (' + e.scrollWidth + ' px in ' + e.clientWidth + ' px): ' + JSON.stringify(e.textContent.trim().slice(0, 80)));
		let scroller = false;
		for (let p = e.parentElement; p; p = p.parentElement) if (scrolls(getComputedStyle(p).overflowX)) { scroller = true; break; }
		if (!scroller && r.right > innerWidth + 1 && e.children.length === 0 && e.textContent.trim())
			out.push('reaches past the window (' + Math.round(r.right) + ' px of ' + innerWidth + '): ' + name(e) + ' ' + JSON.stringify(e.textContent.trim().slice(0, 80)));
	}
	const rawSet = new Set(raw);
	const path = /(^|[^\w.])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+|[a-z][a-z0-9]*\.[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w])/;
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const p = n.parentElement;
		if (!p || !p.checkVisibility({ visibilityProperty: true }) || p.closest('script, style, template, code, pre, [data-raw]')) continue;
		const text = n.textContent;
		for (const word of text.match(/[A-Z][A-Z0-9_]{2,}/g) || []) {
			if (rawSet.has(word)) { out.push('shows the raw name ' + word + ' in ' + name(p) + ': ' + JSON.stringify(text.trim().slice(0, 120))); break; }
		}
		const m = text.match(path);
		if (m) out.push('shows the field path ' + m[2] + ' in ' + name(p) + ': ' + JSON.stringify(text.trim().slice(0, 120)));
	}
	for (const e of document.querySelectorAll('select')) {
		if (!e.checkVisibility({ visibilityProperty: true })) continue;
		for (const o of e.options) if (rawSet.has(o.text.trim())) { out.push('offers the raw name ' + o.text.trim() + ' in ' + name(e)); break; }
	}
	return out;
})`

// axeRun runs axe-core on the page (injected once per document) with the
// WCAG 2.0 and 2.1 A and AA rules and returns one line per violation.
const axeRun = `(async () => {
	const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
	return r.violations.map((v) => 'axe ' + v.id + ' (' + v.impact + '): ' + v.help + ' — ' + v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ') + (v.nodes.length > 5 ? ' and ' + (v.nodes.length - 5) + ' more' : ''));
})()`

func (w *viewWatch) strictProblems(t *testing.T, ctx context.Context, view string) []string {
	t.Helper()
	raw, _ := json.Marshal(w.strictNames)
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](viewLayout+"("+string(raw)+")"))
	if err != nil {
		t.Fatalf("%s: the layout could not be read: %v", view, err)
	}
	if w.noAxe {
		return out
	}
	// axe-core gets its own time: on a long page (a guide) it takes
	// seconds, more while other browsers run beside it.
	ctx, cancel := context.WithTimeout(w.ctx, 60*time.Second)
	defer cancel()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if err != nil {
		t.Fatalf("%s: %v", view, err)
	}
	if !loaded {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](axeScript(t)+";0")); err != nil {
			t.Fatalf("%s: axe-core could not be loaded: %v", view, err)
		}
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe-core: %v", view, err)
	}
	return append(out, violations...)
}
