package qpar

import (
	"strings"
)

// MaskSelects returns the set of lowerCamel response field names the mask
// keeps, or nil (and no error) for an empty mask, which keeps all.
//
// mask is a comma-separated list of lowerCamel paths (the JSON form of
// google.protobuf.FieldMask); blanks around paths are ignored. allowed lists
// the names a caller can drop or keep, possibly dotted ("doc.documentType").
// A path selects the allowed name equal to it and every allowed name below it
// ("doc" selects "doc.documentType"); the result holds allowed names only. A
// path that selects nothing, or an empty one, is an *Error on "qpar.mask".
func MaskSelects(mask string, allowed []string) (map[string]bool, error) {
	if strings.TrimSpace(mask) == "" {
		return nil, nil
	}
	keep := make(map[string]bool)
	for p := range strings.SplitSeq(mask, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, errorf("qpar.mask", "empty path in %q", mask)
		}
		found := false
		for _, a := range allowed {
			if a == p || strings.HasPrefix(a, p+".") {
				keep[a] = true
				found = true
			}
		}
		if !found {
			return nil, errorf("qpar.mask", "unknown path %q; paths: %s", p, strings.Join(allowed, ", "))
		}
	}
	return keep, nil
}
