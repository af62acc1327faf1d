// Package proto holds the committed .proto files of wasteflow's gRPC face,
// generated from the operation table by `wasteflow proto` (make proto):
// the server compiles and serves these, so what a client generates from
// this directory is what the server speaks.
package proto

import "embed"

// Files are the .proto files and buf.yaml.
//
//go:embed svc wasteflow buf.yaml
var Files embed.FS
