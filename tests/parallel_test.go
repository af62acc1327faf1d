package tests

import (
	"strings"
	"testing"
)

// parallel lets an end-to-end test with its own server and database run
// beside others (make test runs four at a time). A test that the gRPC
// suite runs as one of its parallel scenarios (its name then has a slash)
// is already parallel there.
func parallel(t *testing.T) {
	if !strings.Contains(t.Name(), "/") {
		t.Parallel()
	}
}
