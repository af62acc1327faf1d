package handlers

import (
	"github.com/wasteflow/wasteflow/handlers/api"
)

// NewWithOperations is New serving the test's operations beside the
// table's. It is compiled into the tests only: production code has no way
// to add an operation.
func NewWithOperations(d Deps, extra ...api.Operation) (*Server, error) { return newServer(d, extra) }
