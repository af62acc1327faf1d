package engine

import (
	"log/slog"
	"slices"
	"sort"
	"sync"
)

// undeclared holds "KIND INTENT CODE" for each business error an intent
// reported without declaring it in Errors.
var undeclared sync.Map

// NoteUndeclared records (and logs) the codes of berrs the intent of kind
// does not declare: the reference would not list the operation under
// them. The answer to the caller is unchanged.
func NoteUndeclared(kind string, in *Intent, berrs []BusinessError) {
	for _, b := range berrs {
		if slices.Contains(in.Errors, b.Code) {
			continue
		}
		key := kind + " " + in.Name + " " + b.Code
		if _, seen := undeclared.LoadOrStore(key, struct{}{}); !seen {
			slog.Warn("business error code not declared by its intent", "kind", kind, "intent", in.Name, "code", b.Code)
		}
	}
}

// Undeclared lists what NoteUndeclared recorded ("KIND INTENT CODE"),
// sorted.
func Undeclared() []string {
	var out []string
	undeclared.Range(func(k, _ any) bool { out = append(out, k.(string)); return true })
	sort.Strings(out)
	return out
}
