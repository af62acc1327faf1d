package handlers_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/alexedwards/argon2id"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// TestMain hashes passwords with argon2id's smallest parameters: every
// test server applies the fixture's dozen accounts and every test logs in
// several of them, and what these tests check is the HTTP face, not the
// hash's cost (workflows/credentials tests the production parameters,
// which the PHC strings carry, so a stored hash verifies either way).
//
// Every gRPC answer is also checked against the JSON detour's (CheckWire),
// every stored aggregate's decoding against encoding/json's (CheckDecode).
//
// The load benchmark (WASTEFLOW_BENCH) measures the server as it runs:
// production hashing (its login figure is the argon2id cost), no check.
func TestMain(m *testing.M) {
	bench := os.Getenv("WASTEFLOW_BENCH") != ""
	handlers.CheckWire = !bench
	documents.CheckDecode = !bench
	if !bench {
		credentials.PasswordParams = &argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}
	}
	code := m.Run()
	// Every business error the tests met was declared by the intent that
	// reported it, so the reference lists the operations that raise it.
	if u := engine.Undeclared(); len(u) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "business error codes reported but not declared in the intent's Errors (kind intent code):\n  %s\n", strings.Join(u, "\n  "))
		code = 1
	}
	os.Exit(code)
}
