// Package b is a test-only document kind whose Decision is a struct.
package b

// Decision is a struct, named like a.Decision (an enum).
type Decision struct {
	Authority string `json:"authority"`
	Accepted  bool   `json:"accepted"`
}

// Annex7 references Decision through a pointer and a map.
type Annex7 struct {
	Decision *Decision           `json:"decision"`
	ByParty  map[string]Decision `json:"byParty"`
}
