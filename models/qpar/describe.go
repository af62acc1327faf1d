package qpar

import (
	"fmt"
	"strings"
)

// Describe returns a markdown paragraph listing the filterable and sortable
// paths of s, their kinds, operands and allowed ops, the default sort and the
// page sizes, for the description of a list operation in OpenAPI.
func Describe(s *Schema) string {
	var b strings.Builder
	b.WriteString("Filter (`qpar.filter`) and sort (`qpar.sort`) paths:\n\n")
	for _, f := range s.Fields {
		fmt.Fprintf(&b, "- `%s`: %s", f.Path, f.Kind)
		if f.Kind == Enum {
			fmt.Fprintf(&b, " (%s)", strings.Join(f.Values, ", "))
		}
		fmt.Fprintf(&b, ", operand %s", operandNames(f.Kind))
		if f.Sortable {
			b.WriteString(", sortable")
		}
		fmt.Fprintf(&b, "; ops %s\n", joinOps(allowedOps(f.Kind)))
	}
	b.WriteString("\n")
	if len(s.DefaultSort) > 0 {
		b.WriteString("Default sort: ")
		for i, so := range s.DefaultSort {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "`%s` %s", so.Path, so.Direction)
		}
		b.WriteString("; its paths missing from `qpar.sort` are appended to it. ")
	}
	fmt.Fprintf(&b, "Page size (`qpar.pageSize`): %d when 0, at most %d (larger values are reduced); "+
		"`qpar.pageStart` is the number of items to skip. ", s.DefaultPageSize, s.MaxPageSize)
	b.WriteString("CONTAINS, BEGINS_WITH and ENDS_WITH ignore case; EQUAL is exact. " +
		"NOT_EQUAL also matches a missing (null) value, the other comparisons never do; BETWEEN includes both bounds; " +
		"IN_LIST takes 1 to 1000 operands. " +
		"A date `d` on a timestamp field means the whole UTC day; `dt` is UTC. " +
		"Missing values sort last in ascending and first in descending order.")
	return b.String()
}
