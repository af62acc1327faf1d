// Package bootstrap applies a declarative file of providers, organisations,
// applications and accounts to the database: validated as a whole, applied
// in one transaction, idempotent.
package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/credentials"
)

// File is a parsed bootstrap file. Line numbers are kept for error messages.
type File struct {
	Providers     []Provider
	Organisations []Organisation
	Applications  []Application
	Accounts      []Account
	Templates     []Template
}

type entry struct {
	Section string
	Index   int
	Line    int
}

func (e entry) String() string { return fmt.Sprintf("%s[%d] (line %d)", e.Section, e.Index, e.Line) }

// Provider entry.
type Provider struct {
	entry
	ID          string `yaml:"id"`
	Environment string `yaml:"environment"`
	Name        string `yaml:"name"`
	// Settings are rule settings (rules.ProviderSettings), by name; none:
	// every rule at its legal default.
	Settings map[string]string `yaml:"settings"`
}

// Organisation entry.
type Organisation struct {
	entry
	ID       string `yaml:"id"`
	Provider string `yaml:"provider"`
	Kind     string `yaml:"kind"`
	Name     string `yaml:"name"`
	Country  string `yaml:"country"`
	Region   string `yaml:"region"`
	// Numbers are the official numbers the organisation holds (producer,
	// carrier, disposer numbers with their check digit): transport
	// documents find their parties by them.
	Numbers []string `yaml:"numbers"`
	// What the official forms ask of a party (Annex IA, IB, VII), all
	// optional: the registration number, the address (its country is
	// Country), a contact person with telephone and e-mail, and the EORI
	// and VAT identifiers. Their limits are shipment.PartyDetails'.
	RegistrationNumber string `yaml:"registrationNumber"`
	Street             string `yaml:"street"`
	PostalCode         string `yaml:"postalCode"`
	City               string `yaml:"city"`
	ContactPerson      string `yaml:"contactPerson"`
	Telephone          string `yaml:"telephone"`
	Email              string `yaml:"email"`
	EORI               string `yaml:"eori"`
	VAT                string `yaml:"vat"`
}

// row is the organisation as stored.
func (o *Organisation) row() models.Organisation {
	return models.Organisation{ProviderID: o.Provider, ID: o.ID, Kind: o.Kind, Name: o.Name, Country: o.Country, Region: o.Region,
		RegistrationNumber: o.RegistrationNumber, Street: o.Street, PostalCode: o.PostalCode, City: o.City,
		ContactPerson: o.ContactPerson, Telephone: o.Telephone, Email: o.Email, EORI: o.EORI, VAT: o.VAT}
}

// Application entry.
type Application struct {
	entry
	Provider string   `yaml:"provider"`
	Name     string   `yaml:"name"`
	AppToken string   `yaml:"appToken"`
	Scopes   []string `yaml:"scopes"`
}

// Account entry.
type Account struct {
	entry
	Provider     string   `yaml:"provider"`
	Organisation string   `yaml:"organisation"`
	Username     string   `yaml:"username"`
	Password     string   `yaml:"password"`
	Scopes       []string `yaml:"scopes"`
}

// Problem is one thing wrong with a file.
type Problem struct {
	Where   string // e.g. "accounts[2] (line 14)"; empty for the file as a whole
	Message string
}

// Error lists every problem found; nothing was applied.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bootstrap file has %d problem(s); nothing was applied:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		if p.Where != "" {
			b.WriteString(p.Where + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

type problems struct{ list []Problem }

func (p *problems) add(where fmt.Stringer, format string, args ...any) {
	w := ""
	if where != nil {
		w = where.String()
	}
	p.list = append(p.list, Problem{Where: w, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &Error{Problems: p.list}
}

var sectionFields = map[string][]string{
	"providers": {"id", "environment", "name", "settings"},
	"organisations": {"id", "provider", "kind", "name", "country", "region", "numbers",
		"registrationNumber", "street", "postalCode", "city", "contactPerson", "telephone", "email", "eori", "vat"},
	"templates":    {"id", "provider", "organisation", "interneBezeichnung", "art", "firstNumber", "count"},
	"applications": {"provider", "name", "appToken", "scopes"},
	"accounts":     {"provider", "organisation", "username", "password", "scopes"},
}

// Parse reads a YAML (or JSON) bootstrap file. Unknown sections and fields
// are errors: a typo must not silently drop an entry.
func Parse(r io.Reader) (*File, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &File{}, nil
		}
		return nil, &Error{Problems: []Problem{{Message: "not valid YAML or JSON: " + err.Error()}}}
	}
	var ps problems
	f := &File{}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		ps.add(nil, "line %d: the file must be a mapping with the sections providers, organisations, applications, accounts, templates", root.Line)
		return nil, ps.err()
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		fields, ok := sectionFields[key.Value]
		if !ok {
			ps.add(nil, "line %d: unknown section %q (want providers, organisations, applications, accounts or templates)", key.Line, key.Value)
			continue
		}
		if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
			continue
		}
		if val.Kind != yaml.SequenceNode {
			ps.add(nil, "line %d: section %q must be a list", val.Line, key.Value)
			continue
		}
		for idx, item := range val.Content {
			at := entry{Section: key.Value, Index: idx, Line: item.Line}
			if item.Kind != yaml.MappingNode {
				ps.add(at, "must be a mapping")
				continue
			}
			bad := false
			for j := 0; j+1 < len(item.Content); j += 2 {
				if !slices.Contains(fields, item.Content[j].Value) {
					ps.add(at, "unknown field %q (line %d); known fields: %s", item.Content[j].Value, item.Content[j].Line, strings.Join(fields, ", "))
					bad = true
				}
			}
			if bad {
				continue
			}
			var derr error
			switch key.Value {
			case "providers":
				v := Provider{entry: at}
				derr = item.Decode(&v)
				f.Providers = append(f.Providers, v)
			case "organisations":
				v := Organisation{entry: at}
				derr = item.Decode(&v)
				f.Organisations = append(f.Organisations, v)
			case "applications":
				v := Application{entry: at}
				derr = item.Decode(&v)
				f.Applications = append(f.Applications, v)
			case "accounts":
				v := Account{entry: at}
				derr = item.Decode(&v)
				f.Accounts = append(f.Accounts, v)
			case "templates":
				v := Template{entry: at}
				derr = item.Decode(&v)
				f.Templates = append(f.Templates, v)
			}
			if derr != nil {
				ps.add(at, "%v", derr)
			}
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// Counts tells what one Apply did per section.
type Counts struct{ Created, Updated, Unchanged int }

// Result of Apply, by section.
type Result struct {
	Providers, Organisations, Applications, Accounts, Templates Counts
}

// Changed reports whether Apply wrote anything.
func (r Result) Changed() bool {
	for _, c := range []Counts{r.Providers, r.Organisations, r.Applications, r.Accounts, r.Templates} {
		if c.Created+c.Updated > 0 {
			return true
		}
	}
	return false
}

func (r Result) String() string {
	line := func(name string, c Counts) string {
		return fmt.Sprintf("%s: %d created, %d updated, %d unchanged", name, c.Created, c.Updated, c.Unchanged)
	}
	return strings.Join([]string{
		line("providers", r.Providers), line("organisations", r.Organisations),
		line("applications", r.Applications), line("accounts", r.Accounts), line("templates", r.Templates),
	}, "\n")
}

// Applier applies files to one database.
type Applier struct {
	Store   Store
	Hasher  *credentials.Hasher
	Keyring *credentials.Keyring
}

// Apply validates f against itself and the database, then writes it in one
// transaction. Existing rows that already match are left alone, so applying
// the same file twice changes nothing the second time.
func (a *Applier) Apply(ctx context.Context, f *File) (Result, error) {
	var res Result
	err := a.Store.Tx(ctx, func(ctx context.Context) error {
		if err := a.validate(ctx, f); err != nil {
			return err
		}
		var err error
		if res.Providers, err = a.applyProviders(ctx, f.Providers); err != nil {
			return err
		}
		if res.Organisations, err = a.applyOrganisations(ctx, f.Organisations); err != nil {
			return err
		}
		if res.Applications, err = a.applyApplications(ctx, f.Applications); err != nil {
			return err
		}
		if res.Accounts, err = a.applyAccounts(ctx, f.Accounts); err != nil {
			return err
		}
		res.Templates, err = a.applyTemplates(ctx, f.Templates)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

func required(ps *problems, at fmt.Stringer, fields map[string]string) {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if strings.TrimSpace(fields[k]) == "" {
			ps.add(at, "missing field %q", k)
		}
	}
}

func (a *Applier) validate(ctx context.Context, f *File) error {
	var ps problems
	providers := map[string]entry{}
	existing, err := a.Store.Providers(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, p := range existing {
		known[p.ID] = true
	}
	for _, p := range f.Providers {
		required(&ps, p.entry, map[string]string{"id": p.ID, "environment": p.Environment, "name": p.Name})
		if p.ID != "" {
			if err := rules.CheckIdentifier(p.ID); err != nil {
				ps.add(p.entry, "id: %v", err)
			}
			if first, dup := providers[p.ID]; dup {
				ps.add(p.entry, "duplicate provider id %q (first at %s)", p.ID, first)
			}
			providers[p.ID] = p.entry
			known[p.ID] = true
		}
		if _, err := rules.CheckProviderSettings(p.Settings); err != nil {
			ps.add(p.entry, "%v", err)
		}
		if p.Environment != "" && !slices.Contains(configs.Environments, p.Environment) {
			ps.add(p.entry, "environment %q: want one of %s", p.Environment, strings.Join(configs.Environments, ", "))
		}
	}
	checkProvider := func(at entry, id string) {
		if id != "" && !known[id] {
			ps.add(at, "unknown provider %q", id)
		}
	}
	type orgKey struct{ provider, id string }
	orgs := map[orgKey]entry{}
	for _, o := range f.Organisations {
		required(&ps, o.entry, map[string]string{"id": o.ID, "provider": o.Provider, "kind": o.Kind, "name": o.Name, "country": o.Country})
		checkProvider(o.entry, o.Provider)
		if o.ID != "" {
			if err := rules.CheckIdentifier(o.ID); err != nil {
				ps.add(o.entry, "id: %v", err)
			}
			k := orgKey{o.Provider, o.ID}
			if first, dup := orgs[k]; dup {
				ps.add(o.entry, "duplicate organisation id %q of provider %q (first at %s)", o.ID, o.Provider, first)
			}
			orgs[k] = o.entry
		}
		if o.Kind != "" && !slices.Contains(rules.OrganisationKinds, o.Kind) {
			ps.add(o.entry, "kind %q: want company or authority", o.Kind)
		}
		if o.Country != "" {
			if err := rules.CheckCountry(o.Country); err != nil {
				ps.add(o.entry, "country: %v", err)
			}
		}
		if err := rules.CheckRegion(o.Region); err != nil {
			ps.add(o.entry, "region: %v", err)
		}
		row := o.row()
		details := row.Details()
		details.Address.Country = "" // checked above
		for _, p := range shipment.CheckPartyDetails(&details) {
			ps.add(o.entry, "%s: %s", fileField(p.Field), p.Message)
		}
	}
	type nameKey struct{ provider, name string }
	apps := map[nameKey]entry{}
	tokens := map[string]entry{}
	for _, ap := range f.Applications {
		required(&ps, ap.entry, map[string]string{"provider": ap.Provider, "name": ap.Name, "appToken": ap.AppToken})
		checkProvider(ap.entry, ap.Provider)
		if ap.Name != "" {
			k := nameKey{ap.Provider, ap.Name}
			if first, dup := apps[k]; dup {
				ps.add(ap.entry, "duplicate application %q of provider %q (first at %s)", ap.Name, ap.Provider, first)
			}
			apps[k] = ap.entry
		}
		if ap.AppToken != "" {
			if len(ap.AppToken) < rules.MinAppTokenLength {
				ps.add(ap.entry, "appToken must be at least %d characters (it is stored as an HMAC, so it must be hard to guess)", rules.MinAppTokenLength)
			}
			if first, dup := tokens[ap.AppToken]; dup {
				ps.add(ap.entry, "appToken already used by %s", first)
			}
			tokens[ap.AppToken] = ap.entry
		}
		checkScopes(&ps, ap.entry, ap.Scopes)
	}
	users := map[nameKey]entry{}
	for _, ac := range f.Accounts {
		required(&ps, ac.entry, map[string]string{"provider": ac.Provider, "organisation": ac.Organisation, "username": ac.Username, "password": ac.Password})
		checkProvider(ac.entry, ac.Provider)
		if ac.Username != "" {
			if err := rules.CheckIdentifier(ac.Username); err != nil {
				ps.add(ac.entry, "username: %v", err)
			}
			k := nameKey{ac.Provider, ac.Username}
			if first, dup := users[k]; dup {
				ps.add(ac.entry, "duplicate username %q of provider %q (first at %s)", ac.Username, ac.Provider, first)
			}
			users[k] = ac.entry
		}
		if ac.Password != "" {
			if err := rules.CheckPassword(ac.Username, ac.Password); err != nil {
				ps.add(ac.entry, "%v", err)
			}
		}
		if ac.Organisation != "" && ac.Provider != "" {
			if _, inFile := orgs[orgKey{ac.Provider, ac.Organisation}]; !inFile {
				exists, err := a.Store.OrganisationExists(ctx, ac.Provider, ac.Organisation)
				if err != nil {
					return err
				}
				if !exists {
					ps.add(ac.entry, "unknown organisation %q of provider %q", ac.Organisation, ac.Provider)
				}
			}
		}
		checkScopes(&ps, ac.entry, ac.Scopes)
	}
	// An app token already held by an application the file does not name
	// would violate the unique index half-way through the transaction.
	for tok, at := range tokens {
		other, err := a.Store.ApplicationByTokenMAC(ctx, a.Keyring.MAC(credentials.PurposeAppToken, tok))
		if err == nil {
			if _, named := apps[nameKey{other.ProviderID, other.Name}]; !named {
				ps.add(at, "appToken already belongs to application %q of provider %q", other.Name, other.ProviderID)
			}
		} else if !errors.Is(err, models.ErrNotFound) {
			return err
		}
	}
	a.validateTransport(&ps, f)
	return ps.err()
}

// fileField is a party detail's field as the file names it (the address's
// fields stand in the organisation itself).
func fileField(path string) string {
	if rest, ok := strings.CutPrefix(path, "address."); ok {
		return rest
	}
	return path
}

func checkScopes(ps *problems, at entry, scopes []string) {
	for _, s := range scopes {
		if err := rules.CheckScope(s); err != nil {
			ps.add(at, "scopes: %v", err)
		}
	}
}

func (a *Applier) applyProviders(ctx context.Context, in []Provider) (Counts, error) {
	var c Counts
	for _, p := range in {
		settings, err := rules.CheckProviderSettings(p.Settings) // checked with the file already
		if err != nil {
			return c, fmt.Errorf("%s: %w", p.entry, err)
		}
		cur, err := a.Store.Provider(ctx, p.ID)
		switch {
		case errors.Is(err, models.ErrNotFound):
			if err := a.Store.CreateProvider(ctx, &models.Provider{ID: p.ID, Environment: p.Environment, Name: p.Name, Settings: settings}); err != nil {
				return c, fmt.Errorf("%s: %w", p.entry, err)
			}
			c.Created++
		case err != nil:
			return c, err
		case cur.Environment == p.Environment && cur.Name == p.Name && cur.Settings == settings:
			c.Unchanged++
		default:
			if err := a.Store.UpdateProvider(ctx, cur, p.Environment, p.Name, settings); err != nil {
				return c, fmt.Errorf("%s: %w", p.entry, err)
			}
			c.Updated++
		}
	}
	return c, nil
}

func (a *Applier) applyOrganisations(ctx context.Context, in []Organisation) (Counts, error) {
	var c Counts
	for _, o := range in {
		want := o.row()
		cur, err := a.Store.Organisation(ctx, o.Provider, o.ID)
		switch {
		case errors.Is(err, models.ErrNotFound):
			if err := a.Store.CreateOrganisation(ctx, &want); err != nil {
				return c, fmt.Errorf("%s: %w", o.entry, err)
			}
			c.Created++
		case err != nil:
			return c, err
		case cur.SameDetails(&want) && a.numbersHeld(ctx, o):
			c.Unchanged++
			continue
		default:
			if err := a.Store.UpdateOrganisation(ctx, cur, &want); err != nil {
				return c, fmt.Errorf("%s: %w", o.entry, err)
			}
			c.Updated++
		}
		if err := a.applyNumbers(ctx, o); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (a *Applier) applyApplications(ctx context.Context, in []Application) (Counts, error) {
	var c Counts
	for _, ap := range in {
		mac := a.Keyring.MAC(credentials.PurposeAppToken, ap.AppToken)
		scopes := models.NewScopes(ap.Scopes...)
		cur, err := a.Store.ApplicationByName(ctx, ap.Provider, ap.Name)
		switch {
		case errors.Is(err, models.ErrNotFound):
			if err := a.Store.CreateApplication(ctx, &models.Application{ProviderID: ap.Provider, Name: ap.Name, AppTokenHash: mac, Scopes: scopes}); err != nil {
				return c, fmt.Errorf("%s: %w", ap.entry, err)
			}
			c.Created++
		case err != nil:
			return c, err
		case credentials.Equal(cur.AppTokenHash, mac) && cur.Scopes.Equal(scopes) && cur.RevokedAt == nil:
			c.Unchanged++
		default:
			// Declaring an application re-activates it: the file is the truth.
			if err := a.Store.ResetApplication(ctx, cur, mac, scopes); err != nil {
				return c, fmt.Errorf("%s: %w", ap.entry, err)
			}
			c.Updated++
		}
	}
	return c, nil
}

func (a *Applier) applyAccounts(ctx context.Context, in []Account) (Counts, error) {
	var c Counts
	for _, ac := range in {
		scopes := models.NewScopes(ac.Scopes...)
		cur, err := a.Store.AccountByUsername(ctx, ac.Provider, ac.Username)
		switch {
		case errors.Is(err, models.ErrNotFound):
			hash, err := a.Hasher.Hash(ctx, ac.Password)
			if err != nil {
				return c, err
			}
			now := time.Now().UTC()
			if err := a.Store.CreateAccount(ctx, &models.Account{ProviderID: ac.Provider, OrganisationID: ac.Organisation, Username: ac.Username,
				PasswordHash: hash, Scopes: scopes, PasswordChangedAt: now}); err != nil {
				return c, fmt.Errorf("%s: %w", ac.entry, err)
			}
			c.Created++
			continue
		case err != nil:
			return c, err
		}
		var changes models.AccountChanges
		if ok, err := a.Hasher.Verify(ctx, ac.Password, cur.PasswordHash); err != nil || !ok {
			hash, err := a.Hasher.Hash(ctx, ac.Password)
			if err != nil {
				return c, err
			}
			changes.PasswordHash, changes.PasswordChangedAt = &hash, time.Now().UTC()
		}
		if cur.OrganisationID != ac.Organisation {
			changes.OrganisationID = &ac.Organisation
		}
		if !cur.Scopes.Equal(scopes) {
			changes.Scopes = &scopes
		}
		changes.Enable = cur.DisabledAt != nil
		if changes.Empty() {
			c.Unchanged++
			continue
		}
		if err := a.Store.UpdateAccount(ctx, cur, changes); err != nil {
			return c, fmt.Errorf("%s: %w", ac.entry, err)
		}
		c.Updated++
	}
	return c, nil
}
