package main

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// wasteflow admin reset-test-clock is the operator's way back for a
// sandbox provider (issue 44.13): a clock wrecked as the old server left
// it (offset saturated: 2319) is set back to real time, the provider's
// documents are deleted with their deadlines, events, audit rows and list
// entries, the reset is recorded, and the audit trail of what stays still
// verifies. Outside development and test it is refused and deletes
// nothing.
func TestAdminResetTestClock(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db)
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatal(stderr)
		}
		gdb, err := models.Open(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer models.Close(gdb)
		count := func(q string) int64 {
			t.Helper()
			var n int64
			if err := gdb.Raw(q).Scan(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		docs := count("SELECT COUNT(*) FROM documents WHERE provider_id = 'dev-1'")
		if docs == 0 || count("SELECT COUNT(*) FROM deadlines WHERE provider_id = 'dev-1'") == 0 {
			t.Fatal("the demo made no documents with deadlines")
		}
		if err := gdb.Exec("INSERT INTO test_clocks (provider_id, offset_ns, updated_at) VALUES ('dev-1', ?, ?)", int64(math.MaxInt64), time.Now().UTC()).Error; err != nil {
			t.Fatal(err)
		}

		for _, envName := range []string{"production", "staging"} {
			code, _, stderr := runCmd(t, environment(t, db, "WASTEFLOW_ENVIRONMENT", envName), "admin", "reset-test-clock", "dev-1")
			if code != exitError || !strings.Contains(stderr, "refused in the "+envName+" environment") {
				t.Fatalf("%s: exit %d %s", envName, code, stderr)
			}
		}
		if code, _, stderr := runCmd(t, env, "admin", "reset-test-clock"); code != exitUsage || !strings.Contains(stderr, "usage") {
			t.Fatalf("without a provider: exit %d %s", code, stderr)
		}
		if code, _, stderr := runCmd(t, env, "admin", "reset-test-clock", "nope"); code != exitError || !strings.Contains(stderr, `no provider "nope"`) {
			t.Fatalf("an unknown provider: exit %d %s", code, stderr)
		}
		if n := count("SELECT COUNT(*) FROM documents WHERE provider_id = 'dev-1'"); n != docs {
			t.Fatalf("a refused reset deleted documents: %d of %d left", n, docs)
		}

		code, out, stderr := runCmd(t, env, "admin", "reset-test-clock", "dev-1")
		if code != exitOK || !strings.Contains(out, "set back from 2319-") || !strings.Contains(out, "deleted "+itoa(docs)+" documents") {
			t.Fatalf("reset: exit %d %s %s", code, out, stderr)
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM documents WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM deadlines WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM events WHERE provider_id = 'dev-1' AND document_id <> ''",
			"SELECT COUNT(*) FROM document_entries WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM audit_events a WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = a.document_id)",
			"SELECT COUNT(*) FROM document_parties p WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.document_id)",
			"SELECT COUNT(*) FROM test_clocks",
		} {
			if n := count(q); n != 0 {
				t.Errorf("%s: %d", q, n)
			}
		}
		if n := count("SELECT COUNT(*) FROM test_clock_advances WHERE provider_id = 'dev-1' AND request_id = 'wasteflow admin reset-test-clock'"); n != 1 {
			t.Fatalf("%d resets recorded", n)
		}
		if code, out, stderr := runCmd(t, env, "admin", "verify-audit"); code != exitOK {
			t.Fatalf("verify-audit after the reset: exit %d %s %s", code, out, stderr)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
