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

	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	wbmu "github.com/wasteflow/wasteflow/workflows/bmu"
)

const signAPI = "/svc.signer.sign.v1.SigningProcessApi/"

// carrierNote is a consignment note signed by its producer with an open
// carrier layer (the carrier's take-over date filled in).
func (d *docEnv) carrierNote(t *testing.T) []byte {
	t.Helper()
	producer := newSigner(t, "ACME producer")
	d.signKeys.add("alice", producer.key, producer.cert)
	_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
	x = producer.sign(t, x, "layer-1")
	_, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
	_, x = d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{
		"befoerderer": []any{map[string]any{"uebernahmeDatum": inLayer("2026-12-02")}}}}})
	return x
}

func process(m map[string]any) map[string]any { return m["process"].(map[string]any) }

// The processes API: only the named person signs; the caller waits and
// receives the signed note, whose signatures verify; declining, expiry,
// cancellation and another person are refused as they should be; any XML
// can be signed at its root.
func TestSigningProcesses(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	carrier := newSigner(t, "Tom (Spedition Schnell)")
	d.signKeys.add("tom", carrier.key, carrier.cert)
	x := d.carrierNote(t)

	created := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2", "signer": "tom"}))
	id := created["id"].(string)
	if created["state"] != "CREATED" || !strings.HasSuffix(created["signingUrl"].(string), "/ui/sign?process="+id) || created["signer"] != "tom" {
		t.Fatalf("created: %v", created)
	}
	// A position the note does not have, an unknown signer: refused.
	st, _, raw := d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-1", "signer": "tom"})
	wantError(t, 400, 9, st, raw, "not open")
	st, _, raw = d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "nobody"})
	wantError(t, 400, 3, st, raw, "nobody")

	// The caller waits while the carrier opens and signs.
	waited := make(chan map[string]any, 1)
	go func() {
		_, m, _ := d.call(t, "alice", signAPI+"WaitSigningProcess", map[string]any{"processId": id, "waitSeconds": 10})
		waited <- m
	}()
	// Nobody but the named person signs: the creator's colleague is refused,
	// a stranger does not see it.
	st, _, raw = d.call(t, "alice", signAPI+"SignSigningProcess", map[string]any{"processId": id})
	wantError(t, 403, 7, st, raw, "tom")
	st, _, raw = d.call(t, "eve", signAPI+"SignSigningProcess", map[string]any{"processId": id})
	wantError(t, 404, 5, st, raw)
	opened := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id})
	if process(opened)["state"] != "OPENED" || !strings.Contains(opened["covers"].(string), "layer 2 (BEFOERDERER") || len(opened["layers"].([]any)) != 2 {
		t.Fatalf("opened: %v", opened)
	}
	signed := process(d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id}))
	if signed["state"] != "SIGNED" {
		t.Fatalf("signed: %v", signed)
	}
	var got map[string]any
	select {
	case m := <-waited:
		got = process(m)
	case <-time.After(8 * time.Second):
		t.Fatal("the waiting caller got nothing")
	}
	if got["state"] != "SIGNED" || got["signedDocument"] == "" {
		t.Fatalf("the waiting caller got %v", got)
	}
	note := b64(t, got["signedDocument"])
	doc, _ := d.bmuOK(t, "GetDocument", map[string]any{"docXml": note})
	sigs := signatures(doc)
	if sigs["1"]["valid"] != true || sigs["2"]["valid"] != true || sigs["2"]["signer"] != "Tom (Spedition Schnell)" {
		t.Fatalf("the signed note: %v", sigs)
	}
	tampered := strings.Replace(string(note), "<uebernahmeDatum>2026-12-02<", "<uebernahmeDatum>2026-12-01<", 1)
	if doc, _ = d.bmuOK(t, "GetDocument", map[string]any{"docXml": []byte(tampered)}); signatures(doc)["2"]["valid"] != false {
		t.Fatal("a changed byte left the carrier's signature valid")
	}
	st, _, raw = d.call(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})
	wantError(t, 400, 9, st, raw, "SIGNED")

	// Declined, with the reason for the caller.
	pid := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2+envelope", "signer": "tom"}))["id"]
	d.okAs(t, "tom", signAPI+"DeclineSigningProcess", map[string]any{"processId": pid, "reason": "wrong vehicle"})
	if p := process(d.okAs(t, "alice", signAPI+"WaitSigningProcess", map[string]any{"processId": pid, "waitSeconds": 1})); p["state"] != "DECLINED" || p["reason"] != "wrong vehicle" {
		t.Fatalf("declined: %v", p)
	}
	// Expired: nobody signed in time.
	pid = process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom", "expiresInSeconds": 60}))["id"]
	if l := d.okAs(t, "tom", signAPI+"ListSigningProcesses", map[string]any{}); len(l["processes"].([]any)) != 1 {
		t.Fatalf("tom's open processes: %v", l)
	}
	d.advance(2 * time.Minute)
	if p := process(d.okAs(t, "alice", signAPI+"GetSigningProcess", map[string]any{"processId": pid})); p["state"] != "EXPIRED" {
		t.Fatalf("expiry: %v", p)
	}
	st, _, raw = d.call(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": pid})
	wantError(t, 400, 9, st, raw, "EXPIRED")
	// Cancelled by the caller: no signature, no second cancellation.
	pid = process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom"}))["id"]
	if p := process(d.okAs(t, "alice", signAPI+"CancelSigningProcess", map[string]any{"processId": pid})); p["state"] != "CANCELLED" {
		t.Fatalf("cancel: %v", p)
	}
	st, _, raw = d.call(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": pid})
	wantError(t, 400, 9, st, raw, "CANCELLED")
	st, _, raw = d.call(t, "tom", signAPI+"CancelSigningProcess", map[string]any{"processId": pid})
	wantError(t, 403, 7, st, raw)

	// Any XML: an enveloped signature of its root (asked of a person of
	// one's own organisation: here tom himself).
	invoice := []byte(`<?xml version="1.0"?><invoice xmlns="urn:example:invoice"><total currency="EUR">1200.00</total></invoice>`)
	pid = process(d.okAs(t, "tom", signAPI+"CreateSigningProcess", map[string]any{"document": invoice, "signer": "tom"}))["id"]
	o := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": pid})
	if !strings.Contains(o["xml"].(string), "<total") || !strings.Contains(o["covers"].(string), "whole document") {
		t.Fatalf("other XML opened: %v", o)
	}
	p := process(d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": pid}))
	signedInvoice := b64(t, p["signedDocument"])
	if who, err := wbmu.CheckRoot(signedInvoice, d.trust); err != nil || who != "Tom (Spedition Schnell)" {
		t.Fatalf("the signed invoice does not verify: %v %v\n%s", who, err, signedInvoice)
	}
	if _, err := wbmu.CheckRoot([]byte(strings.Replace(string(signedInvoice), "1200.00", "2100.00", 1)), d.trust); err == nil {
		t.Fatal("a changed invoice verifies")
	}
}

// The whole flow in a browser: a process for the carrier layer, the page
// opened in Chromium, the carrier logs in and signs, and the waiting caller
// receives a note whose signature verifies. WASTEFLOW_SCREENSHOT writes
// docs/signing.png for docs/transport-documents.md.
func TestSigningPageInChromium(t *testing.T) {
	exe := chromium(t)
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	d := startDocs(t, dbtest.SQLite(t))
	carrier := newSigner(t, "Tom (Spedition Schnell)")
	d.signKeys.add("tom", carrier.key, carrier.cert)
	x := d.carrierNote(t)
	p := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2", "signer": "tom"}))
	waited := make(chan map[string]any, 1)
	go func() {
		_, m, _ := d.call(t, "alice", signAPI+"WaitSigningProcess", map[string]any{"processId": p["id"], "waitSeconds": 30})
		waited <- m
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 900))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	wctx, stopWatching := context.WithCancel(bctx)
	var watchers sync.WaitGroup
	defer watchers.Wait()
	defer stopWatching()
	csp := watchCSP(wctx, &watchers) // the page works under its Content-Security-Policy
	wait := func(step, expr string) string {
		t.Helper()
		c, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Poll[any](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return fmt.Sprint(v)
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	do("open the signing link", chromedp.Navigate(d.url+p["signingUrl"].(string)))
	wait("providers", `document.querySelector('#provider option[value="dev-1"]') !== null`)
	// The wrong person cannot even see it.
	do("log in as alice", chromedp.SetValue(chromedp.ID("provider"), "dev-1"), chromedp.SendKeys(chromedp.ID("username"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), passwords["alice"]), chromedp.Click(chromedp.ID("login")))
	if msg := wait("refused", `!document.getElementById('login-error').hidden && document.getElementById('login-error').textContent`); !strings.Contains(msg, "tom") {
		t.Fatalf("another person's message: %q", msg)
	}
	do("log in as the carrier", chromedp.SetValue(chromedp.ID("username"), "tom"), chromedp.SetValue(chromedp.ID("password"), passwords["tom"]),
		chromedp.Click(chromedp.ID("login")))
	covers := wait("what it covers", `!document.getElementById('process-view').hidden && document.getElementById('covers').textContent`)
	layers := wait("the layers", `document.querySelectorAll('#layers section').length === 2 && [...document.querySelectorAll('#layers section')].map(s => s.dataset.index + ':' + s.dataset.signed + ':' + s.innerText + [...s.querySelectorAll('time')].map(t => ' ' + t.dateTime).join('')).join('|')`)
	if !strings.Contains(covers, "layer 2 (Carrier, signed as carrier)") || !strings.Contains(layers, "1:true:") || !strings.Contains(layers, "signed by ACME producer") ||
		!strings.Contains(layers, "2026-12-02") || !strings.Contains(layers, "ACME Elektronik GmbH") ||
		!strings.Contains(layers, "Erzeuger › Name") || !strings.Contains(layers, "Producer › name") || strings.Contains(layers, "erzeuger.name") {
		t.Fatalf("page shows covers %q, layers %q", covers, layers)
	}
	// Who asked, and when (the page shows it; the element carries createdAt).
	asked := wait("who asked", `document.getElementById('requested-by').textContent + '|' + document.getElementById('requested-at').dateTime`)
	if by, at, _ := strings.Cut(asked, "|"); by != "alice (ACME)" || at != p["createdAt"] {
		t.Fatalf("the page says it was asked by %q at %q, want alice (ACME) at %v", by, at, p["createdAt"])
	}
	if os.Getenv("WASTEFLOW_SCREENSHOT") != "" {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "signing.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do("sign", chromedp.Click(chromedp.ID("sign")))
	wait("done", `!document.getElementById('done').hidden && document.getElementById('state').dataset.state === 'SIGNED'`)
	// The page now shows the signed note: the carrier's layer signed by him.
	top := wait("the signed layer", `(s => s && s.dataset.signed === 'true' && s.innerText)(document.querySelector('#layers section[data-index="2"]'))`)
	if !strings.Contains(top, "signed by Tom (Spedition Schnell)") || strings.Contains(top, "not signed") {
		t.Fatalf("after signing the page shows the carrier's layer as %q", top)
	}
	if v := csp.violations(); len(v) > 0 {
		t.Fatalf("the page broke its Content-Security-Policy: %q", v)
	}

	var got map[string]any
	select {
	case m := <-waited:
		got = process(m)
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting caller got nothing")
	}
	doc, _ := d.bmuOK(t, "GetDocument", map[string]any{"docXml": b64(t, got["signedDocument"])})
	if s := signatures(doc)["2"]; got["state"] != "SIGNED" || s == nil || s["valid"] != true {
		t.Fatalf("the caller received %v with signatures %v", got["state"], signatures(doc))
	}
}

// The sweep ends the processes nobody signed in time, without anyone
// reading them (their state is true in the database, for lists, exports
// and the waiters another instance holds), each once.
func TestSigningProcessesExpireInTheSweep(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		x := d.carrierNote(t)
		short := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom", "expiresInSeconds": 60}))["id"]
		long := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom", "expiresInSeconds": 3600}))["id"]
		// A lifetime beyond 30 days is refused, not cut short in silence.
		st, _, raw := d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom", "expiresInSeconds": 31 * 24 * 3600})
		wantError(t, 400, 3, st, raw, "expiresInSeconds")
		d.advance(2 * time.Minute)
		stored := func(id any) string {
			var state string
			if err := d.db.Raw("SELECT state FROM signing_processes WHERE id = ?", id).Scan(&state).Error; err != nil {
				t.Fatal(err)
			}
			return state
		}
		if stored(short) != "CREATED" {
			t.Fatalf("the process ended before the sweep: %s", stored(short))
		}
		if n, err := d.deps.Signer.ExpireDue(context.Background()); err != nil || n != 1 {
			t.Fatalf("the sweep expired %d (%v), want the one past its expiry", n, err)
		}
		if stored(short) != "EXPIRED" || stored(long) != "CREATED" {
			t.Fatalf("after the sweep: %s and %s", stored(short), stored(long))
		}
		if n, err := d.deps.Signer.ExpireDue(context.Background()); err != nil || n != 0 {
			t.Fatalf("a second sweep expired %d (%v)", n, err)
		}
		if p := process(d.okAs(t, "alice", signAPI+"GetSigningProcess", map[string]any{"processId": short})); p["state"] != "EXPIRED" || p["reason"] != "nobody signed in time" {
			t.Fatalf("read after the sweep: %v", p)
		}
	})
}
