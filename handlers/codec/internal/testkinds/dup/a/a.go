// Package a has the same package name as testkinds/a and a type of the same
// name, to test that such a pair is rejected.
package a

// Decision has the package name and type name of testkinds/a.Decision.
type Decision struct {
	Final bool `json:"final"`
}
