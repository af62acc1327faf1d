package main

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// unlabelledServices are the services whose requests and responses are
// not read by a person in a form or a page of ours, with the reason. Their
// types are checked only where a labelled service reaches them too.
var unlabelledServices = map[string]string{
	"svc.bxa.bmu.v1.api.BmuDocumentApi":                     "German transport documents as XML layers for integrators: the notes' fields (rules/bmu) are labelled, the envelopes around them (docXml, xmlOptions, layers to add) are not read by a person",
	"svc.core.preview.api.PreviewApi":                       "transport document listings for integrators (XML documents, not forms)",
	"svc.core.v1.api.AuthApi":                               "credentials and tokens: the login page asks for user name and password in its own words",
	"svc.core.v1.api.DocumentApi":                           "transport document inboxes and file areas for integrators (XML documents)",
	"svc.core.v1.api.DocumentTemplateApi":                   "transport document templates for integrators (XML)",
	"svc.core.v1.api.QueryApi":                              "transport document queries for integrators",
	"svc.core.v1.api.TestClockApi":                          "the test environment's clock, a tool for integrators' tests",
	"svc.namespaced_notifier.v1.api.NotificationApi":        "event feed for integrators' programs",
	"svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi": "notifier groups: machine credentials",
	"svc.namespaced_notifier.v1.api.WebhookApi":             "webhook endpoints: machine configuration",
	"svc.signer.sign.v1.SigningProcessApi":                  "the signing page shows the note being signed, not these messages",
}

// unlabelledFields are fields a person never reads or fills: plumbing,
// with the reason. Keys are "<package path>.<type>.<json name>" ("" as the
// type for any type of the package).
var unlabelledFields = map[string]string{
	"github.com/wasteflow/wasteflow/models/qpar..*":   "query parameters of list operations (filters, sort, page): the console builds them; declared in models/",
	"github.com/wasteflow/wasteflow/rules/decimal..*": "a quantity's wire shape (units and nanos); the quantity field carries the label",
}

// unlabelledEnums are enums without EnumLabels, with the reason.
var unlabelledEnums = map[string]string{
	"qpar.Direction": "sort direction of list queries: the console builds it; declared in models/",
	"qpar.Op":        "filter operator of list queries: the console builds it; declared in models/",
}

// TestEveryFieldHasWords: every field of every message a labelled
// operation takes or answers has a label in English and German (the
// codec refuses a label with one language missing), except plumbing
// named above; an enum declares a label for each value (the codec checks
// the counts match).
func TestEveryFieldHasWords(t *testing.T) {
	cfg, err := configs.Load(environment(t, dbtest.SQLite(t)))
	if err != nil {
		t.Fatal(err)
	}
	missing := map[string]bool{}
	err = offlineServer(context.Background(), cfg, func(h *handlers.Server) error {
		seen := map[reflect.Type]bool{}
		var walk func(d *codec.Desc)
		walk = func(d *codec.Desc) {
			if d == nil || seen[d.Type] {
				return
			}
			seen[d.Type] = true
			if _, ok := unlabelledEnums[d.Type.String()]; !ok && d.Shape == codec.ShapeEnum && len(d.EnumLabels) != len(d.EnumNames) {
				missing[d.Type.String()+" (enum values)"] = true
			}
			walk(d.Elem)
			for _, f := range d.Fields {
				pkg, typ := d.Type.PkgPath(), d.Type.Name()
				if pkg == "" { // a type made at run time: handlers' requests and answers
					pkg, typ = "github.com/wasteflow/wasteflow/handlers", d.Name
				}
				_, any1 := unlabelledFields[pkg+"..*"]
				_, one := unlabelledFields[pkg+"."+typ+"."+f.Name]
				if f.Label.Empty() && !any1 && !one {
					missing[pkg+"."+typ+"."+f.Name] = true
				}
				walk(f.Type)
			}
		}
		for _, op := range h.Operations() {
			if _, skip := unlabelledServices[op.Package+"."+op.Service]; skip {
				continue
			}
			for _, rt := range []reflect.Type{op.Request, op.Response} {
				if rt == nil {
					continue
				}
				d, err := codec.Describe(rt)
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
	var list []string
	for k := range missing {
		list = append(list, strings.TrimPrefix(k, "github.com/wasteflow/wasteflow/"))
	}
	sort.Strings(list)
	if len(list) > 0 {
		t.Errorf("%d fields a person may see have no label (tag label:\"English|Deutsch\"):\n%s", len(list), strings.Join(list, "\n"))
	}
}
