package tests

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules"
)

// ownSession are the operations that take an access or refresh token but
// no scope: what a token without any scope can still do with its own
// session.
var ownSession = []string{
	"svc.core.v1.api.AuthApi/RequestAccess",
	"svc.core.v1.api.AuthApi/ChangePassword",
	"svc.core.v1.api.AuthApi/RevokeRefreshToken",
}

// reasonOf is the ErrorInfo reason of an error answer ("" when none).
func reasonOf(body []byte) string {
	var m struct {
		Details []struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
		} `json:"details"`
	}
	_ = json.Unmarshal(body, &m)
	for _, d := range m.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// TestEveryOperationAdmitsByTheRule tries every operation of the table with
// a company account, an authority account and a token without scopes: the
// document faces admit their own kind of organisation only, every
// operation that takes an access token needs its scope, and both
// refusals are 403, code 7, before anything is read or changed.
func TestEveryOperationAdmitsByTheRule(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		callers := map[string]struct{ user, kind string }{
			"company":   {"alice", "company"},
			"authority": {"noor", "authority"},
			"no scope":  {"nina", "company"},
		}
		tried := 0
		conn := dialGRPC(t, d.url)
		for _, op := range d.srv.Operations() {
			if op.Security != api.AccessToken {
				continue
			}
			unscoped := slices.Contains(ownSession, op.FullName())
			switch {
			case unscoped && op.Scope != "":
				t.Errorf("%s needs scope %q; it should need none", op.FullName(), op.Scope)
			case !unscoped && rules.CheckScope(op.Scope) != nil:
				t.Errorf("%s declares no defined scope (%q)", op.FullName(), op.Scope)
			}
			for name, c := range callers {
				verb, body := op.Verb, []byte("{}")
				if verb == http.MethodGet {
					body = nil
				}
				st, _, raw := d.do(t, call{method: verb, path: op.Path(), headers: hdr("dev-1", d.token(t, c.user)), body: body, rest: true})
				if op.NoREST() { // REST cannot reach it; over gRPC the rule holds as for the rest
					wantError(t, 404, 5, st, raw)
					d.grpc = conn
					st, _, raw = d.do(t, call{method: verb, path: op.Path(), headers: hdr("dev-1", d.token(t, c.user)), body: body})
					d.grpc = nil
				}
				reason := ""
				if st == 403 {
					reason = reasonOf(raw)
				}
				wrongKind := op.Org != "" && op.Org != c.kind
				noScope := name == "no scope" && op.Scope != ""
				switch {
				case wrongKind:
					if reason != "WRONG_ORGANISATION_KIND" {
						t.Errorf("%s as %s (%s): HTTP %d %s, want 403 WRONG_ORGANISATION_KIND", op.FullName(), c.user, name, st, raw)
					} else {
						wantError(t, 403, 7, st, raw)
					}
				case noScope:
					if reason != "INSUFFICIENT_SCOPE" {
						t.Errorf("%s as %s (%s): HTTP %d %s, want 403 INSUFFICIENT_SCOPE", op.FullName(), c.user, name, st, raw)
					} else {
						wantError(t, 403, 7, st, raw, op.Scope)
					}
				default:
					if reason == "WRONG_ORGANISATION_KIND" || reason == "INSUFFICIENT_SCOPE" || st >= 500 {
						t.Errorf("%s as %s (%s): HTTP %d %s, want it admitted", op.FullName(), c.user, name, st, raw)
					}
				}
				tried++
			}
		}
		if tried < 3*60 {
			t.Fatalf("only %d calls tried: the operation table is not the server's", tried)
		}
		// Both faces name their kind in the description.
		doc := d.openapi()
		for _, op := range d.srv.Operations() {
			if op.NoREST() {
				if doc.Paths.Find(op.Path()) != nil {
					t.Errorf("%s has no REST route but a path in the description", op.FullName())
				}
				continue
			}
			o := doc.Paths.Find(op.Path()).GetOperation(op.Verb)
			if op.Org != "" && o.Extensions["x-organisation-kind"] != op.Org {
				t.Errorf("%s: x-organisation-kind %v, want %s", op.FullName(), o.Extensions["x-organisation-kind"], op.Org)
			}
			if op.Scope != "" && o.Extensions["x-scope"] != op.Scope {
				t.Errorf("%s: x-scope %v, want %s", op.FullName(), o.Extensions["x-scope"], op.Scope)
			}
		}
	})
}

// TestAuthoritySetByIntentRefusesCompanies: a company account cannot record
// anything through the authority face (it once recorded a correction).
func TestAuthoritySetByIntentRefusesCompanies(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.submitted(t)
		before, _ := d.get(t, "alice", id)
		container := map[string]any{}
		for k, v := range before {
			container[k] = v
		}
		container["notification"] = proposal(newCarrier) // a real correction
		st, _, raw := d.call(t, "alice", au+"SetByIntent", map[string]any{"intent": "CORRECTION", "document": map[string]any{"notification": container}})
		wantError(t, 403, 7, st, raw, "authorities")
		after, _ := d.get(t, "alice", id)
		if after["version"] != before["version"] {
			t.Fatalf("version %v → %v: the refused call changed the document", before["version"], after["version"])
		}
		st, _, raw = d.post(t, co+"GetNotification", hdr("dev-1", d.token(t, "noor")), map[string]any{"documentId": id}) // not docEnv.call: it routes authorities to their face
		wantError(t, 403, 7, st, raw, "companies")
	})
}
