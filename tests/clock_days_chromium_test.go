package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The pages count days on the provider's clock, never the browser's: the
// provider's test clock moves 30 days ahead (AdvanceTestClock, as a sandbox
// user does), past an acknowledgement's due day, while the browser's clock
// stays where it is. The deadline page shows the row overdue with the days
// late the server counts (ListDeadlines' daysLeft, GetDocument's), no "days
// left", and the time they are counted from; the console's deadline table
// shows it overdue with the server's working days late, in English and in
// German. Set WASTEFLOW_SCREENSHOTS to a directory (e.g. bin/screenshots)
// for the deadline page after the advance at 390 and 1280 px, in an English
// and a German browser.
func TestPagesCountDaysOnTheProviderClockInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	d := startDocs(t, dbtest.SQLite(t))
	id := d.submitted(t) // acknowledgement due from auth-nl in 10 working days
	doc, _ := d.get(t, "noor", id)
	no := doc["number"].(string)
	if st, m, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 30}); st != 200 || m["advancedBy"] != "2592000s" {
		t.Fatalf("AdvanceTestClock: %d %s", st, raw)
	}
	// The server's figures: GetDocument's and ListDeadlines'.
	doc, _ = d.get(t, "noor", id)
	dl := deadline(doc, "ACKNOWLEDGEMENT_DUE", "auth-nl")
	if dl == nil || dl["state"] != "OVERDUE" || !(num(dl["daysLeft"]) < 0) || !(num(dl["workingDaysLeft"]) < 0) {
		t.Fatalf("the acknowledgement 30 days on: %v", dl)
	}
	days, working := int(-num(dl["daysLeft"])), int(-num(dl["workingDaysLeft"]))
	listed := false
	for _, x := range d.listDeadlines(t, "noor")["entries"].([]any) {
		if e := x.(map[string]any); e["documentNumber"] == no && e["rule"] == "ACKNOWLEDGEMENT_DUE" {
			listed = e["daysLeft"] == dl["daysLeft"] && e["workingDaysLeft"] == dl["workingDaysLeft"]
		}
	}
	if !listed {
		t.Errorf("ListDeadlines does not count %d days (%d working days) late for %s as GetDocument does", days, working, no)
	}
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	wantDays, wantWorking := plural(days, "day")+" late", plural(working, "working day")+" late"

	bctx := consoleBrowser(t, exe, 90*time.Second)
	var mu sync.Mutex
	var exceptions []string
	cctx, stop := context.WithCancel(bctx)
	var watchers sync.WaitGroup
	defer watchers.Wait()
	defer stop()
	messages := chromedp.Console(cctx)
	csp := watchCSP(cctx, &watchers)
	watchers.Go(func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() {
				mu.Lock()
				exceptions = append(exceptions, m.Text)
				mu.Unlock()
			}
		}
	})
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	wait := func(step, expr, shown string) string {
		t.Helper()
		c, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			s, _ := chromedp.Run(bctx, chromedp.Evaluate[string](shown))
			t.Fatalf("%s: %v; page: %s", step, err, s)
		}
		return fmt.Sprint(v)
	}
	metrics := func(width int64) {
		t.Helper()
		if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
			t.Fatal(err)
		}
	}

	// The deadline page, in an English and a German browser.
	shownRows := `JSON.stringify({error: document.getElementById('error')?.textContent, asOf: document.getElementById('as-of')?.textContent,
		rows: [...(document.querySelector('#table tbody')?.rows || [])].map(r => r.innerText)})`
	row := fmt.Sprintf(`[...document.querySelectorAll('#table tbody tr')].find(r => r.dataset.number === %s && r.dataset.rule === 'ACKNOWLEDGEMENT_DUE')`, jsString(no))
	for _, locale := range []string{"en-GB", "de-DE"} {
		if _, err := chromedp.Call(bctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: locale}); err != nil {
			t.Fatal(err)
		}
		metrics(1280)
		do(locale+": open the deadline page", chromedp.Navigate(d.url+"/ui/deadlines"))
		wait(locale+": providers offered", `document.querySelector('#provider option[value="dev-1"]') !== null`, shownRows)
		// The page in the browser's language (chosen with #lang, as a reader does).
		lang := locale[:2]
		do(locale+": the page in "+lang, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('lang'); s.value = `+jsString(lang)+`; s.dispatchEvent(new Event('change')); })()`))
		do(locale+": log in as noor", chromedp.SetValue(chromedp.ID("provider"), "dev-1"), chromedp.SetValue(chromedp.ID("username"), "noor"),
			chromedp.SetValue(chromedp.ID("password"), passwords["noor"]), chromedp.Click(chromedp.ID("login")))
		got := wait(locale+": the acknowledgement's row", fmt.Sprintf(`(r => r && JSON.stringify({
			state: r.dataset.state, text: r.innerText, days: r.querySelector('td.days').textContent, title: r.querySelector('td.days').title,
			late: r.querySelector('td.days').classList.contains('late'), asOf: document.getElementById('as-of')?.textContent}))(%s)`, row), shownRows)
		wantDays, wantWorking, left, overdue, provider := wantDays, wantWorking, "left", "Overdue", "the provider"
		if lang == "de" {
			wantDays, wantWorking = fmt.Sprintf("%d Tage überfällig", days), fmt.Sprintf("%d Arbeitstage überfällig", working)
			left, overdue, provider = "noch ", "Überfällig", "der Zeit des Anbieters"
		}
		for _, want := range []string{`"state":"OVERDUE"`, `"days":` + jsString(wantDays), `"title":` + jsString(wantWorking), `"late":true`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: the overdue row %s; want %s (the server counts %d days, %d working days late)", locale, got, want, days, working)
			}
		}
		if strings.Contains(got, left) || !strings.Contains(got, overdue) || !strings.Contains(got, provider) {
			t.Errorf("%s: the overdue row %s says days left, or not %s, or not from when the provider's days count", locale, got, overdue)
		}
		if dir := os.Getenv("WASTEFLOW_SCREENSHOTS"); dir != "" {
			for _, width := range []int64{390, 1280} {
				metrics(width)
				wait(locale+": laid out", fmt.Sprintf(`innerWidth === %d`, width), shownRows)
				png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("deadlines-after-advance-%s-%d.png", locale, width)), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		do(locale+": log out", chromedp.Click(chromedp.ID("logout")))
	}
	// The pages share the reader's choice of language: back to English.
	do("the pages in English", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change')); })()`))

	// The console's deadline table of the document, in English and German.
	metrics(1280)
	shownDoc := `JSON.stringify({error: document.getElementById('error')?.textContent, number: document.getElementById('doc-number')?.textContent,
		deadlines: document.getElementById('deadlines')?.innerText})`
	do("open the console", chromedp.Navigate(d.url+"/ui/"))
	wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`, shownDoc)
	do("log in as noor", chromedp.SetValue(chromedp.ID("provider"), "dev-1"), chromedp.SetValue(chromedp.ID("username"), "noor"),
		chromedp.SetValue(chromedp.ID("password"), passwords["noor"]), chromedp.Click(chromedp.ID("login")))
	wait("noor logged in", `!document.getElementById('who').hidden`, shownDoc)
	do("find "+no, chromedp.SetValue(chromedp.ID("search-number"), no), chromedp.Click(chromedp.ID("search-go")))
	consoleRow := `(r => r && JSON.stringify({state: r.dataset.state, text: r.innerText, remaining: r.querySelector('td.remaining').textContent,
		title: r.querySelector('td.remaining').title}))(document.querySelector('#deadlines tr[data-rule="ACKNOWLEDGEMENT_DUE"]'))`
	got := wait("the console's deadline table", `document.getElementById('doc-number').textContent === `+jsString(no)+` && `+consoleRow, shownDoc)
	for _, want := range []string{`"state":"OVERDUE"`, `"remaining":` + jsString(fmt.Sprintf("%d working days late", working)), `"title":` + jsString(fmt.Sprintf("%d days late", days))} {
		if !strings.Contains(got, want) {
			t.Errorf("the console's row %s; want %s (the server counts %d days, %d working days late)", got, want, days, working)
		}
	}
	if strings.Contains(got, "left") {
		t.Errorf("the console's overdue row says days left: %s", got)
	}
	do("switch to German", chromedp.SetValue(chromedp.ID("lang"), "de"))
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](`document.getElementById('lang').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	got = wait("the console's deadline table in German", `document.documentElement.lang === 'de' &&
		document.querySelector('#deadlines th:last-child')?.textContent === 'Verbleibend' && `+consoleRow, shownDoc)
	if want := `"remaining":` + jsString(fmt.Sprintf("%d Arbeitstage überfällig", working)); !strings.Contains(got, want) || strings.Contains(got, "verbleib") || strings.Contains(got, "noch ") {
		t.Errorf("the console's row in German %s; want %s, and nothing left", got, want)
	}

	stop()
	watchers.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) > 0 {
		t.Errorf("uncaught exceptions in the pages: %q", exceptions)
	}
	if v := csp.violations(); len(v) > 0 {
		t.Errorf("the pages broke their Content-Security-Policy: %q", v)
	}
}
