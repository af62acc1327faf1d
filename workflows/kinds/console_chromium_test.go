package kinds_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/uitest"

	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestAFourthKindInTheConsoleInChromium: the console offers the fourth
// kind with no edit to handlers/ui: its words in the kind filter, a button
// to create one, the form of its content block, and the created document
// in the list under its name. The console reads the kinds from
// /workflows.json, which the test reads too.
func TestAFourthKindInTheConsoleInChromium(t *testing.T) {
	exe := uitest.Chromium(t)
	url := startServer(t, dbtest.SQLite(t))

	var index struct {
		Kinds []struct {
			Kind   string
			Label  struct{ EN, DE string }
			Parent string
			Create *struct {
				Operation, Block string
				Roles            []string
			}
		}
	}
	resp, err := http.Get(url + "/workflows.json")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&index)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range index.Kinds {
		kinds = append(kinds, k.Kind+"<"+k.Parent)
		switch k.Kind {
		case "INSPECTION":
			if k.Label.EN != "Site inspection" || k.Create == nil || k.Create.Operation != co+"CreateInspection" || k.Create.Block != "inspection" {
				t.Errorf("/workflows.json's inspection: %+v %+v", k, k.Create)
			}
		case "FINDING":
			if k.Create != nil {
				t.Errorf("a finding is created under its inspection, not on its own: %+v", k.Create)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "NOTIFICATION< ANNEX_VII< MOVEMENT<NOTIFICATION INSPECTION< FINDING<INSPECTION" {
		t.Fatalf("/workflows.json's kinds: %s", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	shown := func() string {
		var text any
		text, _ = chromedp.Run(bctx, chromedp.Evaluate[any](`document.body.innerText.slice(0, 400)`))
		return fmt.Sprint(text)
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
	}
	eval := func(step, expr string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[any](expr)); err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
	}
	wait := func(step, expr string) string {
		t.Helper()
		// A bound on a hang, not a speed: under make test's race pass on
		// two cores the first page once took more than 20 s to show.
		c, cancel := context.WithTimeout(bctx, 60*time.Second)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			t.Fatalf("%s: %v; page: %s", step, err, shown())
		}
		return fmt.Sprint(v)
	}

	do("open the console", chromedp.Navigate(url+"/ui/"))
	wait("the login form", `!document.getElementById('login-view').hidden && document.querySelector('#provider option[value="dev-1"]') !== null`)
	do("log in", chromedp.SetValue(chromedp.ID("username"), "alice"), chromedp.SetValue(chromedp.ID("password"), "alice-password-1"),
		chromedp.Click(chromedp.ID("login")))
	wait("logged in", `!document.getElementById('who').hidden`)
	eval("documents", `location.hash = '#/documents'`)
	wait("the documents", `!document.getElementById('list-view').hidden && document.querySelector('#new-buttons a[data-new="INSPECTION"]') !== null`)
	filter := wait("the kind filter", `[...document.querySelectorAll('#filter-kind option')].map((o) => o.value + '=' + o.textContent).join(';')`)
	if !strings.Contains(filter, "INSPECTION=Site inspection") || !strings.Contains(filter, "FINDING=Finding") || !strings.Contains(filter, "ANNEX_VII=Annex VII document") {
		t.Errorf("the kind filter offers %s", filter)
	}
	buttons := wait("the new buttons", `[...document.querySelectorAll('#new-buttons a')].map((a) => a.dataset.new + '=' + a.textContent).join(';')`)
	if buttons != "NOTIFICATION=New: Notification;ANNEX_VII=New: Annex VII document;INSPECTION=New: Site inspection" {
		t.Errorf("the new buttons: %s", buttons)
	}
	eval("new inspection", `document.querySelector('#new-buttons a[data-new="INSPECTION"]').click()`)
	wait("its form", `!document.getElementById('new-view').hidden && document.querySelector('#action [data-path="inspection.name"]') !== null`)
	if dir := os.Getenv("WASTEFLOW_VIEW_SHOTS"); dir != "" { // to look at: the form of the fourth kind
		if png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(os.TempDir(), "fourth-kind-new.png"), png, 0o644)
		}
	}
	eval("fill it", `document.querySelector('#action [data-path="inspection.name"]').value = 'Hafen 3';
		document.querySelector('#action [data-path="inspection.operatorOrganisationId"]').value = 'recyc'`)
	eval("submit", `document.getElementById('action-submit').click()`)
	title := wait("the created inspection", `!document.getElementById('doc').hidden && document.getElementById('doc-number').textContent === 'INS-DE-2026-000001' && document.getElementById('doc-title').textContent`)
	if title != "Site inspection INS-DE-2026-000001" {
		t.Errorf("the document's title: %q", title)
	}
}
