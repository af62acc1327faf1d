package auth

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

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
	if _, err := s.organisation(ctx, s.DB, provider, organisation); err != nil {
		return fmt.Errorf("unknown organisation %q of provider %q", organisation, provider)
	}
	hash, err := s.Hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	// A duplicate is the operator's mistake, reported once below: not
	// also logged as a failed statement.
	err = models.ExpectDuplicates(s.DB.WithContext(ctx)).Create(&models.Account{ProviderID: provider, OrganisationID: organisation, Username: username,
		PasswordHash: hash, Scopes: models.NewScopes(scopes...), PasswordChangedAt: now}).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
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
	return s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var acc models.Account
		if err := tx.Where("provider_id = ? AND username = ?", provider, username).Take(&acc).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return fmt.Errorf("no account %q of provider %q", username, provider)
			}
			return err
		}
		if err := tx.Model(&acc).Updates(map[string]any{"password_hash": hash, "password_changed_at": now, "disabled_at": nil}).Error; err != nil {
			return err
		}
		return tx.Model(&models.Session{}).Where("account_id = ? AND revoked_at IS NULL", acc.ID).
			Updates(map[string]any{"revoked_at": now, "revoked_reason": "password_reset"}).Error
	})
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
	if _, err := models.GetProvider(ctx, s.DB, provider); err != nil {
		return "", false, fmt.Errorf("provider %q: %w", provider, err)
	}
	token = GenerateAppToken()
	mac := s.Keyring.MAC(credentials.PurposeAppToken, token)
	err = s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var app models.Application
		err := tx.Where("provider_id = ? AND name = ?", provider, name).Take(&app).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			created = true
			return tx.Create(&models.Application{ProviderID: provider, Name: name, AppTokenHash: mac, Scopes: models.NewScopes(scopes...)}).Error
		}
		if err != nil {
			return err
		}
		changes := map[string]any{"app_token_hash": mac, "revoked_at": nil}
		if len(scopes) > 0 {
			changes["scopes"] = models.NewScopes(scopes...)
		}
		return tx.Model(&app).Updates(changes).Error
	})
	return token, created, err
}
