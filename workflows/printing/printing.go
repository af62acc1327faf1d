// Package printing lays out a document as a printable A4 form in the
// manner of the official forms: numbered boxes with borders, each titled
// as the annex titles it, its sub-fields labelled inside it, two or three
// boxes side by side where the annex sets them so, a heading bar before a
// part for others to fill ("For use by competent authorities"). The
// document's number stands on every page, and a strip in the bottom margin
// of every page carries "page n of m", the print time, the head of its
// audit chain and a QR code of its inspection link. It knows no kind: each
// kind maps its retrieval document to a Form (the official annex's boxes,
// in its language), and Render draws any Form the same way.
//
// The PDF is drawn with codeberg.org/go-pdf/fpdf (pure Go, maintained;
// the GitHub go-pdf/fpdf was archived in 2025) in the Go fonts of
// golang.org/x/image, embedded in the binary and subset into each PDF
// (they cover every EU language's Latin letters); the QR code is made by
// github.com/boombuler/barcode, which fpdf already depends on.
package printing

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

// Form is what a printed document shows.
type Form struct {
	// Title names the form ("Notification document for transboundary
	// movements/shipments of waste"); Basis says which annex and whose
	// layout it follows.
	Title, Basis string
	// Number is the document's number, printed on every page.
	Number string
	// Facts stand under the title: state, version, and the like.
	Facts []Row
	// Blocks in the form's order: the order a reader of the form meets
	// them, a band's left column before its right one.
	Blocks []Block
	// Printed is the print time; AuditHead the hash of the last row of
	// the document's audit chain (a paper copy is checked against it).
	Printed   time.Time
	AuditHead string
	// InspectionLink, when set, is printed as a QR code and in words.
	InspectionLink string
	// Labels of the page furniture in the form's language.
	Labels Labels
}

// Labels are the words of the page furniture.
type Labels struct {
	Page, Of, Printed, AuditHead, Inspection, Empty string
	// Cont follows a box's title where the box goes on from the page
	// before ("cont.").
	Cont string
	// What a print's bounds left out (Bound): Cut ends a text cut short
	// (%d: all its characters), CutLines a value cut after its lines
	// (%d: the lines left out), Omitted titles the last block and
	// OmittedRows says how many rows it left out (%d rows, %d characters,
	// %d lines); CutLine and OmittedRow are the same for a single one.
	Cut, CutLines, CutLine, Omitted, OmittedRows, OmittedRow string
	// Lang is the language of dates ("en" or "de").
	Lang string
}

// English and German page furniture.
var (
	English = Labels{Page: "page", Of: "of", Printed: "printed", AuditHead: "audit chain head", Inspection: "Inspection (scan or open)", Empty: "—",
		Cont: "cont.", Cut: " […cut: %d characters in all]", CutLines: "\n[…cut: %d more lines]", CutLine: "\n[…cut: %d more line]", Omitted: "Not printed",
		OmittedRows: "%d more rows: a print shows at most %d characters in %d lines", OmittedRow: "%d more row: a print shows at most %d characters in %d lines", Lang: "en"}
	German = Labels{Page: "Seite", Of: "von", Printed: "gedruckt", AuditHead: "Kopf der Prüfkette", Inspection: "Kontrolle (scannen oder öffnen)", Empty: "—",
		Cont: "Forts.", Cut: " […gekürzt: %d Zeichen insgesamt]", CutLines: "\n[…gekürzt: %d weitere Zeilen]", CutLine: "\n[…gekürzt: %d weitere Zeile]", Omitted: "Nicht gedruckt",
		OmittedRows: "%d weitere Felder: ein Ausdruck zeigt höchstens %d Zeichen in %d Zeilen", OmittedRow: "%d weiteres Feld: ein Ausdruck zeigt höchstens %d Zeichen in %d Zeilen", Lang: "de"}
)

// Place is where a box stands across the page.
type Place int

// A box spans the page (Full), or shares a band with others: Left and
// Right are the halves of a band (a column of boxes each, stacked in the
// form's order), Third a third (up to three side by side, as a movement
// document's carriers).
const (
	Full Place = iota
	Left
	Right
	Third
)

// Block is one numbered box of a form.
type Block struct {
	No    string // "1", "14", "8(a)", "" for an unnumbered section
	Title string
	Rows  []Row
	// Heading, when set, is printed as a bar above the box (above its
	// band): a form's "FOR USE BY COMPETENT AUTHORITIES".
	Heading string
	// Place across the page; consecutive Left and Right boxes form a
	// band, a Left box after a Right one begins the next.
	Place Place

	omitted bool // Bound's note of the rows it left out
}

// Row is one field of a block; Value may hold several lines. A row
// without a label spans the box.
type Row struct{ Label, Value string }

const (
	pageW, pageH = 210.0, 297.0
	marginX      = 12.0
	contentW     = pageW - 2*marginX
	headerY      = 8.0
	topY         = 17.0
	stripH       = 27.0
	stripY       = pageH - 8 - stripH // the margin strip's top line
	bottomY      = stripY - 2         // where the boxes end
	qrSize       = 24.0
	lineH        = 4.1 // a value's line
	titleLH      = 3.9 // a box title's line
	padX, padY   = 1.6, 1.1
	fontName     = "Go"
	totalSign    = "{nb}"
)

// Render draws f as an A4 PDF, within the print's bounds (Bound).
func Render(f *Form) ([]byte, error) {
	if f.Number == "" {
		return nil, errors.New("printing: a form needs its document's number")
	}
	f = Bound(f)
	l := f.Labels
	var modules [][2]int // the QR code's dark runs, row-major: encoded once, drawn on every page
	qrN := 0
	if f.InspectionLink != "" {
		code, err := qr.Encode(f.InspectionLink, qr.M, qr.Auto)
		if err != nil {
			return nil, fmt.Errorf("printing: QR code: %w", err)
		}
		qrN = code.Bounds().Dx()
		modules = runs(code, qrN)
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.AliasNbPages(totalSign) // before any page: the total is filled in at the end
	pdf.AddUTF8FontFromBytes(fontName, "", goregular.TTF)
	pdf.AddUTF8FontFromBytes(fontName, "B", gobold.TTF)
	pdf.SetMargins(marginX, topY, marginX)
	pdf.SetAutoPageBreak(false, 0) // every break is the layout's: a box goes on with its title
	pdf.SetTitle(f.Title+" "+f.Number, true)
	pdf.SetCreator("wasteflow", true)
	pdf.SetCatalogSort(true) // resources in a fixed order: the same form printed at the same time is the same file
	if !f.Printed.IsZero() {
		pdf.SetCreationDate(f.Printed)
		pdf.SetModificationDate(f.Printed)
	}
	pdf.SetHeaderFunc(func() {
		pdf.SetXY(marginX, headerY)
		pdf.SetFont(fontName, "B", 8.5)
		pdf.SetTextColor(0, 0, 0)
		pdf.CellFormat(contentW-50, 4.5, clip(f.Title, 95), "", 0, "L", false, 0, "")
		pdf.CellFormat(50, 4.5, f.Number, "", 0, "R", false, 0, "")
		pdf.SetDrawColor(0, 0, 0)
		pdf.SetLineWidth(0.3)
		pdf.Line(marginX, headerY+5.5, pageW-marginX, headerY+5.5)
		pdf.SetXY(marginX, topY)
	})
	// The margin strip: number, print time, audit head, the inspection
	// link in words and as a QR code, and "page n of m" in one font and
	// style on every page, the last one included (the total's digits are
	// then in the embedded subset).
	pdf.SetFooterFunc(func() {
		pdf.SetDrawColor(0, 0, 0)
		pdf.SetLineWidth(0.3)
		pdf.Line(marginX, stripY, pageW-marginX, stripY)
		textW := contentW
		if qrN > 0 {
			textW -= qrSize + 3
			drawQR(pdf, modules, qrN, pageW-marginX-qrSize, stripY+1.5, qrSize)
			pdf.LinkString(pageW-marginX-qrSize, stripY+1.5, qrSize, qrSize, f.InspectionLink)
		}
		pdf.SetTextColor(0, 0, 0)
		pdf.SetXY(marginX, stripY+2)
		pdf.SetFont(fontName, "B", 8)
		pdf.CellFormat(textW-30, 4, f.Number, "", 0, "L", false, 0, "")
		pdf.SetFont(fontName, "", 8)
		pdf.CellFormat(30, 4, fmt.Sprintf("%s %d %s %s", l.Page, pdf.PageNo(), l.Of, totalSign), "", 1, "R", false, 0, "")
		pdf.SetFont(fontName, "", 7)
		if !f.Printed.IsZero() {
			pdf.SetX(marginX)
			pdf.CellFormat(textW, 3.6, l.Printed+" "+DateTime(f.Printed, l.Lang), "", 1, "L", false, 0, "")
		}
		if f.AuditHead != "" {
			pdf.SetX(marginX)
			pdf.CellFormat(textW, 3.6, l.AuditHead+": "+f.AuditHead, "", 1, "L", false, 0, "")
		}
		if f.InspectionLink != "" {
			pdf.SetX(marginX)
			pdf.CellFormat(textW, 3.6, l.Inspection+":", "", 1, "L", false, 0, "")
			pdf.SetX(marginX)
			pdf.SetFont(fontName, "", 6.5)
			for i, line := range pdf.SplitText(f.InspectionLink, textW) {
				if i == 2 {
					break
				}
				pdf.SetX(marginX)
				pdf.CellFormat(textW, 3.2, line, "", 1, "L", false, 0, "")
			}
		}
	})
	pdf.AddPage()

	// Title, basis and facts.
	pdf.SetFont(fontName, "B", 12.5)
	pdf.MultiCell(contentW, 5.6, clip(f.Title, 300), "", "L", false)
	if f.Basis != "" {
		pdf.SetFont(fontName, "", 7.5)
		pdf.SetTextColor(60, 60, 60)
		pdf.MultiCell(contentW, 3.5, clip(f.Basis, 400), "", "L", false)
		pdf.SetTextColor(0, 0, 0)
	}
	if len(f.Facts) > 0 {
		pdf.Ln(0.8)
		pdf.SetX(marginX)
		for i, r := range f.Facts {
			if i == 6 {
				break
			}
			pdf.SetFont(fontName, "B", 8.5)
			lw := pdf.GetStringWidth(clip(r.Label, 40)) + 1.5
			if pdf.GetX()+lw+40 > pageW-marginX {
				pdf.Ln(4.5)
				pdf.SetX(marginX)
			}
			pdf.CellFormat(lw, 4.5, clip(r.Label, 40), "", 0, "L", false, 0, "")
			pdf.SetFont(fontName, "", 8.5)
			v := clip(strings.ReplaceAll(orEmpty(r.Value, l.Empty), "\n", " "), 60)
			pdf.CellFormat(pdf.GetStringWidth(v)+7, 4.5, v, "", 0, "L", false, 0, "")
		}
		pdf.Ln(4.5)
	}
	pdf.Ln(1.5)

	r := &renderer{pdf: pdf, l: l}
	for i := 0; i < len(f.Blocks); {
		band := nextBand(f.Blocks[i:])
		r.band(band)
		i += len(band)
	}
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("printing %s: %w", f.Number, err)
	}
	return out.Bytes(), nil
}

// nextBand is the first band of bs: one Full box, or the boxes that stand
// side by side (Left then Right boxes; or up to three Thirds).
func nextBand(bs []Block) []Block {
	first := bs[0]
	if first.Place == Full {
		return bs[:1]
	}
	n := 1
	for n < len(bs) {
		b, prev := bs[n], bs[n-1]
		switch {
		case b.Place == Full, b.Heading != "":
			return bs[:n]
		case first.Place == Third && (b.Place != Third || n == 3):
			return bs[:n]
		case first.Place != Third && (b.Place == Third || b.Place == Left && prev.Place == Right):
			return bs[:n]
		}
		n++
	}
	return bs[:n]
}

type renderer struct {
	pdf *fpdf.Fpdf
	l   Labels
}

// measured is a box laid out for a width: its title's lines and each
// row's label and value lines.
type measured struct {
	b      Block
	w      float64
	title  []string
	rows   []measuredRow
	height float64
}

type measuredRow struct {
	label, value []string
	full         bool // no label: the value spans the box
}

// labelLH is a label's line: closer than a value's, so a label on two
// lines beside a value on one takes little more room.
const labelLH = 3.2

// labelOff sets a label's first line level with its value's first.
const labelOff = (lineH - labelLH) / 2

// height is the room a row takes.
func (m *measuredRow) height() float64 {
	return max(labelOff+float64(len(m.label))*labelLH+labelOff, float64(len(m.value))*lineH)
}

// piece is a line of a row, a label's or a value's, at its offset from
// the row's top.
type piece struct {
	off, h float64
	label  bool
	text   string
}

// pieces are a row's lines in the order they stand down the page.
func (m *measuredRow) pieces() []piece {
	out := make([]piece, 0, len(m.label)+len(m.value))
	i, j := 0, 0
	for i < len(m.value) || j < len(m.label) {
		vOff, lOff := float64(i)*lineH, labelOff+float64(j)*labelLH
		if j >= len(m.label) || i < len(m.value) && vOff <= lOff {
			out = append(out, piece{off: vOff, h: lineH, text: m.value[i]})
			i++
		} else {
			out = append(out, piece{off: lOff, h: labelLH, label: true, text: m.label[j]})
			j++
		}
	}
	return out
}

func boxTitle(b Block) string {
	if b.No == "" {
		return b.Title
	}
	return b.No + ". " + b.Title
}

// labelWidth is the width of a box's label column.
func labelWidth(w float64) float64 { return min(w*0.36, 52) }

func (r *renderer) measure(b Block, w float64) measured {
	pdf := r.pdf
	m := measured{b: b, w: w}
	pdf.SetFont(fontName, "B", 8)
	m.title = pdf.SplitText(boxTitle(b), w-2*padX)
	rows := b.Rows
	if len(rows) == 0 {
		rows = []Row{{Value: r.l.Empty}}
	}
	lw := labelWidth(w)
	for _, row := range rows {
		value := orEmpty(row.Value, r.l.Empty)
		mr := measuredRow{full: row.Label == ""}
		pdf.SetFont(fontName, "", 8.5)
		if mr.full {
			mr.value = pdf.SplitText(value, w-2*padX)
		} else {
			mr.value = pdf.SplitText(value, w-2*padX-lw-1)
			pdf.SetFont(fontName, "", 7)
			mr.label = pdf.SplitText(row.Label, lw-0.5)
		}
		m.rows = append(m.rows, mr)
	}
	m.height = padY + float64(len(m.title))*titleLH + 0.8
	for _, mr := range m.rows {
		m.height += mr.height() + 0.5
	}
	m.height += padY
	return m
}

// headingLines are a heading bar's lines.
func (r *renderer) headingLines(text string) []string {
	r.pdf.SetFont(fontName, "B", 8.5)
	return r.pdf.SplitText(strings.ToUpper(text), contentW-4)
}

// headingHeight is the room a heading bar takes.
func (r *renderer) headingHeight(text string) float64 {
	if text == "" {
		return 0
	}
	return 1.5 + float64(len(r.headingLines(text)))*4.2 + 1.6
}

// heading draws a form's heading bar across the page.
func (r *renderer) heading(text string) {
	pdf := r.pdf
	lines := r.headingLines(text)
	pdf.SetFont(fontName, "B", 8.5)
	y := pdf.GetY() + 1.5
	h := float64(len(lines))*4.2 + 1.6
	pdf.SetFillColor(225, 225, 225)
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.3)
	pdf.Rect(marginX, y, contentW, h, "FD")
	for i, line := range lines {
		pdf.SetXY(marginX, y+0.8+float64(i)*4.2)
		pdf.CellFormat(contentW, 4.2, line, "", 0, "C", false, 0, "")
	}
	pdf.SetY(y + h)
}

// band draws a band of boxes: side by side where it fits a page (on this
// one, or the next), else one under the other across the page, each going
// on over pages.
func (r *renderer) band(bs []Block) {
	pdf := r.pdf
	var cols [][]measured
	switch bs[0].Place {
	case Full:
	case Third:
		w := contentW / 3
		for _, b := range bs {
			cols = append(cols, []measured{r.measure(b, w)})
		}
	default:
		var left, right []measured
		for _, b := range bs {
			if b.Place == Left {
				left = append(left, r.measure(b, contentW/2))
			} else {
				right = append(right, r.measure(b, contentW/2))
			}
		}
		cols = [][]measured{left, right}
		if len(left) == 0 || len(right) == 0 {
			cols = nil // a half band alone: across the page
		}
	}
	headingH := r.headingHeight(bs[0].Heading)
	if cols != nil {
		h := 0.0
		for _, c := range cols {
			ch := 0.0
			for _, m := range c {
				ch += m.height
			}
			h = max(h, ch)
		}
		if pdf.GetY()+headingH+h > bottomY && topY+headingH+h <= bottomY {
			pdf.AddPage()
		}
		if pdf.GetY()+headingH+h <= bottomY {
			if bs[0].Heading != "" {
				r.heading(bs[0].Heading)
			}
			y0 := pdf.GetY()
			x := marginX
			for _, c := range cols {
				y := y0
				w := c[0].w
				for i, m := range c {
					hh := m.height
					if i == len(c)-1 {
						hh = y0 + h - y // the last box of a column reaches the band's foot
					}
					r.drawBox(m, x, y, hh)
					y += hh
				}
				x += w
			}
			pdf.SetY(y0 + h)
			return
		}
	}
	for i, b := range bs {
		if i == 0 && b.Heading != "" {
			if pdf.GetY()+headingH+20 > bottomY {
				pdf.AddPage()
			}
			r.heading(b.Heading)
		}
		r.flow(r.measure(b, contentW))
	}
}

// drawBox draws a measured box at x, y, h high (at least its height),
// where it fits.
func (r *renderer) drawBox(m measured, x, y, h float64) {
	pdf := r.pdf
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.3)
	pdf.Rect(x, y, m.w, h, "D")
	yy := r.drawTitle(m.title, x, y+padY, m.w)
	lw := labelWidth(m.w)
	for _, mr := range m.rows {
		ps := mr.pieces()
		for _, label := range []bool{true, false} { // the label first: read before its value
			for _, p := range ps {
				if p.label == label {
					r.drawPiece(p, mr.full, x, yy+p.off, m.w, lw)
				}
			}
		}
		yy += mr.height() + 0.5
	}
}

func (r *renderer) drawTitle(title []string, x, y, w float64) float64 {
	pdf := r.pdf
	pdf.SetFont(fontName, "B", 8)
	pdf.SetTextColor(0, 0, 0)
	for _, t := range title {
		pdf.SetXY(x+padX, y)
		pdf.CellFormat(w-2*padX, titleLH, t, "", 0, "L", false, 0, "")
		y += titleLH
	}
	return y + 0.8
}

// drawPiece draws a line of a row at y: a label's in the label column, a
// value's beside it (across the box for a row without a label).
func (r *renderer) drawPiece(p piece, full bool, x, y, w, lw float64) {
	pdf := r.pdf
	switch {
	case p.label:
		pdf.SetFont(fontName, "", 7)
		pdf.SetTextColor(70, 70, 70)
		pdf.SetXY(x+padX, y)
		pdf.CellFormat(lw, p.h, p.text, "", 0, "L", false, 0, "")
	case full:
		pdf.SetFont(fontName, "", 8.5)
		pdf.SetTextColor(0, 0, 0)
		pdf.SetXY(x+padX, y)
		pdf.CellFormat(w-2*padX, p.h, p.text, "", 0, "L", false, 0, "")
	default:
		pdf.SetFont(fontName, "", 8.5)
		pdf.SetTextColor(0, 0, 0)
		pdf.SetXY(x+padX+lw+1, y)
		pdf.CellFormat(w-2*padX-lw-1, p.h, p.text, "", 0, "L", false, 0, "")
	}
}

// flow draws a box across the page from the current position, going on
// to the next page, its title repeated with "(cont.)", where it is longer
// than the page has room for.
func (r *renderer) flow(m measured) {
	pdf := r.pdf
	x, w := marginX, m.w
	lw := labelWidth(w)
	// A box that fits a page, and half of one at most, moves to the next
	// page whole rather than begin at the foot of this one; a longer box
	// begins here if its title and two lines fit.
	room := bottomY - pdf.GetY()
	if m.height > room && (m.height <= (bottomY-topY)/2 || room < float64(len(m.title))*titleLH+2*lineH+2*padY) {
		pdf.AddPage()
	}
	top := pdf.GetY()
	y := r.drawTitle(m.title, x, top+padY, w)
	border := func(bottom float64) {
		pdf.SetDrawColor(0, 0, 0)
		pdf.SetLineWidth(0.3)
		pdf.Rect(x, top, w, bottom-top, "D")
	}
	type placed struct {
		p piece
		y float64
	}
	var part []placed
	flush := func(full bool) { // the labels first: read before their values
		for _, label := range []bool{true, false} {
			for _, pp := range part {
				if pp.p.label == label {
					r.drawPiece(pp.p, full, x, pp.y, w, lw)
				}
			}
		}
		part = part[:0]
	}
	for _, mr := range m.rows {
		base, y0 := 0.0, y // the row's offset at the top of this page's part, and where that part begins
		for _, p := range mr.pieces() {
			yy := y0 + p.off - base
			if yy+p.h > bottomY-padY {
				flush(mr.full)
				border(yy + padY)
				pdf.AddPage()
				top = pdf.GetY()
				pdf.SetFont(fontName, "B", 8)
				cont := pdf.SplitText(boxTitle(m.b)+" ("+r.l.Cont+")", w-2*padX)
				y0, base = r.drawTitle(cont[:min(len(cont), 3)], x, top+padY, w), p.off
				yy = y0
			}
			part = append(part, placed{p, yy})
		}
		flush(mr.full)
		y = y0 + mr.height() - base + 0.5
	}
	border(y + padY)
	pdf.SetY(y + padY)
}

// runs are the dark modules of code (n×n) as runs per row: row, start
// column and end column packed as [row*n+start, end].
func runs(code barcode.Barcode, n int) [][2]int {
	var out [][2]int
	for row := 0; row < n; row++ {
		for col := 0; col < n; {
			if !dark(code, col, row) {
				col++
				continue
			}
			start := col
			for col < n && dark(code, col, row) {
				col++
			}
			out = append(out, [2]int{row*n + start, col})
		}
	}
	return out
}

// drawQR draws a QR code of n×n modules given as runs, side mm at x, y:
// filled rectangles, vector graphics that stay sharp at any print size,
// inside a quiet zone of four modules that a reader needs.
func drawQR(pdf *fpdf.Fpdf, runs [][2]int, n int, x, y, side float64) {
	module := side / float64(n+8)
	x0, y0 := x+4*module, y+4*module
	pdf.SetFillColor(0, 0, 0)
	for _, r := range runs {
		row, start := r[0]/n, r[0]%n
		// a hair wider and taller: no seams between the rectangles
		pdf.Rect(x0+float64(start)*module, y0+float64(row)*module, float64(r[1]-start)*module+0.01, module+0.01, "F")
	}
	pdf.SetFillColor(255, 255, 255)
}

func dark(code barcode.Barcode, x, y int) bool {
	r, _, _, _ := code.At(x, y).RGBA()
	return r < 0x8000
}

func orEmpty(s, empty string) string {
	if strings.TrimSpace(s) == "" {
		return empty
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Words are a form's texts by key, English and German.
type Words map[string][2]string

// In returns the texts of lang ("de" German, English otherwise); a key
// without a text is printed as the key.
func (w Words) In(lang string) func(key string) string {
	i := 0
	if lang == "de" {
		i = 1
	}
	return func(key string) string {
		if t, ok := w[key]; ok {
			return t[i]
		}
		return key
	}
}

// LabelsOf are the page furniture of lang.
func LabelsOf(lang string) Labels {
	if lang == "de" {
		return German
	}
	return English
}
