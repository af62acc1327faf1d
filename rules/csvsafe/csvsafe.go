// Package csvsafe writes CSV files that a spreadsheet opens without
// running anything in them: every CSV the server or the command line
// writes goes through its Writer.
//
// A cell that begins with "=", "+", "-", "@", a tab or a carriage return
// is read by Excel, LibreOffice and Google Sheets as a formula
// ("=HYPERLINK(...)", "@SUM(...)", "-2+3+cmd|...", DDE). As OWASP
// recommends (CSV Injection), such a cell is written with a single quote
// before it ("'=1+2"): the spreadsheet shows the text, the quote marks it
// as text, and a reader of the file sees what was stored.
//
// One exception, our choice: a cell that is a plain negative decimal
// number ("-5", "-12.5", "-12,5": a minus, digits, at most one decimal
// point or comma) stays as it is, whoever wrote it, because a spreadsheet
// reads it as that number and nothing else, and a quote would turn the
// system's own negative numbers into text. Anything more than that
// ("-5+1", "-1e3", "-0x10", " -5") is quoted. Beyond OWASP's list, a cell
// whose first character after leading spaces and line feeds is one of
// "=", "+", "-", "@" is quoted too (" =1+2", "\n=1+2"): an import that
// trims spaces, or an XML round trip that turns a carriage return into a
// line feed, would otherwise uncover the formula.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
)

// Cell is s as a CSV cell safe to open in a spreadsheet.
func Cell(s string) string {
	if !Dangerous(s) {
		return s
	}
	return "'" + s
}

// Dangerous says whether a spreadsheet could read s as a formula.
func Dangerous(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '@', '\t', '\r':
		return true
	case '-':
		return !negativeNumber(s)
	case ' ', '\n': // an import that trims spaces would see what follows
		t := strings.TrimLeft(s, " \t\r\n")
		return t != "" && strings.ContainsRune("=+-@", rune(t[0]))
	}
	return false
}

// negativeNumber: "-", digits, and optionally one "." or "," and digits.
func negativeNumber(s string) bool {
	digits, sep := 0, false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case (c == '.' || c == ',') && !sep && digits > 0 && i < len(s)-1:
			sep = true
		default:
			return false
		}
	}
	return digits > 0
}

// Record is rec with each cell made safe (a new slice; rec is unchanged).
func Record(rec []string) []string {
	out := make([]string, len(rec))
	for i, c := range rec {
		out[i] = Cell(c)
	}
	return out
}

// Writer is encoding/csv's writer that makes every cell safe.
type Writer struct {
	*csv.Writer
}

// NewWriter writes CSV to w (RFC 4180's quoting, LF line ends unless
// UseCRLF is set), every cell made safe.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// Write writes one record, its cells made safe.
func (w *Writer) Write(rec []string) error { return w.Writer.Write(Record(rec)) }

// WriteAll writes records, their cells made safe, and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
