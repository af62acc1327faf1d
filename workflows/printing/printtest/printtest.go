// Package printtest reads printed forms back in tests, as a reader of the
// PDF would: pdftotext (Debian's poppler-utils; .ci/run installs it).
package printtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tool finds a command-line tool; without it the test is skipped, except
// under CI, where it fails.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (Debian: poppler-utils, zbar-tools; .ci/run installs them)", name)
		}
		t.Skipf("%s not found (Debian: poppler-utils, zbar-tools)", name)
	}
	return p
}

// Text is pdf as pdftotext reads it, page by page, and all of it with its
// whitespace collapsed (a value wraps in its column).
func Text(t testing.TB, pdf []byte) (pages []string, text string) {
	t.Helper()
	pdftotext := Tool(t, "pdftotext")
	_, file := write(t, pdf)
	out, err := exec.Command(pdftotext, "-layout", file, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(out), "\f"), "\f"), strings.Join(strings.Fields(string(out)), " ")
}

// Raw is pdf's text in the order it was drawn (pdftotext -raw), its
// whitespace collapsed: a box's title and values read together even where
// boxes stand side by side and a title wraps in its box.
func Raw(t testing.TB, pdf []byte) string {
	t.Helper()
	pdftotext := Tool(t, "pdftotext")
	_, file := write(t, pdf)
	out, err := exec.Command(pdftotext, "-raw", file, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// QR is what a QR reader finds on the first page of pdf rendered as a
// picture (pdftoppm at 150 dpi, then zbarimg of zbar-tools): the text of
// each code, as a phone's camera would read the printed page.
func QR(t testing.TB, pdf []byte) []string {
	t.Helper()
	pdftoppm, zbarimg := Tool(t, "pdftoppm"), Tool(t, "zbarimg")
	dir, file := write(t, pdf)
	if out, err := exec.Command(pdftoppm, "-r", "150", "-png", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, err := exec.Command(zbarimg, "-q", "--raw", "-Sdisable", "-Sqrcode.enable", filepath.Join(dir, "page.png")).Output()
	if err != nil {
		t.Fatalf("zbarimg finds no QR code on the page: %v", err)
	}
	return strings.Fields(string(out))
}

// PNG is page (1 for the first) of pdf rendered at dpi by pdftoppm.
func PNG(t testing.TB, pdf []byte, page, dpi int) []byte {
	t.Helper()
	pdftoppm := Tool(t, "pdftoppm")
	dir, file := write(t, pdf)
	p := fmt.Sprint(page)
	if out, err := exec.Command(pdftoppm, "-r", fmt.Sprint(dpi), "-png", "-f", p, "-l", p, "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	png, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	return png
}

// write puts pdf in a file of a new temporary directory for the tools.
func write(t testing.TB, pdf []byte) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "form.pdf")
	if err := os.WriteFile(file, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file
}
