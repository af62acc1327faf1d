package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// workflowsCmd runs `wasteflow workflows graph KIND [-format dot|mermaid]`.
func workflowsCmd(args []string, stdout, stderr io.Writer) int {
	machines := map[string]*engine.Definition{}
	for _, k := range documentKinds() {
		machines[strings.ToLower(k.Def.Kind)] = k.Def
	}
	kinds := graphKinds()
	if len(args) == 0 || args[0] != "graph" {
		fmt.Fprint(stderr, groupUsage("workflows"))
		return exitUsage
	}
	fs := newFlags("workflows graph", stderr)
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		fs.Usage()
		return exitUsage
	}
	format := graphFlags(fs)
	if err := fs.Parse(args[2:]); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return unexpected(findCommand("workflows graph"), fs.Arg(0), stderr)
	}
	def, ok := machines[strings.ToLower(args[1])]
	if !ok {
		fmt.Fprintf(stderr, "wasteflow workflows: unknown kind %q (kinds: %s)\n", args[1], strings.Join(kinds, ", "))
		return exitUsage
	}
	m, err := engine.Build(def)
	if err != nil {
		return report(stderr, "workflows graph", err)
	}
	switch *format {
	case "dot":
		fmt.Fprint(stdout, m.Dot())
	case "mermaid", "mmd":
		fmt.Fprint(stdout, m.Mermaid())
	default:
		fmt.Fprintf(stderr, "wasteflow workflows graph: -format must be dot or mermaid\n")
		return exitUsage
	}
	return exitOK
}

func graphFlags(fs *flag.FlagSet) (format *string) {
	return fs.String("format", "dot", "dot or mermaid")
}

// graphKinds names the kinds workflows graph draws.
func graphKinds() []string {
	var kinds []string
	for _, k := range documentKinds() {
		kinds = append(kinds, strings.ToLower(k.Def.Kind))
	}
	return kinds
}
