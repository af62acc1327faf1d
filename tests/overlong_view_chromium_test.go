package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// The inspection page of a document whose row holds a 1 MB value
// (overlong: put there directly, as no operation takes it) reads as the
// print does: the value cut with its marker, nothing running off the
// page at 390 or 1280 px, in English and German, with no axe-core finding
// (the views' checks).
func TestOverlongInspectionPageViewsInChromium(t *testing.T) {
	chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	nid := d.overlong(t, 1<<20)
	_, m := d.printed(t, "alice", co, nid, "en")
	link := m["inspectionLink"].(string)
	p := openTab(t, 120*time.Second)
	p.v.strict(t, d.url)
	ready := `document.querySelector('.number') !== null && document.querySelector('.block h2') !== null`
	p.viewsByAddress("inspection-overlong", func(lang string) string { return link + "?lang=" + lang }, ready)
	if text := p.eval("the page", `document.body.innerText`); !strings.Contains(text, "[…cut: 1,048,576 characters in all]") {
		t.Errorf("the page in English, shown last, does not say what it cut: %.300s", text[max(0, strings.Index(text, "www")-100):])
	}
}
