package main

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// An account that exists already is reported once, in one line naming it,
// with exit 1: no ERROR log line with the failed INSERT beside it.
func TestDuplicateAccountIsOneLine(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		// Debug: every statement the logger would show at all.
		env := environment(t, db, "WASTEFLOW_LOG_LEVEL", "debug")
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatalf("demo: %s", stderr)
		}
		args := []string{"admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "carol"}
		if code, out, stderr := runCmd(t, env, args...); code != exitOK || !strings.Contains(out, "account carol of dev-1/acme created") {
			t.Fatalf("create-account: exit %d\n%s%s", code, out, stderr)
		}
		for _, username := range []string{"carol", "alice"} { // created here, created by the demo bootstrap
			args[len(args)-1] = username
			code, out, stderr := runCmd(t, env, args...)
			stderr = withoutSlowStatements(stderr)
			want := `wasteflow admin create-account: account "` + username + `" of provider "dev-1" already exists (use reset-password)` + "\n"
			if code != exitError || stderr != want || out != "" {
				t.Errorf("duplicate %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and only:\n%s", username, code, out, stderr, want)
			}
		}
	})
}

// A wrong value of the terminal report names the flag typed, before the
// database is opened.
func TestReportFlagMistakeNamesTheFlag(t *testing.T) {
	env := environment(t, dbtest.SQLite(t))
	for flag, value := range map[string]string{"-state": "overdue,sometimes", "-rule": "DEADLINE_DUE"} {
		code, _, stderr := runCmd(t, env, "report", "deadlines", flag, value)
		if code != exitUsage || !strings.HasPrefix(stderr, "wasteflow report deadlines: "+flag+": unknown value") || strings.Contains(stderr, "qpar") {
			t.Errorf("%s %s: exit %d, %q; want exit 2 naming %s", flag, value, code, stderr, flag)
		}
	}
}

// withoutSlowStatements drops the warnings of statements that only took
// long (over 500 ms: a lock waited for when the machine is busy), which
// say nothing of the command's mistake; a statement that failed is logged
// with its error and stays.
func withoutSlowStatements(stderr string) string {
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.Contains(line, `level=WARN msg="SQL executed"`) && !strings.Contains(line, "error=") {
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "")
}
