package handlers

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The directory of organisations (issue 45.1, our design): what a client
// needs to name a party as the official forms do, and to choose one. A
// filed document records its parties' details (the document's
// partyDetails); the directory says what they are now.

// DirectoryOrganisation is an organisation of the provider.
type DirectoryOrganisation struct {
	ID      string                `json:"id" label:"Organisation|Organisation"`
	Kind    string                `json:"kind" doc:"company or authority" label:"Kind of organisation|Art der Organisation"`
	Region  string                `json:"region" doc:"ISO 3166-2 subdivision without the country prefix (BY for DE-BY); empty when none" label:"Region|Region"`
	Details shipment.PartyDetails `json:"details" doc:"the organisation as the forms name a party: registration number, name, address, contact person, telephone, e-mail, EORI and VAT identifiers (empty when not declared)" label:"Details|Angaben"`
	DIWASS  *DirectoryDIWASS      `json:"diwass" doc:"the company's operator in DIWASS, the EU hub (docs/diwass.md); null until it is registered there (the first Annex VII document sent, or wasteflow admin diwass operators -register)" label:"DIWASS operator|DIWASS-Wirtschaftsbeteiligter"`
}

// DirectoryDIWASS is an organisation's operator in DIWASS.
type DirectoryDIWASS struct {
	OperatorID   string    `json:"operatorId" doc:"the OperatorInternalID DIWASS gave it" label:"Operator id|Kennung des Wirtschaftsbeteiligten"`
	Status       string    `json:"status" doc:"its activity status in DIWASS when registered or found (New until an authority approves it there, then Valid)" label:"Status in DIWASS|Status in DIWASS"`
	Identifier   string    `json:"identifier" doc:"the identifier DIWASS keys it by: eori:… or vat:…" label:"Identifier|Kennung"`
	Linked       bool      `json:"linked" doc:"DIWASS knew the identifier already: found and linked, not registered by us" label:"Found in DIWASS|In DIWASS gefunden"`
	RegisteredAt time.Time `json:"registeredAt" doc:"when it was registered or linked" label:"Registered at|Registriert am"`
}

// ListOrganisationRequest selects a page of the directory.
type ListOrganisationRequest struct {
	Kind      string `json:"kind" maxLength:"16" doc:"company or authority; empty: both" label:"Kind of organisation|Art der Organisation"`
	Country   string `json:"country" maxLength:"2" doc:"ISO 3166-1 alpha-2; empty: any" label:"Country|Staat" codeList:"country"`
	PageSize  int32  `json:"pageSize" doc:"organisations per page: default 100, at most 500" label:"Per page|Pro Seite"`
	PageToken string `json:"pageToken" maxLength:"128" doc:"nextPageToken of the page before; empty: the first page" label:"Page|Seite"`
}

// ListOrganisationResponse is a page of the directory, by id.
type ListOrganisationResponse struct {
	Organisations []DirectoryOrganisation `json:"organisations" label:"Organisations|Organisationen"`
	NextPageToken string                  `json:"nextPageToken" doc:"send it as pageToken for the next page; empty on the last page" label:"Next page|Nächste Seite"`
}

// GetOrganisationRequest names an organisation.
type GetOrganisationRequest struct {
	OrganisationID string `json:"organisationId" required:"true" label:"Organisation|Organisation"`
}

// GetOrganisationResponse is one organisation of the directory.
type GetOrganisationResponse struct {
	Organisation DirectoryOrganisation `json:"organisation" label:"Organisation|Organisation"`
}

func directoryEntry(o *models.Organisation, links map[string]models.DIWASSOperator) DirectoryOrganisation {
	e := DirectoryOrganisation{ID: o.ID, Kind: o.Kind, Region: o.Region, Details: o.Details()}
	if l, ok := links[o.ID]; ok {
		e.DIWASS = &DirectoryDIWASS{OperatorID: l.OperatorID, Status: l.Status, Identifier: l.Identifier, Linked: l.Linked, RegisteredAt: l.RegisteredAt.UTC()}
	}
	return e
}

func (s *Server) directoryOperations() []api.Operation {
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgCore, Service: "DirectoryApi", Method: method, Verb: http.MethodGet, Security: api.AccessToken, Summary: summary, Description: desc + " Our design."}
	}
	return []api.Operation{
		api.Unary(op("ListOrganisation", "The organisations of your provider, with the details the forms ask of a party",
			"Every organisation of the provider (companies and authorities) by id, with its kind, region and party details: registration number, "+
				"name, address, contact person, telephone, e-mail, EORI and VAT identifiers, as `wasteflow admin apply` declared them. "+
				"Filter by kind and country; page with pageSize (default 100, at most 500) and pageToken. A filed document shows its parties as "+
				"they were when it was filed (its partyDetails); this is the directory as it is now."), s.listOrganisation),
		api.Unary(op("GetOrganisation", "One organisation of your provider, with its party details",
			"As ListOrganisation, for one organisation; an unknown id is 404, code 5."), s.getOrganisation),
	}
}

func (s *Server) listOrganisation(ctx context.Context, r *ListOrganisationRequest) (*ListOrganisationResponse, error) {
	p := reqctx.From(ctx).Principal
	if r.Kind != "" && !slices.Contains(rules.OrganisationKinds, r.Kind) {
		return nil, status.Invalid("kind", "company or authority")
	}
	if r.Country != "" {
		if err := rules.CheckCountry(r.Country); err != nil {
			return nil, status.Invalid("country", err.Error())
		}
	}
	size := int(r.PageSize)
	switch {
	case size < 0 || size > 500:
		return nil, status.Invalid("pageSize", "from 1 to 500 (0: 100)")
	case size == 0:
		size = 100
	}
	orgs, err := models.ListOrganisations(ctx, s.db, models.OrganisationFilter{Provider: p.ProviderID, Kind: r.Kind, Country: r.Country,
		After: r.PageToken, Limit: size + 1})
	if err != nil {
		return nil, err
	}
	page := orgs[:min(len(orgs), size)]
	ids := make([]string, len(page))
	for i := range page {
		ids[i] = page[i].ID
	}
	links, err := models.DIWASSOperatorsOf(ctx, s.db, p.ProviderID, ids)
	if err != nil {
		return nil, err
	}
	out := &ListOrganisationResponse{Organisations: make([]DirectoryOrganisation, 0, len(page))}
	for i := range page {
		out.Organisations = append(out.Organisations, directoryEntry(&page[i], links))
	}
	if len(orgs) > size {
		out.NextPageToken = orgs[size-1].ID
	}
	return out, nil
}

func (s *Server) getOrganisation(ctx context.Context, r *GetOrganisationRequest) (*GetOrganisationResponse, error) {
	p := reqctx.From(ctx).Principal
	orgs, err := models.OrganisationsByID(s.db.WithContext(ctx), p.ProviderID, []string{r.OrganisationID})
	if err != nil {
		return nil, err
	}
	if len(orgs) == 0 {
		return nil, status.New(status.NotFound, "no organisation %q", r.OrganisationID)
	}
	links, err := models.DIWASSOperatorsOf(ctx, s.db, p.ProviderID, []string{orgs[0].ID})
	if err != nil {
		return nil, err
	}
	return &GetOrganisationResponse{Organisation: directoryEntry(&orgs[0], links)}, nil
}
