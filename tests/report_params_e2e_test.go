package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// A wrong parameter of the deadline reports is named as the client typed
// it, lowerCamel or snake_case, in fieldViolations[].field, its description
// and the message: never as the filter or Go field it became inside
// ("qpar.filter[0].operands[0].s", "dueFrom" for due_from).
func TestReportParameterErrorsNameTheParameterSent(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.submitted(t) // some deadlines to report
		headers := hdr("dev-1", d.token(t, "noor"))
		type violation struct{ Field, Description string }
		// check requires a 400 naming field, with a description that holds
		// each of has and none of hasNot.
		check := func(t *testing.T, what string, st int, raw []byte, field string, has []string, hasNot ...string) {
			t.Helper()
			m := wantError(t, 400, 3, st, raw)
			var body struct {
				Message string
				Details []struct{ FieldViolations []violation }
			}
			if err := json.Unmarshal(raw, &body); err != nil || len(body.Details) != 1 || len(body.Details[0].FieldViolations) != 1 {
				t.Fatalf("%s: %v: want one field violation: %s", what, err, raw)
			}
			v := body.Details[0].FieldViolations[0]
			if v.Field != field {
				t.Errorf("%s: fieldViolations[0].field %q, want %q (%s)", what, v.Field, field, raw)
			}
			if !strings.Contains(body.Message, `field "`+field+`"`) {
				t.Errorf("%s: message %q does not name %q", what, m["message"], field)
			}
			for _, s := range has {
				if !strings.Contains(v.Description, s) || !strings.Contains(body.Message, s) {
					t.Errorf("%s: description %q or message %q lacks %q", what, v.Description, body.Message, s)
				}
			}
			for _, s := range append(hasNot, "deadlines.", "DueFrom", "DueTo") {
				if strings.Contains(string(raw), s) {
					t.Errorf("%s: the answer names %q: %s", what, s, raw)
				}
			}
		}

		t.Run("ExportDeadlines, a GET with query parameters", func(t *testing.T) {
			for _, c := range []struct {
				query, field string
				has          []string
			}{
				{"due_from=yesterday", "due_from", []string{`"yesterday"`}},
				{"dueFrom=yesterday", "dueFrom", []string{`"yesterday"`}},
				{"state=OVERDUE&due_to=2027-02-30T00:00:00Z", "due_to", nil},
				{"dueTo=2027-02-30T00:00:00Z", "dueTo", nil},
				// Valid timestamps the report cannot take: the filter they
				// become is named by the parameter.
				{"due_to=0000-01-01T00:00:00Z", "due_to", []string{"before 0001"}},
				{"dueTo=9999-12-31T23:00:00-02:00", "dueTo", []string{"out of range"}},
				{"due_from=9999-12-31T23:00:00-02:00", "due_from", []string{"out of range"}},
				{"state=SOMETIMES", "state", []string{`"SOMETIMES"`, "OVERDUE"}},
				{"state=overdue&state=sometimes", "state", []string{`"sometimes"`}},
				{"state=OVERDUE&kind=boat", "kind", []string{`"boat"`, "ANNEX_VII"}},
				{"document_id=ntf_x&rule=WHENEVER", "rule", []string{`"WHENEVER"`}},
			} {
				st, _, raw := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?" + c.query, headers: headers})
				check(t, c.query, st, raw, c.field, c.has, "qpar", "operands")
			}
			// Both spellings are taken when right.
			for _, q := range []string{"due_from=2020-01-01T00:00:00Z&document_id=x", "dueFrom=2020-01-01T00:00:00Z&documentId=x"} {
				if st, _, raw := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?" + q, headers: headers, lenient: true}); st != 200 {
					t.Errorf("%s: HTTP %d %s", q, st, raw)
				}
			}
		})

		t.Run("ListDeadlines and GetDeadlineSummary, POST bodies", func(t *testing.T) {
			for _, c := range []struct {
				op, body, field string
				has             []string
				hasNot          []string
			}{
				{"ListDeadlines", `{"qpar":{"page_size":-1}}`, "qpar.page_size", []string{"negative"}, []string{"pageSize"}},
				{"ListDeadlines", `{"qpar":{"pageSize":-1}}`, "qpar.pageSize", []string{"negative"}, nil},
				{"ListDeadlines", `{"qpar":{"page_start":"x"}}`, "qpar.page_start", []string{`"x"`}, []string{"pageStart"}},
				{"ListDeadlines", `{"qpar":{"pageStart":-5}}`, "qpar.pageStart", nil, nil},
				{"ListDeadlines", `{"qpar":{"filter":[{"path":"state","op":"EQUAL","operands":[{"n_int32":3}]}]}}`,
					"qpar.filter[0].operands[0]", []string{"n_int32"}, []string{"nInt32"}},
				{"ListDeadlines", `{"qpar":{"filter":[{"path":"state","op":"EQUAL","operands":[{"nInt32":3}]}]}}`,
					"qpar.filter[0].operands[0]", []string{"nInt32"}, nil},
				{"ListDeadlines", `{"qpar":{"filter":[{"path":"due_at","op":"LESSER_THAN","operands":[{"utc":"soon"}]}]}}`,
					"qpar.filter[0].operands[0].utc", nil, nil},
				{"ListDeadlines", `{"qpar":{"filter":[{"path":"dueAt","op":"EQUAL","operands":[{"s":"x"}]}]}}`,
					"qpar.filter[0].path", []string{`"dueAt"`, "due_at"}, nil},
				{"ListDeadlines", `{"qpar":{"sort":[{"path":"authority"}]}}`, "qpar.sort[0].path", []string{"sortable"}, nil},
				{"GetDeadlineSummary", `{"as_of":"yesterday"}`, "as_of", []string{`"yesterday"`}, []string{"asOf"}},
				{"GetDeadlineSummary", `{"asOf":"yesterday"}`, "asOf", []string{`"yesterday"`}, nil},
				{"GetDeadlineSummary", `{"from":"2027-01-01T00:00:00Z","to":"2026-01-01T00:00:00Z"}`, "to", []string{"not after from"}, nil},
			} {
				st, _, raw := d.do(t, call{path: rep + c.op, headers: headers, body: []byte(c.body)})
				check(t, c.op+" "+c.body, st, raw, c.field, c.has, c.hasNot...)
			}
		})
	})
}
