package models

import "time"

// ClientID is a machine login of an account; its secret is kept as an HMAC.
type ClientID struct {
	ID          string `gorm:"primaryKey"`
	ProviderID  string
	AccountID   int64
	Description string
	SecretHash  string
	CreatedAt   time.Time
	LastUsedAt  *time.Time
	RevokedAt   *time.Time
}

// TableName keeps the plural of "client id" readable.
func (ClientID) TableName() string { return "client_ids" }

// Credential types of a session.
const (
	CredentialPassword = "USERNAME_PASSWORD"
	CredentialClientID = "CLIENT_ID"
)

// Session is a refresh-token family.
type Session struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	AccountID      int64
	ClientID       *string
	ApplicationID  int64
	CredentialType string
	Scopes         Scopes
	UserAgent      string
	ClientIP       string
	CreatedAt      time.Time
	LastUsedAt     time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
	RevokedReason  string
}

// Active reports whether the session can still be used at now.
func (s *Session) Active(now time.Time) bool { return s.RevokedAt == nil && now.Before(s.ExpiresAt) }

// RefreshToken is one issued refresh token of a session.
type RefreshToken struct {
	JTI        string `gorm:"column:jti;primaryKey"`
	SessionID  string
	Generation int
	IssuedAt   time.Time
	ExpiresAt  time.Time
	ConsumedAt *time.Time
}

// NotifierGroup is an integration's registration for notifications.
type NotifierGroup struct {
	ID             string `gorm:"primaryKey"`
	ProviderID     string
	OrganisationID string
	Name           string
	EventKinds     Scopes // a set of names, stored like scopes
	SecretHash     string
	CreatedBy      int64
	CreatedAt      time.Time
	LastLoginAt    *time.Time
}
