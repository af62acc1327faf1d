package bootstrap

import (
	"context"

	"github.com/wasteflow/wasteflow/models"
)

// Store is where a file is applied; models.SeedStore implements it. A
// missing row is models.ErrNotFound.
type Store interface {
	// Tx runs fn in one transaction: the store's methods called with the
	// ctx fn receives run inside it.
	Tx(ctx context.Context, fn func(ctx context.Context) error) error

	Providers(ctx context.Context) ([]models.Provider, error)
	Provider(ctx context.Context, id string) (*models.Provider, error)
	CreateProvider(ctx context.Context, p *models.Provider) error
	UpdateProvider(ctx context.Context, cur *models.Provider, environment, name, settings string) error

	Organisation(ctx context.Context, provider, id string) (*models.Organisation, error)
	OrganisationExists(ctx context.Context, provider, id string) (bool, error)
	CreateOrganisation(ctx context.Context, o *models.Organisation) error
	// UpdateOrganisation sets the kind, name and place of cur to want's.
	UpdateOrganisation(ctx context.Context, cur, want *models.Organisation) error
	// OrganisationNumbers lists the official numbers an organisation
	// holds, ordered.
	OrganisationNumbers(ctx context.Context, provider, org string) ([]string, error)
	DeleteOrganisationNumbers(ctx context.Context, provider, org string) error
	// HoldNumbers records who holds the numbers (a number moves to its new
	// holder).
	HoldNumbers(ctx context.Context, rows []models.OrganisationNumber) error

	// ApplicationByTokenMAC finds any application, revoked or not, by the
	// HMAC of its app token.
	ApplicationByTokenMAC(ctx context.Context, mac string) (*models.Application, error)
	ApplicationByName(ctx context.Context, provider, name string) (*models.Application, error)
	CreateApplication(ctx context.Context, app *models.Application) error
	// ResetApplication sets an application's token and scopes and
	// re-activates it.
	ResetApplication(ctx context.Context, cur *models.Application, mac string, scopes models.Scopes) error

	AccountByUsername(ctx context.Context, provider, username string) (*models.Account, error)
	CreateAccount(ctx context.Context, acc *models.Account) error
	UpdateAccount(ctx context.Context, cur *models.Account, ch models.AccountChanges) error

	TemplateExists(ctx context.Context, id string) (bool, error)
	CreateTemplate(ctx context.Context, t *models.TransportTemplate) error
	CreateTemplateNumbers(ctx context.Context, numbers []models.TemplateNumber) error
}
