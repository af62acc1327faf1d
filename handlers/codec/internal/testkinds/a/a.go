// Package a is a test-only document kind whose Decision is an enum. It
// shares the type name Decision with package b and, with the same package
// name, with package dup/a.
package a

// Decision is an enum, named like b.Decision (a struct).
type Decision int32

const (
	DecisionUnspecified Decision = iota
	DecisionConsent
	DecisionObjection
)

func (Decision) EnumNames() []string {
	return []string{"DECISION_UNSPECIFIED", "CONSENT", "OBJECTION"}
}

// Notification references Decision and a type whose name is unique.
type Notification struct {
	Decision Decision   `json:"decision"`
	History  []Decision `json:"history"`
	Notifier Notifier   `json:"notifier"`
}

// Notifier is the only type of this name.
type Notifier struct {
	Name string `json:"name"`
}
