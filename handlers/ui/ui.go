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
	}
}
