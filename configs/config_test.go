package configs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := configs.Load(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.Environment != "development" || c.Database.Driver != "sqlite" ||
		c.Database.DSN != "data/wasteflow.db" || c.BodyLimit != 28<<20 || c.LogFormat != "text" || c.ShutdownGrace != 20*time.Second {
		t.Fatalf("defaults: %+v", c)
	}
	c, _ = configs.Load(lookup(map[string]string{"WASTEFLOW_DATABASE_URL": "", "WASTEFLOW_ENVIRONMENT": "production"}))
	if c.Database.Driver != "sqlite" || c.LogFormat != "json" {
		t.Fatalf("empty database URL or production log format: %+v", c)
	}
}

func TestPostgresURLAndRedaction(t *testing.T) {
	c, err := configs.Load(lookup(map[string]string{"WASTEFLOW_DATABASE_URL": "postgres://u:s3cret@db:5432/wf?sslmode=disable"}))
	if err != nil || c.Database.Driver != "postgres" {
		t.Fatalf("%+v %v", c, err)
	}
	if got := configs.RedactURL(c.Database.URL); strings.Contains(got, "s3cret") {
		t.Fatalf("RedactURL kept the password: %s", got)
	}
	_, err = configs.Load(lookup(map[string]string{"WASTEFLOW_DATABASE_URL": "postgres://u:s3cret@/x", "WASTEFLOW_ADDR": "x"}))
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %v leaks the password or is missing", err)
	}
}

func TestErrorsNameTheVariable(t *testing.T) {
	for _, s := range configs.Settings {
		_, err := configs.Load(lookup(map[string]string{s.Name: "!!bogus!!"}))
		switch s.Name {
		case "WASTEFLOW_TRUSTED_PROXIES", "WASTEFLOW_DATABASE_URL":
			continue // checked below / any string falls back to nothing
		case "WASTEFLOW_SECRET_KEY_FILE", "WASTEFLOW_JWT_SIGNING_KEY_FILE", "WASTEFLOW_JWT_VERIFY_KEY_FILES", "WASTEFLOW_JWT_ISSUER", "WASTEFLOW_UI_APP_TOKEN",
			"WASTEFLOW_SMTP_USER", "WASTEFLOW_SMTP_PASSWORD":
			if err != nil { // any name is a valid file name or issuer
				t.Errorf("%s: %v", s.Name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), s.Name) {
			t.Errorf("%s=!!bogus!!: err = %v, want one naming the variable", s.Name, err)
		}
	}
	_, err := configs.Load(lookup(map[string]string{"WASTEFLOW_TRUSTED_PROXIES": "10.0.0.0/8, nonsense"}))
	if err == nil || !strings.Contains(err.Error(), "WASTEFLOW_TRUSTED_PROXIES") {
		t.Errorf("trusted proxies: %v", err)
	}
	_, err = configs.Load(lookup(map[string]string{"WASTEFLOW_DB_MAX_OPEN_CONNS": "2", "WASTEFLOW_DB_MAX_IDLE_CONNS": "5"}))
	if err == nil || !strings.Contains(err.Error(), "WASTEFLOW_DB_MAX_IDLE_CONNS") {
		t.Errorf("idle > open: %v", err)
	}
	// Idle connections follow the open ones unless set: a pool that keeps
	// fewer idle than it opens closes and reopens them under load.
	c, err := configs.Load(lookup(map[string]string{"WASTEFLOW_DB_MAX_OPEN_CONNS": "7"}))
	if err != nil || c.Database.MaxIdleConns != 7 {
		t.Errorf("idle connections by default: %v %+v", err, c)
	}
}

func TestFileThenEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wasteflow.yaml")
	os.WriteFile(path, []byte("WASTEFLOW_ADDR: 0.0.0.0:9000\nWASTEFLOW_ENVIRONMENT: staging\n"), 0o600)
	c, err := configs.Load(lookup(map[string]string{"WASTEFLOW_CONFIG": path, "WASTEFLOW_ENVIRONMENT": "test"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "0.0.0.0:9000" || c.Environment != "test" {
		t.Fatalf("file then environment: addr %s env %s", c.Addr, c.Environment)
	}
	os.WriteFile(path, []byte("WASTEFLOW_ADRR: x\n"), 0o600)
	if _, err := configs.Load(lookup(map[string]string{"WASTEFLOW_CONFIG": path})); err == nil || !strings.Contains(err.Error(), "WASTEFLOW_ADRR") {
		t.Fatalf("typo in file: %v", err)
	}
	os.WriteFile(path, []byte("WASTEFLOW_ENVIRONMENT: moon\n"), 0o600)
	if _, err := configs.Load(lookup(map[string]string{"WASTEFLOW_CONFIG": path})); err == nil || !strings.Contains(err.Error(), "file "+path) {
		t.Fatalf("bad value in file does not name the file: %v", err)
	}
}

// A misspelt variable is named, with the setting it resembles; settings,
// the config file variable and the harnesses' variables are not.
func TestUnknownVariablesAreNamed(t *testing.T) {
	got := configs.Unknown([]string{"WASTEFLOW_SWEEP_WORKER=2", "WASTEFLOW_ADDR=:0", "WASTEFLOW_CONFIG=x", "WASTEFLOW_TEST_DATABASE_URL=p",
		"WASTEFLOW_BENCH=1", "PATH=/bin", "WASTEFLOW_FROBNICATE=1"})
	want := []string{"WASTEFLOW_SWEEP_WORKER is not a setting and is ignored (did you mean WASTEFLOW_SWEEP_WORKERS?)",
		"WASTEFLOW_FROBNICATE is not a setting and is ignored"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
