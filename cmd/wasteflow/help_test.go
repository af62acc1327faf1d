package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// helpCase is a command line asking for help and the start of the help
// it must print.
type helpCase struct {
	args []string
	want string
}

const overview = "wasteflow: waste-shipment document workflow server\n\nUsage:\n"

// helpCases are every command and group with -h, --help and as wasteflow
// help NAME, plus -h after a command's arguments and flags.
func helpCases() []helpCase {
	cases := []helpCase{
		{[]string{"-h"}, overview}, {[]string{"--help"}, overview}, {[]string{"help"}, overview},
	}
	for _, group := range []string{"admin", "report", "workflows"} {
		want := "Usage: wasteflow " + group + " COMMAND ...\n"
		cases = append(cases, helpCase{[]string{group, "-h"}, want}, helpCase{[]string{group, "--help"}, want}, helpCase{[]string{"help", group}, want})
	}
	for _, c := range commands {
		words, want := strings.Fields(c.name), "Usage: "+c.synopsis()+"\n"
		cases = append(cases,
			helpCase{append(slices.Clone(words), "-h"), want},
			helpCase{append(slices.Clone(words), "--help"), want},
			helpCase{append([]string{"help"}, words...), want})
	}
	usage := func(name string) string { return "Usage: " + findCommand(name).synopsis() + "\n" }
	return append(cases,
		helpCase{[]string{"serve", "-no-scheduler", "-h"}, usage("serve")},
		helpCase{[]string{"admin", "apply", "bootstrap.yaml", "-h"}, usage("admin apply")},
		helpCase{[]string{"admin", "apply", "-", "--help"}, usage("admin apply")},
		helpCase{[]string{"admin", "audit", "DE-2026-000001", "-provider", "dev-1", "-h"}, usage("admin audit")},
		helpCase{[]string{"admin", "create-account", "-provider", "dev-1", "-organisation", "acme", "-username", "zed", "-h"}, usage("admin create-account")},
		helpCase{[]string{"admin", "sweep", "-as-of", "2027-01-01T00:00:00Z", "-h"}, usage("admin sweep")},
		helpCase{[]string{"workflows", "graph", "notification", "-format", "mermaid", "-h"}, usage("workflows graph")},
		helpCase{[]string{"report", "deadlines", "-format", "csv", "-help"}, usage("report deadlines")},
	)
}

// -h on every command prints that command's help and does nothing else:
// exit 0, no database opened or created, no server started, no key or file
// written, whatever the configuration says.
func TestHelpOnEveryCommandDoesNothingElse(t *testing.T) {
	root, keys := t.TempDir(), t.TempDir()
	valid := map[string]string{
		"WASTEFLOW_DATABASE_URL":         "sqlite://" + filepath.Join(root, "db", "wasteflow.db"),
		"WASTEFLOW_SECRET_KEY_FILE":      filepath.Join(root, "secret.key"),
		"WASTEFLOW_JWT_SIGNING_KEY_FILE": filepath.Join(root, "jwt.pem"),
		"WASTEFLOW_SIGNER_KEYS":          keys,
		"WASTEFLOW_ADDR":                 "127.0.0.1:0",
		"WASTEFLOW_LOG_LEVEL":            "debug",
	}
	broken := map[string]string{"WASTEFLOW_LOG_FORMAT": "xml", "WASTEFLOW_DATABASE_URL": "mysql://nowhere"}
	for config, env := range map[string]map[string]string{"valid configuration": valid, "broken configuration": broken} {
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		for _, hc := range helpCases() {
			var out, errb bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			code := run(ctx, hc.args, strings.NewReader("providers: []\n"), &out, &errb, lookup, func(addr string) {
				t.Errorf("%s: wasteflow %s started a server on %s", config, strings.Join(hc.args, " "), addr)
			})
			cancel()
			if code != exitOK || !strings.HasPrefix(out.String(), hc.want) || errb.Len() != 0 {
				t.Errorf("%s: wasteflow %s: exit %d, stdout %.120q, stderr %q; want exit 0 and only the help (%q…)",
					config, strings.Join(hc.args, " "), code, out.String(), errb.String(), hc.want)
			}
		}
	}
	for _, dir := range []string{root, keys} {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("help wrote into %s: %v", dir, entries)
		}
	}
	// Groups list their commands; a command's help lists its flags.
	code, out, _ := runCmd(t, noConfig, "admin", "-h")
	for _, c := range commands {
		if strings.HasPrefix(c.name, "admin ") != strings.Contains(out, c.synopsis()+"\n") {
			t.Errorf("wasteflow admin -h (exit %d) and %q disagree:\n%s", code, c.name, out)
		}
	}
	if _, out, _ := runCmd(t, noConfig, "admin", "create-account", "-h"); !strings.Contains(out, "-password-stdin") || !strings.Contains(out, "-organisation string") {
		t.Errorf("create-account -h lists no flags:\n%s", out)
	}
	if code, _, stderr := runCmd(t, noConfig, "frobnicate", "-h"); code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("frobnicate -h: exit %d, %q", code, stderr)
	}
}

func noConfig(string) (string, bool) { return "", false }

// Each command's synopsis names exactly the flags it declares.
func TestSynopsesNameTheirFlags(t *testing.T) {
	flagRe := regexp.MustCompile(`(?:^|[\s\[])-([a-z][a-z-]*)`)
	for _, c := range commands {
		var declared, named []string
		if c.flags != nil {
			fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
			c.flags(fs)
			fs.VisitAll(func(f *flag.Flag) { declared = append(declared, f.Name) })
		}
		for _, m := range flagRe.FindAllStringSubmatch(c.args, -1) {
			named = append(named, m[1])
		}
		slices.Sort(named)
		if !slices.Equal(declared, named) {
			t.Errorf("%s: declares flags %v, its synopsis %q names %v", c.name, declared, c.args, named)
		}
	}
}

// wasteflow help lists every command with its synopsis and summary (the
// reference's commands page is generated from the same table).
func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runCmd(t, noConfig, "help")
	if code != exitOK {
		t.Fatalf("wasteflow help: exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(out, "\n  "+c.synopsis()+"\n      "+c.summary+"\n") {
			t.Errorf("wasteflow help does not list %q", c.synopsis())
		}
	}
}
