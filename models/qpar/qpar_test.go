package qpar_test

import (
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/models/qpar"
)

func TestApplyErrors(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLite(t)) // errors come before any query
	s := testSchema()
	many := make([]qpar.Operand, qpar.MaxListOperands+1)
	for i := range many {
		many[i] = oi(int32(i))
	}
	two := "x"
	three := int32(3)

	for _, tc := range []struct {
		name  string
		q     qpar.QueryParameter
		field string
		// reason holds a fragment of the expected reason.
		reason string
	}{
		{"unknown path", qpar.QueryParameter{Filter: []qpar.Filter{f("nope", qpar.IsNull)}}, "qpar.filter[0].path", "unknown path"},
		{"empty path", qpar.QueryParameter{Filter: []qpar.Filter{f("", qpar.IsNull)}}, "qpar.filter[0].path", "unknown path"},
		{"column is not a path", qpar.QueryParameter{Filter: []qpar.Filter{f("kind", qpar.IsNull)}}, "qpar.filter[0].path", "unknown path"},
		{"lowerCamel is not a path", qpar.QueryParameter{Filter: []qpar.Filter{f("doc.documentType", qpar.IsNull)}}, "qpar.filter[0].path", "unknown path"},
		{"second filter", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.IsNull), f("x", qpar.IsNull)}}, "qpar.filter[1].path", "unknown path"},
		{"op too large", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Op(13))}}, "qpar.filter[0].op", "unknown op 13"},
		{"op negative", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Op(-1))}}, "qpar.filter[0].op", "unknown op"},

		{"contains on integer", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Contains, oi(1))}}, "qpar.filter[0].op", "CONTAINS is not allowed on integer"},
		{"begins with on time", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.BeginsWith, od("2026-01-01"))}}, "qpar.filter[0].op", "not allowed"},
		{"ends with on enum", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.EndsWith, ostr("N"))}}, "qpar.filter[0].op", "not allowed on enum"},
		{"contains on date", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Contains, od("2026-01-01"))}}, "qpar.filter[0].op", "not allowed"},
		{"contains on bool", qpar.QueryParameter{Filter: []qpar.Filter{f("flag", qpar.Contains, ob(true))}}, "qpar.filter[0].op", "not allowed"},
		{"lesser on bool", qpar.QueryParameter{Filter: []qpar.Filter{f("flag", qpar.LesserThan, ob(true))}}, "qpar.filter[0].op", "not allowed"},
		{"between on enum", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.Between, ostr("DONE"), ostr("OPEN"))}}, "qpar.filter[0].op", "not allowed"},
		{"greater on enum", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.GreaterThan, ostr("DONE"))}}, "qpar.filter[0].op", "not allowed"},

		{"is null with operand", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.IsNull, oi(1))}}, "qpar.filter[0].operands", "no operands, got 1"},
		{"is not null with operand", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.IsNotNull, oi(1))}}, "qpar.filter[0].operands", "no operands"},
		{"equal without operand", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal)}}, "qpar.filter[0].operands", "1 operand, got 0"},
		{"equal with two", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, oi(1), oi(2))}}, "qpar.filter[0].operands", "1 operand, got 2"},
		{"contains with two", qpar.QueryParameter{Filter: []qpar.Filter{f("name", qpar.Contains, ostr("a"), ostr("b"))}}, "qpar.filter[0].operands", "1 operand"},
		{"between with one", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Between, oi(1))}}, "qpar.filter[0].operands", "2 operands, got 1"},
		{"between with three", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Between, oi(1), oi(2), oi(3))}}, "qpar.filter[0].operands", "2 operands, got 3"},
		{"in list empty", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.InList)}}, "qpar.filter[0].operands", "1 to 1000 operands, got 0"},
		{"in list too long", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.InList, many...)}}, "qpar.filter[0].operands", "got 1001"},

		{"operand empty", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, qpar.Operand{})}}, "qpar.filter[0].operands[0]", "no value"},
		{"operand with two values", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, qpar.Operand{S: &two, NInt32: &three})}}, "qpar.filter[0].operands[0]", "more than one value (s, nInt32)"},
		{"text takes s", qpar.QueryParameter{Filter: []qpar.Filter{f("name", qpar.Equal, oi(1))}}, "qpar.filter[0].operands[0]", "takes s, not nInt32"},
		{"integer takes number", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, ostr("1"))}}, "qpar.filter[0].operands[0]", "not s"},
		{"integer no nanos", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, on(1, 500_000_000))}}, "qpar.filter[0].operands[0].n", "nanos must be 0"},
		{"decimal nanos range", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, on(1, 1_000_000_000))}}, "qpar.filter[0].operands[0].n", "nanos must be between"},
		{"decimal signs", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Equal, on(-1, 5))}}, "qpar.filter[0].operands[0].n", "same sign"},
		{"bool takes b", qpar.QueryParameter{Filter: []qpar.Filter{f("flag", qpar.Equal, ostr("true"))}}, "qpar.filter[0].operands[0]", "takes b, not s"},
		{"time takes times", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, ostr("2026-01-01"))}}, "qpar.filter[0].operands[0]", "takes utc, dt or d, not s"},
		{"time not decimal", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, on(1, 0))}}, "qpar.filter[0].operands[0]", "not n"},
		{"date takes d", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Equal, odt("2026-01-01T00:00:00"))}}, "qpar.filter[0].operands[0]", "takes d, not dt"},
		{"date not utc", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Equal, ou("2026-01-01T00:00:00Z"))}}, "qpar.filter[0].operands[0]", "not utc"},
		{"enum takes s", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.Equal, ob(true))}}, "qpar.filter[0].operands[0]", "takes s, not b"},
		{"enum value", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.Equal, ostr("opened"))}}, "qpar.filter[0].operands[0].s", "allowed: OPEN, CLOSED, DONE"},
		{"enum injection", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.Equal, ostr("OPEN' OR '1'='1"))}}, "qpar.filter[0].operands[0].s", "is not a value"},
		{"enum in list value", qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.InList, ostr("OPEN"), ostr("X"))}}, "qpar.filter[0].operands[1].s", "is not a value"},
		{"between second operand", qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.Between, oi(1), ob(true))}}, "qpar.filter[0].operands[1]", "not b"},
		{"in list third operand", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.InList, od("2026-01-01"), od("2026-01-02"), od("2026-01-3"))}}, "qpar.filter[0].operands[2].d", "not a date"},

		{"bad date", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Equal, od("2026-13-01"))}}, "qpar.filter[0].operands[0].d", "not a date YYYY-MM-DD"},
		{"short date", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Equal, od("2026-1-05"))}}, "qpar.filter[0].operands[0].d", "not a date"},
		{"date with time", qpar.QueryParameter{Filter: []qpar.Filter{f("day", qpar.Equal, od("2026-01-05T00:00:00"))}}, "qpar.filter[0].operands[0].d", "not a date"},
		{"day on time field", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, od("2026-02-30"))}}, "qpar.filter[0].operands[0].d", "not a date"},
		{"dt with zone", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, odt("2026-01-05T00:00:00Z"))}}, "qpar.filter[0].operands[0].dt", "no zone"},
		{"dt without time", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, odt("2026-01-05"))}}, "qpar.filter[0].operands[0].dt", "YYYY-MM-DDTHH:MM:SS"},
		{"utc without zone", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, ou("2026-01-05T00:00:00"))}}, "qpar.filter[0].operands[0].utc", "RFC 3339"},
		{"utc garbage", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, ou("now"))}}, "qpar.filter[0].operands[0].utc", "RFC 3339"},
		{"utc beyond 9999", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, ou("9999-12-31T23:00:00-05:00"))}}, "qpar.filter[0].operands[0].utc", "out of range"},
		{"utc before year 1", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, ou("0001-01-01T00:00:00+01:00"))}}, "qpar.filter[0].operands[0].utc", "out of range"},
		{"day beyond range", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, od("9999-12-31"))}}, "qpar.filter[0].operands[0].d", "out of range"},
		{"day year 0", qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, od("0000-06-01"))}}, "qpar.filter[0].operands[0].d", "out of range"},

		{"sort unknown", qpar.QueryParameter{Sort: []qpar.Sort{{Path: "nope"}}}, "qpar.sort[0].path", "unknown path"},
		{"sort not sortable", qpar.QueryParameter{Sort: []qpar.Sort{{Path: "doc.document_type"}}}, "qpar.sort[0].path", "not sortable"},
		{"sort twice", qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n"}, {Path: "n", Direction: qpar.Desc}}}, "qpar.sort[1].path", "more than once"},
		{"sort direction", qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n", Direction: 2}}}, "qpar.sort[0].direction", "unknown direction 2"},
		{"sort direction negative", qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n", Direction: -1}}}, "qpar.sort[0].direction", "unknown direction"},

		{"negative page start", qpar.QueryParameter{PageStart: -1}, "qpar.pageStart", "negative"},
		{"negative page size", qpar.QueryParameter{PageSize: -1}, "qpar.pageSize", "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx, size, err := qpar.Apply(db.Table("qpar_items"), &tc.q, s)
			var qe *qpar.Error
			if !errors.As(err, &qe) {
				t.Fatalf("Apply: got %v (%T), want *qpar.Error", err, err)
			}
			if tx != nil || size != 0 {
				t.Errorf("Apply returned %v, %d with the error", tx, size)
			}
			if qe.Field != tc.field || !strings.Contains(qe.Reason, tc.reason) {
				t.Errorf("got %q: %q, want %q: …%s…", qe.Field, qe.Reason, tc.field, tc.reason)
			}
			if !strings.Contains(qe.Error(), tc.field) {
				t.Errorf("Error() = %q lacks the field", qe.Error())
			}
			if len(tc.q.Filter) > 0 {
				_, err := qpar.Where(db.Table("qpar_items"), &tc.q, s)
				var we *qpar.Error
				if !errors.As(err, &we) || *we != *qe {
					t.Errorf("Where: got %v, want %v", err, qe)
				}
			}
		})
	}
}

func TestSchemaMistakes(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLite(t))
	for name, edit := range map[string]func(*qpar.Schema){
		"default sort unknown":      func(s *qpar.Schema) { s.DefaultSort = []qpar.Sort{{Path: "nope"}} },
		"default sort not sortable": func(s *qpar.Schema) { s.DefaultSort = []qpar.Sort{{Path: "doc.document_type"}} },
		"default sort direction":    func(s *qpar.Schema) { s.DefaultSort = []qpar.Sort{{Path: "id", Direction: 5}} },
		"no default page size":      func(s *qpar.Schema) { s.DefaultPageSize = 0 },
		"max below default":         func(s *qpar.Schema) { s.MaxPageSize = 3 },
		"duplicate field":           func(s *qpar.Schema) { s.Fields = append(s.Fields, s.Fields[0]) },
		"empty column":              func(s *qpar.Schema) { s.Fields[1].Column = "" },
		"enum without values":       func(s *qpar.Schema) { s.Fields[6].Values = nil },
		"unknown kind":              func(s *qpar.Schema) { s.Fields[1].Kind = 42 },
	} {
		t.Run(name, func(t *testing.T) {
			s := testSchema()
			edit(s)
			var qe *qpar.Error
			if _, _, err := qpar.Apply(db, &qpar.QueryParameter{}, s); err == nil || errors.As(err, &qe) {
				t.Errorf("Apply: got %v, want a schema error", err)
			}
			if _, err := qpar.Where(db, &qpar.QueryParameter{}, s); err == nil || errors.As(err, &qe) {
				t.Errorf("Where: got %v, want a schema error", err)
			}
		})
	}
	if _, _, err := qpar.Apply(db, nil, nil); err == nil {
		t.Error("nil schema accepted")
	}
}

func TestMaskSelects(t *testing.T) {
	allowed := []string{"id", "number", "doc.documentType", "doc.number", "dueAt"}
	for _, tc := range []struct {
		mask string
		want []string // nil: all
	}{
		{"", nil},
		{"  ", nil},
		{"id", []string{"id"}},
		{"id,dueAt", []string{"id", "dueAt"}},
		{" id , dueAt ", []string{"id", "dueAt"}},
		{"id,id", []string{"id"}},
		{"doc", []string{"doc.documentType", "doc.number"}},
		{"doc.number", []string{"doc.number"}},
		{"doc.number,doc", []string{"doc.documentType", "doc.number"}},
	} {
		got, err := qpar.MaskSelects(tc.mask, allowed)
		if err != nil {
			t.Errorf("%q: %v", tc.mask, err)
			continue
		}
		if tc.want == nil {
			if got != nil {
				t.Errorf("%q: got %v, want nil", tc.mask, got)
			}
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.mask, got, tc.want)
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%q: got %v, want %v", tc.mask, got, tc.want)
			}
		}
	}
	for _, mask := range []string{"nope", "id,nope", "Id", "due_at", "do", "doc.", "doc.numberX", "id,", ",id", "id,,number", "*"} {
		_, err := qpar.MaskSelects(mask, allowed)
		var qe *qpar.Error
		if !errors.As(err, &qe) || qe.Field != "qpar.mask" {
			t.Errorf("%q: got %v, want *Error on qpar.mask", mask, err)
		}
	}
}

func TestDescribe(t *testing.T) {
	d := qpar.Describe(testSchema())
	for _, want := range []string{
		"- `id`: text, operand s, sortable; ops EQUAL, NOT_EQUAL, IS_NULL, IS_NOT_NULL, CONTAINS, BEGINS_WITH, ENDS_WITH, LESSER_THAN",
		"- `n`: integer, operand nInt32 or n (without nanos), sortable; ops EQUAL, NOT_EQUAL, IS_NULL, IS_NOT_NULL, LESSER_THAN",
		"- `flag`: Boolean, operand b, sortable; ops EQUAL, NOT_EQUAL, IS_NULL, IS_NOT_NULL, IN_LIST\n",
		"- `at`: timestamp, operand utc, dt or d, sortable;",
		"- `day`: date, operand d, sortable;",
		"- `state`: enum (OPEN, CLOSED, DONE), operand s, sortable; ops EQUAL, NOT_EQUAL, IS_NULL, IS_NOT_NULL, IN_LIST\n",
		"- `doc.document_type`: text, operand s; ops",
		"Default sort: `id` ASC",
		"4 when 0, at most 5",
		"ignore case",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q:\n%s", want, d)
		}
	}
}

func TestEnums(t *testing.T) {
	if n := qpar.Op(0).EnumNames(); len(n) != 13 || n[qpar.Equal] != "EQUAL" || n[qpar.InList] != "IN_LIST" ||
		n[qpar.GreaterOrEqualThan] != "GREATER_OR_EQUAL_THAN" || n[qpar.BeginsWith] != "BEGINS_WITH" {
		t.Errorf("Op names %v", n)
	}
	if n := qpar.Direction(0).EnumNames(); len(n) != 2 || n[qpar.Asc] != "ASC" || n[qpar.Desc] != "DESC" {
		t.Errorf("Direction names %v", n)
	}
	if qpar.Op(99).String() != "Op(99)" || qpar.Between.String() != "BETWEEN" || qpar.Desc.String() != "DESC" {
		t.Error("String")
	}
}

// TestWire checks the types against the project's JSON codec.
func TestWire(t *testing.T) {
	in := `{"mask":"id,dueAt","filter":[` +
		`{"path":"n","op":"BETWEEN","operands":[{"nInt32":1},{"n":{"units":"3","nanos":0}}]},` +
		`{"path":"at","op":10,"operands":[{"utc":"2026-01-01T00:00:00Z"}]},` +
		`{"path":"name","operands":[{"s":"x"}]}],` +
		`"sort":[{"path":"n","direction":"DESC"},{"path":"id"}],"pageStart":4,"pageSize":2}`
	var q qpar.QueryParameter
	if err := codec.Unmarshal([]byte(in), &q); err != nil {
		t.Fatal(err)
	}
	if q.Mask != "id,dueAt" || len(q.Filter) != 3 || q.Filter[0].Op != qpar.Between ||
		*q.Filter[0].Operands[0].NInt32 != 1 || *q.Filter[0].Operands[1].N != (qpar.Decimal{Units: 3}) ||
		q.Filter[1].Op != qpar.GreaterOrEqualThan || *q.Filter[1].Operands[0].UTC != "2026-01-01T00:00:00Z" ||
		q.Filter[2].Op != qpar.Equal || q.Sort[0].Direction != qpar.Desc || q.Sort[1].Direction != qpar.Asc ||
		q.PageStart != 4 || q.PageSize != 2 {
		t.Errorf("decoded %+v", q)
	}

	out, err := codec.Marshal(qpar.QueryParameter{Filter: []qpar.Filter{f("n", qpar.IsNull)}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mask":"","filter":[{"path":"n","op":"IS_NULL","operands":[]}],"sort":[],"pageStart":0,"pageSize":0}`
	if string(out) != want {
		t.Errorf("Marshal = %s\nwant      %s", out, want)
	}
	out, err = codec.Marshal(qpar.Operand{N: &qpar.Decimal{Units: -5, Nanos: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"s":null,"nInt32":null,"b":null,"n":{"units":"-5","nanos":-1},"d":null,"dt":null,"utc":null}`; string(out) != want {
		t.Errorf("Marshal = %s\nwant      %s", out, want)
	}
}

// TestSQL checks the statement text: client values only ever appear among
// the bound parameters.
func TestSQL(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLite(t))
	evil := "x'); DROP TABLE qpar_items; --"
	q := &qpar.QueryParameter{
		Filter: []qpar.Filter{
			f("name", qpar.Contains, ostr(evil)),
			f("id", qpar.NotEqual, ostr(evil)),
			f("at", qpar.Equal, od("2026-01-10")),
			f("n", qpar.InList, oi(1), on(5_000_000_000, 0)),
		},
		Sort:     []qpar.Sort{{Path: "n", Direction: qpar.Desc}},
		PageSize: 3, PageStart: 6,
	}
	tx, _, err := qpar.Apply(db.Session(&gorm.Session{DryRun: true}).Table("qpar_items"), q, testSchema())
	if err != nil {
		t.Fatal(err)
	}
	stmt := tx.Find(&[]item{}).Statement
	// gorm adds another pair of parentheses around conditions with OR or AND.
	want := "SELECT * FROM `qpar_items` WHERE LOWER(name) LIKE LOWER(?) ESCAPE '\\' " +
		"AND ((qpar_items.id <> ? OR qpar_items.id IS NULL)) AND ((at >= ? AND at < ?)) " +
		"AND (n IN (?, CAST(? AS BIGINT))) " +
		"ORDER BY n DESC NULLS FIRST,qpar_items.id ASC NULLS LAST LIMIT 3 OFFSET 6"
	if got := stmt.SQL.String(); got != want {
		t.Errorf("SQL\n got %s\nwant %s", got, want)
	}
	if len(stmt.Vars) != 6 || stmt.Vars[0] != `%x'); DROP TABLE qpar\_items; --%` || stmt.Vars[1] != evil ||
		stmt.Vars[2] != ts("2026-01-10T00:00:00Z") || stmt.Vars[3] != ts("2026-01-11T00:00:00Z") {
		t.Errorf("vars %#v", stmt.Vars)
	}
}
