package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// admin runs `wasteflow admin ...` (args without "admin").
func admin(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, groupUsage("admin"))
		return exitUsage
	}
	if c := findCommand("admin " + args[0]); c != nil && c.args == "" && len(args) > 1 {
		return unexpected(c, args[1], stderr)
	}
	if args[0] == "verify-audit" {
		return report(stderr, "admin verify-audit", withDB(ctx, cfg, log, func(db *models.DB) error {
			breaks, rows, err := audit.Verify(ctx, db)
			if err != nil {
				return err
			}
			if len(breaks) > 0 {
				for _, b := range breaks {
					fmt.Fprintf(stdout, "BROKEN %s\n", b)
				}
				return fmt.Errorf("%d broken chain(s) among %d rows", len(breaks), rows)
			}
			fmt.Fprintf(stdout, "audit trail intact: %d rows verified\n", rows)
			return nil
		}))
	}
	if args[0] == "replay-audit" {
		return report(stderr, "admin replay-audit", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
			docs, err := newRunner(db, cfg, nil)
			if err != nil {
				return err
			}
			start := time.Now()
			res, err := docs.Replay(ctx)
			if err != nil {
				return err
			}
			for _, d := range res.Divergences {
				fmt.Fprintf(stdout, "PARTS %s\n", d)
			}
			if len(res.Divergences) > 0 {
				return fmt.Errorf("%d of %d families do not replay to their documents", len(res.Divergences), res.Families)
			}
			fmt.Fprintf(stdout, "every trail replays to its document: %d families, %d documents, %d acts (%s)\n",
				res.Families, res.Documents, res.Acts, time.Since(start).Round(time.Millisecond))
			return nil
		}))
	}
	if args[0] == "reindex" {
		return report(stderr, "admin reindex", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
			docs, err := newRunner(db, cfg, nil)
			if err != nil {
				return err
			}
			start := time.Now()
			n, err := docs.IndexEntries(ctx, true)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "list entries of %d documents rewritten (%s)\n", n, time.Since(start).Round(time.Millisecond))
			return nil
		}))
	}
	if args[0] == "reset-test-clock" {
		return adminResetClock(ctx, cfg, log, args[1:], stdout, stderr)
	}
	if args[0] == "sweep" {
		return adminSweep(ctx, cfg, log, args[1:], stdout, stderr)
	}
	if args[0] == "audit" {
		return adminAudit(ctx, cfg, log, args[1:], stdout, stderr)
	}
	if args[0] == "diwass" {
		return adminDIWASS(ctx, cfg, log, args[1:], stdout, stderr)
	}
	if args[0] == "apply" {
		if len(args) != 2 {
			fmt.Fprintf(stderr, "usage: %s\n", findCommand("admin apply").synopsis())
			return exitUsage
		}
		return report(stderr, "admin apply", adminApply(ctx, cfg, log, args[1], stdin, stdout))
	}
	switch args[0] {
	case "create-account", "reset-password", "issue-app-token":
	default:
		fmt.Fprintf(stderr, "wasteflow: unknown admin command %q\n\n%s", args[0], groupUsage("admin"))
		return exitUsage
	}
	fs := newFlags("admin "+args[0], stderr)
	f := accountFlags(args[0], fs)
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return unexpected(findCommand("admin "+args[0]), fs.Arg(0), stderr)
	}
	provider, organisation, username, name, scopes, fromStdin := f.provider, f.organisation, f.username, f.name, f.scopes, f.passwordStdin
	var missing []string
	for _, v := range []struct {
		flag  string
		value *string
	}{{"provider", provider}, {"organisation", organisation}, {"username", username}, {"name", name}} {
		if v.value != nil && *v.value == "" {
			missing = append(missing, "-"+v.flag)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "wasteflow admin %s: missing %s\nusage: %s\n", args[0], strings.Join(missing, ", "), findCommand("admin "+args[0]).synopsis())
		return exitUsage
	}
	password := ""
	generated := false
	if fromStdin != nil {
		if *fromStdin {
			line, err := bufio.NewReader(stdin).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return report(stderr, "admin "+args[0], err)
			}
			password = strings.TrimRight(line, "\r\n")
		} else {
			password, generated = auth.GeneratePassword(), true
		}
	}
	err := withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		svc, _, err := newAuth(ctx, cfg, db)
		if err != nil {
			return err
		}
		switch args[0] {
		case "create-account":
			if err := svc.CreateAccount(ctx, *provider, *organisation, *username, password, splitList(*scopes)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "account %s of %s/%s created\n", *username, *provider, *organisation)
		case "reset-password":
			if err := svc.ResetPassword(ctx, *provider, *username, password); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "password of %s/%s reset; its sessions have ended\n", *provider, *username)
		case "issue-app-token":
			token, created, err := svc.IssueAppToken(ctx, *provider, *name, splitList(*scopes))
			if err != nil {
				return err
			}
			verb := "new token for application"
			if created {
				verb = "application created"
			}
			fmt.Fprintf(stdout, "%s %s/%s\napp token (shown once): %s\n", verb, *provider, *name, token)
		}
		if generated {
			fmt.Fprintf(stdout, "password (shown once): %s\n", password)
		}
		return nil
	})
	return report(stderr, "admin "+args[0], err)
}

// accountOpts are the flags of the account commands; a flag the command
// does not take is nil.
type accountOpts struct {
	provider, organisation, username, name, scopes *string
	passwordStdin                                  *bool
}

func accountFlags(cmd string, fs *flag.FlagSet) *accountOpts {
	o := &accountOpts{provider: fs.String("provider", "", "provider id")}
	stdinFlag := func() *bool {
		return fs.Bool("password-stdin", false, "read the password from the first line of standard input (default: generate one and print it once)")
	}
	switch cmd {
	case "create-account":
		o.organisation = fs.String("organisation", "", "organisation id")
		o.username = fs.String("username", "", "username")
		o.scopes = fs.String("scopes", "", "comma-separated scopes, of "+scopeNames())
		o.passwordStdin = stdinFlag()
	case "reset-password":
		o.username = fs.String("username", "", "username")
		o.passwordStdin = stdinFlag()
	case "issue-app-token":
		o.name = fs.String("name", "", "application name")
		o.scopes = fs.String("scopes", "", "comma-separated scopes (default: keep the application's)")
	}
	return o
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func report(stderr io.Writer, what string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "wasteflow %s: %v\n", what, err)
		return exitError
	}
	return exitOK
}

// adminSweep runs one deadline sweep against the configured database, now
// or as of another time. Without -dry-run it writes what it does: with
// -as-of that is the future (deadlines overdue, automatic transitions
// fired) in this database, so it is refused in production. With -dry-run
// it reports what the sweep would do and writes nothing.
func adminSweep(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("admin sweep", stderr)
	asOf, dry := sweepFlags(fs)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return unexpected(findCommand("admin sweep"), fs.Arg(0), stderr)
	}
	now := time.Now().UTC()
	if *asOf != "" {
		if cfg.Production() && !*dry {
			fmt.Fprintln(stderr, "wasteflow admin sweep: -as-of is refused in production: it would apply deadlines at a time that is not now")
			return exitError
		}
		t, err := time.Parse(time.RFC3339, *asOf)
		if err != nil {
			fmt.Fprintf(stderr, "wasteflow admin sweep: -as-of: %v\n", err)
			return exitUsage
		}
		now = t.UTC()
	}
	return report(stderr, "admin sweep", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		sweep := func(db *models.DB) (documents.SweepResult, error) {
			docs, err := newRunner(db, cfg, func() time.Time { return now })
			if err != nil {
				return documents.SweepResult{}, err
			}
			if *dry {
				docs.SweepWorkers = 1 // one transaction serves them all
			}
			return docs.Sweep(ctx, now)
		}
		start := time.Now()
		var res documents.SweepResult
		var err error
		if *dry { // the whole sweep in one transaction, rolled back
			err = models.DryRun(db, func(tx *models.DB) error {
				res, err = sweep(tx)
				return err
			})
		} else {
			res, err = sweep(db)
		}
		if err != nil {
			return err
		}
		what := "sweep"
		if *dry {
			what = "dry run (nothing written): a sweep"
		}
		fmt.Fprintf(stdout, "%s as of %s: %s (%s)\n", what, now.Format(time.RFC3339), res, time.Since(start).Round(time.Millisecond))
		return nil
	}))
}

// adminResetClock runs `wasteflow admin reset-test-clock PROVIDER`.
func adminResetClock(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "usage: %s\n", findCommand("admin reset-test-clock").synopsis())
		return exitUsage
	}
	if !clock.Sandbox(cfg.Environment) {
		fmt.Fprintf(stderr, "wasteflow admin reset-test-clock: refused in the %s environment: test clocks exist only in development and test, and this command deletes documents\n", cfg.Environment)
		return exitError
	}
	provider := args[0]
	return report(stderr, "admin reset-test-clock", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		if _, err := models.GetProvider(ctx, db, provider); err != nil {
			if errors.Is(err, models.ErrNotFound) {
				return fmt.Errorf("no provider %q", provider)
			}
			return err
		}
		docs, err := newRunner(db, cfg, nil)
		if err != nil {
			return err
		}
		c, err := docs.ResetTestClockOf(ctx, provider, models.TestClockAdvance{RequestID: "wasteflow admin reset-test-clock"})
		if err != nil {
			return err
		}
		n := c.Deleted
		fmt.Fprintf(stdout, "test clock of %s set back from %s to real time (%s); deleted %d documents, %d deadlines, %d events, %d audit rows, %d pending mails\n",
			provider, c.From.Format(time.RFC3339), c.Now.Format(time.RFC3339), n.Documents, n.Deadlines, n.Events, n.AuditRows, n.Mails)
		return nil
	}))
}

func sweepFlags(fs *flag.FlagSet) (asOf *string, dryRun *bool) {
	return fs.String("as-of", "", "RFC 3339 time to sweep as of; without -dry-run this WRITES that time's outcome (overdue deadlines, automatic transitions) into the database (refused in production)"),
		fs.Bool("dry-run", false, "report what the sweep would do, write nothing (any environment)")
}

// adminAudit prints a document's audit trail, oldest first, and whether
// its chain is intact.
func adminAudit(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("admin audit", stderr)
	provider := auditFlags(fs)
	doc := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		doc, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if (doc == "" && fs.NArg() != 1) || (doc != "" && fs.NArg() != 0) {
		fs.Usage()
		return exitUsage
	}
	if doc == "" {
		doc = fs.Arg(0)
	}
	return report(stderr, "admin audit", withDB(ctx, cfg, log, func(db *models.DB) error {
		trail := models.NewAuditTrail(db)
		docs, err := trail.DocumentsByRef(ctx, doc, *provider, 2)
		if err != nil {
			return err
		}
		switch len(docs) {
		case 0:
			return fmt.Errorf("no document %q", doc)
		case 2:
			return fmt.Errorf("document number %q exists for several providers: add -provider", doc)
		}
		d := docs[0]
		rows, err := trail.Of(ctx, d.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %s (%s, provider %s), state %s\n", d.Kind, d.Number, d.ID, d.ProviderID, d.State)
		tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tAT (UTC)\tINTENT\tFROM\tTO\tACTOR\tDETAIL")
		prev := audit.Genesis
		intact := true
		for _, r := range rows {
			if r.PrevHash != prev || audit.Hash(&r) != r.Hash {
				intact = false
			}
			prev = r.Hash
			actor := r.ActorOrg
			if r.Actor != "" && r.Actor != "system" {
				actor += " (account " + r.Actor + ")"
			} else if r.Actor == "system" {
				actor = "system"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Seq, r.At.UTC().Format("2006-01-02 15:04:05"), r.Intent, r.FromState, r.ToState, actor, r.Detail)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if !intact || (len(rows) > 0 && (rows[len(rows)-1].Hash != d.AuditHash || rows[len(rows)-1].Seq != d.AuditSeq)) {
			return fmt.Errorf("the chain of %s is broken: run wasteflow admin verify-audit", d.Number)
		}
		fmt.Fprintf(stdout, "%d row(s), chain intact\n", len(rows))
		return nil
	}))
}

// adminDIWASS lists a provider's companies with their DIWASS operators
// and, with -register, registers those without one.
func adminDIWASS(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "operators" {
		fmt.Fprintf(stderr, "usage: %s\n", findCommand("admin diwass operators").synopsis())
		return exitUsage
	}
	fs := newFlags("admin diwass operators", stderr)
	provider, register := diwassFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return unexpected(findCommand("admin diwass operators"), fs.Arg(0), stderr)
	}
	if *provider == "" {
		fmt.Fprintf(stderr, "wasteflow admin diwass operators: missing -provider\nusage: %s\n", findCommand("admin diwass operators").synopsis())
		return exitUsage
	}
	return report(stderr, "admin diwass operators", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		store := models.NewDIWASSStore(db)
		tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
		if *register {
			client, err := diwass.FromConfig(cfg.DIWASS)
			if err != nil {
				return err
			}
			regs, err := (&diwass.Registrar{Client: client, Store: store, Authority: cfg.DIWASS.ResponsibleAuthority}).RegisterAll(ctx, *provider)
			if err != nil {
				return err
			}
			fmt.Fprintln(tw, "ORGANISATION\tOUTCOME\tOPERATOR\tSTATUS\tIDENTIFIER\tWHY NOT")
			failed := 0
			for _, r := range regs {
				var l models.DIWASSOperator
				if r.Link != nil {
					l = *r.Link
				}
				why := ""
				if r.Err != nil {
					why, failed = r.Err.Error(), failed+1
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Organisation, r.Outcome, l.OperatorID, l.Status, l.Identifier, why)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d companies are not registered", failed, len(regs))
			}
			return nil
		}
		orgs, links, err := store.Companies(ctx, *provider, nil)
		if err != nil {
			return err
		}
		fmt.Fprintln(tw, "ORGANISATION\tNAME\tOPERATOR\tSTATUS\tIDENTIFIER\tSINCE")
		for _, o := range orgs {
			l, ok := links[o.ID]
			if !ok {
				fmt.Fprintf(tw, "%s\t%s\t-\tnot registered\t\t\n", o.ID, o.Name)
				continue
			}
			how := "registered"
			if l.Linked {
				how = "linked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s %s\n", o.ID, o.Name, l.OperatorID, l.Status, l.Identifier, how, l.RegisteredAt.UTC().Format("2006-01-02"))
		}
		return tw.Flush()
	}))
}

func diwassFlags(fs *flag.FlagSet) (provider *string, register *bool) {
	return fs.String("provider", "", "the provider whose companies are listed (required)"),
		fs.Bool("register", false, "register the companies without a DIWASS operator (or link the one DIWASS knows by their identifier)")
}

func auditFlags(fs *flag.FlagSet) (provider *string) {
	return fs.String("provider", "", "the provider whose document number it is (when a number exists for several)")
}

// scopeNames lists the scopes an account or application can hold.
func scopeNames() string {
	names := make([]string, 0, len(rules.Scopes))
	for _, s := range rules.Scopes {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}
