package bootstrap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	"github.com/wasteflow/wasteflow/workflows/credentials"
)

func applier(t *testing.T, db *gorm.DB) *bootstrap.Applier {
	k, err := credentials.NewKeyring(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return &bootstrap.Applier{Store: models.NewSeedStore(db), Hasher: credentials.NewHasher(2), Keyring: k}
}

func apply(t *testing.T, a *bootstrap.Applier, text string) (bootstrap.Result, error) {
	t.Helper()
	f, err := bootstrap.Parse(strings.NewReader(text))
	if err != nil {
		return bootstrap.Result{}, err
	}
	return a.Apply(context.Background(), f)
}

func count(t *testing.T, db *gorm.DB, model any) int64 {
	var n int64
	if err := db.Model(model).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDemoAppliesIdempotently(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		a := applier(t, db)
		first, err := apply(t, a, string(configs.DemoBootstrap))
		if err != nil {
			t.Fatal(err)
		}
		if first.Providers.Created != 2 || first.Accounts.Created != 8 || first.Organisations.Created != 8 || first.Applications.Created != 2 || first.Templates.Created != 1 {
			t.Fatalf("first apply: %+v", first)
		}
		var before []models.Account
		db.Order("id").Find(&before)

		second, err := apply(t, a, string(configs.DemoBootstrap))
		if err != nil {
			t.Fatal(err)
		}
		if second.Changed() || second.Accounts.Unchanged != 8 || second.Providers.Unchanged != 2 || second.Organisations.Unchanged != 8 || second.Templates.Unchanged != 1 {
			t.Fatalf("second apply changed something: %+v", second)
		}
		var after []models.Account
		db.Order("id").Find(&after)
		for i := range before {
			if before[i].PasswordHash != after[i].PasswordHash || !before[i].UpdatedAt.Equal(after[i].UpdatedAt) {
				t.Fatalf("account %s was rewritten by an idempotent apply", before[i].Username)
			}
		}
		// Secrets at rest: neither the password nor the app token is stored.
		var acc models.Account
		db.Where("provider_id = ? AND username = ?", "dev-1", "alice").Take(&acc)
		if !strings.HasPrefix(acc.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Fatalf("password hash %q is not argon2id with OWASP parameters", acc.PasswordHash)
		}
		var app models.Application
		db.Where("provider_id = ? AND name = ?", "dev-1", "demo-ui").Take(&app)
		if strings.Contains(app.AppTokenHash, "demo-app-token") || len(app.AppTokenHash) != 64 {
			t.Fatalf("app token stored as %q", app.AppTokenHash)
		}
	})
}

func TestApplyUpdatesWhatChanged(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		a := applier(t, db)
		base := `
providers: [{id: p1, environment: test, name: One}]
organisations: [{id: o1, provider: p1, kind: company, name: Org, country: DE}]
accounts: [{provider: p1, organisation: o1, username: u1, password: "first-password-1", scopes: [usermgt]}]
`
		if _, err := apply(t, a, base); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(base, "first-password-1", "second-password-2", 1)
		changed = strings.Replace(changed, "name: Org", "name: Org renamed", 1)
		res, err := apply(t, a, changed)
		if err != nil {
			t.Fatal(err)
		}
		if res.Accounts.Updated != 1 || res.Organisations.Updated != 1 || res.Providers.Unchanged != 1 {
			t.Fatalf("update apply: %+v", res)
		}
		var acc models.Account
		db.Take(&acc)
		ok, err := credentials.NewHasher(1).Verify(context.Background(), "second-password-2", acc.PasswordHash)
		if err != nil || !ok {
			t.Fatalf("new password does not verify: %v", err)
		}
	})
}

func TestInvalidFileNamesEntryAndLineAndAppliesNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		a := applier(t, db)
		file := `providers:
  - {id: p1, environment: test, name: One}
  - {id: p1, environment: test, name: Again}
organisations:
  - {id: o1, provider: nope, kind: company, name: Org, country: DE}
  - {id: o2, provider: p1, kind: company, country: XX}
applications:
  - {provider: p1, name: ui, appToken: "an-app-token-that-is-long-enough", scopes: [documents]}
accounts:
  - {provider: p1, organisation: o9, username: u1, password: short, scopes: [frobnicate]}
`
		_, err := apply(t, a, file)
		var be *bootstrap.Error
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want *bootstrap.Error", err)
		}
		msg := err.Error()
		for _, want := range []string{
			`providers[1] (line 3): duplicate provider id "p1" (first at providers[0] (line 2))`,
			`organisations[0] (line 5): unknown provider "nope"`,
			`organisations[1] (line 6): missing field "name"`,
			`organisations[1] (line 6): country: "XX" is not an ISO 3166-1 alpha-2 country code`,
			`applications[0] (line 8): scopes: "documents" is not a scope; the scopes are documents:read, documents:write, transport, signing, usermgt`,
			`accounts[0] (line 10): password must be at least 12 characters`,
			`accounts[0] (line 10): unknown organisation "o9" of provider "p1"`,
			`accounts[0] (line 10): scopes: "frobnicate" is not a scope`,
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("error lacks %q:\n%s", want, msg)
			}
		}
		if n := count(t, db, &models.Provider{}); n != 0 {
			t.Fatalf("%d providers written by a failed apply", n)
		}
	})
}

func TestParseRejectsUnknownFieldsAndSections(t *testing.T) {
	for name, text := range map[string]string{
		"unknown field":   "providers:\n  - {id: p1, enviroment: test, name: x}\n",
		"unknown section": "provider:\n  - {id: p1}\n",
		"not a list":      "providers: {id: p1}\n",
		"not yaml":        "providers: [\n",
		"not a mapping":   "- a\n- b\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := bootstrap.Parse(strings.NewReader(text))
			var be *bootstrap.Error
			if !errors.As(err, &be) {
				t.Fatalf("err = %v, want *bootstrap.Error", err)
			}
		})
	}
	// JSON is YAML too.
	f, err := bootstrap.Parse(strings.NewReader(`{"providers":[{"id":"p1","environment":"test","name":"x"}]}`))
	if err != nil || len(f.Providers) != 1 || f.Providers[0].Line != 1 {
		t.Fatalf("JSON: %+v, %v", f, err)
	}
}

// Issue 45.1: an organisation's party details are stored, compared (a
// second apply changes nothing, a changed street updates), and checked:
// the limits of shipment.PartyDetails' tags (characters, not bytes), an
// e-mail that looks like one, a telephone number, EORI and VAT shapes.
func TestOrganisationDetails(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		a := applier(t, db)
		base := `
providers: [{id: p1, environment: test, name: One}]
organisations:
  - {id: o1, provider: p1, kind: company, name: "Recycling Rotterdam B.V.", country: NL, registrationNumber: "KvK 24365871",
     street: "Europaweg 875", postalCode: "3199 LD", city: Rotterdam, contactPerson: "Sanne de Vries", telephone: "+31 10 2345678",
     email: s.devries@recycling-rotterdam.example.nl, eori: NL812345678, vat: NL812345678B01}
`
		if _, err := apply(t, a, base); err != nil {
			t.Fatal(err)
		}
		var o models.Organisation
		db.Take(&o)
		want := "{o1 Recycling Rotterdam B.V. KvK 24365871 {Europaweg 875 3199 LD Rotterdam NL} Sanne de Vries +31 10 2345678 s.devries@recycling-rotterdam.example.nl NL812345678 NL812345678B01}"
		if got := fmt.Sprintf("%v", o.Details()); got != want {
			t.Fatalf("stored details %s, want %s", got, want)
		}
		if res, err := apply(t, a, base); err != nil || res.Changed() {
			t.Fatalf("second apply: %+v %v", res, err)
		}
		res, err := apply(t, a, strings.Replace(base, "Europaweg 875", "Europaweg 877", 1))
		if err != nil || res.Organisations.Updated != 1 {
			t.Fatalf("changed street: %+v %v", res, err)
		}
		db.Take(&o)
		if o.Street != "Europaweg 877" || o.Email != "s.devries@recycling-rotterdam.example.nl" {
			t.Fatalf("after the update: %+v", o)
		}

		bad := `
providers: [{id: p1, environment: test, name: One}]
organisations:
  - {id: o2, provider: p1, kind: company, name: "` + strings.Repeat("ä", 301) + `", country: DE, city: "` + strings.Repeat("ß", 100) + `"}
  - {id: o3, provider: p1, kind: company, name: X, country: DE, email: "Anna <anna@example.de>", telephone: "call me", eori: "123", vat: "DE 123"}
  - {id: o4, provider: p1, kind: company, name: Y, country: de, email: anna@localhost, postalCode: "` + strings.Repeat("1", 21) + `"}
`
		_, err = apply(t, a, bad)
		if err == nil {
			t.Fatal("an invalid file applied")
		}
		msg := err.Error()
		for _, want := range []string{
			`organisations[0] (line 4): name: at most 300 characters, it has 301`,
			`organisations[1] (line 5): email: "Anna <anna@example.de>" is not an e-mail address`,
			`organisations[1] (line 5): telephone: "call me" is not a telephone number`,
			`organisations[1] (line 5): eori: "123" is not an EORI number`,
			`organisations[1] (line 5): vat: "DE 123" is not a VAT identification number`,
			`organisations[2] (line 6): country: "de" is not an ISO 3166-1 alpha-2 country code`,
			`organisations[2] (line 6): email: "anna@localhost" is not an e-mail address`,
			`organisations[2] (line 6): postalCode: at most 20 characters, it has 21`,
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("error lacks %q:\n%s", want, msg)
			}
		}
		if strings.Contains(msg, "city") { // 100 characters (200 bytes) is within the limit
			t.Errorf("a city of 100 characters refused:\n%s", msg)
		}
		if n := count(t, db, &models.Organisation{}); n != 1 {
			t.Fatalf("%d organisations after a failed apply", n)
		}
	})
}

// The demo's organisations carry every detail the forms ask of a party,
// and their names are legal names only (no notes such as "(carrier)").
func TestDemoOrganisationsAreComplete(t *testing.T) {
	f, err := bootstrap.Parse(bytes.NewReader(configs.DemoBootstrap))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range f.Organisations {
		if strings.ContainsAny(o.Name, "()") {
			t.Errorf("%s: name %q carries a note", o.ID, o.Name)
		}
		for field, v := range map[string]string{"street": o.Street, "postalCode": o.PostalCode, "city": o.City,
			"contactPerson": o.ContactPerson, "telephone": o.Telephone, "email": o.Email} {
			if v == "" {
				t.Errorf("%s of %s: no %s", o.ID, o.Provider, field)
			}
		}
		if o.Kind == "company" && (o.EORI == "" || o.VAT == "" || o.RegistrationNumber == "") {
			t.Errorf("%s of %s: a company without registration number, EORI or VAT", o.ID, o.Provider)
		}
	}
}

// A provider's rule settings (issue 46.6): stored as declared, changed and
// removed by a later apply; an unknown name or a value out of its range is
// refused naming the entry, and nothing is applied.
func TestProviderSettings(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		a := applier(t, db)
		settings := func() string {
			t.Helper()
			var p models.Provider
			if err := db.Take(&p, "id = ?", "p1").Error; err != nil {
				t.Fatal(err)
			}
			return p.Settings
		}
		if _, err := apply(t, a, `providers: [{id: p1, environment: test, name: One}]`); err != nil {
			t.Fatal(err)
		}
		if s := settings(); s != "{}" {
			t.Fatalf("no settings: %q", s)
		}
		res, err := apply(t, a, `providers: [{id: p1, environment: test, name: One, settings: {annex7PriorInformationWorkingDays: 3}}]`)
		if err != nil || res.Providers.Updated != 1 {
			t.Fatalf("set: %+v %v", res, err)
		}
		if s := settings(); s != `{"annex7PriorInformationWorkingDays":3}` {
			t.Fatalf("stored: %q", s)
		}
		for file, want := range map[string]string{
			`providers: [{id: p1, environment: test, name: One, settings: {annex7PriorInformationWorkingDays: "11"}}]`:  "from 0 to 10",
			`providers: [{id: p1, environment: test, name: One, settings: {annex7PriorInformationWorkingDays: "two"}}]`: "whole number",
			`providers: [{id: p1, environment: test, name: One, settings: {annex7PriorNoticeDays: "3"}}]`:               "not a provider setting",
		} {
			if _, err := apply(t, a, file); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "providers[0] (line 1)") {
				t.Errorf("%s: %v, want %q", file, err, want)
			}
		}
		if s := settings(); s != `{"annex7PriorInformationWorkingDays":3}` {
			t.Fatalf("a refused file changed the settings: %q", s)
		}
		if _, err := apply(t, a, `providers: [{id: p1, environment: test, name: One}]`); err != nil || settings() != "{}" {
			t.Fatalf("removed: %q %v", settings(), err)
		}
	})
}
