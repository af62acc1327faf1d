package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestClockWalkthroughScript runs the sandbox walk-through
// (docs/walkthrough-test-clock.sh: curl and jq against the serve command
// with the demo data) and checks what it printed, so the guides cannot
// drift from the server.
func TestClockWalkthroughScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walk-through needs %s (.ci/run installs it)", tool)
			}
			t.Skipf("the walk-through needs %s", tool)
		}
	}
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db, "WASTEFLOW_ADDR", "127.0.0.1:0")
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatalf("demo: %s", stderr)
		}
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan string, 1)
		done := make(chan int, 1)
		var out, errb strings.Builder
		go func() {
			done <- run(ctx, []string{"serve", "-no-scheduler"}, strings.NewReader(""), &out, &errb, env, func(a string) { addr <- a })
		}()
		t.Cleanup(func() { cancel(); <-done })
		var base string
		select {
		case a := <-addr:
			base = "http://" + a
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, errb.String())
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not start")
		}
		cmd := exec.Command("bash", "../../docs/walkthrough-test-clock.sh")
		cmd.Env = append(os.Environ(), "WASTEFLOW_URL="+base)
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the walk-through failed: %v\n%s", err, got)
		}
		for _, want := range []string{"noor may: ACKNOWLEDGEMENT, REQUEST_INFORMATION; due ", "after two consents: ACKNOWLEDGED", "guarantee approved by auth-de-by", "auth-be decides by: ",
			`"transitions":1`, "now: CONSENTED, may: REQUEST_FOR_CHANGE_AFTER_CONSENT, CREATE_MOVEMENT, GUARANTEE", "movement: IN_TRANSIT",
			"movement: COMPLETED", "-M001 COMPLETED", "shipments left: 2, tonnes left: 40"} {
			if !strings.Contains(string(got), want) {
				t.Fatalf("the walk-through did not print %q:\n%s", want, got)
			}
		}
		t.Logf("%s", got)
	})
}

// admin reindex rewrites every document's list entries (after an upgrade
// that changed what a machine offers).
func TestAdminReindex(t *testing.T) {
	env := environment(t, dbtest.SQLite(t))
	if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
		t.Fatalf("demo: %s", stderr)
	}
	code, out, stderr := runCmd(t, env, "admin", "reindex")
	if code != exitOK || !strings.HasPrefix(out, "list entries of ") || strings.HasPrefix(out, "list entries of 0 ") {
		t.Fatalf("admin reindex: exit %d %s %s", code, out, stderr)
	}
}
