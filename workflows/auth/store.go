package auth

import (
	"context"
	"time"

	"github.com/wasteflow/wasteflow/models"
)

// Store is what the account and token workflows keep; models.AuthStore
// implements it. A missing row is models.ErrNotFound, a taken unique name
// models.ErrDuplicate.
type Store interface {
	// Tx runs fn in one transaction: the store's methods called with the
	// ctx fn receives run inside it.
	Tx(ctx context.Context, fn func(ctx context.Context) error) error

	Logins
	Sessions
	ClientIDs
	Groups
	Attempts
	Operators
}

// Logins finds who is logging in.
type Logins interface {
	// ActiveApplicationByToken finds provider's application by the HMAC of
	// its app token, unless revoked.
	ActiveApplicationByToken(ctx context.Context, provider, mac string) (*models.Application, error)
	// ProvidersOfAppToken lists the providers with an active application
	// holding the token of this HMAC, ordered.
	ProvidersOfAppToken(ctx context.Context, mac string) ([]string, error)
	EnabledAccountByUsername(ctx context.Context, provider, username string) (*models.Account, error)
	EnabledAccount(ctx context.Context, id int64) (*models.Account, error)
	// AccountOfOrganisation is an account of the organisation, enabled or not.
	AccountOfOrganisation(ctx context.Context, provider, org, username string) (*models.Account, error)
	ActiveClientID(ctx context.Context, provider, id string) (*models.ClientID, error)
	Organisation(ctx context.Context, provider, id string) (*models.Organisation, error)
	Provider(ctx context.Context, id string) (*models.Provider, error)
}

// Sessions keeps refresh-token families.
type Sessions interface {
	CreateSession(ctx context.Context, sess *models.Session) error
	CreateRefreshToken(ctx context.Context, rt *models.RefreshToken) error
	// ConsumeRefreshToken marks a session's refresh token used; false when
	// it is unknown or was used before.
	ConsumeRefreshToken(ctx context.Context, jti, session string, now time.Time) (consumed bool, err error)
	RefreshTokenExists(ctx context.Context, jti, session string) (bool, error)
	// SessionOwner reads a session with its account's organisation and
	// state and the organisation's kind, in one round trip.
	SessionOwner(ctx context.Context, id string) (*models.SessionOwner, error)
	// ExtendSession records a use of the session and its new expiry.
	ExtendSession(ctx context.Context, id string, now, expires time.Time) error
	Session(ctx context.Context, id string) (*models.Session, error)
	ActiveSessionsOf(ctx context.Context, account int64, now time.Time) ([]models.SessionView, error)
	// RevokeSession ends a session unless it has ended.
	RevokeSession(ctx context.Context, id string, now time.Time, reason string) error
	// RevokeSessionOf ends an active session of the account; false when it
	// has none of that id.
	RevokeSessionOf(ctx context.Context, account int64, id string, now time.Time, reason string) (found bool, err error)
	RevokeSessionsOfAccount(ctx context.Context, account int64, now time.Time, reason string) error
	RevokeSessionsOfClientID(ctx context.Context, clientID string, now time.Time, reason string) error
	SetPassword(ctx context.Context, account int64, hash string, now time.Time) error
}

// ClientIDs keeps machine logins.
type ClientIDs interface {
	CreateClientID(ctx context.Context, c *models.ClientID) error
	ActiveClientIDsOf(ctx context.Context, account int64) ([]models.ClientID, error)
	// RevokeClientID ends an active client id of the account; false when it
	// has none of that id.
	RevokeClientID(ctx context.Context, account int64, id string, now time.Time) (found bool, err error)
	// TouchClientID records a login with the client id.
	TouchClientID(ctx context.Context, id string, now time.Time) error
}

// Groups keeps notifier groups.
type Groups interface {
	CreateGroup(ctx context.Context, g *models.NotifierGroup) error
	GroupsOf(ctx context.Context, provider, org string) ([]models.NotifierGroup, error)
	Group(ctx context.Context, provider, id string) (*models.NotifierGroup, error)
	// GroupExists is the check on every use of a group token.
	GroupExists(ctx context.Context, provider, id string) (bool, error)
	DeleteGroup(ctx context.Context, provider, org, id string) (found bool, err error)
	TouchGroupLogin(ctx context.Context, id string, now time.Time) error
}

// Attempts counts credential attempts per key (Unix seconds), shared by
// every instance and kept outside any request's transaction.
type Attempts interface {
	// CountAttempt counts one attempt in the key's window of window
	// seconds (a new window when the last one ended), atomically.
	CountAttempt(ctx context.Context, key string, now, window int64) (failures int, windowStart int64, err error)
	// ExpireAttempts drops a few counters whose window started before.
	ExpireAttempts(ctx context.Context, before int64)
	ForgetAttempts(ctx context.Context, key string)
	ReturnAttempt(ctx context.Context, key string)
}

// Operators are the writes of `wasteflow admin`.
type Operators interface {
	CreateAccount(ctx context.Context, acc *models.Account) error
	// ResetPassword sets an account's password, enables it and ends its
	// sessions, in one transaction.
	ResetPassword(ctx context.Context, provider, username, hash string, now time.Time, reason string) error
	// SetAppToken gives an application a new app token (creating it when
	// missing) and re-activates it; scopes replace its own when given.
	SetAppToken(ctx context.Context, provider, name, mac string, scopes models.Scopes) (created bool, err error)
}
