// Package ui is the deadline page for compliance staff: plain HTML, CSS and
// a small script, embedded in the binary, talking to the public API.
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
)

// Pages lists the files of the deadline page.
func Pages() []Page {
	return []Page{
		{Path: "/ui/deadlines", ContentType: "text/html; charset=utf-8", Summary: "Deadline report page", Body: html},
		{Path: "/ui/deadlines.js", ContentType: "text/javascript; charset=utf-8", Summary: "Script of the deadline page", Body: script},
		{Path: "/ui/deadlines.css", ContentType: "text/css; charset=utf-8", Summary: "Style of the deadline page", Body: style},
		{Path: "/ui/sign", ContentType: "text/html; charset=utf-8", Summary: "Signing page (?process=<id>): the named person logs in, sees what they sign, signs or declines", Body: signHTML},
		{Path: "/ui/sign.js", ContentType: "text/javascript; charset=utf-8", Summary: "Script of the signing page", Body: signScript},
		{Path: "/ui/sign.css", ContentType: "text/css; charset=utf-8", Summary: "Style of the signing page", Body: signStyle},
	}
}
