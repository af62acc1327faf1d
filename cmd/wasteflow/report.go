package main

import (
	"context"

	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/csvsafe"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/reports"
)

// reportCmd runs `wasteflow report deadlines [-format table|csv] [-state S]
// [-rule R] [-provider P]`: the deadline report of every document, for
// operators at a terminal.
func reportCmd(ctx context.Context, cfg *configs.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "deadlines" {
		fmt.Fprint(stderr, groupUsage("report"))
		return exitUsage
	}
	fs := newFlags("report deadlines", stderr)
	f := reportFlags(fs)
	format, state, rule, provider := f.format, f.state, f.rule, f.provider
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return unexpected(findCommand("report deadlines"), fs.Arg(0), stderr)
	}
	if *format != "table" && *format != "csv" {
		fmt.Fprintln(stderr, "wasteflow report deadlines: -format must be table or csv")
		return exitUsage
	}
	// Values are checked here, so that a mistake names the flag typed.
	for _, l := range []struct {
		flag    string
		values  []string
		allowed []string
	}{{"-state", upperList(*state), reports.DeadlineStates}, {"-rule", upperList(*rule), reports.Rules}} {
		for _, v := range l.values {
			if !slices.Contains(l.allowed, v) {
				fmt.Fprintf(stderr, "wasteflow report deadlines: %s: unknown value %q; allowed (in any case): %s\n", l.flag, v, strings.Join(l.allowed, ", "))
				return exitUsage
			}
		}
	}
	req := &handlers.ExportDeadlinesRequest{State: upperList(*state), Rule: upperList(*rule)}
	q := handlers.ExportQuery(req)
	return report(stderr, "report deadlines", withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		clocks := clock.New(db, cfg.Environment)
		svc := &reports.Service{Store: models.NewReportStore(db), Now: time.Now, Clocks: clocks}
		v := reports.Viewer{All: true, ProviderID: *provider}
		// Days late count on each provider's clock: a sandbox's test clock
		// moves them as it moves the API's report.
		nows := map[string]time.Time{}
		nowOf := func(provider string) (time.Time, error) {
			if t, ok := nows[provider]; ok {
				return t, nil
			}
			t, err := clocks.At(ctx, provider, time.Now().UTC())
			nows[provider] = t
			return t, err
		}
		if *format == "csv" {
			w := csvsafe.NewWriter(stdout) // no cell a spreadsheet reads as a formula
			if err := w.Write(handlers.CSVHeader); err != nil {
				return err
			}
			err := svc.Each(ctx, v, q, func(e *reports.Entry) error { return w.Write(handlers.CSVRow(e)) })
			w.Flush()
			if err != nil {
				return err
			}
			return w.Error()
		}
		tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "DOCUMENT\tKIND\tRULE\tLEGAL BASIS\tMUST ACT\tDUE (UTC)\tSTATE\tDAYS")
		n := 0
		err := svc.Each(ctx, v, q, func(e *reports.Entry) error {
			n++
			now, err := nowOf(e.ProviderID)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.DocumentNumber, e.DocumentKind, e.Rule, e.LegalBasis,
				e.PartyOrg, e.DueAt.UTC().Format("2006-01-02 15:04"), e.State, daysLeft(e, now))
			return nil
		})
		if err != nil {
			return err
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d deadline(s)\n", n)
		return nil
	}))
}

type reportOpts struct{ format, state, rule, provider *string }

func reportFlags(fs *flag.FlagSet) *reportOpts {
	return &reportOpts{
		format:   fs.String("format", "table", "table or csv"),
		state:    fs.String("state", "", "only this state (e.g. overdue, due_soon, suspended, lapsed; comma-separated for several)"),
		rule:     fs.String("rule", "", "only this rule (e.g. decision_due; comma-separated for several)"),
		provider: fs.String("provider", "", "only this provider's documents"),
	}
}

func upperList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, strings.ToUpper(s))
		}
	}
	return out
}

// daysLeft says how many days are left (or late) for a running deadline,
// and for a suspended one how many were left when it was suspended ("31
// days left (suspended)"). Closed ones, LAPSED included, show "-".
func daysLeft(e *reports.Entry, now time.Time) string {
	if e.State == reports.StateSuspended && e.ClosedAt == nil {
		if s := reports.RemainingText(&e.Deadline); s != "" {
			return s
		}
	}
	if e.ClosedAt != nil || (e.State != "OPEN" && e.State != "DUE_SOON" && e.State != "OVERDUE") {
		return "-"
	}
	switch {
	case e.DueAt.Before(now):
		return fmt.Sprintf("%d late", int(now.Sub(e.DueAt).Hours()/24)+1)
	case e.State == "OVERDUE":
		return "-" // swept as of a later time (admin sweep -as-of)
	}
	return fmt.Sprintf("%d left", int(e.DueAt.Sub(now).Hours()/24))
}
