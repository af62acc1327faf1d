package printing

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// A print's bounds (issue 44.3): whatever a document holds (a field stored
// before its length was checked, a note of a hundred thousand carriers), a
// form draws at most this much, so its time and memory are bounded (about
// 50 ms and 40 MB of allocations at the full budget, where a 20 MB field
// took 12.8 s and 700 MB). What is cut is said on the form.
const (
	MaxValue     = 10_000  // characters of one row's value, the rest cut with a marker
	MaxLabel     = 500     // characters of a label, a title, the basis
	MaxNumber    = 64      // characters of the number in every page's header
	MaxLines     = 300     // lines of one value
	MaxFormChars = 100_000 // characters of all the values of a form
	MaxFormLines = 3_000   // lines of all the values of a form
)

// Bound is f within the print's bounds: each text cut to its length with
// a marker saying how much is left out, and once the form's budget is
// spent, the rows after it left out and counted in a last block. f is not
// changed; a form within the bounds comes back as it is.
func Bound(f *Form) *Form {
	l := withDefaults(f.Labels)
	out := *f
	out.Labels = l
	out.Title = cut(f.Title, MaxLabel, l)
	out.Basis = cut(f.Basis, MaxLabel, l)
	out.Number = cut(f.Number, MaxNumber, l)
	out.AuditHead = cut(f.AuditHead, MaxLabel, l)
	chars, lines, left := 0, 0, 0
	full := false // once a row does not fit, the rows after it are left out too: a print has no gaps
	boundRows := func(rows []Row) []Row {
		if rows == nil {
			return nil
		}
		kept := make([]Row, 0, len(rows))
		for _, r := range rows {
			full = full || chars >= MaxFormChars || lines >= MaxFormLines
			var v string
			if !full {
				v, full = cutValue(r.Value, min(MaxValue, MaxFormChars-chars), min(MaxLines, MaxFormLines-lines), l)
			}
			if full {
				left++
				continue
			}
			chars += utf8.RuneCountInString(v)
			lines += strings.Count(v, "\n") + 1
			kept = append(kept, Row{Label: cut(r.Label, MaxLabel, l), Value: v})
		}
		return kept
	}
	out.Facts = boundRows(f.Facts)
	out.Blocks = make([]Block, 0, len(f.Blocks))
	var note *Block // a bounded form's own note, kept as it is
	for _, b := range f.Blocks {
		if b.omitted {
			note = &b
			continue
		}
		if full || chars >= MaxFormChars || lines >= MaxFormLines {
			full = true
			left += len(b.Rows)
			continue
		}
		nb := b
		nb.Title, nb.Heading = cut(b.Title, MaxLabel, l), cut(b.Heading, MaxLabel, l)
		nb.Rows = boundRows(b.Rows)
		out.Blocks = append(out.Blocks, nb)
	}
	switch {
	case left > 0:
		rows := l.OmittedRows
		if left == 1 {
			rows = l.OmittedRow
		}
		out.Blocks = append(out.Blocks, Block{Title: l.Omitted, omitted: true, Rows: []Row{{Label: l.Omitted, Value: l.sprintf(rows, left, MaxFormChars, MaxFormLines)}}})
	case note != nil:
		out.Blocks = append(out.Blocks, *note)
	}
	return &out
}

// sprintf is format with its numbers written as l's language groups
// their digits (20,971,520 in English, 20.971.520 in German): a number on
// paper is read by a person.
func (l Labels) sprintf(format string, n ...any) string {
	return message.NewPrinter(language.Make(l.Lang)).Sprintf(format, n...)
}

// CutNote is the marker a value cut from total characters ends with, in
// l's words (" […cut: 20,971,520 characters in all]").
func (l Labels) CutNote(total int) string {
	d := withDefaults(l)
	return d.sprintf(d.Cut, total)
}

// withDefaults is l with English words for what it lacks.
func withDefaults(l Labels) Labels {
	if l.Page == "" {
		return English
	}
	if l.Cut == "" || l.CutLines == "" || l.CutLine == "" || l.Omitted == "" || l.OmittedRows == "" || l.OmittedRow == "" {
		l.Cut, l.CutLines, l.CutLine, l.Omitted, l.OmittedRows, l.OmittedRow = English.Cut, English.CutLines, English.CutLine, English.Omitted, English.OmittedRows, English.OmittedRow
	}
	if l.Cont == "" {
		l.Cont = English.Cont
	}
	return l
}

// cut is s in at most n characters, the marker included when s is longer.
func cut(s string, n int, l Labels) string {
	if len(s) <= n { // never more characters than bytes
		return s
	}
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	marker := l.sprintf(l.Cut, total)
	keep := max(0, n-utf8.RuneCountInString(marker))
	i := 0
	for k := 0; k < keep; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + marker
}

// cutValue is s in at most maxChars characters and maxLines lines, a
// marker included that counts what the original held: the lines left out
// when only lines are cut, else all its characters. full is true when not
// even a marker fits. A value within both bounds comes back as it is, so
// a bounded form bounded again is the same form.
func cutValue(s string, maxChars, maxLines int, l Labels) (v string, full bool) {
	if maxLines < 1 || maxChars < 1 {
		return "", true
	}
	// end: where the first maxLines lines end; keep: where the first
	// maxLines-1 end, the last line left for the marker.
	end, keep := len(s), 0
	for n, i := 0, 0; ; n++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		if n+1 == maxLines-1 {
			keep = i + j
		}
		if n+1 == maxLines {
			end = i + j
			break
		}
		i += j + 1
	}
	total := -1 // characters, counted once
	if end == len(s) {
		if len(s) <= maxChars { // never more characters than bytes
			return s, false
		}
		if total = utf8.RuneCountInString(s); total <= maxChars {
			return s, false
		}
	} else {
		more := strings.Count(s[end+1:], "\n") + 2 // the lines after the first maxLines-1
		if strings.HasSuffix(s, "\n") {
			more-- // a last line break ends a line, it begins none a person would count
		}
		lines := l.CutLines
		if more == 1 {
			lines = l.CutLine
		}
		marker := l.sprintf(lines, more)
		if maxLines == 1 {
			v = strings.TrimPrefix(marker, "\n")
		} else {
			v = s[:keep] + marker
		}
		if utf8.RuneCountInString(v) <= maxChars {
			return v, false
		}
	}
	if total < 0 {
		total = utf8.RuneCountInString(s)
	}
	marker := l.sprintf(l.Cut, total)
	room := maxChars - utf8.RuneCountInString(marker)
	if room < 0 {
		return "", true
	}
	i := 0
	for k := 0; k < room && i < end; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:min(i, end)] + marker, false
}
