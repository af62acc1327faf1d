// Package printing lays out a document as a printable A4 form: numbered
// blocks with their titles and fields, the document's number on every
// page, "page n of m", the print time, the head of its audit chain and a
// QR code of its inspection link. It knows no kind: each kind maps its
// retrieval document to a Form (the official annex's blocks, in its
// language), and Render draws any Form the same way.
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

	"github.com/wasteflow/wasteflow/rules/shipment"
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
	// Blocks in the form's order.
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
	// What a print's bounds left out (Bound): Cut ends a text cut short
	// (%d: all its characters), CutLines a value cut after its lines
	// (%d: the lines left out), Omitted titles the last block and
	// OmittedRows says how many rows it left out (%d rows, %d characters,
	// %d lines).
	Cut, CutLines, Omitted, OmittedRows string
}

// English and German page furniture.
var (
	English = Labels{Page: "page", Of: "of", Printed: "printed", AuditHead: "audit chain head", Inspection: "Inspection (scan or open)", Empty: "—",
		Cut: " […cut: %d characters in all]", CutLines: "\n[…cut: %d more lines]", Omitted: "Not printed",
		OmittedRows: "%d more rows: a print shows at most %d characters in %d lines"}
	German = Labels{Page: "Seite", Of: "von", Printed: "gedruckt", AuditHead: "Kopf der Prüfkette", Inspection: "Kontrolle (scannen oder öffnen)", Empty: "—",
		Cut: " […gekürzt: %d Zeichen insgesamt]", CutLines: "\n[…gekürzt: %d weitere Zeilen]", Omitted: "Nicht gedruckt",
		OmittedRows: "%d weitere Felder: ein Ausdruck zeigt höchstens %d Zeichen in %d Zeilen"}
)

// Block is one numbered block of a form.
type Block struct {
	No    string // "1", "14", "" for an unnumbered section
	Title string
	Rows  []Row
	// Heading, when set, is printed above the block (a form's "FOR USE
	// BY COMPETENT AUTHORITIES").
	Heading string
}

// Row is one field of a block; Value may hold several lines.
type Row struct{ Label, Value string }

const (
	margin    = 15.0
	pageW     = 210.0
	labelW    = 62.0
	lineH     = 5.0
	headerH   = 12.0
	qrSize    = 32.0
	fontName  = "Go"
	totalSign = "{nb}"
)

// Render draws f as an A4 PDF, within the print's bounds (Bound).
func Render(f *Form) ([]byte, error) {
	if f.Number == "" {
		return nil, errors.New("printing: a form needs its document's number")
	}
	f = Bound(f)
	l := f.Labels
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.AliasNbPages(totalSign) // before any page: the total is filled in at the end
	pdf.AddUTF8FontFromBytes(fontName, "", goregular.TTF)
	pdf.AddUTF8FontFromBytes(fontName, "B", gobold.TTF)
	pdf.SetMargins(margin, margin+headerH, margin)
	pdf.SetAutoPageBreak(true, 18)
	pdf.SetTitle(f.Title+" "+f.Number, true)
	pdf.SetCreator("wasteflow", true)
	pdf.SetCatalogSort(true) // resources in a fixed order: the same form printed at the same time is the same file
	if !f.Printed.IsZero() {
		pdf.SetCreationDate(f.Printed)
		pdf.SetModificationDate(f.Printed)
	}
	pdf.SetHeaderFunc(func() {
		pdf.SetY(margin - 4)
		pdf.SetFont(fontName, "B", 9)
		pdf.CellFormat(120, 5, clip(f.Title, 80), "", 0, "L", false, 0, "")
		pdf.CellFormat(0, 5, f.Number, "", 1, "R", false, 0, "")
		pdf.SetDrawColor(120, 120, 120)
		pdf.Line(margin, margin+2, pageW-margin, margin+2)
		pdf.SetY(margin + headerH)
	})
	// "page n of m" in one font and style on every page, the last one
	// included: the total's digits are then in the embedded subset.
	pdf.SetFooterFunc(func() {
		pdf.SetY(-13)
		pdf.SetFont(fontName, "", 8)
		left := f.Number
		if !f.Printed.IsZero() {
			left += " · " + l.Printed + " " + f.Printed.UTC().Format("2006-01-02 15:04 UTC")
		}
		pdf.CellFormat(130, 4, left, "", 0, "L", false, 0, "")
		pdf.CellFormat(0, 4, fmt.Sprintf("%s %d %s %s", l.Page, pdf.PageNo(), l.Of, totalSign), "", 1, "R", false, 0, "")
		if f.AuditHead != "" {
			pdf.CellFormat(0, 4, l.AuditHead+": "+f.AuditHead, "", 0, "L", false, 0, "")
		}
	})
	pdf.AddPage()

	// Title, basis, facts, and the inspection QR code beside them.
	top := pdf.GetY()
	textW := pageW - 2*margin
	if f.InspectionLink != "" {
		textW -= qrSize + 5
	}
	pdf.SetFont(fontName, "B", 13)
	pdf.MultiCell(textW, 6, f.Title, "", "L", false)
	if f.Basis != "" {
		pdf.SetFont(fontName, "", 8)
		pdf.MultiCell(textW, 4, f.Basis, "", "L", false)
	}
	pdf.Ln(1)
	pdf.SetFont(fontName, "", 9)
	for _, r := range f.Facts {
		pdf.SetFont(fontName, "B", 9)
		pdf.CellFormat(35, lineH, r.Label, "", 0, "L", false, 0, "")
		pdf.SetFont(fontName, "", 9)
		pdf.MultiCell(textW-35, lineH, orEmpty(r.Value, l.Empty), "", "L", false)
	}
	if f.InspectionLink != "" {
		x := pageW - margin - qrSize
		if err := drawQR(pdf, f.InspectionLink, x, top, qrSize); err != nil {
			return nil, err
		}
		pdf.LinkString(x, top, qrSize, qrSize, f.InspectionLink)
		y := pdf.GetY()
		pdf.SetXY(x-2, top+qrSize)
		pdf.SetFont(fontName, "", 6)
		pdf.MultiCell(qrSize+4, 2.8, l.Inspection, "", "C", false)
		pdf.SetY(max(y, top+qrSize+7))
	}
	if f.InspectionLink != "" {
		pdf.SetFont(fontName, "", 7)
		pdf.MultiCell(0, 3.5, f.InspectionLink, "", "L", false)
	}
	pdf.Ln(3)

	for _, b := range f.Blocks {
		if b.Heading != "" {
			pdf.Ln(2)
			pdf.SetFont(fontName, "B", 9)
			pdf.SetFillColor(230, 230, 230)
			pdf.MultiCell(0, 6, strings.ToUpper(b.Heading), "", "C", true)
		}
		blockTitle(pdf, b)
		pdf.SetFont(fontName, "", 9)
		if len(b.Rows) == 0 {
			pdf.SetX(margin + 3)
			pdf.MultiCell(0, lineH, l.Empty, "", "L", false)
		}
		for _, r := range b.Rows {
			row(pdf, r, l.Empty)
		}
		pdf.Ln(1.5)
	}
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("printing %s: %w", f.Number, err)
	}
	return out.Bytes(), nil
}

// blockTitle draws "n. Title", moving to a new page first when too little
// is left for the title and a line of the block.
func blockTitle(pdf *fpdf.Fpdf, b Block) {
	_, h := pdf.GetPageSize()
	_, _, _, bottom := pdf.GetMargins()
	if pdf.GetY()+3*lineH > h-bottom-18 {
		pdf.AddPage()
	}
	title := b.Title
	if b.No != "" {
		title = b.No + ". " + title
	}
	pdf.SetFont(fontName, "B", 10)
	pdf.SetDrawColor(180, 180, 180)
	pdf.MultiCell(0, 6, title, "T", "L", false)
}

// row draws a label and its value, the value wrapping in its column (and
// onto the next page, with the label repeated there, when it is long).
func row(pdf *fpdf.Fpdf, r Row, empty string) {
	value := orEmpty(r.Value, empty)
	pdf.SetFont(fontName, "", 9)
	lines := pdf.SplitText(value, pageW-2*margin-labelW-3)
	labelLines := pdf.SplitText(r.Label, labelW-2)
	_, h := pdf.GetPageSize()
	for i := 0; i < max(len(lines), len(labelLines)); i++ {
		if pdf.GetY()+lineH > h-18 {
			pdf.AddPage()
		}
		pdf.SetX(margin + 3)
		label := ""
		if i < len(labelLines) {
			label = labelLines[i]
		}
		pdf.SetTextColor(80, 80, 80)
		pdf.CellFormat(labelW, lineH, label, "", 0, "L", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
		v := ""
		if i < len(lines) {
			v = lines[i]
		}
		pdf.CellFormat(0, lineH, v, "", 1, "L", false, 0, "")
	}
}

// drawQR draws link as a QR code (medium error correction) of side mm at
// x, y: each row's runs of dark modules as filled rectangles, vector
// graphics that stay sharp at any print size, inside a quiet zone of four
// modules that a reader needs.
func drawQR(pdf *fpdf.Fpdf, link string, x, y, side float64) error {
	code, err := qr.Encode(link, qr.M, qr.Auto)
	if err != nil {
		return fmt.Errorf("printing: QR code: %w", err)
	}
	n := code.Bounds().Dx()
	module := side / float64(n+8)
	x0, y0 := x+4*module, y+4*module
	pdf.SetFillColor(0, 0, 0)
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
			// a hair wider and taller: no seams between the rectangles
			pdf.Rect(x0+float64(start)*module, y0+float64(row)*module, float64(col-start)*module+0.01, module+0.01, "F")
		}
	}
	pdf.SetFillColor(255, 255, 255)
	return nil
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

// Directory names an organisation for print: its name and country.
type Directory func(id string) (name, country string)

// Party is organisation id as a form shows it: "Name (id), Country", or
// the id alone when the directory does not know it.
func (d Directory) Party(id string) string {
	if id == "" {
		return ""
	}
	name, country := d(id)
	if name == "" {
		return id
	}
	if country == "" {
		return fmt.Sprintf("%s (%s)", name, id)
	}
	return fmt.Sprintf("%s (%s), %s", name, id, country)
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

// QuantityRows are a quantity's rows: tonnes and cubic metres, as given.
func QuantityRows(q shipment.Quantity, tonnes, cubicMetres string) []Row {
	var rows []Row
	if q.Tonnes != nil {
		rows = append(rows, Row{Label: tonnes, Value: q.Tonnes.String()})
	}
	if q.CubicMetres != nil {
		rows = append(rows, Row{Label: cubicMetres, Value: q.CubicMetres.String()})
	}
	return rows
}

// LabelsOf are the page furniture of lang.
func LabelsOf(lang string) Labels {
	if lang == "de" {
		return German
	}
	return English
}
