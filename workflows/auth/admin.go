package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/credentials"
)

// Operator workflows behind `wasteflow admin`. Their errors are for a
// terminal, not for the API.

// GeneratePassword returns a random password that meets the policy.
func GeneratePassword() string { return randomSecret()[:24] }

// GenerateAppToken returns a random app token.
func GenerateAppToken() string { return "app_" + randomSecret() }

// CreateAccount adds an account to an existing organisation.
func (s *Service) CreateAccount(ctx context.Context, provider, organisation, username, password string, scopes []string) error {
	if err := rules.CheckIdentifier(username); err != nil {
		return fmt.Errorf("username: %w", err)
	}
	if err := rules.CheckPassword(username, password); err != nil {
		return err
	}
	for _, sc := range scopes {
		if err := rules.CheckScope(sc); err != nil {
			return err
		}
	}
	if _, err := s.organisation(ctx, provider, organisation); err != nil {
		return fmt.Errorf("unknown organisation %q of provider %q", organisation, provider)
	}
	hash, err := s.Hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	// A duplicate is the operator's mistake, reported once below: not
	// also logged as a failed statement.
	err = s.Store.CreateAccount(ctx, &models.Account{ProviderID: provider, OrganisationID: organisation, Username: username,
		PasswordHash: hash, Scopes: models.NewScopes(scopes...), PasswordChangedAt: now})
	if errors.Is(err, models.ErrDuplicate) {
		return fmt.Errorf("account %q of provider %q already exists (use reset-password)", username, provider)
	}
	return err
}

// ResetPassword sets a new password and ends every session of the account.
func (s *Service) ResetPassword(ctx context.Context, provider, username, password string) error {
	if err := rules.CheckPassword(username, password); err != nil {
		return err
	}
	hash, err := s.Hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	err = s.Store.ResetPassword(ctx, provider, username, hash, now, "password_reset")
	s.Sessions.Clear()
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("no account %q of provider %q", username, provider)
	}
	return err
}

// IssueAppToken creates the application or gives it a new token (the old
// one stops working); scopes replace the application's when given.
func (s *Service) IssueAppToken(ctx context.Context, provider, name string, scopes []string) (token string, created bool, err error) {
	if name == "" {
		return "", false, errors.New("application name required")
	}
	for _, sc := range scopes {
		if err := rules.CheckScope(sc); err != nil {
			return "", false, err
		}
	}
	if _, err := s.Store.Provider(ctx, provider); err != nil {
		return "", false, fmt.Errorf("provider %q: %w", provider, err)
	}
	token = GenerateAppToken()
	mac := s.Keyring.MAC(credentials.PurposeAppToken, token)
	created, err = s.Store.SetAppToken(ctx, provider, name, mac, models.NewScopes(scopes...))
	return token, created, err
}
