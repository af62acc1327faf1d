package printing

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

const letters = "Zażółć gęślą jaźń – Příliš žluťoučký kůň – Ærø Ålborg – Ûbersée œuvre – Größe Äpfel Öl Übel"

// A form long enough for three pages: its number on every page, "page n
// of m", every EU language's Latin letters as they were given (pdftotext
// reads them back), the audit head, and a QR code that a reader decodes to
// the inspection link.
func TestRenderReadsBack(t *testing.T) {
	pdftotext := printtest.Tool(t, "pdftotext")
	pdftoppm := printtest.Tool(t, "pdftoppm")
	zbarimg := printtest.Tool(t, "zbarimg")
	f := &Form{Title: "Notification document for transboundary movements/shipments of waste", Basis: "Annex IA (layout of Regulation (EC) No 1013/2006)",
		Number: "DE-2026-000042", Facts: []Row{{"State", "CONSENTED"}, {"Version", "8"}},
		Printed: time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC), AuditHead: strings.Repeat("ab", 32),
		InspectionLink: "https://wasteflow.example/inspect/9f86d081884c7d659a2feaa0c55ad015", Labels: English}
	for i := 1; i <= 21; i++ {
		b := Block{No: fmt.Sprint(i), Title: fmt.Sprintf("Block %d title", i)}
		for j := 0; j < 6; j++ {
			b.Rows = append(b.Rows, Row{Label: fmt.Sprintf("Field %d.%d", i, j), Value: fmt.Sprintf("value %d.%d", i, j)})
		}
		if i == 9 {
			b.Rows = append(b.Rows, Row{Label: "Name", Value: letters}, Row{Label: "Address", Value: "ul. Świętokrzyska 12\n00-916 Warszawa"})
		}
		f.Blocks = append(f.Blocks, b)
	}
	pdf, err := Render(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "form.pdf")
	if err := os.WriteFile(file, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-layout", file, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	pages := strings.Split(strings.TrimRight(string(out), "\f"), "\f")
	if len(pages) < 2 {
		t.Fatalf("%d page(s); the form should span several", len(pages))
	}
	for i, p := range pages {
		if !strings.Contains(p, "DE-2026-000042") || !strings.Contains(p, fmt.Sprintf("page %d of %d", i+1, len(pages))) {
			t.Errorf("page %d lacks the number or 'page %d of %d':\n%s", i+1, i+1, len(pages), p)
		}
		if !strings.Contains(p, "audit chain head: "+f.AuditHead) || !strings.Contains(p, f.InspectionLink) {
			t.Errorf("page %d lacks the audit head or the inspection link in its margin strip", i+1)
		}
	}
	text := strings.Join(strings.Fields(string(out)), " ") // a value wraps in its column
	for _, want := range []string{letters, "ul. Świętokrzyska 12", "00-916 Warszawa", "21. Block 21 title", "value 21.5", "audit chain head: " + f.AuditHead,
		"printed 26 November 2026 09:30 UTC", f.InspectionLink} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext does not find %q", want)
		}
	}
	// The QR code on every page, rendered as a printer would, reads back
	// as the link.
	if err := exec.Command(pdftoppm, "-r", "150", "-png", file, filepath.Join(dir, "page")).Run(); err != nil {
		t.Fatal(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	if len(pngs) != len(pages) {
		t.Fatalf("rendered %v", pngs)
	}
	for _, png := range pngs {
		scanned, err := exec.Command(zbarimg, "--quiet", "--raw", png).Output()
		if err != nil || strings.TrimSpace(string(scanned)) != f.InspectionLink {
			t.Fatalf("the QR code of %s reads %q (%v), want %s", filepath.Base(png), scanned, err, f.InspectionLink)
		}
	}
	// The same form printed at the same time is the same file.
	again, err := Render(f)
	if err != nil || !bytes.Equal(again, pdf) {
		t.Errorf("a second rendering differs (%v)", err)
	}
}

// German page furniture, and a form without a number refused.
func TestRenderGermanAndRefusals(t *testing.T) {
	pdf, err := Render(&Form{Title: "Begleitformular", Number: "DE-2026-000001-M001", Labels: German, Printed: time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC),
		Blocks: []Block{{No: "6", Title: "Tatsächliches Datum der Verbringung", Rows: []Row{{"Datum", "2026-12-07"}}}, {No: "7", Title: "Verpackung"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, text := printtest.Text(t, pdf)
	for _, want := range []string{"Seite 1 von 1", "gedruckt 07.12.2026 08:00 UTC", "6. Tatsächliches Datum der Verbringung", "7. Verpackung", "—"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext does not find %q in\n%s", want, text)
		}
	}
	if _, err := Render(&Form{Title: "x"}); err == nil {
		t.Error("a form without a number was printed")
	}
}
