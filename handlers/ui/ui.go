// Package ui holds the pages for people: the console for authority and
// company staff (/ui), the deadline page and the signing page; plain HTML,
// CSS and scripts, embedded in the binary, talking to the public API.
package ui

import (
	_ "embed"
)

// Page is one embedded file served under /ui.
type Page struct {
	Path, ContentType, Summary string
	Body                       []byte
}

var (
	//go:embed deadlines.html
	html []byte
	//go:embed deadlines.js
	script []byte
	//go:embed deadlines.css
	style []byte
	//go:embed sign.html
	signHTML []byte
	//go:embed sign.js
	signScript []byte
	//go:embed sign.css
	signStyle []byte
	//go:embed console.html
	consoleHTML []byte
	//go:embed console.js
	consoleScript []byte
	//go:embed console.css
	consoleStyle []byte

	// KERN UX (@kern-ux/native, EUPL-1.2), vendored by tools/kern/vendor.sh.
	//go:embed kern/kern.min.css
	kernStyle []byte
	//go:embed kern/fonts.css
	kernFonts []byte
	//go:embed kern/fonts/FiraSans-Regular.woff2
	firaRegular []byte
	//go:embed kern/fonts/FiraSans-Italic.woff2
	firaItalic []byte
	//go:embed kern/fonts/FiraSans-SemiBold.woff2
	firaSemiBold []byte
	//go:embed kern/fonts/FiraSans-Bold.woff2
	firaBold []byte
)

// Pages lists the files of the pages.
func Pages() []Page {
	return []Page{
		{Path: "/ui", ContentType: "text/html; charset=utf-8", Summary: "The console for authority and company staff: work queue, documents, acting on follow-up intents (/ui/ redirects here)", Body: consoleHTML},
		{Path: "/ui/console.js", ContentType: "text/javascript; charset=utf-8", Summary: "Script of the console", Body: consoleScript},
		{Path: "/ui/console.css", ContentType: "text/css; charset=utf-8", Summary: "Style of the console", Body: consoleStyle},
		{Path: "/ui/deadlines", ContentType: "text/html; charset=utf-8", Summary: "Deadline report page", Body: html},
		{Path: "/ui/deadlines.js", ContentType: "text/javascript; charset=utf-8", Summary: "Script of the deadline page", Body: script},
		{Path: "/ui/deadlines.css", ContentType: "text/css; charset=utf-8", Summary: "Style of the deadline page", Body: style},
		{Path: "/ui/sign", ContentType: "text/html; charset=utf-8", Summary: "Signing page (?process=<id>): the named person logs in, sees what they sign, signs or declines", Body: signHTML},
		{Path: "/ui/sign.js", ContentType: "text/javascript; charset=utf-8", Summary: "Script of the signing page", Body: signScript},
		{Path: "/ui/sign.css", ContentType: "text/css; charset=utf-8", Summary: "Style of the signing page", Body: signStyle},
		{Path: "/ui/kern/kern.min.css", ContentType: "text/css; charset=utf-8", Summary: "The KERN UX design system (@kern-ux/native 2.7.2, EUPL-1.2) every page uses", Body: kernStyle},
		{Path: "/ui/kern/fonts.css", ContentType: "text/css; charset=utf-8", Summary: "Fira Sans, the typeface of KERN UX (SIL OFL 1.1)", Body: kernFonts},
		{Path: "/ui/kern/fonts/FiraSans-Regular.woff2", ContentType: "font/woff2", Summary: "Fira Sans Regular", Body: firaRegular},
		{Path: "/ui/kern/fonts/FiraSans-Italic.woff2", ContentType: "font/woff2", Summary: "Fira Sans Italic", Body: firaItalic},
		{Path: "/ui/kern/fonts/FiraSans-SemiBold.woff2", ContentType: "font/woff2", Summary: "Fira Sans SemiBold", Body: firaSemiBold},
		{Path: "/ui/kern/fonts/FiraSans-Bold.woff2", ContentType: "font/woff2", Summary: "Fira Sans Bold", Body: firaBold},
	}
}
