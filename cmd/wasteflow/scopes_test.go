package main

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestAdminRefusesUnknownScopes: a scope the server does not define is
// refused by the CLI and nothing is written.
func TestAdminRefusesUnknownScopes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := environment(t, db)
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatalf("demo: %s", stderr)
		}
		code, _, stderr := runCmd(t, env, "admin", "issue-app-token", "-provider", "dev-1", "-name", "cli", "-scopes", "frobnicate")
		if code != exitError || !strings.Contains(stderr, `"frobnicate" is not a scope`) || !strings.Contains(stderr, "documents:read") {
			t.Fatalf("issue-app-token with an unknown scope: exit %d %s", code, stderr)
		}
		code, _, stderr = runCmd(t, env, "admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "carol", "-scopes", "documents")
		if code != exitError || !strings.Contains(stderr, `"documents" is not a scope`) {
			t.Fatalf("create-account with the former umbrella scope: exit %d %s", code, stderr)
		}
		// Nothing was written: the same names are free.
		if code, out, stderr := runCmd(t, env, "admin", "issue-app-token", "-provider", "dev-1", "-name", "cli", "-scopes", "documents:read,signing"); code != exitOK || !strings.Contains(out, "application created") {
			t.Fatalf("issue-app-token: exit %d %s %s", code, out, stderr)
		}
		if code, _, stderr := runCmd(t, env, "admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "carol", "-scopes", "documents:read"); code != exitOK {
			t.Fatalf("create-account: exit %d %s", code, stderr)
		}
	})
}
