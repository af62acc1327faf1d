package tests

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/uitest"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// chromium finds the browser (uitest.Chromium).
func chromium(t *testing.T) string { t.Helper(); return uitest.Chromium(t) }

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The deadline page in a real browser against a real server: a wrong
// password, a login, an overdue deadline in the table and the summary,
// lapsed periods (tacit consent, end of validity) shown apart from it in
// words and a suspended deadline's days left, sorting, one shared token
// refresh for concurrent calls, the state filter, the CSV download with the
// table's filter, and logging out; overdue and due soon first by default, a
// document number opening the document (GetDocument of the authority or
// the company service), and no clipped column at 1200 px.
// Set WASTEFLOW_SCREENSHOT to write docs/deadlines.png for docs/compliance.md.
func TestDeadlinePageInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	d := startDocs(t, dbtest.SQLite(t))
	number := func(id string) string {
		doc, _ := d.get(t, "alice", id)
		return doc["number"].(string)
	}
	overdueID := d.submitted(t) // acknowledgement due from auth-nl in 10 working days
	overdueNo := number(overdueID)
	d.advance(20 * 24 * time.Hour)
	openID := d.submitted(t)
	openNo := number(openID) // its acknowledgement period has just begun

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := d.notes.Sweep(ctx, d.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// Periods that ended as the law foresees, and a suspended one, stored as
	// the engine stores them (the sweep above has run: nothing touches them).
	now := d.clock.Now()
	began, ended, since := now.AddDate(0, 0, -40), now.AddDate(0, 0, -10), now.AddDate(0, 0, -2)
	for _, dl := range []models.Deadline{
		{ID: "dl_tacit", Rule: "DECISION_DUE", PartyOrg: "auth-be", PartyRole: "AUTHORITY_TRANSIT", State: "LAPSED", ClosedAt: &ended},
		{ID: "dl_expiry", Rule: "CONSENT_VALIDITY", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "LAPSED", ClosedAt: &ended},
		{ID: "dl_paused", Rule: "DECISION_DUE", PartyOrg: "auth-nl", PartyRole: "AUTHORITY_DESTINATION", State: "SUSPENDED", SuspendedSince: &since},
	} {
		dl.DocumentID, dl.ProviderID, dl.LegalBasis, dl.StartedAt, dl.UpdatedAt = openID, "dev-1", "Art. 9 Regulation (EU) 2024/1157", began, now
		dl.DueAt = ended
		if dl.SuspendedSince != nil {
			dl.DueAt = since.Add(2677981 * time.Second) // 31 days left (30.995)
		}
		dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
		if err := d.db.Create(&dl).Error; err != nil {
			t.Fatal(err)
		}
	}
	// Due soon, though later than the lapsed periods: the default order
	// still puts it right after the overdue one.
	warned := now.AddDate(0, 0, -1)
	if err := d.db.Create(&models.Deadline{ID: "dl_soon", DocumentID: openID, ProviderID: "dev-1", Rule: "INFORMATION_REPLY_DUE",
		LegalBasis: "Art. 8(3) Regulation (EU) 2024/1157", PartyOrg: "acme", PartyRole: "NOTIFIER", State: "DUE_SOON",
		StartedAt: began, DueAt: now.AddDate(0, 0, 4), WarnAt: &warned, UpdatedAt: now}).Error; err != nil {
		t.Fatal(err)
	}

	downloads := t.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	defer cancelAlloc() // waits for the browser to exit, before the temp dirs go
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil { // starts the browser for the whole test
		t.Fatal(err)
	}

	// Uncaught exceptions of the page fail the test; calls of RequestAccess
	// are counted.
	var (
		mu            sync.Mutex
		exceptions    []string
		refreshes     int
		documentCalls []string // Service/Method of each GetDocument
	)
	cctx, stopWatching := context.WithCancel(bctx)
	var watchers sync.WaitGroup
	messages := chromedp.Console(cctx)
	csp := watchCSP(cctx, &watchers) // the page works under its Content-Security-Policy
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
	requests := chromedp.Events(cctx, network.RequestWillBeSent)
	watchers.Go(func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			if strings.HasSuffix(ev.Request.URL, opAccess) {
				mu.Lock()
				refreshes++
				mu.Unlock()
			}
			if strings.HasSuffix(ev.Request.URL, "DocumentApi/GetDocument") {
				mu.Lock()
				documentCalls = append(documentCalls, ev.Request.URL[strings.LastIndex(ev.Request.URL, ".")+1:])
				mu.Unlock()
			}
		}
	})
	// refreshCount gives the count once it reaches at least want (events
	// arrive on another goroutine), or after two seconds.
	refreshCount := func(want int) int {
		for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			n := refreshes
			mu.Unlock()
			if n >= want || time.Now().After(end) {
				return n
			}
		}
	}

	// shown describes what the page shows, for failure messages.
	shown := func() string {
		c, cancel := context.WithTimeout(bctx, 2*time.Second)
		defer cancel()
		s, err := chromedp.Run(c, chromedp.Evaluate[string](`JSON.stringify({
			loginError: document.getElementById('login-error')?.textContent,
			error: document.getElementById('error')?.textContent,
			summary: document.getElementById('summary')?.textContent,
			rows: [...(document.querySelector('#table tbody')?.rows || [])].map(r => r.innerText)})`))
		if err != nil {
			return "(page unreadable: " + err.Error() + ")"
		}
		return s
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
	}
	// wait polls a JavaScript expression until it is truthy and returns it.
	wait := func(step, expr string) string {
		t.Helper()
		c, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
		return fmt.Sprint(v)
	}

	if _, err := chromedp.CallBrowser(bctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads, EventsEnabled: new(true),
	}); err != nil {
		t.Fatal(err)
	}

	// The server runs on a fake clock, weeks away from the real one. The page
	// shows the days the server counts (TestPagesCountDaysOnTheProviderClockInChromium);
	// its own Date.now only times the token refresh, which the test moves
	// past the token's expiry below, so Date.now starts on the server's clock.
	clockShift := fmt.Sprintf(`(() => { const now = Date.now; window.clockShift = %d; Date.now = () => now() + window.clockShift; })();`,
		time.Until(d.clock.Now()).Milliseconds())
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: clockShift}); err != nil {
		t.Fatal(err)
	}

	// The viewer sits in New York; the deadlines fall due in Europe.
	if _, err := chromedp.Call(bctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/New_York"}); err != nil {
		t.Fatal(err)
	}

	do("open the page", chromedp.Navigate(d.url+"/ui/deadlines"))
	wait("providers of the environment offered", `document.querySelector('#provider option[value="dev-1"]') !== null`)

	do("log in with a wrong password",
		chromedp.SetValue(chromedp.ID("provider"), "dev-1"),
		chromedp.SendKeys(chromedp.ID("username"), "noor"),
		chromedp.SendKeys(chromedp.ID("password"), "not-noors-password"),
		chromedp.Click(chromedp.ID("login")))
	msg := wait("#login-error after a wrong password", `!document.getElementById('login-error').hidden && document.getElementById('login-error').textContent`)
	if strings.TrimSpace(msg) == "" {
		t.Fatal("empty login error")
	}

	do("log in", chromedp.SetValue(chromedp.ID("password"), "noor-password-1"), chromedp.Click(chromedp.ID("login")))
	rowIn := func(no, state string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#table tbody tr')].some(r => r.dataset.number === %s && r.dataset.state === %s)`,
			jsString(no), jsString(state))
	}
	wait("overdue notification in the table", rowIn(overdueNo, "OVERDUE")+
		fmt.Sprintf(` && [...document.querySelectorAll('#table tbody tr')].some(r => r.dataset.number === %s && r.dataset.state !== 'OVERDUE')`, jsString(openNo)))
	row := wait("overdue row", fmt.Sprintf(`[...document.querySelectorAll('#table tbody tr')].find(r => r.dataset.number === %s).innerText`, jsString(overdueNo)))
	if !strings.Contains(row, "Overdue") || !strings.Contains(row, "Acknowledgement due") || !(strings.Contains(row, " late") || strings.Contains(row, " left")) {
		t.Fatalf("overdue row shows %q", row)
	}
	// By default what needs acting on comes first: OVERDUE, then DUE_SOON,
	// then the rest, each by due date, whatever the due dates of the rest.
	idle := `document.getElementById('table').getAttribute('aria-busy') === 'false' && document.getElementById('error').hidden`
	order := wait("the default order", idle+` && (rows => rows.length >= 6 && JSON.stringify({
		order: document.getElementById('order').textContent,
		sorted: [...document.querySelectorAll('#table th[aria-sort]')].length,
		rows: rows.map(r => ({state: r.dataset.state, due: r.querySelector('td.due time').dateTime}))}))([...document.querySelectorAll('#table tbody tr')])`)
	var listed struct {
		Order  string
		Sorted int
		Rows   []struct{ State, Due string }
	}
	if err := json.Unmarshal([]byte(order), &listed); err != nil {
		t.Fatal(err)
	}
	urgency := map[string]int{"OVERDUE": 0, "DUE_SOON": 1}
	rank := func(state string) int {
		if r, ok := urgency[state]; ok {
			return r
		}
		return 2
	}
	if listed.Order != "Overdue and due soon first, each by due date" || listed.Sorted != 0 ||
		listed.Rows[0].State != "OVERDUE" || listed.Rows[1].State != "DUE_SOON" {
		t.Errorf("default order: %s", order)
	}
	for i := 1; i < len(listed.Rows); i++ {
		a, b := listed.Rows[i-1], listed.Rows[i]
		if rank(a.State) > rank(b.State) || rank(a.State) == rank(b.State) && a.Due > b.Due {
			t.Errorf("row %d (%s due %s) before row %d (%s due %s): %s", i, a.State, a.Due, i+1, b.State, b.Due, order)
		}
	}

	// At 1200 px every column shows in full: no cell clips its content and
	// the table needs no sideways scrolling.
	if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1200, Height: 800, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	width := wait("the table at 1200 px", `innerWidth === 1200 && JSON.stringify({
		clipped: [...document.querySelectorAll('#table th, #table td')].filter(c => c.scrollWidth > c.clientWidth)
			.map(c => c.closest('table').tHead.rows[0].cells[c.cellIndex].textContent.trim() + ': ' + c.textContent.slice(0, 60)),
		wrap: document.querySelector('.table-wrap').clientWidth, table: document.getElementById('table').scrollWidth,
		page: document.documentElement.scrollWidth})`)
	var layout struct {
		Clipped           []string
		Wrap, Table, Page int
	}
	if err := json.Unmarshal([]byte(width), &layout); err != nil {
		t.Fatal(err)
	}
	if len(layout.Clipped) > 0 || layout.Table > layout.Wrap || layout.Page > 1200 {
		t.Errorf("at 1200 px: clipped cells %q; table %d px in a %d px frame; page %d px wide", layout.Clipped, layout.Table, layout.Wrap, layout.Page)
	}
	if _, err := chromedp.Call(bctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}

	// The due time is shown in the acting party's zone, named, and in the
	// viewer's own beside it.
	dueCell := wait("due cell with zones", fmt.Sprintf(`(r => JSON.stringify({zone: r.querySelector('td.due time').dataset.zone,
		text: r.querySelector('td.due time').textContent, note: r.querySelector('td.due small').textContent,
		title: r.querySelector('td.due small').title}))([...document.querySelectorAll('#table tbody tr')].find(r => r.dataset.number === %s))`, jsString(overdueNo)))
	var cell struct{ Zone, Text, Note, Title string }
	if err := json.Unmarshal([]byte(dueCell), &cell); err != nil {
		t.Fatal(err)
	}
	if cell.Zone != "Europe/Amsterdam" || !strings.HasPrefix(cell.Note, "Europe/Amsterdam · yours: ") || !strings.Contains(cell.Title, "America/New_York") ||
		!strings.Contains(cell.Text, "GMT+1") || !strings.Contains(cell.Note, "EST") {
		t.Errorf("due cell %+v: want the time in Europe/Amsterdam (GMT+1) and the viewer's in America/New_York (EST)", cell)
	}
	if badge := wait("badge", `getComputedStyle(document.querySelector('#table tbody tr[data-state="OVERDUE"] .badge')).backgroundColor`); badge != "rgb(180, 35, 24)" {
		t.Errorf("OVERDUE badge background %s, want red", badge)
	}
	summary := wait("summary", `document.getElementById('summary').textContent.includes('overdue') && document.getElementById('summary').textContent`)
	if !strings.Contains(summary, "1 overdue") || !strings.Contains(summary, "2 lapsed (ended as foreseen)") || !strings.Contains(summary, "1 suspended") {
		t.Errorf("summary %q", summary)
	}

	// LAPSED rows: a neutral badge, not the overdue one, and what the lapse
	// meant in words; the suspended row says its days left.
	lapsed := func(rule string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#table tbody tr[data-state="LAPSED"]')].find(r => r.dataset.rule === %s)`, jsString(rule))
	}
	for rule, words := range map[string]string{
		"DECISION_DUE":     "tacit consent (the transit authority did not object in time)",
		"CONSENT_VALIDITY": "consent validity ended",
	} {
		row := wait(rule+" LAPSED row", fmt.Sprintf(`(r => r && JSON.stringify({
			text: r.innerText, meaning: r.querySelector('.meaning')?.textContent,
			badgeClass: r.querySelector('.badge').className,
			background: getComputedStyle(r.querySelector('.badge')).backgroundColor,
			color: getComputedStyle(r.querySelector('.badge')).color,
			days: r.querySelector('td.days').className + ' ' + getComputedStyle(r.querySelector('td.days')).color}))(%s)`, lapsed(rule)))
		var got struct{ Text, Meaning, BadgeClass, Background, Color, Days string }
		if err := json.Unmarshal([]byte(row), &got); err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		if got.Meaning != words || !strings.Contains(got.Text, "Lapsed") || !strings.Contains(got.Text, words) {
			t.Errorf("%s LAPSED row shows %q (meaning %q), want the words %q", rule, got.Text, got.Meaning, words)
		}
		red := "rgb(180, 35, 24)"
		if !slices.Contains(strings.Fields(got.BadgeClass), "badge-lapsed") || strings.Contains(got.BadgeClass, "overdue") || got.Background == red || got.Color == red || strings.Contains(got.Days, "late") || strings.Contains(got.Days, red) {
			t.Errorf("%s LAPSED row styled as overdue: %+v", rule, got)
		}
	}
	paused := wait("suspended row", `[...document.querySelectorAll('#table tbody tr[data-state="SUSPENDED"]')].map(r => r.querySelector('td.days').textContent).join('|')`)
	if paused != "31 days left (suspended)" {
		t.Errorf("suspended row's days %q, want %q", paused, "31 days left (suspended)")
	}

	if os.Getenv("WASTEFLOW_SCREENSHOT") != "" {
		if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 900, DeviceScaleFactor: 1}); err != nil {
			t.Fatal(err)
		}
		wait("laid out at 1280 px", `innerWidth === 1280`)
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "docs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "deadlines.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(bctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}

	// A document number opens the document as the API returns it; noor's
	// organisation is an authority, so through AuthorityDocumentApi.
	openDocument := func(who, no, id, service string) {
		t.Helper()
		link := wait(who+": link of "+no, fmt.Sprintf(`(a => a && a.getAttribute('href'))([...document.querySelectorAll('#table tbody tr')].find(r => r.dataset.number === %s)?.querySelector('td.number a.doc-link'))`, jsString(no)))
		if link != "#document="+id {
			t.Errorf("%s: link of %s is %q, want #document=%s", who, no, link, id)
		}
		do(who+": open "+no, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#table tbody tr[data-number=%s] a.doc-link`, jsString(no)))))
		shownDoc := wait(who+": the document shown", `document.getElementById('document-view').open && document.getElementById('document-json').textContent &&
			JSON.stringify({title: document.getElementById('document-title').textContent, status: document.getElementById('document-status').textContent,
				json: document.getElementById('document-json').textContent})`)
		var got struct{ Title, Status, JSON string }
		if err := json.Unmarshal([]byte(shownDoc), &got); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Document struct{ Notification struct{ ID, Number string } }
		}
		if err := json.Unmarshal([]byte(got.JSON), &doc); err != nil || doc.Document.Notification.ID != id || doc.Document.Notification.Number != no ||
			!strings.Contains(got.JSON, "\n  \"document\": {") || got.Title != "Document "+no || !strings.Contains(got.Status, service+"/GetDocument") {
			t.Errorf("%s: document %s shown as %+v (%v); want its JSON pretty-printed from %s/GetDocument", who, no, got, err, service)
		}
		do(who+": close the document", chromedp.Click(chromedp.ID("document-close")))
		wait(who+": document closed", `!document.getElementById('document-view').open && location.hash === ''`)
		mu.Lock()
		calls := slices.Clone(documentCalls)
		documentCalls = nil
		mu.Unlock()
		if len(calls) != 1 || calls[0] != service+"/GetDocument" {
			t.Errorf("%s: GetDocument calls %v, want one of %s", who, calls, service)
		}
	}
	openDocument("noor", overdueNo, overdueID, "AuthorityDocumentApi")

	// Sorting by a header asks the API (a bad sort path would show #error).
	for _, dir := range []string{"ascending", "descending"} {
		do("sort by document number", chromedp.Click(chromedp.CSS(`th button[data-sort="document_number"]`)))
		wait("sorted "+dir, fmt.Sprintf(`document.querySelector('th[data-sort="document_number"]').getAttribute('aria-sort') === %q && %s`, dir, idle))
	}
	wait("rows after sorting", rowIn(overdueNo, "OVERDUE"))
	if got := wait("order named", `document.getElementById('order').textContent`); got != "Sorted by document, descending" {
		t.Errorf("order shown as %q after sorting by document twice", got)
	}
	do("back to the default order", chromedp.Click(chromedp.ID("order-default")))
	wait("default order again", idle+` && document.getElementById('order-default').hidden && document.querySelector('#table tbody tr').dataset.state === 'OVERDUE'`)

	// LAPSED is a state of its own in the filter.
	do("filter LAPSED", chromedp.SetValue(chromedp.ID("filter-state"), "LAPSED"), chromedp.Click(chromedp.ID("apply")))
	wait("only the two lapsed rows", idle+` && (rows => rows.length === 2 && rows.every(r => r.dataset.state === 'LAPSED'))([...document.querySelectorAll('#table tbody tr')])`)

	// Token rotation: the page's clock jumps past the access token's expiry
	// (the server's tokens here live 3 years), then Apply loads the table and
	// the summary at once. Both need a fresh token; one RequestAccess must
	// serve both, since presenting the spent refresh token again would revoke
	// the session (and end the page's login).
	if n := refreshCount(1); n != 1 {
		t.Fatalf("%d RequestAccess calls after the login, want 1", n)
	}
	do("the page's clock passes the token's expiry", chromedp.Evaluate[chromedp.Void](`window.clockShift += 4 * 365 * 864e5`))
	do("filter OVERDUE", chromedp.SetValue(chromedp.ID("filter-state"), "OVERDUE"), chromedp.Click(chromedp.ID("apply")))
	wait("only overdue rows", idle+` && (rows => rows.length > 0 && rows.every(r => r.dataset.state === 'OVERDUE'))([...document.querySelectorAll('#table tbody tr')])`)
	wait("the overdue notification stays", rowIn(overdueNo, "OVERDUE"))

	// The download saves the export with the table's filter.
	progress := chromedp.BrowserEvents(cctx, browser.DownloadProgress)
	do("download", chromedp.Click(chromedp.ID("download")))
	var file string
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download: %v; page: %s", err, shown())
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatalf("download canceled; page: %s", shown())
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			file = ev.FilePath
			break
		}
	}
	if file == "" { // not every platform reports the path
		found, _ := filepath.Glob(filepath.Join(downloads, "*.csv"))
		if len(found) != 1 {
			t.Fatalf("downloaded files %v", found)
		}
		file = found[0]
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil || len(records) < 2 {
		t.Fatalf("CSV %q: %v", raw, err)
	}
	if !slices.Equal(records[0], handlers.CSVHeader) || strings.Join(records[0], ",") != "document_id,document_number,kind,rule,legal_basis,party,party_role,state,started_at,due_at,closed_at,remaining,time_zone" {
		t.Fatalf("CSV header %v", records[0])
	}
	var overdueRows int
	for _, r := range records[1:] {
		if r[7] != "OVERDUE" || r[1] == openNo {
			t.Errorf("CSV row outside the state filter: %v", r)
		}
		if r[1] == overdueNo && r[3] == "ACKNOWLEDGEMENT_DUE" && r[5] == "auth-nl" && r[7] == "OVERDUE" {
			overdueRows++
		}
	}
	if overdueRows != 1 {
		t.Fatalf("CSV has %d overdue acknowledgement rows of %s: %q", overdueRows, overdueNo, raw)
	}

	if n := refreshCount(2); n != 2 {
		t.Errorf("%d RequestAccess calls, want 2 (login, one shared refresh)", n)
	}
	var reused int64
	d.db.Raw("SELECT COUNT(*) FROM sessions WHERE revoked_reason = 'reuse'").Scan(&reused)
	if reused != 0 {
		t.Errorf("%d sessions revoked for refresh token reuse", reused)
	}

	// Logging out ends the session on the server too.
	do("log out", chromedp.Click(chromedp.ID("logout")))
	wait("login form again", `!document.getElementById('login-view').hidden && document.getElementById('report-view').hidden`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var open int64
		d.db.Raw(`SELECT COUNT(*) FROM sessions s JOIN accounts a ON a.id = s.account_id
			WHERE a.username = 'noor' AND a.provider_id = 'dev-1' AND s.revoked_at IS NULL`).Scan(&open)
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of noor still open after logging out", open)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A company's account reads documents through CompanyDocumentApi.
	do("log in as alice", chromedp.SetValue(chromedp.ID("username"), "alice"), chromedp.SetValue(chromedp.ID("password"), "alice-password-1"),
		chromedp.Click(chromedp.ID("login")))
	wait("alice's table", idle+` && `+rowIn(overdueNo, "OVERDUE"))
	openDocument("alice", overdueNo, overdueID, "CompanyDocumentApi")

	stopWatching()
	watchers.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) > 0 {
		t.Fatalf("uncaught exceptions in the page: %q", exceptions)
	}
	if v := csp.violations(); len(v) > 0 {
		t.Fatalf("the page broke its Content-Security-Policy: %q", v)
	}
}

// consoleBrowser starts a headless Chromium as the console's tests use it
// (English, 1280 × 900, a profile of its own) and returns its context,
// which ends after limit; the browser stops when the test ends.
func consoleBrowser(t *testing.T, exe string, limit time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-GB"), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	return bctx
}
