package handlers

import (
	"context"

	"github.com/wasteflow/wasteflow/models"
)

// ListProviderRequest has no fields.
type ListProviderRequest struct{}

// Provider is one directory entry.
type Provider struct {
	ID          string `json:"id" doc:"the value to send as the provider_id header" label:"Provider|Anbieter"`
	Name        string `json:"name" label:"Name|Name"`
	Environment string `json:"environment" doc:"production, staging, test or development" label:"Environment|Umgebung"`
}

// ListProviderResponse lists every provider.
type ListProviderResponse struct {
	Providers []Provider `json:"providers" label:"Providers|Anbieter"`
}

func (s *Server) listProvider(ctx context.Context, _ *ListProviderRequest) (*ListProviderResponse, error) {
	ps, err := models.ListProviders(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := &ListProviderResponse{Providers: make([]Provider, 0, len(ps))}
	for _, p := range ps {
		out.Providers = append(out.Providers, Provider{ID: p.ID, Name: p.Name, Environment: p.Environment})
	}
	return out, nil
}
