package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// AuthStore keeps accounts, applications, sessions and their refresh
// tokens, client ids, notifier groups and the credential-attempt counters:
// the storage of workflows/auth (auth.Store).
type AuthStore struct{ db *gorm.DB }

// NewAuthStore returns the auth store over db.
func NewAuthStore(db *gorm.DB) *AuthStore { return &AuthStore{db: db} }

// Tx runs fn in one transaction; see inTx.
func (s *AuthStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// --- logins

// ActiveApplicationByToken is provider's application whose app token has
// the HMAC mac, unless revoked.
func (s *AuthStore) ActiveApplicationByToken(ctx context.Context, provider, mac string) (*Application, error) {
	var app Application
	err := Conn(ctx, s.db).Where("provider_id = ? AND app_token_hash = ? AND revoked_at IS NULL", provider, mac).Take(&app).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &app, nil
}

// ProvidersOfAppToken lists the providers with an active application whose
// app token has the HMAC mac, ordered.
func (s *AuthStore) ProvidersOfAppToken(ctx context.Context, mac string) ([]string, error) {
	var out []string
	err := Conn(ctx, s.db).Model(&Application{}).Where("app_token_hash = ? AND revoked_at IS NULL", mac).
		Order("provider_id").Pluck("provider_id", &out).Error
	return out, err
}

// EnabledAccountByUsername is provider's account username unless disabled.
func (s *AuthStore) EnabledAccountByUsername(ctx context.Context, provider, username string) (*Account, error) {
	var acc Account
	if err := Conn(ctx, s.db).Where("provider_id = ? AND username = ? AND disabled_at IS NULL", provider, username).Take(&acc).Error; err != nil {
		return nil, notFound(err)
	}
	return &acc, nil
}

// EnabledAccount is account id unless disabled.
func (s *AuthStore) EnabledAccount(ctx context.Context, id int64) (*Account, error) {
	var acc Account
	if err := Conn(ctx, s.db).Where("id = ? AND disabled_at IS NULL", id).Take(&acc).Error; err != nil {
		return nil, notFound(err)
	}
	return &acc, nil
}

// AccountOfOrganisation is the account username of provider's organisation
// org, enabled or not.
func (s *AuthStore) AccountOfOrganisation(ctx context.Context, provider, org, username string) (*Account, error) {
	var acc Account
	if err := Conn(ctx, s.db).Where("provider_id = ? AND username = ? AND organisation_id = ?", provider, username, org).Take(&acc).Error; err != nil {
		return nil, notFound(err)
	}
	return &acc, nil
}

// ActiveClientID is provider's client id unless revoked.
func (s *AuthStore) ActiveClientID(ctx context.Context, provider, id string) (*ClientID, error) {
	var c ClientID
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND revoked_at IS NULL", id, provider).Take(&c).Error; err != nil {
		return nil, notFound(err)
	}
	return &c, nil
}

// Organisation is organisation id of provider.
func (s *AuthStore) Organisation(ctx context.Context, provider, id string) (*Organisation, error) {
	var org Organisation
	if err := Conn(ctx, s.db).Where("provider_id = ? AND id = ?", provider, id).Take(&org).Error; err != nil {
		return nil, notFound(err)
	}
	return &org, nil
}

// Provider is provider id.
func (s *AuthStore) Provider(ctx context.Context, id string) (*Provider, error) {
	return GetProvider(ctx, s.db, id)
}

// --- sessions and refresh tokens

// CreateSession stores a new session.
func (s *AuthStore) CreateSession(ctx context.Context, sess *Session) error {
	return Conn(ctx, s.db).Create(sess).Error
}

// TouchClientID records that client id id logged in at now.
func (s *AuthStore) TouchClientID(ctx context.Context, id string, now time.Time) error {
	return Conn(ctx, s.db).Model(&ClientID{}).Where("id = ?", id).Update("last_used_at", now).Error
}

// CreateRefreshToken records an issued refresh token.
func (s *AuthStore) CreateRefreshToken(ctx context.Context, rt *RefreshToken) error {
	return Conn(ctx, s.db).Create(rt).Error
}

// ConsumeRefreshToken marks the refresh token jti of session consumed at
// now; consumed is false when it is unknown or was consumed before.
func (s *AuthStore) ConsumeRefreshToken(ctx context.Context, jti, session string, now time.Time) (consumed bool, err error) {
	res := Conn(ctx, s.db).Exec("UPDATE refresh_tokens SET consumed_at = ? WHERE jti = ? AND session_id = ? AND consumed_at IS NULL",
		now, jti, session)
	return res.RowsAffected > 0, res.Error
}

// RefreshTokenExists reports whether session issued the refresh token jti.
func (s *AuthStore) RefreshTokenExists(ctx context.Context, jti, session string) (bool, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&RefreshToken{}).Where("jti = ? AND session_id = ?", jti, session).Count(&n).Error
	return n > 0, err
}

// RevokeSession ends session id for reason, unless it has ended.
func (s *AuthStore) RevokeSession(ctx context.Context, id string, now time.Time, reason string) error {
	return Conn(ctx, s.db).Model(&Session{}).Where("id = ? AND revoked_at IS NULL", id).
		Updates(map[string]any{"revoked_at": now, "revoked_reason": reason}).Error
}

// SessionOwner is a session with what a token refresh needs of its
// account and the account's organisation.
type SessionOwner struct {
	Session
	AccountOrganisationID string
	AccountDisabledAt     *time.Time
	OrganisationKind      *string // nil when the organisation is gone
}

// SessionOwner reads session id, its account and the account's
// organisation in one statement (it runs on every token refresh).
func (s *AuthStore) SessionOwner(ctx context.Context, id string) (*SessionOwner, error) {
	var row SessionOwner
	if err := Conn(ctx, s.db).Raw("SELECT s.*, a.organisation_id AS account_organisation_id, a.disabled_at AS account_disabled_at, o.kind AS organisation_kind "+
		"FROM sessions s JOIN accounts a ON a.id = s.account_id "+
		"LEFT JOIN organisations o ON o.provider_id = s.provider_id AND o.id = a.organisation_id WHERE s.id = ?", id).Scan(&row).Error; err != nil {
		return nil, err
	}
	if row.ID == "" {
		return nil, ErrNotFound
	}
	return &row, nil
}

// ExtendSession records a use of session id at now and its new expiry.
func (s *AuthStore) ExtendSession(ctx context.Context, id string, now, expires time.Time) error {
	return Conn(ctx, s.db).Model(&Session{}).Where("id = ?", id).
		Updates(map[string]any{"last_used_at": now, "expires_at": expires}).Error
}

// Session is session id.
func (s *AuthStore) Session(ctx context.Context, id string) (*Session, error) {
	var sess Session
	if err := Conn(ctx, s.db).Where("id = ?", id).Take(&sess).Error; err != nil {
		return nil, notFound(err)
	}
	return &sess, nil
}

// SessionView is a session with its application's name.
type SessionView struct {
	Session
	ApplicationName string
}

// ActiveSessionsOf lists the account's sessions that are neither revoked
// nor expired at now, newest first.
func (s *AuthStore) ActiveSessionsOf(ctx context.Context, account int64, now time.Time) ([]SessionView, error) {
	var out []SessionView
	err := Conn(ctx, s.db).Table("sessions").
		Select("sessions.*, applications.name AS application_name").
		Joins("JOIN applications ON applications.id = sessions.application_id").
		Where("sessions.account_id = ? AND sessions.revoked_at IS NULL AND sessions.expires_at > ?", account, now).
		Order("sessions.created_at DESC, sessions.id").Scan(&out).Error
	return out, err
}

// RevokeSessionOf ends session id of account for reason; found is false
// when the account has no such active session.
func (s *AuthStore) RevokeSessionOf(ctx context.Context, account int64, id string, now time.Time, reason string) (found bool, err error) {
	res := Conn(ctx, s.db).Model(&Session{}).Where("id = ? AND account_id = ? AND revoked_at IS NULL", id, account).
		Updates(map[string]any{"revoked_at": now, "revoked_reason": reason})
	return res.RowsAffected > 0, res.Error
}

// RevokeSessionsOfAccount ends every active session of account for reason.
func (s *AuthStore) RevokeSessionsOfAccount(ctx context.Context, account int64, now time.Time, reason string) error {
	return Conn(ctx, s.db).Model(&Session{}).Where("account_id = ? AND revoked_at IS NULL", account).
		Updates(map[string]any{"revoked_at": now, "revoked_reason": reason}).Error
}

// RevokeSessionsOfClientID ends every active session logged in with the
// client id for reason.
func (s *AuthStore) RevokeSessionsOfClientID(ctx context.Context, clientID string, now time.Time, reason string) error {
	return Conn(ctx, s.db).Model(&Session{}).Where("client_id = ? AND revoked_at IS NULL", clientID).
		Updates(map[string]any{"revoked_at": now, "revoked_reason": reason}).Error
}

// --- passwords and client ids

// SetPassword stores account's new password hash, changed at now.
func (s *AuthStore) SetPassword(ctx context.Context, account int64, hash string, now time.Time) error {
	return Conn(ctx, s.db).Model(&Account{}).Where("id = ?", account).
		Updates(map[string]any{"password_hash": hash, "password_changed_at": now}).Error
}

// CreateClientID stores a new client id.
func (s *AuthStore) CreateClientID(ctx context.Context, c *ClientID) error {
	return Conn(ctx, s.db).Create(c).Error
}

// ActiveClientIDsOf lists the account's client ids that are not revoked,
// oldest first.
func (s *AuthStore) ActiveClientIDsOf(ctx context.Context, account int64) ([]ClientID, error) {
	var out []ClientID
	err := Conn(ctx, s.db).Where("account_id = ? AND revoked_at IS NULL", account).Order("created_at, id").Find(&out).Error
	return out, err
}

// RevokeClientID ends client id id of account; found is false when the
// account has no such active client id.
func (s *AuthStore) RevokeClientID(ctx context.Context, account int64, id string, now time.Time) (found bool, err error) {
	res := Conn(ctx, s.db).Model(&ClientID{}).Where("id = ? AND account_id = ? AND revoked_at IS NULL", id, account).Update("revoked_at", now)
	return res.RowsAffected > 0, res.Error
}

// --- operators (wasteflow admin): outside any request's transaction

// CreateAccount stores a new account; ErrDuplicate when provider has the
// username already (not logged as a failed statement: the caller words it).
func (s *AuthStore) CreateAccount(ctx context.Context, acc *Account) error {
	return duplicate(ExpectDuplicates(s.db.WithContext(ctx)).Create(acc).Error)
}

// ResetPassword sets the password hash of provider's account username,
// enables it and ends its sessions for reason, in one transaction.
func (s *AuthStore) ResetPassword(ctx context.Context, provider, username, hash string, now time.Time, reason string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var acc Account
		if err := tx.Where("provider_id = ? AND username = ?", provider, username).Take(&acc).Error; err != nil {
			return notFound(err)
		}
		if err := tx.Model(&acc).Updates(map[string]any{"password_hash": hash, "password_changed_at": now, "disabled_at": nil}).Error; err != nil {
			return err
		}
		return tx.Model(&Session{}).Where("account_id = ? AND revoked_at IS NULL", acc.ID).
			Updates(map[string]any{"revoked_at": now, "revoked_reason": reason}).Error
	})
}

// SetAppToken gives provider's application name the app token HMAC mac
// and re-activates it, creating it when missing; scopes replace the
// application's when not empty (a new one gets them either way). Created
// says which it did. One transaction.
func (s *AuthStore) SetAppToken(ctx context.Context, provider, name, mac string, scopes Scopes) (created bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var app Application
		err := tx.Where("provider_id = ? AND name = ?", provider, name).Take(&app).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			created = true
			return tx.Create(&Application{ProviderID: provider, Name: name, AppTokenHash: mac, Scopes: scopes}).Error
		}
		if err != nil {
			return err
		}
		changes := map[string]any{"app_token_hash": mac, "revoked_at": nil}
		if len(scopes) > 0 {
			changes["scopes"] = scopes
		}
		return tx.Model(&app).Updates(changes).Error
	})
	return created, err
}

// --- notifier groups

// CreateGroup stores a new notifier group; ErrDuplicate when the
// organisation has a group of that name.
func (s *AuthStore) CreateGroup(ctx context.Context, g *NotifierGroup) error {
	return duplicate(ExpectDuplicates(Conn(ctx, s.db)).Create(g).Error)
}

// GroupsOf lists the groups of provider's organisation org by name.
func (s *AuthStore) GroupsOf(ctx context.Context, provider, org string) ([]NotifierGroup, error) {
	var out []NotifierGroup
	err := Conn(ctx, s.db).Where("provider_id = ? AND organisation_id = ?", provider, org).Order("name").Find(&out).Error
	return out, err
}

// Group is provider's notifier group id.
func (s *AuthStore) Group(ctx context.Context, provider, id string) (*NotifierGroup, error) {
	var g NotifierGroup
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ?", id, provider).Take(&g).Error; err != nil {
		return nil, notFound(err)
	}
	return &g, nil
}

// GroupExists reports whether provider has notifier group id (checked on
// every use of a group token: one count).
func (s *AuthStore) GroupExists(ctx context.Context, provider, id string) (bool, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&NotifierGroup{}).Where("id = ? AND provider_id = ?", id, provider).Count(&n).Error
	return n > 0, err
}

// DeleteGroup removes group id of provider's organisation org; found is
// false when it has no such group.
func (s *AuthStore) DeleteGroup(ctx context.Context, provider, org, id string) (found bool, err error) {
	res := Conn(ctx, s.db).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, provider, org).Delete(&NotifierGroup{})
	return res.RowsAffected > 0, res.Error
}

// TouchGroupLogin records a login of group id at now.
func (s *AuthStore) TouchGroupLogin(ctx context.Context, id string, now time.Time) error {
	return Conn(ctx, s.db).Model(&NotifierGroup{}).Where("id = ?", id).Update("last_login_at", now).Error
}

// --- credential-attempt counters: shared by every instance, and written
// outside the request's transaction (a failed attempt counts even when
// the request's work rolls back).

// CountAttempt counts one attempt of key at now (Unix seconds) in a window
// of window seconds, atomically on both databases: the failures counted in
// the current window, this one included, and when the window started.
func (s *AuthStore) CountAttempt(ctx context.Context, key string, now, window int64) (failures int, windowStart int64, err error) {
	var row struct {
		Failures    int
		WindowStart int64
	}
	err = s.db.WithContext(ctx).Raw(`
INSERT INTO auth_throttle (key, failures, window_start) VALUES (?, 1, ?)
ON CONFLICT (key) DO UPDATE SET
  failures     = CASE WHEN auth_throttle.window_start <= ? THEN 1 ELSE auth_throttle.failures + 1 END,
  window_start = CASE WHEN auth_throttle.window_start <= ? THEN ? ELSE auth_throttle.window_start END
RETURNING failures, window_start`, key, now, now-window, now-window, now).Scan(&row).Error
	return row.Failures, row.WindowStart, err
}

// ExpireAttempts deletes a few counters whose window started before
// before (Unix seconds); best effort.
func (s *AuthStore) ExpireAttempts(ctx context.Context, before int64) {
	s.db.WithContext(ctx).Exec("DELETE FROM auth_throttle WHERE key IN (SELECT key FROM auth_throttle WHERE window_start < ? LIMIT 100)", before)
}

// ForgetAttempts clears key's counter; best effort.
func (s *AuthStore) ForgetAttempts(ctx context.Context, key string) {
	s.db.WithContext(ctx).Exec("DELETE FROM auth_throttle WHERE key = ?", key)
}

// ReturnAttempt gives key one counted attempt back; best effort.
func (s *AuthStore) ReturnAttempt(ctx context.Context, key string) {
	s.db.WithContext(ctx).Exec("UPDATE auth_throttle SET failures = failures - 1 WHERE key = ? AND failures > 0", key)
}
