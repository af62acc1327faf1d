package configs

import _ "embed"

// DemoBootstrap is the bootstrap file `wasteflow demo` applies.
//
//go:embed demo.yaml
var DemoBootstrap []byte

// DemoDocuments is the scenario of documents `wasteflow demo` builds.
//
//go:embed demo_documents.yaml
var DemoDocuments []byte
