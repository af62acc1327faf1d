package diwass

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// FromConfig is the client of the configured DIWASS, nil when none is
// configured (nothing is exchanged).
func FromConfig(c configs.DIWASS) (*Client, error) {
	if !c.Connected() {
		return nil, nil
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if c.ClientCertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.ClientCertFile, c.ClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("DIWASS client certificate: %w", err)
		}
		transport.TLSClientConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	return &Client{Endpoints: Endpoints{Annex7: c.Annex7URL, Operators: c.OperatorsURL, Ping: c.PingURL}, ClientID: c.ClientID,
		HTTP: &http.Client{Transport: transport}, Timeout: c.Timeout}, nil
}

// Store keeps the links of organisations to DIWASS operators
// (models.DIWASSStore).
type Store interface {
	Companies(ctx context.Context, provider string, ids []string) ([]models.Organisation, map[string]models.DIWASSOperator, error)
	Link(ctx context.Context, l models.DIWASSOperator) error
}

// Registrar registers a provider's companies as DIWASS operators.
type Registrar struct {
	Client *Client
	Store  Store
	// Authority is the responsible authority's activity code operators
	// are registered under.
	Authority string
	Now       func() time.Time
}

// Registration is what became of one organisation.
type Registration struct {
	Organisation string
	Link         *models.DIWASSOperator // nil: not registered
	// Outcome: "registered", "linked" (DIWASS knew it), "kept" (linked
	// before), or why not.
	Outcome string
	Err     error
}

// ErrNoIdentifier: an organisation without EORI and VAT number cannot be
// registered (DIWASS keys operators by their identifier).
var ErrNoIdentifier = errors.New("no EORI or VAT number in the directory: DIWASS keys an operator by one")

// OperatorOf is the DIWASS operator of a party as the directory describes
// it, registered as a waste operator under authority. Its main identifier
// is the EORI number, else the VAT number.
func OperatorOf(p shipment.PartyDetails, authority string) (Operator, error) {
	o := Operator{Name: p.Name, Activity: Activity{Type: WasteOperator, ResponsibleAuthorityCode: authority},
		Addresses: []OperatorAddress{{Main: true, Address: Address{Street: p.Address.Street,
			City: City{Name: p.Address.City, PostalCode: p.Address.PostalCode, CountryID: p.Address.Country}}}}}
	if o.Name == "" {
		o.Name = p.OrganisationID
	}
	for _, c := range []ContactDetail{{ContactPerson, p.ContactPerson}, {ContactPhone, p.Telephone}, {ContactEmail, p.Email}} {
		if strings.TrimSpace(c.Value) != "" {
			o.Contacts = append(o.Contacts, c)
		}
	}
	if p.EORI != "" {
		o.Identifiers = append(o.Identifiers, Identifier{Type: IdentifierEORI, Name: p.EORI, Main: true})
	}
	if p.VAT != "" {
		o.Identifiers = append(o.Identifiers, Identifier{Type: IdentifierVAT, Name: p.VAT, Main: p.EORI == ""})
	}
	if len(o.Identifiers) == 0 {
		return o, ErrNoIdentifier
	}
	return o, nil
}

// RegisterAll registers every company of provider that has no DIWASS
// operator yet: created, or, when DIWASS knows its identifier already
// (409), found and linked. A registration is safe to try again whatever
// happened to the last try: DIWASS refuses a second operator with the
// same identifier, and that refusal links the first.
func (r *Registrar) RegisterAll(ctx context.Context, provider string) ([]Registration, error) {
	return r.Register(ctx, provider, nil)
}

// Register is RegisterAll for the companies among only (all when nil).
func (r *Registrar) Register(ctx context.Context, provider string, only []string) ([]Registration, error) {
	if r.Client == nil {
		return nil, errors.New("no DIWASS is configured (WASTEFLOW_DIWASS_OPERATORS_URL)")
	}
	if r.Authority == "" {
		return nil, errors.New("no responsible authority to register operators under (WASTEFLOW_DIWASS_RESPONSIBLE_AUTHORITY)")
	}
	orgs, links, err := r.Store.Companies(ctx, provider, only)
	if err != nil {
		return nil, err
	}
	var out []Registration
	for _, org := range orgs {
		if l, ok := links[org.ID]; ok {
			out = append(out, Registration{Organisation: org.ID, Link: &l, Outcome: "kept"})
			continue
		}
		reg := r.register(ctx, provider, &org)
		if reg.Link != nil {
			if err := r.Store.Link(ctx, *reg.Link); err != nil {
				return out, err
			}
		}
		out = append(out, reg)
	}
	return out, nil
}

func (r *Registrar) register(ctx context.Context, provider string, org *models.Organisation) Registration {
	reg := Registration{Organisation: org.ID}
	op, err := OperatorOf(org.Details(), r.Authority)
	if err != nil {
		reg.Outcome, reg.Err = "not registered", err
		return reg
	}
	main, _ := op.MainIdentifier()
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	link := &models.DIWASSOperator{ProviderID: provider, OrganisationID: org.ID, Status: "New", Identifier: main.Type + ":" + main.Name, RegisteredAt: now().UTC()}
	id, err := r.Client.CreateOperator(ctx, op)
	switch {
	case err == nil:
		link.OperatorID, reg.Outcome = id, "registered"
	case DuplicateOperator(err):
		found, ferr := r.Client.FindOperator(ctx, org.Country, Identifier{Type: main.Type, Name: main.Name})
		if ferr != nil || len(found) == 0 {
			reg.Outcome, reg.Err = "not registered", fmt.Errorf("DIWASS knows the identifier but did not find its operator: %v", errors.Join(ferr, err))
			return reg
		}
		link.OperatorID, link.Status, link.Linked, reg.Outcome = found[0].InternalID, found[0].Activity.Status, true, "linked"
	default:
		reg.Outcome, reg.Err = "not registered", err
		return reg
	}
	reg.Link = link
	return reg
}
