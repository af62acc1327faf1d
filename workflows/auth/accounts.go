package auth

import (
	"context"
	"errors"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// ChangePasswordInput is what ChangePassword receives.
type ChangePasswordInput struct {
	Username, Password, NewPassword, TargetUsername string
}

// ChangePassword authenticates by the current credentials in the body.
// Changing another account's password (same organisation) also needs the
// caller's access token with usermgt. Every session of the changed account
// is revoked: whoever knew the old password is logged out.
func (s *Service) ChangePassword(ctx context.Context, in ChangePasswordInput) error {
	info := reqctx.From(ctx)
	provider := info.ProviderID
	switch {
	case in.Username == "" || in.Password == "":
		return status.Invalid("usernameCredentials", "username and current password are required")
	case in.NewPassword == "":
		return status.Invalid("newPassword", "the new password is required")
	}
	if err := checkLengths(map[string]string{"usernameCredentials.username": in.Username, "usernameCredentials.password": in.Password,
		"newPassword": in.NewPassword, "targetUsername": in.TargetUsername}); err != nil {
		return err
	}
	release, err := s.attempt(ctx, accountKey(provider, in.Username), ipKey(info.ClientIP))
	if err != nil {
		return err
	}
	acc, err := s.verifyPassword(ctx, provider, in.Username, in.Password)
	if err != nil {
		release(false)
		return err
	}
	if acc == nil {
		release(false)
		return invalidCredentials()
	}
	release(true)

	target := acc
	if in.TargetUsername != "" && in.TargetUsername != in.Username {
		p := info.Principal
		switch {
		case p == nil:
			return status.New(status.Unauthenticated, "changing another account's password needs an access token with the scope usermgt")
		case p.AccountID != acc.ID:
			return status.New(status.PermissionDenied, "the access token belongs to another account than the credentials")
		case !p.HasScope("usermgt"):
			return status.New(status.PermissionDenied, "changing another account's password needs the scope usermgt").
				WithDetails(status.Info("INSUFFICIENT_SCOPE", map[string]string{"scope": "usermgt"}))
		}
		t, err := s.Store.AccountOfOrganisation(ctx, provider, acc.OrganisationID, in.TargetUsername)
		if errors.Is(err, models.ErrNotFound) {
			return status.New(status.NotFound, "no account %q in your organisation", in.TargetUsername)
		}
		if err != nil {
			return err
		}
		target = t
	}
	if err := rules.CheckPassword(target.Username, in.NewPassword); err != nil {
		return status.Invalid("newPassword", err.Error())
	}
	if target == acc && in.NewPassword == in.Password {
		return status.Invalid("newPassword", "the new password must differ from the current one")
	}
	hash, err := s.Hasher.Hash(ctx, in.NewPassword)
	if err != nil {
		return busy(err)
	}
	now := s.now()
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		if err := s.Store.SetPassword(ctx, target.ID, hash, now); err != nil {
			return err
		}
		return s.Store.RevokeSessionsOfAccount(ctx, target.ID, now, "password_changed")
	})
	// At once on this instance, after this transaction (inside an outer one,
	// an Idempotency-Key's, the feed's notification at its commit follows
	// within milliseconds); on other instances by the feed.
	s.Sessions.Clear()
	return err
}

// needAccount returns the calling account's id or an error for callers that
// are not accounts (group tokens).
func needAccount(p *reqctx.Principal) (int64, error) {
	if p == nil || p.AccountID == 0 {
		return 0, status.New(status.PermissionDenied, "this operation needs an account's access token")
	}
	return p.AccountID, nil
}

// IssueClientID creates a machine login for the calling account. The secret
// is returned here only.
func (s *Service) IssueClientID(ctx context.Context, description string) (id, secret string, err error) {
	p := reqctx.From(ctx).Principal
	acc, err := needAccount(p)
	if err != nil {
		return "", "", err
	}
	if len(description) > 200 {
		return "", "", status.Invalid("description", "at most 200 characters")
	}
	id = "cid_" + randomID(12)
	secret = randomSecret()
	c := models.ClientID{ID: id, ProviderID: p.ProviderID, AccountID: acc, Description: description,
		SecretHash: s.Keyring.MAC(credentials.PurposeClientSecret, secret), CreatedAt: s.now()}
	if err := s.Store.CreateClientID(ctx, &c); err != nil {
		return "", "", err
	}
	return id, secret, nil
}

// ListClientIDs returns the calling account's active client ids.
func (s *Service) ListClientIDs(ctx context.Context) ([]models.ClientID, error) {
	acc, err := needAccount(reqctx.From(ctx).Principal)
	if err != nil {
		return nil, err
	}
	return s.Store.ActiveClientIDsOf(ctx, acc)
}

// RevokeClientID ends a client id and every session logged in with it.
func (s *Service) RevokeClientID(ctx context.Context, id string) error {
	acc, err := needAccount(reqctx.From(ctx).Principal)
	if err != nil {
		return err
	}
	if id == "" {
		return status.Invalid("clientId", "required")
	}
	now := s.now()
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		found, err := s.Store.RevokeClientID(ctx, acc, id, now)
		if err != nil {
			return err
		}
		if !found {
			return status.New(status.NotFound, "no active client id %q of your account", id)
		}
		return s.Store.RevokeSessionsOfClientID(ctx, id, now, "client_id_revoked")
	})
	s.Sessions.Clear()
	return err
}

// SessionView is a session with its application's name.
type SessionView = models.SessionView

// ListSessions returns the calling account's active sessions, newest first.
func (s *Service) ListSessions(ctx context.Context) ([]SessionView, error) {
	acc, err := needAccount(reqctx.From(ctx).Principal)
	if err != nil {
		return nil, err
	}
	return s.Store.ActiveSessionsOf(ctx, acc, s.now())
}

// RevokeSession ends one session of the calling account, named by its id
// or by one of its refresh tokens.
func (s *Service) RevokeSession(ctx context.Context, sessionID, refreshToken string) error {
	acc, err := needAccount(reqctx.From(ctx).Principal)
	if err != nil {
		return err
	}
	switch {
	case sessionID != "" && refreshToken != "":
		return status.Invalid("sessionId", "send sessionId or refreshToken, not both")
	case sessionID == "" && refreshToken == "":
		return status.Invalid("sessionId", "sessionId or refreshToken is required")
	case refreshToken != "":
		// A consumed token still names its session.
		c, err := s.Tokens.Verify(tokens.Refresh, refreshToken)
		if err != nil {
			return status.Invalid("refreshToken", "not a refresh token of this server")
		}
		sessionID = c.SessionID
	}
	found, err := s.Store.RevokeSessionOf(ctx, acc, sessionID, s.now(), "revoked")
	s.Sessions.Evict(sessionID)
	if err != nil {
		return err
	}
	if !found {
		return status.New(status.NotFound, "no active session %q of your account", sessionID)
	}
	return nil
}
