package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/contract"
	"github.com/wasteflow/wasteflow/models/dbtest"
	protofiles "github.com/wasteflow/wasteflow/proto"
)

// The committed .proto files are what the operation table derives: a
// change of a request or response type, or of the operations, that was
// not regenerated (make proto) fails here, so the REST routes, the OpenAPI
// description and the gRPC services cannot drift apart.
func TestProtoFilesAreCurrent(t *testing.T) {
	committed, err := contract.ReadProtoFiles(protofiles.Files, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) == 0 {
		t.Fatal("no committed .proto files")
	}
	cfg, err := configs.Load(environment(t, dbtest.SQLite(t)))
	if err != nil {
		t.Fatal(err)
	}
	var files map[string][]byte
	err = offlineServer(context.Background(), cfg, func(h *handlers.Server) error {
		files, err = contract.BuildProto(context.Background(), h.Operations(), committed)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for p, b := range files {
		if string(committed[p]) != string(b) {
			stale = append(stale, p)
		}
	}
	for p := range committed {
		if _, ok := files[p]; !ok {
			stale = append(stale, p+" (gone)")
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Fatalf("proto/ is not what the operations derive; run make proto and commit: %s", strings.Join(stale, ", "))
	}
}

// wasteflow proto writes the files into a directory and, run again over
// them, changes nothing.
func TestProtoCommand(t *testing.T) {
	dir := t.TempDir()
	lookup := environment(t, dbtest.SQLite(t))
	code, out, errs := runCmd(t, lookup, "proto", "-dir", dir)
	if code != exitOK || !strings.Contains(out, "auth_api.proto") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "svc", "core", "v1", "api", "auth_api.proto"))
	if err != nil || !strings.Contains(string(b), "service AuthApi {") || !strings.Contains(string(b), "rpc RequestAccess(RequestAccessRequest) returns (RequestAccessResponse);") {
		t.Fatalf("%v\n%s", err, b)
	}
	code, out, errs = runCmd(t, lookup, "proto", "-dir", dir)
	if code != exitOK || out != "" {
		t.Fatalf("second run: exit %d, wrote %q %s", code, out, errs)
	}
}
