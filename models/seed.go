package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// SeedStore writes what a bootstrap file declares: providers,
// organisations with their official numbers, applications, accounts and
// transport templates with their blocks of numbers. It is the storage of
// workflows/bootstrap (bootstrap.Store).
type SeedStore struct{ db *gorm.DB }

// NewSeedStore returns the seed store over db.
func NewSeedStore(db *gorm.DB) *SeedStore { return &SeedStore{db: db} }

// Tx runs fn in one transaction; see inTx.
func (s *SeedStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	return inTx(ctx, s.db, fn)
}

// Providers lists every provider.
func (s *SeedStore) Providers(ctx context.Context) ([]Provider, error) {
	var out []Provider
	err := Conn(ctx, s.db).Find(&out).Error
	return out, err
}

// Provider is provider id.
func (s *SeedStore) Provider(ctx context.Context, id string) (*Provider, error) {
	var p Provider
	if err := Conn(ctx, s.db).Where("id = ?", id).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// CreateProvider stores a new provider.
func (s *SeedStore) CreateProvider(ctx context.Context, p *Provider) error {
	return Conn(ctx, s.db).Create(p).Error
}

// UpdateProvider sets cur's environment, name and settings (JSON).
func (s *SeedStore) UpdateProvider(ctx context.Context, cur *Provider, environment, name, settings string) error {
	return Conn(ctx, s.db).Model(cur).Updates(map[string]any{"environment": environment, "name": name, "settings": settings}).Error
}

// Organisation is organisation id of provider.
func (s *SeedStore) Organisation(ctx context.Context, provider, id string) (*Organisation, error) {
	var org Organisation
	if err := Conn(ctx, s.db).Where("provider_id = ? AND id = ?", provider, id).Take(&org).Error; err != nil {
		return nil, notFound(err)
	}
	return &org, nil
}

// OrganisationExists reports whether provider has organisation id.
func (s *SeedStore) OrganisationExists(ctx context.Context, provider, id string) (bool, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&Organisation{}).Where("provider_id = ? AND id = ?", provider, id).Count(&n).Error
	return n > 0, err
}

// CreateOrganisation stores a new organisation.
func (s *SeedStore) CreateOrganisation(ctx context.Context, o *Organisation) error {
	return Conn(ctx, s.db).Create(o).Error
}

// UpdateOrganisation sets cur's kind, name, place and party details to
// want's.
func (s *SeedStore) UpdateOrganisation(ctx context.Context, cur *Organisation, want *Organisation) error {
	return Conn(ctx, s.db).Model(cur).Updates(want.DetailColumns()).Error
}

// OrganisationNumbers lists the official numbers provider's organisation
// org holds, ordered.
func (s *SeedStore) OrganisationNumbers(ctx context.Context, provider, org string) ([]string, error) {
	var out []string
	err := Conn(ctx, s.db).Model(&OrganisationNumber{}).Where("provider_id = ? AND organisation_id = ?", provider, org).Order("number").Pluck("number", &out).Error
	return out, err
}

// DeleteOrganisationNumbers drops every number provider's organisation org
// holds.
func (s *SeedStore) DeleteOrganisationNumbers(ctx context.Context, provider, org string) error {
	return Conn(ctx, s.db).Where("provider_id = ? AND organisation_id = ?", provider, org).Delete(&OrganisationNumber{}).Error
}

// HoldNumbers records the numbers as held by their organisations (a number
// another organisation held moves).
func (s *SeedStore) HoldNumbers(ctx context.Context, rows []OrganisationNumber) error {
	return UpsertOrganisationNumbers(Conn(ctx, s.db), rows)
}

// ApplicationByTokenMAC is the application, revoked or not, whose app
// token has the HMAC mac.
func (s *SeedStore) ApplicationByTokenMAC(ctx context.Context, mac string) (*Application, error) {
	var app Application
	if err := Conn(ctx, s.db).Where("app_token_hash = ?", mac).Take(&app).Error; err != nil {
		return nil, notFound(err)
	}
	return &app, nil
}

// ApplicationByName is provider's application name.
func (s *SeedStore) ApplicationByName(ctx context.Context, provider, name string) (*Application, error) {
	var app Application
	if err := Conn(ctx, s.db).Where("provider_id = ? AND name = ?", provider, name).Take(&app).Error; err != nil {
		return nil, notFound(err)
	}
	return &app, nil
}

// CreateApplication stores a new application.
func (s *SeedStore) CreateApplication(ctx context.Context, app *Application) error {
	return Conn(ctx, s.db).Create(app).Error
}

// ResetApplication gives cur the app token HMAC mac and scopes and
// re-activates it.
func (s *SeedStore) ResetApplication(ctx context.Context, cur *Application, mac string, scopes Scopes) error {
	return Conn(ctx, s.db).Model(cur).Updates(map[string]any{"app_token_hash": mac, "scopes": scopes, "revoked_at": nil}).Error
}

// AccountByUsername is provider's account username, enabled or not.
func (s *SeedStore) AccountByUsername(ctx context.Context, provider, username string) (*Account, error) {
	var acc Account
	if err := Conn(ctx, s.db).Where("provider_id = ? AND username = ?", provider, username).Take(&acc).Error; err != nil {
		return nil, notFound(err)
	}
	return &acc, nil
}

// CreateAccount stores a new account.
func (s *SeedStore) CreateAccount(ctx context.Context, acc *Account) error {
	return Conn(ctx, s.db).Create(acc).Error
}

// UpdateAccount writes the changes ch to cur.
func (s *SeedStore) UpdateAccount(ctx context.Context, cur *Account, ch AccountChanges) error {
	changes := map[string]any{}
	if ch.PasswordHash != nil {
		changes["password_hash"] = *ch.PasswordHash
		changes["password_changed_at"] = ch.PasswordChangedAt
	}
	if ch.OrganisationID != nil {
		changes["organisation_id"] = *ch.OrganisationID
	}
	if ch.Scopes != nil {
		changes["scopes"] = *ch.Scopes
	}
	if ch.Enable {
		changes["disabled_at"] = nil
	}
	db := Conn(ctx, s.db)
	if err := db.Model(cur).Updates(changes).Error; err != nil {
		return err
	}
	if ch.PasswordHash == nil && ch.OrganisationID == nil && ch.Scopes == nil {
		return nil
	}
	// A new password, organisation or set of scopes ends the account's
	// sessions: its access tokens carry the organisation and scopes they
	// were issued with, and whoever knew the old password is logged out.
	// The session change is announced to every instance (migration 00017),
	// so their next request with such a token is refused.
	return db.Model(&Session{}).Where("account_id = ? AND revoked_at IS NULL", cur.ID).
		Updates(map[string]any{"revoked_at": time.Now().UTC(), "revoked_reason": "account_changed"}).Error
}

// TemplateExists reports whether transport template id exists.
func (s *SeedStore) TemplateExists(ctx context.Context, id string) (bool, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&TransportTemplate{}).Where("id = ?", id).Count(&n).Error
	return n > 0, err
}

// CreateTemplate stores a new transport template.
func (s *SeedStore) CreateTemplate(ctx context.Context, t *TransportTemplate) error {
	return Conn(ctx, s.db).Create(t).Error
}

// CreateTemplateNumbers stores a template's block of numbers (in batches).
func (s *SeedStore) CreateTemplateNumbers(ctx context.Context, numbers []TemplateNumber) error {
	return Conn(ctx, s.db).CreateInBatches(&numbers, 500).Error
}

// AccountChanges are what UpdateAccount changes; nil and false change
// nothing.
type AccountChanges struct {
	PasswordHash      *string // with PasswordChangedAt
	PasswordChangedAt time.Time
	OrganisationID    *string
	Scopes            *Scopes
	Enable            bool // clears DisabledAt
}

// Empty reports whether ch changes nothing.
func (ch AccountChanges) Empty() bool {
	return ch.PasswordHash == nil && ch.OrganisationID == nil && ch.Scopes == nil && !ch.Enable
}

// CountDocuments counts provider's documents (the demo data is loaded once).
func (s *SeedStore) CountDocuments(ctx context.Context, provider string) (int64, error) {
	var n int64
	err := Conn(ctx, s.db).Model(&Document{}).Where("provider_id = ?", provider).Count(&n).Error
	return n, err
}
