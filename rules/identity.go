// Package rules holds pure functions over values: validation of identities,
// codes and documents, and the guards of the workflow machines. Nothing here
// touches a database, the network or the clock.
package rules

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// MinPasswordLength is the shortest password accepted (NIST SP 800-63B
// asks for at least 8; we ask for 12).
const MinPasswordLength = 12

// MaxPasswordLength bounds the work a hash does on hostile input.
const MaxPasswordLength = 256

// CheckPassword returns why password is not acceptable for username, or nil.
func CheckPassword(username, password string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordLength:
		return fmt.Errorf("password must be at least %d characters long, it has %d", MinPasswordLength, n)
	case len(password) > MaxPasswordLength:
		return fmt.Errorf("password must be at most %d bytes long", MaxPasswordLength)
	case strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(username)):
		return fmt.Errorf("password must not be the username")
	}
	return nil
}

var identifier = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// CheckIdentifier validates ids of providers and organisations and
// usernames: lower-case letters, digits, '.', '_' and '-', at most 63.
func CheckIdentifier(v string) error {
	if !identifier.MatchString(v) {
		return echo.Errorf("%q is not a valid identifier (lower-case letters, digits, '.', '_', '-'; 1 to 63 characters, starting with a letter or digit)", v)
	}
	return nil
}

// The scopes an access token can carry. The interface names only usermgt;
// the others are our design. A session's scopes are its application's
// intersected with its account's; every operation that takes an access
// token names the one scope it needs (the OpenAPI lists it).
const (
	ScopeUserMgt        = "usermgt"         // accounts, client ids, sessions, notifier groups, test clocks
	ScopeDocumentsRead  = "documents:read"  // read notifications, Annex VII documents, movements, lists, deadline reports
	ScopeDocumentsWrite = "documents:write" // create documents and fire their intents
	ScopeTransport      = "transport"       // BMU transport documents, the store, the inbox, templates
	ScopeSigning        = "signing"         // signing processes
)

// ScopeInfo describes one scope.
type ScopeInfo struct{ Name, Description string }

// Scopes lists every scope, in the order the OpenAPI lists them.
var Scopes = []ScopeInfo{
	{ScopeDocumentsRead, "Read notifications, Annex VII documents and movements, the document lists and work queues, and deadline reports."},
	{ScopeDocumentsWrite, "Create notifications, Annex VII documents and movements and act on them (every Set, Submit, Reply and SetByIntent operation)."},
	{ScopeTransport, "German transport documents (BMU consignment and acceptance notes): create, update, sign layers, the store, the inbox and templates."},
	{ScopeSigning, "Signing processes: ask for, open, sign, decline, cancel and list signatures."},
	{ScopeUserMgt, "Manage accounts and their credentials: client ids, sessions, other accounts' passwords, notifier groups and test clocks."},
}

// CheckScope refuses a name that is not one of Scopes.
func CheckScope(v string) error {
	names := make([]string, 0, len(Scopes))
	for _, s := range Scopes {
		if s.Name == v {
			return nil
		}
		names = append(names, s.Name)
	}
	return echo.Errorf("%q is not a scope; the scopes are %s", v, strings.Join(names, ", "))
}

// CheckCountry validates an ISO 3166-1 alpha-2 country code (upper case).
func CheckCountry(v string) error {
	if len(v) == 2 && strings.ToUpper(v) == v {
		if r, err := language.ParseRegion(v); err == nil && r.IsCountry() {
			return nil
		}
	}
	return echo.Errorf("%q is not an ISO 3166-1 alpha-2 country code", v)
}

var regionCode = regexp.MustCompile(`^[A-Z0-9]{1,3}$`)

// CheckRegion validates the subdivision part of an ISO 3166-2 code (BY for
// DE-BY); empty means none.
func CheckRegion(v string) error {
	if v != "" && !regionCode.MatchString(v) {
		return echo.Errorf("%q is not an ISO 3166-2 subdivision code (1 to 3 upper-case letters or digits, without the country prefix)", v)
	}
	return nil
}

// OrganisationKinds are the kinds an organisation can have.
var OrganisationKinds = []string{"company", "authority"}

// MinAppTokenLength keeps app tokens high-entropy enough to store as HMACs.
const MinAppTokenLength = 24
