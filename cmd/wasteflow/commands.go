package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wasteflow/wasteflow/workflows/reports"
)

// command is one command of wasteflow, declared once: the overview
// (wasteflow help), its own help (-h, --help, wasteflow help NAME) and the
// usage lines of its errors come from it, and help_test.go holds the
// README's table of commands to it.
type command struct {
	name    string // the words after "wasteflow", e.g. "admin create-account"
	args    string // the rest of the synopsis, e.g. "-provider P -username U"
	summary string // what it does, in one line
	detail  string // more for its own help; "" for none
	// flags declares its flags on fs (the command itself declares them
	// through the same function); nil when it takes none.
	flags func(fs *flag.FlagSet)
}

func (c *command) synopsis() string { return strings.TrimSpace("wasteflow " + c.name + " " + c.args) }

var commands = []command{
	{name: "serve", args: "[-no-scheduler]", summary: "migrates the database, then serves HTTP until SIGTERM/SIGINT",
		detail: "In-flight requests get WASTEFLOW_SHUTDOWN_GRACE to finish; then the database is closed and the process exits 0.\n" +
			"With -no-scheduler it is an API-only instance: it runs no deadline sweeps.",
		flags: func(fs *flag.FlagSet) { serveFlags(fs) }},
	{name: "migrate", summary: "applies pending migrations and exits",
		detail: "Safe to run from several instances at once on PostgreSQL (advisory lock)."},
	{name: "admin apply", args: "FILE", summary: "applies a bootstrap file (YAML or JSON, - for stdin), idempotently",
		detail: "The whole file is checked first, and nothing is applied when it has a problem; a valid file is applied in one\n" +
			"transaction. Entries that already match are left alone; entries not in the file are never deleted."},
	{name: "admin create-account", args: "-provider P -organisation O -username U [-scopes a,b] [-password-stdin]",
		summary: "adds an account to an organisation",
		detail: "Without -password-stdin a password is generated and printed once. An account that exists already is refused\n" +
			"(exit 1): use reset-password.",
		flags: func(fs *flag.FlagSet) { accountFlags("create-account", fs) }},
	{name: "admin reset-password", args: "-provider P -username U [-password-stdin]",
		summary: "sets a new password and ends the account's sessions",
		detail:  "Without -password-stdin a password is generated and printed once.",
		flags:   func(fs *flag.FlagSet) { accountFlags("reset-password", fs) }},
	{name: "admin issue-app-token", args: "-provider P -name N [-scopes a,b]",
		summary: "creates the application or replaces its token; prints the token once",
		detail:  "The old token stops working. Without -scopes the application keeps its scopes.",
		flags:   func(fs *flag.FlagSet) { accountFlags("issue-app-token", fs) }},
	{name: "admin sweep", args: "[-as-of TIME] [-dry-run]", summary: "runs one deadline sweep now, or as of another time",
		detail: "With -as-of it WRITES that time's outcome (overdue deadlines, automatic transitions) into the database, so it\n" +
			"is refused in production; -dry-run reports what the sweep would do and writes nothing (any environment).",
		flags: func(fs *flag.FlagSet) { sweepFlags(fs) }},
	{name: "admin reindex", summary: "rewrites every document's list entries (roles, follow-up intents, nearest deadline)",
		detail: "Run it after an upgrade that changes what a machine offers."},
	{name: "admin reset-test-clock", args: "PROVIDER", summary: "sets a sandbox provider's test clock back to real time and DELETES its documents",
		detail: "Development and test environments only (refused elsewhere). Deletes, in one transaction, every notification, Annex VII\n" +
			"document and movement of the provider with their deadlines, audit trails, events, list entries and inspection links,\n" +
			"the pending mails about their deadlines and pending digests, and its Idempotency-Keys, and sets mail preferences'\n" +
			"since (provider time) back to real time; documents written meanwhile stay whole. The reset is recorded like an\n" +
			"advance of the clock. The way back from a clock moved too far."},
	{name: "admin verify-audit", summary: "checks every document's audit chain; prints and exits 1 at the first broken link of a chain"},
	{name: "admin replay-audit", summary: "replays every document's audit trail on the engine and compares it with the stored document; prints where each family parts",
		detail: "Each act is replayed from nothing with its time, caller, input and what it consulted (kept with its row since migration 29),\n" +
			"in the order the rows were written; the aggregate, state, version, deadlines and chain must come back as stored. Exits 1\n" +
			"when a family parts, naming the first act. Documents with rows from before migration 29 cannot be replayed and are named."},
	{name: "admin diwass operators", args: "-provider P [-register]",
		summary: "lists a provider's companies with their DIWASS operators; -register registers those without one",
		detail: "A company is registered in DIWASS's operator directory (OperatorDirectoryServiceV2) with its name, address, contacts and\n" +
			"EORI or VAT number, as a waste operator under WASTEFLOW_DIWASS_RESPONSIBLE_AUTHORITY; when DIWASS knows the identifier\n" +
			"already, the operator it knows is found and linked. Exits 1 when a company could not be registered (each says why).",
		flags: func(fs *flag.FlagSet) { diwassFlags(fs) }},
	{name: "admin audit", args: "DOCUMENT [-provider P]",
		summary: "prints one document's audit trail (by id or number), oldest first; exits 1 when its chain is broken",
		flags:   func(fs *flag.FlagSet) { auditFlags(fs) }},
	{name: "report deadlines", args: "[-format table|csv] [-state S] [-rule R] [-provider P]",
		summary: "the deadline report of every document, in a terminal",
		detail: "-state and -rule take one value or several, comma-separated, in any case.\n" +
			"States: " + strings.Join(reports.DeadlineStates, ", ") + ".\nRules: " + strings.Join(reports.Rules, ", ") + ".",
		flags: func(fs *flag.FlagSet) { reportFlags(fs) }},
	{name: "workflows graph", args: "KIND [-format dot|mermaid]",
		summary: "prints a document kind's state machine (also at /workflows/KIND.dot and .mmd)",
		detail:  "Kinds: " + strings.Join(graphKinds(), ", ") + ".",
		flags:   func(fs *flag.FlagSet) { graphFlags(fs) }},
	{name: "demo", summary: "migrates and applies the built-in demo data, prints how to log in; refused in production"},
	{name: "openapi", summary: "prints the OpenAPI description the server serves at /openapi.yaml",
		detail: "It is built on a throw-away embedded database: it depends on the code and the configuration only."},
	{name: "proto", args: "[-dir DIR]", summary: "writes the .proto files of the gRPC face (default into proto/), keeping the committed field numbers",
		detail: "Built like openapi; a field that is gone is reserved, a new one takes the next free number.",
		flags:  func(fs *flag.FlagSet) { fs.String("dir", "proto", "the directory of the .proto files") }},
	{name: "docs", args: "[-dir DIR]", summary: "writes the reference pages generated from the code (default into docs/reference/)",
		detail: "Built like openapi: operations, business errors, workflows, settings, events and commands. TestReferenceIsCurrent fails when the committed pages differ.",
		flags:  func(fs *flag.FlagSet) { docsFlags(fs) }},
	{name: "version", summary: "prints the version"},
	{name: "help", args: "[COMMAND]", summary: "lists the commands, or prints one command's help (as COMMAND -h does)"},
}

// findCommand finds a command by its words.
func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// isGroup reports whether name is the first word of commands of several
// words (admin, report, workflows).
func isGroup(name string) bool {
	for _, c := range commands {
		if strings.HasPrefix(c.name, name+" ") {
			return true
		}
	}
	return false
}

// newFlags is the flag set of a command; a mistake prints its synopsis.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		if c := findCommand(name); c != nil {
			fmt.Fprintf(stderr, "usage: %s\n(wasteflow %s -h tells more)\n", c.synopsis(), name)
		}
	}
	return fs
}

// usage is the overview of every command.
func usage() string {
	var b strings.Builder
	b.WriteString("wasteflow: waste-shipment document workflow server\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.synopsis(), c.summary)
	}
	b.WriteString(`
wasteflow COMMAND -h (or wasteflow help COMMAND) prints a command's help.
Configuration comes from WASTEFLOW_* environment variables and the optional
file named by WASTEFLOW_CONFIG; see README.md.
`)
	return b.String()
}

// groupUsage lists the commands of a group (wasteflow admin ...).
func groupUsage(group string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: wasteflow %s COMMAND ...\n\nCommands:\n", group)
	for _, c := range commands {
		if strings.HasPrefix(c.name, group+" ") {
			fmt.Fprintf(&b, "  %s\n      %s\n", c.synopsis(), c.summary)
		}
	}
	fmt.Fprintf(&b, "\nwasteflow %s COMMAND -h prints a command's help.\n", group)
	return b.String()
}

// commandHelp is one command's help: synopsis, what it does, its flags.
func commandHelp(c *command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s%s.\n", c.synopsis(), strings.ToUpper(c.summary[:1]), c.summary[1:])
	if c.detail != "" {
		fmt.Fprintf(&b, "%s\n", c.detail)
	}
	if c.flags != nil {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	return b.String()
}

// wantsHelp reports whether args ask for help anywhere (-h, -help, --help
// as flag.FlagSet takes them): the command then does nothing else.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// helpCmd prints the help of the command that words (the arguments before
// the first flag) name, or the overview when they name none.
func helpCmd(words []string, stdout, stderr io.Writer) int {
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			words = words[:i]
			break
		}
	}
	if len(words) == 0 {
		fmt.Fprint(stdout, usage())
		return exitOK
	}
	// The longest prefix that names a command: the words after it are its
	// arguments (wasteflow workflows graph notification -h).
	for n := len(words); n > 0; n-- {
		name := strings.Join(words[:n], " ")
		if c := findCommand(name); c != nil {
			fmt.Fprint(stdout, commandHelp(c))
			return exitOK
		}
		if isGroup(name) {
			fmt.Fprint(stdout, groupUsage(name))
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "wasteflow: unknown command %q (wasteflow help lists them)\n", strings.Join(words, " "))
	return exitUsage
}
