package handlers

import (
	"strings"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Who may call what, in one place: every operation that takes an access
// token needs one scope (rules.Scopes), and the document faces serve one
// kind of organisation each. The gateway checks both before it reads the
// body; a refusal is 403, code 7, with an ErrorInfo naming the reason.

// Kinds of organisation.
const (
	orgCompany   = "company"
	orgAuthority = "authority"
)

// unscoped are the operations on one's own session that need an access
// (or refresh) token but no scope: a token without any scope can still
// be refreshed, change its password and end its session.
var unscoped = map[string]bool{
	"svc.core.v1.api.AuthApi/RequestAccess":      true,
	"svc.core.v1.api.AuthApi/ChangePassword":     true, // usermgt is checked for another account's password
	"svc.core.v1.api.AuthApi/RevokeRefreshToken": true,
}

// serviceAccess gives the scope and the organisation kind of each
// service's operations. Documents split reads (Get, List, Export, Wait)
// from writes.
var serviceAccess = map[string]struct {
	read, write string
	org         string
}{
	pkgDiwass + ".CompanyDocumentApi":       {rules.ScopeDocumentsRead, rules.ScopeDocumentsWrite, orgCompany},
	pkgDiwass + ".AuthorityDocumentApi":     {rules.ScopeDocumentsRead, rules.ScopeDocumentsWrite, orgAuthority},
	pkgCore + ".DeadlineReportApi":          {rules.ScopeDocumentsRead, rules.ScopeDocumentsRead, ""},
	pkgBMU + ".BmuDocumentApi":              {rules.ScopeTransport, rules.ScopeTransport, ""},
	pkgCore + ".DocumentApi":                {rules.ScopeTransport, rules.ScopeTransport, ""},
	pkgCore + ".QueryApi":                   {rules.ScopeTransport, rules.ScopeTransport, ""},
	pkgCore + ".DocumentTemplateApi":        {rules.ScopeTransport, rules.ScopeTransport, ""},
	pkgPreview + ".PreviewApi":              {rules.ScopeTransport, rules.ScopeTransport, ""},
	pkgSigner + ".SigningProcessApi":        {rules.ScopeSigning, rules.ScopeSigning, ""},
	pkgCore + ".TestClockApi":               {rules.ScopeUserMgt, rules.ScopeUserMgt, ""},
	pkgCore + ".MailPreferencesApi":         {rules.ScopeDocumentsRead, rules.ScopeDocumentsRead, ""}, // the mails tell of documents
	pkgNotifier + ".RegisteredGroupAuthApi": {rules.ScopeUserMgt, rules.ScopeUserMgt, ""},
	pkgCore + ".AuthApi":                    {rules.ScopeUserMgt, rules.ScopeUserMgt, ""},
	pkgCore + ".DirectoryApi":               {rules.ScopeDocumentsRead, rules.ScopeDocumentsRead, ""}, // the parties of documents
}

// withAccess fills in the scope and organisation kind of every operation
// that takes an access token (what an operation declares itself stays).
func withAccess(ops []api.Operation) []api.Operation {
	for i := range ops {
		op := &ops[i]
		if unscoped[op.FullName()] && op.Scope != "" {
			// The table says what the server does: an operation on one's
			// own session declares no scope (the reference and the guides
			// are read from the table).
			panic("handlers: " + op.FullName() + " needs no scope but declares " + op.Scope)
		}
		if op.Security != api.AccessToken || unscoped[op.FullName()] {
			continue
		}
		a, ok := serviceAccess[op.Package+"."+op.Service]
		if !ok {
			continue // the test of the table refuses this
		}
		if op.Scope == "" {
			op.Scope = a.write
			if isRead(op.Method) {
				op.Scope = a.read
			}
		}
		if op.Org == "" {
			op.Org = a.org
		}
	}
	return ops
}

// onBothFaces are the methods both document faces have.
var onBothFaces = map[string]bool{"GetDocument": true, "ListDocuments": true, "SetByIntent": true, "GetDocumentHistory": true,
	"PrintDocument": true, "ListInspectionLinks": true, "RevokeInspectionLinks": true,
	"ExportRegister": true, "GetRegisterExport": true, "CancelRegisterExport": true}

func isRead(method string) bool {
	for _, p := range []string{"Get", "List", "Export", "Wait", "Watch", "Stream"} {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// checkAccess applies the rule to the authenticated principal p.
func checkAccess(op *api.Operation, p *reqctx.Principal) error {
	if op.Org != "" && p.GroupID == "" && p.OrganisationKind != op.Org {
		msg, other := "%s is for companies; your organisation is an authority: use %s", "AuthorityDocumentApi"
		if op.Org == orgAuthority {
			msg, other = "%s is for authorities; your organisation is a company: use %s", "CompanyDocumentApi"
		}
		if onBothFaces[op.Method] {
			other += "/" + op.Method
		}
		return status.New(status.PermissionDenied, msg, op.Service, other).
			WithDetails(status.Info("WRONG_ORGANISATION_KIND", map[string]string{"required": op.Org, "organisationKind": p.OrganisationKind}))
	}
	if op.Scope != "" && !p.HasScope(op.Scope) {
		return status.New(status.PermissionDenied, "this operation needs the scope %q, which the token does not carry", op.Scope).
			WithDetails(status.Info("INSUFFICIENT_SCOPE", map[string]string{"scope": op.Scope}))
	}
	return nil
}
