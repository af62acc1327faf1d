package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The console in a real browser against a real server, as its people use
// it: the notifier drafts a notification from the form of its content and
// files it; the authority of destination finds it in its work queue,
// acknowledges it and requests information (first without a
// question: the business error shows at its field); the notifier replies;
// the authority consents with a condition, after a colleague's decision
// made its copy stale (offered to reload); the notifier creates a movement
// under the consent; the carrier takes it over, the consignee and the
// facility take it to completion; the timeline shows who did what with the
// chain verified; German labels on switching; a non-party
// sees nothing; at 390 px wide nothing overflows.
// Set WASTEFLOW_SCREENSHOT to write docs/console.png and
// docs/console-mobile.png for docs/ui-builders.md.
func TestConsoleInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	d := startDocs(t, dbtest.SQLite(t))
	d.workJobs(t) // the register export

	bctx := consoleBrowser(t, exe, 300*time.Second)
	v := watchView(t, bctx) // what a person sees, checked on each view
	v.strict(t, d.url)
	var mu sync.Mutex
	var exceptions []string
	cctx, stop := context.WithCancel(bctx)
	defer stop()
	var watchers sync.WaitGroup
	defer watchers.Wait()
	defer stop()
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

	shown := func() string {
		c, cancel := context.WithTimeout(bctx, 2*time.Second)
		defer cancel()
		s, err := chromedp.Run(c, chromedp.Evaluate[string](`JSON.stringify({
			error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
			state: document.getElementById('doc-state').textContent, intents: [...document.querySelectorAll('#intents button')].map(b => b.dataset.intent),
			actionErrors: document.getElementById('action-errors').hidden ? '' : document.getElementById('action-errors').innerText,
			fieldErrors: [...document.querySelectorAll('.field-error')].filter(e => e.textContent).map(e => e.dataset.for + ': ' + e.textContent),
			rows: [...document.querySelectorAll('#list tbody tr')].map(r => r.dataset.number + ' ' + r.dataset.state)})`))
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
	eval := func(step, expr string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
	}
	login := func(user string) {
		t.Helper()
		eval("log out", `document.getElementById('logout').hidden || document.getElementById('logout').click()`)
		wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
		v.check(t, "the login form")
		do("log in as "+user, chromedp.SetValue(chromedp.ID("username"), user), chromedp.SetValue(chromedp.ID("password"), passwords[user]),
			chromedp.Click(chromedp.ID("login")))
		wait(user+" logged in", `!document.getElementById('who').hidden && document.getElementById('who').textContent.startsWith(`+jsString(user)+`)`)
		wait(user+"'s work queue", `!document.getElementById('list-view').hidden && document.querySelector('#list tbody tr') !== null`)
		v.check(t, user+"'s work queue")
	}
	// open finds the notification by its number and waits for it.
	open := func(no string) {
		t.Helper()
		do("find "+no, chromedp.SetValue(chromedp.ID("search-number"), no), chromedp.Click(chromedp.ID("search-go")))
		wait("the document "+no, `!document.getElementById('doc').hidden && document.getElementById('doc-number').textContent === `+jsString(no)+`
			&& document.querySelector('#timeline li') !== null`)
		v.check(t, "the document "+no)
	}
	state := func(want string) {
		t.Helper()
		wait("state "+want, `document.getElementById('doc-state').dataset.state === `+jsString(want)+` && document.getElementById('action').hidden`)
	}
	act := func(intent string) {
		t.Helper()
		wait("intent "+intent+" offered", `document.querySelector('#intents button[data-intent="`+intent+`"]') !== null`)
		eval("open "+intent, `document.querySelector('#intents button[data-intent="`+intent+`"]').click()`)
		wait("the form of "+intent, `!document.getElementById('action').hidden && document.getElementById('action-fields').children.length > 0`)
		v.check(t, "the form of "+intent)
	}
	set := func(path, value string) {
		t.Helper()
		eval("set "+path, fmt.Sprintf(`(() => { const e = document.querySelector('#action [data-path=%s]');
			if (!e) throw new Error('no field %s'); if (e.type === 'checkbox') e.checked = %s === 'true'; else e.value = %s; })()`,
			jsString(path), path, jsString(value), jsString(value)))
	}
	add := func(list string) { // a new entry in a list field
		t.Helper()
		eval("add to "+list, `document.querySelector('#action [data-path=`+jsString(list)+`] > button:last-child').click()`)
	}
	submit := func() { eval("submit", `document.getElementById('action-submit').click()`) }

	do("open the console", chromedp.Navigate(d.url+"/ui/"))
	v.views(t, "login", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
	// The provider by its name and id, from ListProvider (a GET).
	var providers struct{ Providers []struct{ ID, Name string } }
	if resp, err := http.Get(d.url + "/svc.core.v1.api.DiscoveryApi/ListProvider"); err != nil {
		t.Fatal(err)
	} else {
		err = json.NewDecoder(resp.Body).Decode(&providers)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	found := false
	for _, p := range providers.Providers {
		if p.ID != "dev-1" {
			continue
		}
		found = true
		if got := wait("the provider's name", `document.querySelector('#provider option[value="dev-1"]').textContent`); p.Name == "" || got != p.Name+" (dev-1)" {
			t.Errorf("the login form offers the provider as %q, want %q", got, p.Name+" (dev-1)")
		}
	}
	if !found {
		t.Fatalf("ListProvider lists no dev-1: %+v", providers)
	}

	// The notifier drafts a notification from the form of its content and
	// files it.
	login("alice")
	eval("documents", `location.hash = '#/documents'`)
	wait("New notification offered", `document.querySelector('#new-buttons a[data-new="NOTIFICATION"]') !== null`)
	v.views(t, "documents", `!document.getElementById('list-view').hidden && document.querySelector('#new-buttons a[data-new="ANNEX_VII"]') !== null && document.getElementById('list-title').textContent !== ''`)
	eval("new Annex VII document", `document.querySelector('#new-buttons a[data-new="ANNEX_VII"]').click()`)
	v.views(t, "new-annex-vii", `!document.getElementById('new-view').hidden && document.querySelector('#action [data-path="annex7.arranger.organisationId"]')?.value === 'acme'`)
	eval("cancel", `document.getElementById('action-cancel').click()`)
	wait("back to the documents", `!document.getElementById('list-view').hidden && document.querySelector('#new-buttons a[data-new="NOTIFICATION"]') !== null`)
	eval("new notification", `document.querySelector('#new-buttons a[data-new="NOTIFICATION"]').click()`)
	wait("its form, the notifier filled in", `!document.getElementById('new-view').hidden && document.querySelector('#action [data-path="notification.notifier.organisationId"]')?.value === 'acme'`)
	v.views(t, "new-notification", `!document.getElementById('new-view').hidden && document.querySelector('#action [data-path="notification.notifier.organisationId"]')?.value === 'acme'`)
	for _, f := range [][2]string{{"consignee", "recyc"}, {"facility", "recyc"}, {"competentAuthorities.dispatch", "auth-de"}, {"competentAuthorities.destination", "auth-nl"}} {
		set("notification."+f[0]+".organisationId", f[1])
	}
	for _, l := range [][2]string{{"producers", "acme"}, {"carriers", "truck"}, {"carriers", "barge"}, {"competentAuthorities.transit", "auth-be"}} {
		add("notification." + l[0])
		eval("set the new entry", `(l => l[l.length - 1].value = `+jsString(l[1])+`)(document.querySelectorAll('#action [data-path^="notification.`+l[0]+`."][data-path$=".organisationId"]'))`)
	}
	add("notification.wasteClassifications")
	set("notification.wasteClassifications.0.list", "EU_LIST_OF_WASTE")
	set("notification.wasteClassifications.0.code", "16 02 13*")
	add("notification.recoveryDisposalCodes")
	set("notification.recoveryDisposalCodes.0", "R4")
	set("notification.totalQuantity", "100")
	set("notification.numberOfShipments", "3")
	set("notification.shipmentPeriod.firstDeparture", "2026-12-01")
	set("notification.shipmentPeriod.lastDeparture", "2027-06-30")
	for i, p := range []string{"DRUM", "BULK"} {
		add("notification.packagingTypes")
		set(fmt.Sprintf("notification.packagingTypes.%d", i), p)
	}
	submit()
	number := wait("the draft", `!document.getElementById('doc').hidden && document.getElementById('doc-state').dataset.state === 'DRAFT' && document.getElementById('doc-number').textContent`)
	id := wait("its id", `location.hash.slice(6)`)
	// A draft may be withdrawn: its form (a block of the retrieval
	// document, as WITHDRAWAL goes through SetByIntent) asks for a reason.
	act("WITHDRAWAL")
	// the reason is optional: not marked required (a form read from the
	// retrieval document marks what a request must carry, x-input-required)
	if r := wait("the withdrawal's reason", `(e => e && String(e.getAttribute('aria-required')))(document.querySelector('#action [data-path="withdrawal.reason"]'))`); r == "true" {
		t.Error("the withdrawal's optional reason is marked required")
	}
	eval("cancel", `document.getElementById('action-cancel').click()`)
	act("SUBMISSION")
	submit()
	state("SUBMITTED")

	// The authority of destination: its work queue, the document, acting.
	login("noor")
	// Logging out ended alice's session on the server, not only on the page.
	var active int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		d.db.Model(&models.Session{}).Where("revoked_at IS NULL AND user_agent LIKE ? AND account_id IN (?)", "%Chrome%",
			d.db.Model(&models.Account{}).Select("id").Where("username = ?", "alice")).Count(&active)
		if active == 0 || time.Now().After(deadline) {
			break
		}
	}
	if active != 0 {
		t.Fatalf("alice logged out of the console, but %d of her browser sessions are still active", active)
	}
	wait("the notification in noor's work queue", `[...document.querySelectorAll('#list tbody tr')].some(r => r.dataset.number === `+jsString(number)+` && r.dataset.state === 'SUBMITTED')`)
	v.views(t, "queue", `!document.getElementById('list-view').hidden && document.querySelector('#list tbody tr[data-number=`+jsString(number)+`] td.deadline .badge') !== null`)
	// On a phone the queue's deadline is on the screen, not off its edge.
	if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		t.Fatal(err)
	}
	if r := wait("the deadline's place on a phone", `innerWidth === 390 && String(Math.round(document.querySelector('#list tbody tr[data-number=`+jsString(number)+`] td.deadline').getBoundingClientRect().right))`); r > "390" && len(r) >= 3 {
		t.Errorf("on a phone the queue's deadline column ends at %s px, beyond the 390 px screen", r)
	}
	if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 900, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	eval("open it from the queue", `document.querySelector('#list tbody tr[data-number=`+jsString(number)+`] a').click()`)
	wait("its content, parties, deadlines, diagram and timeline", `!document.getElementById('doc').hidden
		&& document.querySelector('#content [data-section="notification"]') !== null
		&& document.getElementById('parties').textContent.includes('ILT')
		&& document.querySelector('#deadlines tr[data-rule="ACKNOWLEDGEMENT_DUE"]') !== null
		&& document.querySelector('#diagram g.current[data-state="SUBMITTED"]') !== null
		&& document.querySelectorAll('#timeline li').length === 2 && document.getElementById('chain').className === 'chain ok'`)
	if left := wait("what is left of the acknowledgement", `document.querySelector('#deadlines tr[data-rule="ACKNOWLEDGEMENT_DUE"] td.remaining').textContent`); left != "10 working days left" {
		t.Errorf("the acknowledgement's remaining time: %q, want 10 working days left (filed on Tuesday 2026-12-01)", left)
	}
	act("ACKNOWLEDGEMENT")
	submit()
	state("ACKNOWLEDGED")

	// A business error at its field, then the request with a question.
	act("REQUEST_INFORMATION")
	submit()
	msg := wait("the business error at its field", `(e => e && e.textContent && e.dataset.code + ': ' + e.textContent)(document.querySelector('.field-error[data-for="requestInformation.questions"]'))`)
	if msg != "REQUIRED_FIELD_MISSING: At least one question is required." {
		t.Fatalf("the error at requestInformation.questions: %q", msg)
	}
	// in German, the code's words from the server's labels
	eval("German", `(s => { s.value = 'de'; s.dispatchEvent(new Event('change')); })(document.getElementById('lang'))`)
	wait("the form in German", `document.documentElement.lang === 'de' && !document.getElementById('action').hidden && document.querySelector('#action-submit') !== null && document.getElementById('doc-state').textContent === 'Eingang bestätigt'`)
	submit()
	if msg := wait("the business error in German", `(e => e && e.textContent !== 'At least one question is required.' && e.textContent)(document.querySelector('.field-error[data-for="requestInformation.questions"]'))`); msg != "Dieses Feld ist erforderlich." {
		t.Fatalf("the German error at requestInformation.questions: %q", msg)
	}
	eval("English", `(s => { s.value = 'en'; s.dispatchEvent(new Event('change')); })(document.getElementById('lang'))`)
	wait("the form in English", `document.documentElement.lang === 'en' && !document.getElementById('action').hidden && document.getElementById('doc-state').textContent === 'Acknowledged'`)
	if st := wait("state unchanged", `document.getElementById('doc-state').dataset.state`); st != "ACKNOWLEDGED" {
		t.Fatalf("after a business error the state is %s", st)
	}
	add("requestInformation.questions")
	set("requestInformation.questions.0", "Which carrier takes the second leg?")
	submit()
	state("INFORMATION_REQUESTED")

	// The notifier replies.
	login("alice")
	open(number)
	act("REPLY_TO_REQUEST_INFORMATION")
	add("replyToRequestInformation.answers")
	set("replyToRequestInformation.answers.0", "The barge, from Duisburg.")
	set("replyToRequestInformation.complete", "true")
	submit()
	state("ACKNOWLEDGED")

	// The financial guarantee (Art. 7), as the notifier enters it; the
	// authority of dispatch approves it (through the API here).
	act("GUARANTEE")
	set("guarantee.kind", "FINANCIAL_GUARANTEE")
	set("guarantee.amount", "250000")
	set("guarantee.currency", "EUR")
	set("guarantee.guarantor", "Bayerische Landesbank")
	set("guarantee.reference", "BG-2026-0815")
	set("guarantee.validFrom", "2026-11-01")
	set("guarantee.validUntil", "2027-12-31")
	v.views(t, "guarantee-form", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="guarantee.guarantor"]') !== null`)
	// every field of a guarantee is needed, and marked so
	if n := wait("the guarantee's required fields", `document.querySelectorAll('#action [aria-required="true"]').length`); n != "7" {
		t.Errorf("%s of the guarantee's 7 fields marked required", n)
	}
	submit()
	state("ACKNOWLEDGED")
	wait("the guarantee submitted", `document.querySelector('#content [data-section="guarantees"]') !== null`)
	approve := d.ok(t, "bernd", au+"GetDocument", map[string]any{"documentId": id})
	approve["notification"].(map[string]any)["guaranteeApproval"] = map[string]any{"remarks": "Form and amount approved."}
	d.ok(t, "bernd", au+"SetByIntent", map[string]any{"document": approve, "intent": "GUARANTEE_APPROVAL"})

	// The authority consents with a condition; a colleague's decision in
	// the meantime makes its copy stale: offered to reload.
	login("noor")
	open(number)
	act("DECISION")
	set("decision.type", "CONSENT_WITH_CONDITIONS")
	add("decision.conditions")
	set("decision.conditions.0", "Sealed containers only.")
	d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
	v.expect("DocumentApi/SetByIntent", 409) // the stale copy, offered to reload
	submit()
	wait("the stale copy offered to reload", `!document.getElementById('stale').hidden`)
	eval("reload", `document.getElementById('reload').click()`)
	state("ACKNOWLEDGED")
	act("DECISION")
	set("decision.type", "CONSENT_WITH_CONDITIONS")
	add("decision.conditions")
	set("decision.conditions.0", "Sealed containers only.")
	// the form in both languages and widths keeps what was entered
	v.views(t, "decision-form", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="decision.conditions.0"]')?.value === 'Sealed containers only.'`)
	submit()
	state("ACKNOWLEDGED")
	d.ok(t, "bart", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})

	// The notifier ships under the consent.
	login("alice")
	open(number)
	state("CONSENTED")
	wait("the movements so far", `!document.getElementById('movements-card').hidden && document.getElementById('movements').textContent.includes('3')`)
	act("CREATE_MOVEMENT")
	set("movementTemplate.actualDateOfShipment", "2026-12-07")
	set("movementTemplate.actualQuantity", "10")
	add("movementTemplate.packagingTypes")
	set("movementTemplate.packagingTypes.0", "DRUM")
	add("movementTemplate.carriers")
	set("movementTemplate.carriers.0.organisationId", "truck")
	set("movementTemplate.carriers.0.meansOfTransport", "ROAD")
	submit()
	mvNumber := wait("the new movement", `!document.getElementById('doc').hidden && document.getElementById('doc-number').textContent.startsWith(`+jsString(number+"-M")+`) && document.getElementById('doc-number').textContent`)
	state("SUBMITTED")
	mvID := wait("the movement's id", `location.hash.slice(6)`)

	// The carrier takes it over on the shipping day.
	d.advanceTo(t, "2026-12-07")
	login("tom")
	wait("the movement in the carrier's work queue", `[...document.querySelectorAll('#list tbody tr')].some(r => r.dataset.number === `+jsString(mvNumber)+`)`)
	eval("open it", `document.querySelector('#list tbody tr[data-number=`+jsString(mvNumber)+`] a').click()`)
	wait("the movement's notification and its parties", `document.querySelector('#doc-parent a') !== null && document.querySelector('#doc-parent a').textContent.endsWith(`+jsString(number)+`)
		&& document.getElementById('parties').textContent.includes('ILT') && document.getElementById('parties').textContent.includes('Carrier (you)')`)
	// Every control of a form has a label.
	act("CARRIER_TRANSPORT")
	if unlabelled := wait("labels", `String([...document.querySelectorAll('#action input, #action select, #action textarea')].filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).length)`); unlabelled != "0" {
		t.Errorf("%s form controls without a label", unlabelled)
	}
	set("carrierTransport.takenOverOn", "2026-12-07")
	set("carrierTransport.vehicleId", "M-WF 2026")
	submit()
	state("IN_TRANSIT")
	// The consignee and facility take it to completion.
	login("rita")
	eval("open the movement", `location.hash = '#/doc/' + `+jsString(mvID))
	act("CONSIGNEE_RECEPTION")
	set("consigneeReception.receivedOn", "2026-12-07")
	submit()
	state("RECEIVED_BY_CONSIGNEE")
	// The facility accepts 8 t and refuses 2 (issue 46.5).
	act("FACILITY_RECEPTION")
	set("facilityReception.receivedOn", "2026-12-07")
	set("facilityReception.rejectedQuantity", "2")
	set("facilityReception.reason", "Two drums leaking.")
	v.views(t, "refused-part-reception", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="facilityReception.rejectedQuantity"]') !== null`)
	submit()
	state("RECEIVED_BY_FACILITY")
	wait("the refused part and its time limit", `document.querySelector('#content [data-section="rejectedPart"]') !== null
		&& document.querySelector('#deadlines tr[data-rule="REJECTED_PART_DUE"]') !== null`)
	act("FACILITY_COMPLETION")
	set("facilityCompletion.completedOn", "2026-12-07")
	submit()
	state("RECEIVED_BY_FACILITY") // the refused part is still open
	// The authority of dispatch has it taken back.
	login("bernd")
	eval("open the movement", `location.hash = '#/doc/' + `+jsString(mvID))
	act("REJECTED_PART_ARRANGEMENT")
	set("rejectedPartArrangement.arrangement", "TAKE_BACK")
	v.views(t, "refused-part-arrangement", `!document.getElementById('action').hidden && document.querySelector('#action [data-path="rejectedPartArrangement.arrangement"]') !== null`)
	submit()
	state("RECEIVED_BY_FACILITY")
	act("REJECTED_PART_RESOLUTION")
	set("rejectedPartResolution.resolvedOn", "2026-12-07")
	submit()
	state("COMPLETED")
	timeline := wait("the movement's timeline", `document.querySelectorAll('#timeline li').length === 7 && document.getElementById('chain').className === 'chain ok' && document.getElementById('timeline').innerText`)
	if !strings.Contains(timeline, "bernd (auth-de)") || !strings.Contains(timeline, "· recyc") || !strings.Contains(timeline, "truck") || !strings.Contains(timeline, "acme") {
		t.Errorf("timeline (as the authority of dispatch reads it): %q", timeline)
	}

	v.views(t, "movement", `!document.getElementById('doc').hidden && document.getElementById('doc-state').dataset.state === 'COMPLETED' && document.querySelectorAll('#timeline li').length === 7`)

	// German, chosen on the page.
	do("switch to German", chromedp.SetValue(chromedp.ID("lang"), "de"))
	eval("change", `document.getElementById('lang').dispatchEvent(new Event('change'))`)
	wait("German labels", `document.getElementById('doc-state').textContent === 'Verwertung/Beseitigung abgeschlossen' && document.documentElement.lang === 'de'
		&& document.querySelector('[data-i18n="logout"]').textContent === 'Abmelden'`)

	// At 390 px the page does not overflow sideways.
	if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		t.Fatal(err)
	}
	if w := wait("layout at 390 px", `innerWidth === 390 && String(document.documentElement.scrollWidth)`); w != "390" {
		t.Errorf("at 390 px the page is %s px wide", w)
	}
	shot := func(name string) {
		if os.Getenv("WASTEFLOW_SCREENSHOT") == "" {
			return
		}
		eval("no focus ring in the picture", `document.activeElement && document.activeElement.blur()`)
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot("console-mobile.png")
	if _, err := chromedp.Call(bctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 900, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	do("back to English", chromedp.SetValue(chromedp.ID("lang"), "en"))
	eval("change", `document.getElementById('lang').dispatchEvent(new Event('change'))`)
	login("noor")
	open(number)
	wait("the consented notification with its movement", `document.querySelectorAll('#movements tr[data-id]').length === 1`)
	v.views(t, "notification", `!document.getElementById('doc').hidden && document.querySelectorAll('#movements tr[data-id]').length === 1 && document.querySelector('#timeline li') !== null`)
	if w := wait("layout at 1280 px", `innerWidth === 1280 && (document.documentElement.scrollWidth <= innerWidth ? 'fits' : String(document.documentElement.scrollWidth))`); w != "fits" {
		t.Errorf("at 1280 px the page is %s px wide", w)
	}
	shot("console.png")

	// Print: the PDF saved, the inspection link shown; the link opens
	// without login (fetched with no credentials) on the document.
	eval("print", `document.getElementById('print').click()`)
	link := wait("the print's inspection link", `!document.getElementById('print-result').hidden && document.querySelector('#print-result a') &&
		document.getElementById('print-result').textContent.includes(`+jsString(number+"-v")+`) && document.querySelector('#print-result a').href`)
	if !strings.HasPrefix(link, d.url+"/inspect/") {
		t.Fatalf("the inspection link shown: %q", link)
	}
	eval("fetch the inspection page", `window.__insp = null; fetch(`+jsString(link)+`, {credentials: 'omit'}).then(async r => { window.__insp = r.status + ' ' + (await r.text()); })`)
	insp := wait("the inspection page's answer", `window.__insp`)
	if !strings.HasPrefix(insp, "200 ") || !strings.Contains(insp, number) {
		t.Fatalf("the inspection page from the browser: %.300s", insp)
	}
	v.check(t, "the notification printed")

	// Export the register as XLSX from the list: the job followed until
	// its file is saved.
	eval("the list", `location.hash = '#/documents'`)
	wait("the list", `!document.getElementById('list-view').hidden`)
	eval("export", `document.getElementById('export').open = true; document.getElementById('export-format').value = 'XLSX';
		document.getElementById('export-go').click()`)
	if saved := wait("the export saved", `document.getElementById('export-state').dataset.state === 'DONE' && document.getElementById('export-state').textContent`); !strings.Contains(saved, ".xlsx") {
		t.Fatalf("the export: %q", saved)
	}
	eval("back", `history.back()`)

	v.check(t, "the register exported")

	// An Annex VII document, filed through the API, as its arranger reads it.
	a7 := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
	login("alice")
	eval("open the Annex VII document", `location.hash = '#/doc/' + `+jsString(a7["id"].(string)))
	v.views(t, "annex-vii", `!document.getElementById('doc').hidden && document.getElementById('doc-number').textContent === `+jsString(a7["number"].(string))+` && document.querySelector('#timeline li') !== null`)
	login("noor")

	// A change request: the proposed terms beside those in force.
	proposed := shippable(3)
	proposed["packagingTypes"] = []any{"BULK"}
	d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": proposed, "reason": "bulk only"}})
	eval("reload", `location.hash = '#/queue'`)
	open(number)
	diff := wait("the change beside the terms in force", `document.querySelector('#content [data-section="proposedTerms"] tr[data-field="packagingTypes"]') !== null
		&& document.querySelectorAll('#content [data-section="proposedTerms"] tbody tr').length === 1
		&& document.querySelector('#content [data-section="proposedTerms"] tbody tr').innerText`)
	if !strings.Contains(diff, "Drum, Bulk") || !strings.HasSuffix(strings.TrimSpace(diff), "Bulk") {
		t.Errorf("the change shown: %q", diff)
	}

	// The consent cancelled while the request is open: the request is
	// closed, and the page says by what and when (issue 46.1).
	d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id,
		"notificationSignal": map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "the facility lost its permit"}})
	eval("reload", `location.hash = '#/queue'`)
	eval("open the notification", `location.hash = '#/doc/`+id+`'`)
	v.views(t, "change-request-closed", `!document.getElementById('doc').hidden && document.querySelector('#content [data-section="changeRequests"]') !== null
		&& /Closed by|Geschlossen durch/.test(document.querySelector('#content [data-section="changeRequests"]').innerText)`)

	// A non-party: nothing in its lists, the 404 of a missing document.
	login("eve")
	wait("eve's empty work queue", `document.querySelectorAll('#list tbody tr[data-id]').length === 0 && document.getElementById('list-title').textContent !== ''`)
	v.expect("DocumentApi/GetDocument", 404) // the page says what the 404 means
	eval("open the notification by its id", `location.hash = '#/doc/`+id+`'`)
	wait("refused as missing", `!document.getElementById('error').hidden && /not found|no document/i.test(document.getElementById('error').textContent)`)
	v.check(t, "a document eve may not see")

	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) > 0 {
		t.Errorf("uncaught exceptions in the page: %q", exceptions)
	}
	if v := csp.violations(); len(v) > 0 {
		t.Errorf("the page broke its Content-Security-Policy: %q", v)
	}
}
