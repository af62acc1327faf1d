// Package uitest holds what the browser tests of several packages share.
package uitest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium finds the browser. Without one the test is skipped, except on
// CI (env CI set), where a missing browser is a failure.
func Chromium(t testing.TB) string {
	t.Helper()
	if fi, err := os.Stat("/usr/bin/chromium"); err == nil && !fi.IsDir() {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found (/usr/bin/chromium or chromium in PATH)")
	}
	t.Skip("chromium not found (/usr/bin/chromium or chromium in PATH); the browser test is skipped")
	return ""
}
