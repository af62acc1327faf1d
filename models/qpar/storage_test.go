package qpar_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/models/qpar"
)

// item is a row of the test table.
type item struct {
	ID    string     `gorm:"column:id"`
	Name  *string    `gorm:"column:name"`
	N     *int64     `gorm:"column:n"`
	Flag  *bool      `gorm:"column:flag"`
	At    *time.Time `gorm:"column:at"`
	Day   *string    `gorm:"column:day"`
	State *string    `gorm:"column:state"`
	Kind  *string    `gorm:"column:kind"`
}

func (item) TableName() string { return "qpar_items" }

func ptr[T any](v T) *T { return &v }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Rows, in id order:
//
//	id name       n    flag  at                        day         state
//	a  Alpha      1    true  2026-01-10T08:00:00Z      2026-01-10  OPEN
//	b  beta_50%   2    false 2026-01-10T23:59:59.5Z    2026-01-11  CLOSED
//	c  Gamma\x    3    true  2026-01-11T00:00:00Z      2026-01-12  OPEN
//	d  delta      2    null  2026-01-12T12:00:00Z      2026-02-01  DONE
//	e  null       null false null                      null        null
//	f  ALPHABET   5    true  2026-01-09T12:00:00Z      2025-12-31  CLOSED
var rows = []item{
	{ID: "a", Name: ptr("Alpha"), N: ptr[int64](1), Flag: ptr(true), At: ptr(ts("2026-01-10T08:00:00Z")), Day: ptr("2026-01-10"), State: ptr("OPEN"), Kind: ptr("x")},
	{ID: "b", Name: ptr("beta_50%"), N: ptr[int64](2), Flag: ptr(false), At: ptr(ts("2026-01-10T23:59:59.5Z")), Day: ptr("2026-01-11"), State: ptr("CLOSED")},
	{ID: "c", Name: ptr(`Gamma\x`), N: ptr[int64](3), Flag: ptr(true), At: ptr(ts("2026-01-11T00:00:00Z")), Day: ptr("2026-01-12"), State: ptr("OPEN")},
	{ID: "d", Name: ptr("delta"), N: ptr[int64](2), At: ptr(ts("2026-01-12T12:00:00Z")), Day: ptr("2026-02-01"), State: ptr("DONE")},
	{ID: "e", Flag: ptr(false)},
	{ID: "f", Name: ptr("ALPHABET"), N: ptr[int64](5), Flag: ptr(true), At: ptr(ts("2026-01-09T12:00:00Z")), Day: ptr("2025-12-31"), State: ptr("CLOSED")},
}

func testSchema() *qpar.Schema {
	return &qpar.Schema{
		Fields: []qpar.Field{
			{Path: "id", Column: "qpar_items.id", Kind: qpar.Text, Sortable: true},
			{Path: "name", Column: "name", Kind: qpar.Text, Sortable: true},
			{Path: "n", Column: "n", Kind: qpar.Integer, Sortable: true},
			{Path: "flag", Column: "flag", Kind: qpar.Bool, Sortable: true},
			{Path: "at", Column: "at", Kind: qpar.Time, Sortable: true},
			{Path: "day", Column: "day", Kind: qpar.Date, Sortable: true},
			{Path: "state", Column: "state", Kind: qpar.Enum, Values: []string{"OPEN", "CLOSED", "DONE"}, Sortable: true},
			{Path: "doc.document_type", Column: "kind", Kind: qpar.Text},
		},
		DefaultSort:     []qpar.Sort{{Path: "id"}},
		DefaultPageSize: 4,
		MaxPageSize:     5,
	}
}

func setup(t *testing.T, cfg configs.Database) *gorm.DB {
	t.Helper()
	db := dbtest.Open(t, cfg)
	tsType := "DATETIME"
	if db.Dialector.Name() == "postgres" {
		tsType = "TIMESTAMPTZ"
	}
	if err := db.Exec(`CREATE TABLE qpar_items (id TEXT PRIMARY KEY, name TEXT, n INTEGER, flag BOOLEAN,
		at ` + tsType + `, day TEXT, state TEXT, kind TEXT)`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(slices.Clone(rows)).Error; err != nil {
		t.Fatal(err)
	}
	return db
}

// query runs q and returns the ids found, in order, and the page size used.
func query(t *testing.T, db *gorm.DB, q *qpar.QueryParameter, s *qpar.Schema) ([]string, int32) {
	t.Helper()
	tx, size, err := qpar.Apply(db.Table("qpar_items"), q, s)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	ids := []string{}
	if err := tx.Pluck("id", &ids).Error; err != nil {
		t.Fatalf("query: %v", err)
	}
	return ids, size
}

func ids(s string) []string {
	out := []string{}
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// Operand constructors.
func ostr(v string) qpar.Operand { return qpar.Operand{S: &v} }
func oi(v int32) qpar.Operand    { return qpar.Operand{NInt32: &v} }
func ob(v bool) qpar.Operand     { return qpar.Operand{B: &v} }
func od(v string) qpar.Operand   { return qpar.Operand{D: &v} }
func odt(v string) qpar.Operand  { return qpar.Operand{Dt: &v} }
func ou(v string) qpar.Operand   { return qpar.Operand{UTC: &v} }
func on(units int64, nanos int32) qpar.Operand {
	return qpar.Operand{N: &qpar.Decimal{Units: units, Nanos: nanos}}
}

func f(path string, op qpar.Op, operands ...qpar.Operand) qpar.Filter {
	return qpar.Filter{Path: path, Op: op, Operands: operands}
}

var filterCases = []struct {
	name   string
	filter []qpar.Filter
	want   string // ids in id order
}{
	{"no filter", nil, "abcdef"},

	// Text.
	{"text equal", []qpar.Filter{f("name", qpar.Equal, ostr("Alpha"))}, "a"},
	{"text equal is case-sensitive", []qpar.Filter{f("name", qpar.Equal, ostr("alpha"))}, ""},
	{"text not equal includes null", []qpar.Filter{f("name", qpar.NotEqual, ostr("Alpha"))}, "bcdef"},
	{"text is null", []qpar.Filter{f("name", qpar.IsNull)}, "e"},
	{"text is not null", []qpar.Filter{f("name", qpar.IsNotNull)}, "abcdf"},
	{"contains ignores case", []qpar.Filter{f("name", qpar.Contains, ostr("alpha"))}, "af"},
	{"contains upper", []qpar.Filter{f("name", qpar.Contains, ostr("LPH"))}, "af"},
	{"contains escaped percent", []qpar.Filter{f("name", qpar.Contains, ostr("%"))}, "b"},
	{"contains escaped underscore", []qpar.Filter{f("name", qpar.Contains, ostr("_"))}, "b"},
	{"contains underscore percent", []qpar.Filter{f("name", qpar.Contains, ostr("A_50%"))}, "b"},
	{"contains backslash", []qpar.Filter{f("name", qpar.Contains, ostr(`\`))}, "c"},
	{"contains backslash x", []qpar.Filter{f("name", qpar.Contains, ostr(`A\X`))}, "c"},
	{"contains empty matches non-null", []qpar.Filter{f("name", qpar.Contains, ostr(""))}, "abcdf"},
	{"begins with", []qpar.Filter{f("name", qpar.BeginsWith, ostr("al"))}, "af"},
	{"begins with is anchored", []qpar.Filter{f("name", qpar.BeginsWith, ostr("pha"))}, ""},
	{"ends with", []qpar.Filter{f("name", qpar.EndsWith, ostr("TA"))}, "d"},
	{"ends with percent", []qpar.Filter{f("name", qpar.EndsWith, ostr("50%"))}, "b"},
	{"ends with is anchored", []qpar.Filter{f("name", qpar.EndsWith, ostr("alph"))}, ""},
	{"text lesser", []qpar.Filter{f("id", qpar.LesserThan, ostr("c"))}, "ab"},
	{"text lesser or equal", []qpar.Filter{f("id", qpar.LesserOrEqualThan, ostr("c"))}, "abc"},
	{"text greater", []qpar.Filter{f("id", qpar.GreaterThan, ostr("d"))}, "ef"},
	{"text greater or equal", []qpar.Filter{f("id", qpar.GreaterOrEqualThan, ostr("e"))}, "ef"},
	{"text between", []qpar.Filter{f("id", qpar.Between, ostr("b"), ostr("d"))}, "bcd"},
	{"text in list", []qpar.Filter{f("id", qpar.InList, ostr("a"), ostr("f"), ostr("zz"))}, "af"},
	{"dotted path", []qpar.Filter{f("doc.document_type", qpar.Equal, ostr("x"))}, "a"},

	// Integer.
	{"int equal", []qpar.Filter{f("n", qpar.Equal, oi(2))}, "bd"},
	{"int equal decimal", []qpar.Filter{f("n", qpar.Equal, on(2, 0))}, "bd"},
	{"int not equal", []qpar.Filter{f("n", qpar.NotEqual, oi(2))}, "acef"},
	{"int is null", []qpar.Filter{f("n", qpar.IsNull)}, "e"},
	{"int is not null", []qpar.Filter{f("n", qpar.IsNotNull)}, "abcdf"},
	{"int lesser", []qpar.Filter{f("n", qpar.LesserThan, oi(2))}, "a"},
	{"int lesser or equal", []qpar.Filter{f("n", qpar.LesserOrEqualThan, oi(2))}, "abd"},
	{"int greater", []qpar.Filter{f("n", qpar.GreaterThan, oi(2))}, "cf"},
	{"int greater or equal", []qpar.Filter{f("n", qpar.GreaterOrEqualThan, on(3, 0))}, "cf"},
	{"int greater negative", []qpar.Filter{f("n", qpar.GreaterThan, on(-1, 0))}, "abcdf"},
	{"int between", []qpar.Filter{f("n", qpar.Between, oi(2), on(3, 0))}, "bcd"},
	{"int in list", []qpar.Filter{f("n", qpar.InList, oi(1), oi(5), oi(7))}, "af"},
	{"int wide equal", []qpar.Filter{f("n", qpar.Equal, on(5_000_000_000, 0))}, ""},
	{"int wide lesser", []qpar.Filter{f("n", qpar.LesserThan, on(5_000_000_000, 0))}, "abcdf"},
	{"int wide greater", []qpar.Filter{f("n", qpar.GreaterThan, on(-5_000_000_000, 0))}, "abcdf"},
	{"int wide not equal", []qpar.Filter{f("n", qpar.NotEqual, on(5_000_000_000, 0))}, "abcdef"},
	{"int wide between", []qpar.Filter{f("n", qpar.Between, on(-5_000_000_000, 0), on(5_000_000_000, 0))}, "abcdf"},
	{"int wide in list", []qpar.Filter{f("n", qpar.InList, on(5_000_000_000, 0), oi(3))}, "c"},

	// Bool.
	{"bool equal true", []qpar.Filter{f("flag", qpar.Equal, ob(true))}, "acf"},
	{"bool equal false", []qpar.Filter{f("flag", qpar.Equal, ob(false))}, "be"},
	{"bool not equal", []qpar.Filter{f("flag", qpar.NotEqual, ob(true))}, "bde"},
	{"bool is null", []qpar.Filter{f("flag", qpar.IsNull)}, "d"},
	{"bool is not null", []qpar.Filter{f("flag", qpar.IsNotNull)}, "abcef"},
	{"bool in list", []qpar.Filter{f("flag", qpar.InList, ob(true), ob(false))}, "abcef"},

	// Time.
	{"time equal utc", []qpar.Filter{f("at", qpar.Equal, ou("2026-01-10T08:00:00Z"))}, "a"},
	{"time equal utc offset", []qpar.Filter{f("at", qpar.Equal, ou("2026-01-10T09:00:00+01:00"))}, "a"},
	{"time equal fraction", []qpar.Filter{f("at", qpar.Equal, ou("2026-01-10T23:59:59.5Z"))}, "b"},
	{"time equal dt", []qpar.Filter{f("at", qpar.Equal, odt("2026-01-11T00:00:00"))}, "c"},
	{"time equal dt fraction", []qpar.Filter{f("at", qpar.Equal, odt("2026-01-10T23:59:59.5"))}, "b"},
	{"time equal day", []qpar.Filter{f("at", qpar.Equal, od("2026-01-10"))}, "ab"},
	{"time not equal day", []qpar.Filter{f("at", qpar.NotEqual, od("2026-01-10"))}, "cdef"},
	{"time not equal utc", []qpar.Filter{f("at", qpar.NotEqual, ou("2026-01-10T08:00:00Z"))}, "bcdef"},
	{"time is null", []qpar.Filter{f("at", qpar.IsNull)}, "e"},
	{"time is not null", []qpar.Filter{f("at", qpar.IsNotNull)}, "abcdf"},
	{"time lesser day", []qpar.Filter{f("at", qpar.LesserThan, od("2026-01-10"))}, "f"},
	{"time lesser or equal day", []qpar.Filter{f("at", qpar.LesserOrEqualThan, od("2026-01-10"))}, "abf"},
	{"time greater day", []qpar.Filter{f("at", qpar.GreaterThan, od("2026-01-10"))}, "cd"},
	{"time greater or equal day", []qpar.Filter{f("at", qpar.GreaterOrEqualThan, od("2026-01-10"))}, "abcd"},
	{"time lesser utc", []qpar.Filter{f("at", qpar.LesserThan, ou("2026-01-11T00:00:00Z"))}, "abf"},
	{"time lesser or equal utc", []qpar.Filter{f("at", qpar.LesserOrEqualThan, ou("2026-01-11T00:00:00Z"))}, "abcf"},
	{"time greater dt", []qpar.Filter{f("at", qpar.GreaterThan, odt("2026-01-11T00:00:00"))}, "d"},
	{"time greater or equal dt", []qpar.Filter{f("at", qpar.GreaterOrEqualThan, odt("2026-01-11T00:00:00"))}, "cd"},
	{"time greater fraction", []qpar.Filter{f("at", qpar.GreaterThan, odt("2026-01-10T23:59:59"))}, "bcd"},
	{"time between days", []qpar.Filter{f("at", qpar.Between, od("2026-01-10"), od("2026-01-11"))}, "abc"},
	{"time between points", []qpar.Filter{f("at", qpar.Between, ou("2026-01-10T08:00:00Z"), odt("2026-01-11T00:00:00"))}, "abc"},
	{"time between day and point", []qpar.Filter{f("at", qpar.Between, od("2026-01-11"), ou("2026-01-12T12:00:00Z"))}, "cd"},
	{"time in list mixed", []qpar.Filter{f("at", qpar.InList, od("2026-01-09"), ou("2026-01-11T00:00:00Z"), od("2026-01-12"))}, "cdf"},
	{"time in list points", []qpar.Filter{f("at", qpar.InList, odt("2026-01-10T08:00:00"), odt("2026-01-11T00:00:00"))}, "ac"},
	{"time in list days", []qpar.Filter{f("at", qpar.InList, od("2026-01-09"), od("2026-01-12"))}, "df"},

	// Date (text).
	{"date equal", []qpar.Filter{f("day", qpar.Equal, od("2026-01-11"))}, "b"},
	{"date not equal", []qpar.Filter{f("day", qpar.NotEqual, od("2026-01-11"))}, "acdef"},
	{"date is null", []qpar.Filter{f("day", qpar.IsNull)}, "e"},
	{"date is not null", []qpar.Filter{f("day", qpar.IsNotNull)}, "abcdf"},
	{"date lesser", []qpar.Filter{f("day", qpar.LesserThan, od("2026-01-11"))}, "af"},
	{"date lesser or equal", []qpar.Filter{f("day", qpar.LesserOrEqualThan, od("2026-01-11"))}, "abf"},
	{"date greater", []qpar.Filter{f("day", qpar.GreaterThan, od("2026-01-12"))}, "d"},
	{"date greater or equal", []qpar.Filter{f("day", qpar.GreaterOrEqualThan, od("2026-01-12"))}, "cd"},
	{"date between", []qpar.Filter{f("day", qpar.Between, od("2026-01-01"), od("2026-01-31"))}, "abc"},
	{"date in list", []qpar.Filter{f("day", qpar.InList, od("2025-12-31"), od("2026-02-01"))}, "df"},
	{"date far future", []qpar.Filter{f("day", qpar.LesserThan, od("9999-12-31"))}, "abcdf"},

	// Enum.
	{"enum equal", []qpar.Filter{f("state", qpar.Equal, ostr("OPEN"))}, "ac"},
	{"enum not equal", []qpar.Filter{f("state", qpar.NotEqual, ostr("OPEN"))}, "bdef"},
	{"enum is null", []qpar.Filter{f("state", qpar.IsNull)}, "e"},
	{"enum is not null", []qpar.Filter{f("state", qpar.IsNotNull)}, "abcdf"},
	{"enum in list", []qpar.Filter{f("state", qpar.InList, ostr("CLOSED"), ostr("DONE"))}, "bdf"},

	// Several conditions all hold; OR inside one stays grouped.
	{"and", []qpar.Filter{f("state", qpar.InList, ostr("OPEN"), ostr("CLOSED")), f("n", qpar.GreaterThan, oi(1))}, "bcf"},
	{"and with not equal", []qpar.Filter{f("name", qpar.NotEqual, ostr("Alpha")), f("flag", qpar.Equal, ob(true))}, "cf"},
	{"and with day", []qpar.Filter{f("at", qpar.NotEqual, od("2026-01-10")), f("state", qpar.Equal, ostr("OPEN"))}, "c"},
	{"same path twice", []qpar.Filter{f("n", qpar.GreaterThan, oi(1)), f("n", qpar.LesserThan, oi(5))}, "bcd"},

	// Injection attempts in values are plain values.
	{"injection equal", []qpar.Filter{f("name", qpar.Equal, ostr("x' OR '1'='1"))}, ""},
	{"injection not equal", []qpar.Filter{f("name", qpar.NotEqual, ostr("x' OR '1'='1"))}, "abcdef"},
	{"injection contains", []qpar.Filter{f("name", qpar.Contains, ostr("'; DROP TABLE qpar_items; --"))}, ""},
	{"injection in list", []qpar.Filter{f("id", qpar.InList, ostr("a') OR ('1'='1"), ostr("b"))}, "b"},
	{"injection begins", []qpar.Filter{f("name", qpar.BeginsWith, ostr(`\' OR 1=1 --`))}, ""},
}

func TestStorage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := setup(t, cfg)
		s := testSchema()
		s.DefaultPageSize = 10
		s.MaxPageSize = 10

		t.Run("filter", func(t *testing.T) {
			for _, tc := range filterCases {
				t.Run(tc.name, func(t *testing.T) {
					got, _ := query(t, db, &qpar.QueryParameter{Filter: tc.filter}, s)
					if !slices.Equal(got, ids(tc.want)) {
						t.Errorf("got %v, want %v", got, ids(tc.want))
					}
				})
			}
		})

		t.Run("sort", func(t *testing.T) {
			for _, tc := range []struct {
				name string
				sort []qpar.Sort
				want string
			}{
				{"default", nil, "abcdef"},
				{"id desc", []qpar.Sort{{Path: "id", Direction: qpar.Desc}}, "fedcba"},
				{"int asc nulls last, tiebreak", []qpar.Sort{{Path: "n"}}, "abdcfe"},
				{"int desc nulls first, tiebreak asc", []qpar.Sort{{Path: "n", Direction: qpar.Desc}}, "efcbda"},
				{"int desc, id desc", []qpar.Sort{{Path: "n", Direction: qpar.Desc}, {Path: "id", Direction: qpar.Desc}}, "efcdba"},
				{"id before int", []qpar.Sort{{Path: "id", Direction: qpar.Desc}, {Path: "n"}}, "fedcba"},
				{"bool asc", []qpar.Sort{{Path: "flag"}}, "beacfd"},
				{"bool desc", []qpar.Sort{{Path: "flag", Direction: qpar.Desc}}, "dacfbe"},
				{"time asc", []qpar.Sort{{Path: "at"}}, "fabcde"},
				{"time desc", []qpar.Sort{{Path: "at", Direction: qpar.Desc}}, "edcbaf"},
				{"date asc", []qpar.Sort{{Path: "day"}}, "fabcde"},
				{"date desc", []qpar.Sort{{Path: "day", Direction: qpar.Desc}}, "edcbaf"},
				{"enum asc", []qpar.Sort{{Path: "state"}}, "bfdace"},
				{"enum asc, int desc", []qpar.Sort{{Path: "state"}, {Path: "n", Direction: qpar.Desc}}, "fbdcae"},
				{"enum desc", []qpar.Sort{{Path: "state", Direction: qpar.Desc}}, "eacdbf"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					got, _ := query(t, db, &qpar.QueryParameter{Sort: tc.sort}, s)
					if !slices.Equal(got, ids(tc.want)) {
						t.Errorf("got %v, want %v", got, ids(tc.want))
					}
				})
			}
		})

		t.Run("default sort appended", func(t *testing.T) {
			s2 := testSchema()
			s2.DefaultSort = []qpar.Sort{{Path: "n", Direction: qpar.Desc}, {Path: "id"}}
			if got, _ := query(t, db, nil, s2); !slices.Equal(got, ids("efcb")) {
				t.Errorf("no sort: got %v", got)
			}
			q := &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "state"}}, PageSize: 10}
			if got, size := query(t, db, q, s2); !slices.Equal(got, ids("fbdca")) || size != 5 {
				t.Errorf("state: got %v size %d", got, size)
			}
			q = &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "flag"}}, PageSize: 5}
			if got, _ := query(t, db, q, s2); !slices.Equal(got, ids("ebfca")) {
				t.Errorf("flag: got %v", got)
			}
			q = &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "flag"}, {Path: "id", Direction: qpar.Desc}}, PageSize: 5}
			if got, _ := query(t, db, q, s2); !slices.Equal(got, ids("ebfca")) {
				t.Errorf("flag, id desc: got %v", got)
			}
			q = &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "flag"}, {Path: "n"}}, PageSize: 5}
			if got, _ := query(t, db, q, s2); !slices.Equal(got, ids("beacf")) {
				t.Errorf("flag, n: got %v", got)
			}
		})

		t.Run("paging", func(t *testing.T) {
			s := testSchema() // default page size 4, maximum 5
			for _, tc := range []struct {
				name     string
				q        *qpar.QueryParameter
				want     string
				wantSize int32
			}{
				{"nil query", nil, "abcd", 4},
				{"default size", &qpar.QueryParameter{}, "abcd", 4},
				{"first page", &qpar.QueryParameter{PageSize: 2}, "ab", 2},
				{"second page", &qpar.QueryParameter{PageSize: 2, PageStart: 2}, "cd", 2},
				{"last page", &qpar.QueryParameter{PageSize: 2, PageStart: 4}, "ef", 2},
				{"past the end", &qpar.QueryParameter{PageSize: 2, PageStart: 6}, "", 2},
				{"offset without size", &qpar.QueryParameter{PageStart: 3}, "def", 4},
				{"clamped", &qpar.QueryParameter{PageSize: 1000}, "abcde", 5},
				{"clamped offset", &qpar.QueryParameter{PageSize: 6, PageStart: 1}, "bcdef", 5},
				{"exactly max", &qpar.QueryParameter{PageSize: 5}, "abcde", 5},
				{"sorted page 1", &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n", Direction: qpar.Desc}}, PageSize: 2}, "ef", 2},
				{"sorted page 2", &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n", Direction: qpar.Desc}}, PageSize: 2, PageStart: 2}, "cb", 2},
				{"sorted page 3", &qpar.QueryParameter{Sort: []qpar.Sort{{Path: "n", Direction: qpar.Desc}}, PageSize: 2, PageStart: 4}, "da", 2},
				{"filtered page", &qpar.QueryParameter{Filter: []qpar.Filter{f("flag", qpar.Equal, ob(true))}, PageSize: 2, PageStart: 1}, "cf", 2},
			} {
				t.Run(tc.name, func(t *testing.T) {
					got, size := query(t, db, tc.q, s)
					if !slices.Equal(got, ids(tc.want)) || size != tc.wantSize {
						t.Errorf("got %v size %d, want %v size %d", got, size, ids(tc.want), tc.wantSize)
					}
				})
			}
		})

		t.Run("where counts", func(t *testing.T) {
			for _, tc := range []struct {
				q    *qpar.QueryParameter
				want int64
			}{
				{nil, 6},
				{&qpar.QueryParameter{}, 6},
				{&qpar.QueryParameter{Filter: []qpar.Filter{f("state", qpar.Equal, ostr("OPEN"))}, PageSize: 1, PageStart: 1}, 2},
				{&qpar.QueryParameter{Filter: []qpar.Filter{f("at", qpar.Equal, od("2026-01-10"))}, Sort: []qpar.Sort{{Path: "n"}}}, 2},
				// Where ignores sort and paging, even invalid ones.
				{&qpar.QueryParameter{Sort: []qpar.Sort{{Path: "nope"}}, PageSize: -1}, 6},
			} {
				tx, err := qpar.Where(db.Table("qpar_items"), tc.q, s)
				if err != nil {
					t.Fatalf("Where: %v", err)
				}
				var n int64
				if err := tx.Count(&n).Error; err != nil {
					t.Fatal(err)
				}
				if n != tc.want {
					t.Errorf("count %+v = %d, want %d", tc.q, n, tc.want)
				}
			}
		})

		t.Run("injection in paths", func(t *testing.T) {
			for _, q := range []*qpar.QueryParameter{
				{Filter: []qpar.Filter{f("name; DROP TABLE qpar_items; --", qpar.IsNull)}},
				{Filter: []qpar.Filter{f("1=1 OR name", qpar.Equal, ostr("x"))}},
				{Filter: []qpar.Filter{f("name", qpar.IsNull), f("(SELECT 1)", qpar.IsNull)}},
				{Sort: []qpar.Sort{{Path: "id; DROP TABLE qpar_items"}}},
				{Sort: []qpar.Sort{{Path: "(CASE WHEN 1=1 THEN id END)"}}},
			} {
				_, _, err := qpar.Apply(db.Table("qpar_items"), q, s)
				var qe *qpar.Error
				if !errors.As(err, &qe) || !strings.Contains(qe.Reason, "unknown path") {
					t.Errorf("%+v: got %v, want unknown path", q, err)
				}
			}
			var n int64
			if err := db.Table("qpar_items").Count(&n).Error; err != nil || n != int64(len(rows)) {
				t.Errorf("table after attempts: %d rows, %v", n, err)
			}
		})
	})
}
