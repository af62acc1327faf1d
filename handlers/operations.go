package handlers

import (
	"net/http"
	"slices"

	"github.com/wasteflow/wasteflow/handlers/api"
)

// Packages of the interface.
const (
	pkgCore = "svc.core.v1.api"
)

// operations is the operation table: every REST operation, declared once.
// Later services append their own declarations here.
func (s *Server) operations() []api.Operation {
	return withAccess(append([]api.Operation{
		api.Unary(api.Operation{
			Package: pkgCore, Service: "DiscoveryApi", Method: "ListProvider", Verb: http.MethodGet,
			Security: api.NoToken, NoProvider: true,
			Summary: "Provider directory: every provider of every environment",
			Description: "Lists all providers with their id, name and environment, whatever the environment of this host " +
				"(the directory is the same everywhere). Needs neither a token nor the provider_id header. " +
				"Use a provider of this host's environment as provider_id on every other call.",
		}, s.listProvider),
	}, slices.Concat(s.authOperations(), s.kindOperations(), s.bmuOperations(), s.storeOperations(), s.fileAreaOperations(), s.signerOperations(), s.sharedDocumentOperations(), s.listOperations(), s.historyOperations(), s.printOperations(), s.registerOperations(), s.clockOperations(), s.reportOperations(), s.eventOperations(), s.webhookOperations(), s.mailOperations(), s.directoryOperations(), s.streamOperations())...))
}
