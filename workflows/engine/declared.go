package engine

import "slices"

// UndeclaredCodes are the codes of berrs the intent does not declare in
// its Errors: the reference would not list the intent's operation under
// them. The answer to the caller is unchanged; the runner tells of them
// (documents.Registry.OnUndeclared).
func UndeclaredCodes(in *Intent, berrs []BusinessError) []string {
	var out []string
	for _, b := range berrs {
		if !slices.Contains(in.Errors, b.Code) && !slices.Contains(out, b.Code) {
			out = append(out, b.Code)
		}
	}
	return out
}
