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
	var kinds []string
	for _, k := range documentKinds() {
		name := strings.ToLower(k.Def.Kind)
		machines[name] = k.Def
		kinds = append(kinds, name)
	}
	if len(args) < 2 || args[0] != "graph" {
		fmt.Fprintf(stderr, "usage: wasteflow workflows graph KIND [-format dot|mermaid]  (kinds: %s)\n", strings.Join(kinds, ", "))
		return exitUsage
	}
	fs := flag.NewFlagSet("workflows graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "dot", "dot or mermaid")
	if err := fs.Parse(args[2:]); err != nil {
		return exitUsage
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
