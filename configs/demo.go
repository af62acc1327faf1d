package configs

import _ "embed"

// DemoBootstrap is the bootstrap file `wasteflow demo` applies.
//
//go:embed demo.yaml
var DemoBootstrap []byte
