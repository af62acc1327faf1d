package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

func TestZZCount(t *testing.T) {
	cfg, err := configs.Load(environment(t, dbtest.SQLite(t)))
	if err != nil {
		t.Fatal(err)
	}
	var missing = map[string][]string{}
	err = offlineServer(context.Background(), cfg, func(h *handlers.Server) error {
		seen := map[any]bool{}
		var walk func(d *codec.Desc)
		walk = func(d *codec.Desc) {
			if d == nil || seen[d.Type] {
				return
			}
			seen[d.Type] = true
			walk(d.Elem)
			for _, f := range d.Fields {
				if f.Label.Empty() {
					k := d.Type.PkgPath() + "." + d.Type.Name()
					missing[k] = append(missing[k], f.Name)
				}
				walk(f.Type)
			}
		}
		for _, op := range h.Operations() {
			for _, rt := range []any{op.Request, op.Response} {
				_ = rt
			}
			if op.Request != nil {
				d, err := codec.Describe(op.Request)
				if err != nil {
					return err
				}
				walk(d)
			}
			if op.Response != nil {
				d, err := codec.Describe(op.Response)
				if err != nil {
					return err
				}
				walk(d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	n := 0
	for k, v := range missing {
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(missing[k], " "))
	}
	os.WriteFile("/tmp/missing.txt", []byte(b.String()), 0o644)
	t.Logf("%d fields in %d types", n, len(keys))
}
