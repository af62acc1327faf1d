package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// `admin diwass operators` from the command line against the fake: the
// list before, the registration (one company named for its missing
// identifier, exit 1), the list after, and what a missing configuration
// or flag says.
func TestAdminDIWASSOperators(t *testing.T) {
	db := dbtest.SQLite(t)
	fake := diwassfake.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	plain := environment(t, db)
	env := environment(t, db, "WASTEFLOW_DIWASS_OPERATORS_URL", srv.URL+"/operators", "WASTEFLOW_DIWASS_RESPONSIBLE_AUTHORITY", "DE002")
	if code, _, stderr := runCmd(t, plain, "migrate"); code != exitOK {
		t.Fatal(stderr)
	}
	gdb, err := models.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer models.Close(gdb)
	gdb.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"})
	gdb.Create(&models.Organisation{ProviderID: "p", ID: "acme", Kind: "company", Country: "DE", Name: "ACME", EORI: "DE123456789012345"})
	gdb.Create(&models.Organisation{ProviderID: "p", ID: "truck", Kind: "company", Country: "DE", Name: "Truck"})

	if code, out, stderr := runCmd(t, plain, "admin", "diwass", "operators", "-provider", "p"); code != exitOK || !strings.Contains(out, "acme") || !strings.Contains(out, "not registered") {
		t.Fatalf("the list before: exit %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCmd(t, plain, "admin", "diwass", "operators", "-provider", "p", "-register"); code != exitError || !strings.Contains(stderr, "WASTEFLOW_DIWASS_OPERATORS_URL") {
		t.Fatalf("registering without a DIWASS: exit %d %s", code, stderr)
	}
	code, out, stderr := runCmd(t, env, "admin", "diwass", "operators", "-provider", "p", "-register")
	if code != exitError || !strings.Contains(out, "registered") || !strings.Contains(out, "eori:DE123456789012345") || !strings.Contains(out, "no EORI or VAT number") ||
		!strings.Contains(stderr, "1 of 2 companies are not registered") {
		t.Fatalf("register: exit %d\n%s\n%s", code, out, stderr)
	}
	id := fake.Operators()[0].InternalID
	if code, out, _ := runCmd(t, plain, "admin", "diwass", "operators", "-provider", "p"); code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, "registered 20") {
		t.Fatalf("the list after: exit %d %s", code, out)
	}
	if code, _, stderr := runCmd(t, plain, "admin", "diwass", "operators"); code != exitUsage || !strings.Contains(stderr, "-provider") {
		t.Fatalf("without -provider: exit %d %s", code, stderr)
	}
}
