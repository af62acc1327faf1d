//go:build !linux

package models

// userTimeout is Linux's TCP_USER_TIMEOUT; elsewhere keepalives alone find
// a dead database connection.
func userTimeout(uintptr, int) error { return nil }
