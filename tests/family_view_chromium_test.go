package tests

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A notification with more movements than its document lists (issue 49)
// as a person sees it in the console: the movements card says how many
// are listed and how many are not, in words, and links to all of them;
// the link opens the list of the notification's movements, which says
// whose movements it shows and leads back to every document. Both views
// pass the views' checks at 390 and 1280 px in English and German.
func TestLargeNotificationViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	nid := d.consented(t, shippable(60))
	for range 53 {
		d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 1)})
	}
	doc, _ := d.get(t, "alice", nid)
	number := doc["number"].(string)

	p := aliceInTheConsole(t, d)
	p.eval("open the notification", `location.hash = '#/doc/' + `+jsString(nid))
	ready := `!document.getElementById('doc').hidden && document.getElementById('movements-omitted') !== null && document.querySelectorAll('#movements tbody tr').length === 50`
	p.wait("the notification", ready)
	p.v.views(t, "notification-53-movements", ready)
	// the test clock stood still (created at one instant): the latest are
	// those of the highest numbers, so M001 to M003 are left out; the 50
	// listed come by sequence number
	if got := strings.Fields(p.eval("the order", `[...document.querySelectorAll('#movements tbody tr a')].map(a => a.textContent).join(' ')`)); len(got) != 50 || !slices.IsSorted(got) ||
		got[0] != number+"-M004" || got[49] != number+"-M053" {
		t.Errorf("the movements listed are not M004 to M053 by their sequence numbers: %.200s", got)
	}
	if got := p.eval("the card", `document.getElementById('movements-omitted').innerText`); got != "50 of the 53 movements are listed here: those still under way, then the most recent ones. Show all 53 movements" {
		t.Errorf("the movements card says %q", got)
	}
	p.eval("show all", `document.querySelector('#movements-omitted a').click()`)
	list := `!document.getElementById('list-view').hidden && !document.getElementById('list-parent').hidden && document.querySelectorAll('#list tbody tr').length > 0 && document.getElementById('page-info').textContent !== ''`
	p.wait("the list of its movements", list)
	p.v.views(t, "notification-53-movements-list", list)
	if got := p.eval("the list", `document.getElementById('list-parent').innerText + ' | ' + document.getElementById('page-info').textContent`); !strings.HasPrefix(got, "Movements of notification "+number+"\u00a0· Show all documents | ") ||
		!strings.HasSuffix(got, " 53") {
		t.Errorf("the list of the movements says %q", got)
	}
	if rows := p.eval("the rows", `[...document.querySelectorAll('#list tbody tr')].every(r => r.dataset.number.startsWith(`+jsString(number+"-M")+`))`); rows != "true" {
		t.Errorf("the list holds other documents than the notification's movements")
	}
	p.eval("all documents", `document.querySelector('#list-parent a:last-child').click()`)
	p.wait("every document: the notification too", `document.getElementById('list-parent').hidden && document.getElementById('page-info').textContent.endsWith(' 54')`)
}

// A notification with a long history (issue 49.4): its requests for
// information list the open one and the 10 latest closed, its time limits
// those running or suspended and the 20 that ended latest; each says so
// and leads to all of them.
func TestLongHistoryViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	nid := d.submitted(t)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": nid})
	for i := 1; i <= 24; i++ {
		d.ok(t, "noor", au+"SetRequestInformation", map[string]any{"documentId": nid, "requestInformation": map[string]any{"questions": []string{fmt.Sprint("Question ", i)}}})
		d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": nid, "replyToRequestInformation": map[string]any{"answers": []string{"Attached"}, "complete": i < 24}})
	}

	p := aliceInTheConsole(t, d)
	p.eval("open the notification", `location.hash = '#/doc/' + `+jsString(nid))
	section := `document.querySelector('[data-section="informationRequests"]')`
	ready := `!document.getElementById('doc').hidden && ` + section + ` !== null && ` + section + `.querySelector('.exchanges-omitted') !== null`
	p.wait("the notification", ready)
	p.v.views(t, "notification-long-history", ready)
	if got := p.eval("the section", section+`.querySelector('.exchanges-omitted').innerText`); got != "11 of 24 are listed here: the open ones, then the most recent. Show all 24" {
		t.Errorf("the requests for information say %q", got)
	}
	if n := p.eval("no other list cut", `document.querySelectorAll('.exchanges-omitted').length`); n != "1" {
		t.Errorf("%s lists say they are cut", n)
	}
	if got := p.eval("the first listed", section+`.innerText`); !strings.Contains(got, "Question 14") || strings.Contains(got, "Question 13\n") {
		t.Errorf("the requests listed are not the latest: %.300s", got)
	}
	if got := p.eval("numbered as they are", section+`.querySelector('ol').start + ' ' + `+section+`.querySelectorAll(':scope > ol > li').length`); got != "14 11" {
		t.Errorf("the list is numbered from, and holds: %s", got)
	}
	deadlines := p.eval("the time limits", `document.getElementById('deadlines-omitted').innerText + ' | ' + document.querySelectorAll('#deadlines tbody tr').length`)
	// the running and suspended ones, and 20 ended: listed as many as said
	if m := regexp.MustCompile(`^(\d+) of the (\d+) time limits are listed here: those running or suspended, then those that ended most recently\. Show all (\d+) time limits \| (\d+)$`).FindStringSubmatch(deadlines); m == nil ||
		m[1] != m[4] || m[2] != m[3] || atoi(m[1]) <= 20 || atoi(m[1]) >= atoi(m[2]) {
		t.Errorf("the time limits say %q", deadlines)
	}
	p.eval("show all", section+`.querySelector('.exchanges-omitted a').click()`)
	whole := `location.hash.endsWith('?history=full') && !document.getElementById('doc').hidden && ` + section + ` !== null && ` + section + `.querySelector('.exchanges-omitted') === null && ` + section + `.innerText.includes('Question 1\n')`
	p.wait("every request", whole)
	p.v.views(t, "notification-long-history-full", whole)
	if n := p.eval("no time limit left out", `document.getElementById('deadlines-omitted') === null && document.querySelectorAll('#deadlines tbody tr').length > 24`); n != "true" {
		t.Error("with every past exchange, the time limits are not all listed")
	}
	if got := p.eval("the full view says so", `document.getElementById('history-full').innerText`); got != "Every past exchange and time limit is listed. Show the open and the most recent only" {
		t.Errorf("the full view says %q", got)
	}
	p.eval("back to the latest", `document.querySelector('#history-full a').click()`)
	p.wait("the latest again", `!location.hash.endsWith('?history=full') && document.getElementById('history-full') === null && `+section+` !== null && `+section+`.querySelector('.exchanges-omitted') !== null`)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// aliceInTheConsole is a tab with the console open on d's server, alice
// logged in, her work queue shown.
func aliceInTheConsole(t *testing.T, d *docEnv) *pageTab {
	t.Helper()
	p := openTab(t, 150*time.Second)
	p.v.strict(t, d.url)
	p.do("open the console", chromedp.Navigate(d.url+"/ui/"))
	p.wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
	p.do("log in", chromedp.SetValue(chromedp.ID("username"), "alice"), chromedp.SetValue(chromedp.ID("password"), passwords["alice"]), chromedp.Click(chromedp.ID("login")))
	p.wait("the work queue", `!document.getElementById('list-view').hidden`)
	return p
}
