package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

// Provider is a tenant of the platform; it belongs to one environment and
// sees only its own organisations, accounts and documents.
type Provider struct {
	ID          string `gorm:"primaryKey"`
	Environment string
	Name        string
	// Settings are the provider's rule settings as JSON ({"name":
	// "value"}, rules.ProviderSettings); "{}": the legal defaults.
	Settings  string `gorm:"not null;default:'{}'"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Organisation is a company or an authority registered with a provider.
type Organisation struct {
	ProviderID string `gorm:"primaryKey"`
	ID         string `gorm:"primaryKey"`
	Kind       string // company or authority
	Name       string
	Country    string // ISO 3166-1 alpha-2
	Region     string // ISO 3166-2 subdivision without the country prefix, optional
	// What the official forms ask of a party (Annex IA, IB, VII): the
	// registration number, the address (its country is Country), a
	// contact person with telephone and e-mail, and the EORI and VAT
	// identifiers. Empty when not declared.
	RegistrationNumber string
	Street             string
	PostalCode         string
	City               string
	ContactPerson      string
	Telephone          string
	Email              string
	EORI               string `gorm:"column:eori"`
	VAT                string `gorm:"column:vat"`
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Details is the organisation as the forms name a party.
func (o *Organisation) Details() shipment.PartyDetails {
	return shipment.PartyDetails{OrganisationID: o.ID, Name: o.Name, RegistrationNumber: o.RegistrationNumber,
		Address:       shipment.Address{Street: o.Street, PostalCode: o.PostalCode, City: o.City, Country: o.Country},
		ContactPerson: o.ContactPerson, Telephone: o.Telephone, Email: o.Email, EORI: o.EORI, VAT: o.VAT}
}

// SameDetails reports whether o and w hold the same kind, name, place and
// party details.
func (o *Organisation) SameDetails(w *Organisation) bool {
	return o.Kind == w.Kind && o.Region == w.Region && o.Details() == w.Details()
}

// DetailColumns are o's columns that admin apply sets, by column name.
func (o *Organisation) DetailColumns() map[string]any {
	return map[string]any{"kind": o.Kind, "name": o.Name, "country": o.Country, "region": o.Region,
		"registration_number": o.RegistrationNumber, "street": o.Street, "postal_code": o.PostalCode, "city": o.City,
		"contact_person": o.ContactPerson, "telephone": o.Telephone, "email": o.Email, "eori": o.EORI, "vat": o.VAT}
}

// Application is a client program registered with a provider. Its app token
// is stored only as an HMAC.
type Application struct {
	ID           int64 `gorm:"primaryKey"`
	ProviderID   string
	Name         string
	AppTokenHash string
	Scopes       Scopes
	RevokedAt    *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Account is a person's (or a process's) login at one organisation.
type Account struct {
	ID                int64 `gorm:"primaryKey"`
	ProviderID        string
	OrganisationID    string
	Username          string
	PasswordHash      string // PHC string, argon2id
	Scopes            Scopes
	PasswordChangedAt time.Time
	DisabledAt        *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Scopes is a set of scope names, stored as one space-separated column (the
// OAuth form) and kept sorted so equal sets compare equal.
type Scopes []string

// NewScopes returns the sorted set of names, without duplicates or blanks.
func NewScopes(names ...string) Scopes {
	seen := map[string]bool{}
	out := Scopes{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Equal reports whether both hold the same names.
func (s Scopes) Equal(o Scopes) bool {
	a, b := NewScopes(s...), NewScopes(o...)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Value implements driver.Valuer.
func (s Scopes) Value() (driver.Value, error) { return strings.Join(NewScopes(s...), " "), nil }

// Scan implements sql.Scanner.
func (s *Scopes) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s = Scopes{}
	case string:
		*s = NewScopes(strings.Fields(v)...)
	case []byte:
		*s = NewScopes(strings.Fields(string(v))...)
	default:
		return fmt.Errorf("scopes: cannot scan %T", src)
	}
	return nil
}

// ListProviders returns every provider of every environment, ordered by id.
func ListProviders(ctx context.Context, db *gorm.DB) ([]Provider, error) {
	var out []Provider
	err := db.WithContext(ctx).Order("id").Find(&out).Error
	return out, err
}

// GetProvider returns one provider or ErrNotFound.
func GetProvider(ctx context.Context, db *gorm.DB, id string) (*Provider, error) {
	var p Provider
	err := db.WithContext(ctx).Where("id = ?", id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// Usernames maps the ids among ids of organisation org's accounts (of
// provider) to their usernames; other ids are left out.
func Usernames(ctx context.Context, db *gorm.DB, provider, org string, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Account
	if err := db.WithContext(ctx).Select("id", "username").Where("provider_id = ? AND organisation_id = ? AND id IN ?", provider, org, ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, a := range rows {
		out[a.ID] = a.Username
	}
	return out, nil
}

// OrganisationFilter selects a page of a provider's organisations.
type OrganisationFilter struct {
	Provider, Kind, Country string
	After                   string // the last id of the previous page
	Limit                   int
}

// ListOrganisations is one page of a provider's organisations, by id.
func ListOrganisations(ctx context.Context, db *gorm.DB, f OrganisationFilter) ([]Organisation, error) {
	q := db.WithContext(ctx).Where("provider_id = ? AND id > ?", f.Provider, f.After)
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Country != "" {
		q = q.Where("country = ?", f.Country)
	}
	var out []Organisation
	err := q.Order("id").Limit(f.Limit).Find(&out).Error
	return out, err
}
