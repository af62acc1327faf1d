package handlers

import (
	"html/template"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// The inspection page: what an inspector sees on opening a printed
// document's QR code, without logging in. It is the print's form as HTML
// in KERN UX (the design system of the pages for people; its style sheet
// and fonts are this server's), in English or German (?lang=, else
// Accept-Language; the page links to the other language), with no script.

// inspectView is what the inspection page shows.
type inspectView struct {
	Form  *printing.Form
	Lang  string
	PDF   string
	Words map[string]string
	// Kind and State are the document's kind and its state in words.
	Kind, State string
	// Printed is the time of this reading in the reader's language.
	Printed string
	// Other is the other language: its code, its address and its name.
	Other, OtherHref, OtherName string
}

// newInspectView is the view of a printed document in lang. The state
// among the form's facts, as the print gives it by its name, is said in
// words.
func newInspectView(p *documents.Printed, lang string) inspectView {
	f := printing.Bound(p.Form)
	v := inspectView{Form: f, Lang: lang, PDF: "?format=pdf&lang=" + lang, Words: inspectWords[lang],
		Kind: kindWords(p.Doc.Kind, lang), State: stateWords(p.Doc.Kind, p.Doc.State, lang)}
	facts := make([]printing.Row, 0, len(f.Facts))
	for _, r := range f.Facts {
		if r.Value == p.Doc.State {
			r.Value = v.State
		}
		facts = append(facts, r)
	}
	form := *f
	form.Facts = facts
	form.Blocks = inNumberOrder(f.Blocks)
	v.Form = &form
	v.Printed = f.Printed.UTC().Format("2 Jan 2006, 15:04 UTC")
	v.Other, v.OtherHref, v.OtherName = "de", "?lang=de", "Deutsch"
	if lang == "de" {
		v.Printed = f.Printed.UTC().Format("02.01.2006, 15:04 UTC")
		v.Other, v.OtherHref, v.OtherName = "en", "?lang=en", "English"
	}
	return v
}

// kindWords names a document's kind for a reader.
func kindWords(kind, lang string) string {
	if t, ok := labels.Code("kind", kind); ok {
		return t.In(lang)
	}
	words := map[string]labels.Text{
		"NOTIFICATION": {EN: "Notification", DE: "Notifizierung"},
		"ANNEX_VII":    {EN: "Annex VII document", DE: "Anhang-VII-Dokument"},
		"MOVEMENT":     {EN: "Movement document", DE: "Begleitformular"},
	}
	if t, ok := words[kind]; ok {
		return t.In(lang)
	}
	return asWords(kind)
}

// stateWords says a document's state for a reader: its label (list
// state/<kind> of rules/labels), else its name as words ("Consent with
// conditions"), never the name itself.
func stateWords(kind, state, lang string) string {
	if t, ok := labels.Code("state/"+strings.ToLower(kind), state); ok {
		return t.In(lang)
	}
	return asWords(state)
}

// asWords reads a name such as CONSENT_WITH_CONDITIONS as words.
func asWords(name string) string {
	if name == "" {
		return ""
	}
	s := strings.ToLower(strings.ReplaceAll(name, "_", " "))
	return strings.ToUpper(s[:1]) + s[1:]
}

var inspectWords = map[string]map[string]string{
	"en": {"page": "Inspection of a printed document", "current": "The document's current state, read from wasteflow now.", "pdf": "The same as a PDF",
		"printed": "Read", "kind": "Document", "state": "State", "language": "Language",
		"head": "Audit chain head (compare it with the one on the paper copy: a later head means the document changed since that print)"},
	"de": {"page": "Kontrolle eines gedruckten Dokuments", "current": "Der aktuelle Stand des Dokuments, soeben aus wasteflow gelesen.", "pdf": "Dasselbe als PDF",
		"printed": "Gelesen", "kind": "Dokument", "state": "Stand", "language": "Sprache",
		"head": "Kopf der Prüfkette (mit dem auf der Papierkopie vergleichen: ein anderer Kopf heißt, das Dokument hat sich seit jenem Druck geändert)"},
}

// inspectPage is laid out with KERN UX; its own style (in the page, as
// the page has no files of its own) only places what KERN does not.
var inspectPage = template.Must(template.New("inspect").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>{{.Form.Number}} – {{.Form.Title}}</title>
<link rel="stylesheet" href="/ui/kern/fonts.css"><link rel="stylesheet" href="/ui/kern/kern.min.css">
<style>
*{box-sizing:border-box}
body{margin:0;font-family:var(--kern-typography-font-family-default,"Fira Sans"),sans-serif;line-height:1.5;color:var(--kern-color-layout-text-default,#131525);background:var(--kern-color-layout-background-default,#fff)}
.page-head{background:var(--kern-color-layout-layer-surface,#F3F4F7);border-bottom:2px solid var(--kern-color-action-default,#2044AA)}
.head-row{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem;padding-top:.5rem;padding-bottom:.5rem}
.brand{margin:0;font-weight:600;color:var(--kern-color-action-default,#2044AA)}
.head-title{margin:0;flex:1 1 auto;font-weight:600}
main.kern-container{max-width:60rem;padding-top:1rem;padding-bottom:3rem}
.kern-alert{margin:0 0 1rem;background:var(--kern-color-feedback-info-background,#C0F3FF)}
.kern-alert .kern-title{font-size:1rem;font-weight:400}
.kern-alert .kern-link{margin-left:.25rem;font-weight:600}
.number{margin:0;font-size:1.5rem;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
h1{margin:.25rem 0}
.basis{margin:0 0 1rem;color:var(--kern-color-layout-text-muted,#404565)}
.facts,.block dl{margin:0}
.kern-description-list-item{gap:.1rem 1.5rem;border-bottom:1px solid var(--kern-color-layout-border-level-1,#C0C3D5);padding:.25rem 0}
.kern-description-list-item__key{color:var(--kern-color-layout-text-muted,#404565)}
.kern-description-list-item__value{white-space:pre-line;overflow-wrap:anywhere}
.heading{margin:1.5rem 0 0;padding:.35rem .75rem;background:var(--kern-color-layout-layer-surface,#F3F4F7);text-align:center;font-weight:600;text-transform:uppercase;font-size:1rem}
.block{margin:1.25rem 0 0}
.block h2{margin:0 0 .25rem;padding-top:.5rem;border-top:2px solid var(--kern-color-layout-border,#6E7597)}
.note{margin-top:2rem;color:var(--kern-color-layout-text-muted,#404565)}
.note code{overflow-wrap:anywhere;color:var(--kern-color-layout-text-default,#131525)}
a:focus-visible{outline:3px solid var(--kern-color-action-focus-default,#454B6B);outline-offset:2px}
@media (max-width:47.99rem){.kern-description-list-item{flex-direction:column}.kern-description-list-item__key,.kern-description-list-item__value{width:100%;max-width:100%}}
</style></head><body>
<header class="page-head"><div class="kern-container head-row"><p class="brand">wasteflow</p><p class="head-title">{{index .Words "page"}}</p>
<nav aria-label="{{index .Words "language"}}"><a class="kern-link" href="{{.OtherHref}}" hreflang="{{.Other}}" lang="{{.Other}}">{{.OtherName}}</a></nav></div></header>
<main class="kern-container">
<div class="kern-alert kern-alert--info"><div class="kern-alert__header"><span class="kern-icon kern-icon--info" aria-hidden="true"></span><p class="kern-title">{{index .Words "current"}} <a class="kern-link" href="{{.PDF}}">{{index .Words "pdf"}}</a></p></div></div>
<p class="number">{{.Form.Number}}</p>
<h1 class="kern-heading-large">{{.Form.Title}}</h1>
<p class="basis">{{.Form.Basis}}</p>
<dl class="kern-description-list facts">
<div class="kern-description-list-item"><dt class="kern-description-list-item__key">{{index .Words "kind"}}</dt><dd class="kern-description-list-item__value">{{.Kind}}</dd></div>
{{range .Form.Facts}}<div class="kern-description-list-item"><dt class="kern-description-list-item__key">{{.Label}}</dt><dd class="kern-description-list-item__value">{{.Value}}</dd></div>
{{end}}<div class="kern-description-list-item"><dt class="kern-description-list-item__key">{{index .Words "printed"}}</dt><dd class="kern-description-list-item__value">{{.Printed}}</dd></div>
</dl>
{{range $i, $b := .Form.Blocks}}{{if .Heading}}<p class="heading">{{.Heading}}</p>{{end}}<section class="block" aria-labelledby="block-{{$i}}"><h2 class="kern-heading-small" id="block-{{$i}}">{{if .No}}{{.No}}. {{end}}{{.Title}}</h2>
<dl class="kern-description-list">{{range .Rows}}<div class="kern-description-list-item"><dt class="kern-description-list-item__key">{{.Label}}</dt><dd class="kern-description-list-item__value">{{if .Value}}{{.Value}}{{else}}—{{end}}</dd></div>{{else}}<div class="kern-description-list-item"><dt class="kern-description-list-item__key">—</dt><dd class="kern-description-list-item__value"></dd></div>{{end}}</dl></section>
{{end}}<p class="note">{{index .Words "head"}}: <code>{{.Form.AuditHead}}</code></p>
</main>
</body></html>
`))

// inNumberOrder lists a form's boxes by their numbers for a page read top
// to bottom: the paper sets boxes side by side (1 beside 3, 2 beside 5),
// a screen reads them one under the other. A box without a number stays
// after the box before it; boxes of one number keep their order (8(a),
// 8(b)).
func inNumberOrder(blocks []printing.Block) []printing.Block {
	key := make([]int, len(blocks)) // a box's number, or the one before it
	for i, b := range blocks {
		n, digits := 0, 0
		for _, r := range b.No {
			if r < '0' || r > '9' {
				break
			}
			n, digits = n*10+int(r-'0'), digits+1
		}
		if digits == 0 && i > 0 {
			n = key[i-1]
		}
		key[i] = n
	}
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return key[a] - key[b] })
	out := make([]printing.Block, len(blocks))
	for i, j := range order {
		out[i] = blocks[j]
	}
	return out
}
