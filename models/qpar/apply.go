package qpar

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// MaxListOperands is the largest number of operands IN_LIST takes.
const MaxListOperands = 1000

// Layouts of the date and date-time operands.
const (
	dateLayout     = "2006-01-02"
	dateTimeLayout = "2006-01-02T15:04:05" // fractional seconds are accepted too
)

// Apply validates q against s and returns db with WHERE, ORDER BY, LIMIT and
// OFFSET added, plus the page size used.
//
// A pageSize of 0 means s.DefaultPageSize; one above s.MaxPageSize is
// reduced to it (not an error). The entries of s.DefaultSort missing from
// q.Sort are appended to it (all of them when q.Sort is empty), so the order
// always ends with a stable tiebreak. A nil q means no filter, the default
// sort and the first page of the default size.
//
// Client mistakes are returned as *Error, a faulty Schema as another error;
// with an error the returned *gorm.DB is nil.
func Apply(db *gorm.DB, q *QueryParameter, s *Schema) (*gorm.DB, int32, error) {
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	if q == nil {
		q = &QueryParameter{}
	}
	conds, err := conditions(q, s)
	if err != nil {
		return nil, 0, err
	}
	order, err := orderBy(q, s)
	if err != nil {
		return nil, 0, err
	}
	if q.PageStart < 0 {
		return nil, 0, errorf("qpar.pageStart", "must not be negative")
	}
	size := q.PageSize
	switch {
	case size < 0:
		return nil, 0, errorf("qpar.pageSize", "must not be negative")
	case size == 0:
		size = s.DefaultPageSize
	case size > s.MaxPageSize:
		size = s.MaxPageSize
	}
	for _, c := range conds {
		db = db.Where(c)
	}
	for _, o := range order {
		db = db.Order(o)
	}
	return db.Limit(int(size)).Offset(int(q.PageStart)), size, nil
}

// Where applies only the filter of q (for counting totals and summaries); it
// neither checks nor applies q's sort and paging. A nil q adds nothing.
// Errors are as for Apply.
func Where(db *gorm.DB, q *QueryParameter, s *Schema) (*gorm.DB, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if q == nil {
		return db, nil
	}
	conds, err := conditions(q, s)
	if err != nil {
		return nil, err
	}
	for _, c := range conds {
		db = db.Where(c)
	}
	return db, nil
}

// check reports mistakes in the schema itself.
func (s *Schema) check() error {
	if s == nil {
		return errors.New("qpar: nil schema")
	}
	seen := make(map[string]bool, len(s.Fields))
	for _, f := range s.Fields {
		switch {
		case f.Path == "" || f.Column == "":
			return fmt.Errorf("qpar: field %q: empty path or column", f.Path)
		case seen[f.Path]:
			return fmt.Errorf("qpar: field %q declared twice", f.Path)
		case f.Kind < Text || f.Kind > Enum:
			return fmt.Errorf("qpar: field %q: unknown kind %d", f.Path, int(f.Kind))
		case f.Kind == Enum && len(f.Values) == 0:
			return fmt.Errorf("qpar: enum field %q has no values", f.Path)
		}
		seen[f.Path] = true
	}
	if s.DefaultPageSize <= 0 || s.MaxPageSize < s.DefaultPageSize {
		return fmt.Errorf("qpar: page sizes: default %d must be positive and at most the maximum %d",
			s.DefaultPageSize, s.MaxPageSize)
	}
	for _, so := range s.DefaultSort {
		if f := s.field(so.Path); f == nil || !f.Sortable {
			return fmt.Errorf("qpar: default sort %q is not a sortable field", so.Path)
		}
		if !so.Direction.valid() {
			return fmt.Errorf("qpar: default sort %q: unknown direction %d", so.Path, int32(so.Direction))
		}
	}
	return nil
}

func (s *Schema) field(path string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Path == path {
			return &s.Fields[i]
		}
	}
	return nil
}

func (s *Schema) paths(sortable bool) string {
	var ps []string
	for _, f := range s.Fields {
		if !sortable || f.Sortable {
			ps = append(ps, f.Path)
		}
	}
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ", ")
}

func (d Direction) valid() bool { return d >= 0 && int(d) < len(directionNames) }

func orderBy(q *QueryParameter, s *Schema) ([]string, error) {
	seen := make(map[string]bool, len(q.Sort)+len(s.DefaultSort))
	order := make([]string, 0, len(q.Sort)+len(s.DefaultSort))
	for i, so := range q.Sort {
		at := fmt.Sprintf("qpar.sort[%d]", i)
		f := s.field(so.Path)
		switch {
		case f == nil:
			return nil, errorf(at+".path", "unknown path %q; sortable paths: %s", so.Path, s.paths(true))
		case !f.Sortable:
			return nil, errorf(at+".path", "%q is not sortable; sortable paths: %s", so.Path, s.paths(true))
		case seen[so.Path]:
			return nil, errorf(at+".path", "%q is sorted by more than once", so.Path)
		case !so.Direction.valid():
			return nil, errorf(at+".direction", "unknown direction %d", int32(so.Direction))
		}
		seen[so.Path] = true
		order = append(order, orderTerm(f.Column, so.Direction))
	}
	for _, so := range s.DefaultSort {
		if !seen[so.Path] {
			seen[so.Path] = true
			order = append(order, orderTerm(s.field(so.Path).Column, so.Direction))
		}
	}
	return order, nil
}

// orderTerm sorts nulls as if larger than every value, the PostgreSQL default
// and the opposite of SQLite's, so both databases agree.
func orderTerm(column string, d Direction) string {
	if d == Desc {
		return column + " DESC NULLS FIRST"
	}
	return column + " ASC NULLS LAST"
}

func conditions(q *QueryParameter, s *Schema) ([]clause.Expr, error) {
	conds := make([]clause.Expr, 0, len(q.Filter))
	for i := range q.Filter {
		c, err := condition(fmt.Sprintf("qpar.filter[%d]", i), &q.Filter[i], s)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// allowedOps returns the ops a kind accepts, in number order.
func allowedOps(k Kind) []Op {
	switch k {
	case Text:
		return []Op{Equal, NotEqual, IsNull, IsNotNull, Contains, BeginsWith, EndsWith,
			LesserThan, GreaterThan, LesserOrEqualThan, GreaterOrEqualThan, Between, InList}
	case Integer, Time, Date:
		return []Op{Equal, NotEqual, IsNull, IsNotNull,
			LesserThan, GreaterThan, LesserOrEqualThan, GreaterOrEqualThan, Between, InList}
	default: // Bool, Enum: no order
		return []Op{Equal, NotEqual, IsNull, IsNotNull, InList}
	}
}

// operandCount returns how many operands op takes.
func operandCount(op Op) (lo, hi int, text string) {
	switch op {
	case IsNull, IsNotNull:
		return 0, 0, "no operands"
	case Between:
		return 2, 2, "2 operands"
	case InList:
		return 1, MaxListOperands, fmt.Sprintf("1 to %d operands", MaxListOperands)
	default:
		return 1, 1, "1 operand"
	}
}

// operandNames says which operand members a kind takes.
func operandNames(k Kind) string {
	switch k {
	case Integer:
		return "nInt32 or n (without nanos)"
	case Bool:
		return "b"
	case Time:
		return "utc, dt or d"
	case Date:
		return "d"
	default: // Text, Enum
		return "s"
	}
}

// value is one bound operand. A date on a Time field is the range [v, hi);
// hi is nil for single values.
type value struct {
	v, hi any
	wide  bool // an integer beyond int32: cast the parameter to BIGINT
}

func (x value) ph() string {
	if x.wide {
		return "CAST(? AS BIGINT)"
	}
	return "?"
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func condition(at string, f *Filter, s *Schema) (clause.Expr, error) {
	fd := s.field(f.Path)
	if fd == nil {
		return clause.Expr{}, errorf(at+".path", "unknown path %q; filterable paths: %s", f.Path, s.paths(false))
	}
	if !f.Op.valid() {
		return clause.Expr{}, errorf(at+".op", "unknown op %d", int32(f.Op))
	}
	if ops := allowedOps(fd.Kind); !slices.Contains(ops, f.Op) {
		return clause.Expr{}, errorf(at+".op", "%s is not allowed on %s field %q; allowed: %s",
			f.Op, fd.Kind, fd.Path, joinOps(ops))
	}
	if lo, hi, text := operandCount(f.Op); len(f.Operands) < lo || len(f.Operands) > hi {
		return clause.Expr{}, errorf(at+".operands", "%s takes %s, got %d", f.Op, text, len(f.Operands))
	}
	vals := make([]value, len(f.Operands))
	for j := range f.Operands {
		v, err := operand(fmt.Sprintf("%s.operands[%d]", at, j), fd, &f.Operands[j])
		if err != nil {
			return clause.Expr{}, err
		}
		vals[j] = v
	}

	var b builder
	c := fd.Column
	switch f.Op {
	case IsNull:
		b.sql(c + " IS NULL")
	case IsNotNull:
		b.sql(c + " IS NOT NULL")
	case Contains, BeginsWith, EndsWith:
		p := likeEscaper.Replace(vals[0].v.(string))
		switch f.Op {
		case Contains:
			p = "%" + p + "%"
		case BeginsWith:
			p += "%"
		default:
			p = "%" + p
		}
		b.sql("LOWER("+c+`) LIKE LOWER(?) ESCAPE '\'`, p)
	case Equal:
		b.equal(c, vals[0])
	case NotEqual:
		if x := vals[0]; x.hi != nil {
			b.sql("("+c+" < ? OR "+c+" >= ? OR "+c+" IS NULL)", x.v, x.hi)
		} else {
			b.sql("("+c+" <> "+x.ph()+" OR "+c+" IS NULL)", x.v)
		}
	case LesserThan:
		b.sql(c+" < "+vals[0].ph(), vals[0].v)
	case GreaterOrEqualThan:
		b.sql(c+" >= "+vals[0].ph(), vals[0].v)
	case LesserOrEqualThan:
		b.atMost(c, vals[0])
	case GreaterThan:
		if x := vals[0]; x.hi != nil {
			b.sql(c+" >= ?", x.hi)
		} else {
			b.sql(c+" > "+x.ph(), x.v)
		}
	case Between:
		b.sql("("+c+" >= "+vals[0].ph()+" AND ", vals[0].v)
		b.atMost(c, vals[1])
		b.sql(")")
	case InList:
		b.inList(c, vals)
	}
	return b.expr(), nil
}

func joinOps(ops []Op) string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.String()
	}
	return strings.Join(names, ", ")
}

// builder assembles the SQL text and parameters of one condition.
type builder struct {
	b    strings.Builder
	vars []any
}

func (b *builder) sql(s string, vars ...any) {
	b.b.WriteString(s)
	b.vars = append(b.vars, vars...)
}

func (b *builder) equal(c string, x value) {
	if x.hi != nil {
		b.sql("("+c+" >= ? AND "+c+" < ?)", x.v, x.hi)
	} else {
		b.sql(c+" = "+x.ph(), x.v)
	}
}

func (b *builder) atMost(c string, x value) {
	if x.hi != nil {
		b.sql(c+" < ?", x.hi)
	} else {
		b.sql(c+" <= "+x.ph(), x.v)
	}
}

func (b *builder) inList(c string, vals []value) {
	var single []value
	parts := 0
	b.sql("(")
	for _, x := range vals {
		if x.hi == nil {
			single = append(single, x)
			continue
		}
		if parts > 0 {
			b.sql(" OR ")
		}
		b.equal(c, x)
		parts++
	}
	if len(single) > 0 {
		if parts > 0 {
			b.sql(" OR ")
		}
		b.sql(c + " IN (")
		for i, x := range single {
			if i > 0 {
				b.sql(", ")
			}
			b.sql(x.ph(), x.v)
		}
		b.sql(")")
	}
	b.sql(")")
}

func (b *builder) expr() clause.Expr { return clause.Expr{SQL: b.b.String(), Vars: b.vars} }

// members names the members of o that are set.
func (o *Operand) members() []string {
	var set []string
	for _, m := range []struct {
		name string
		set  bool
	}{
		{"s", o.S != nil}, {"nInt32", o.NInt32 != nil}, {"b", o.B != nil}, {"n", o.N != nil},
		{"d", o.D != nil}, {"dt", o.Dt != nil}, {"utc", o.UTC != nil},
	} {
		if m.set {
			set = append(set, m.name)
		}
	}
	return set
}

// operand converts o to the bound value for field f.
func operand(at string, f *Field, o *Operand) (value, error) {
	switch set := o.members(); len(set) {
	case 0:
		return value{}, errorf(at, "no value: set exactly one of s, nInt32, b, n, d, dt, utc")
	case 1:
	default:
		return value{}, errorf(at, "more than one value (%s): set exactly one", strings.Join(set, ", "))
	}
	wrong := func(got string) (value, error) {
		return value{}, errorf(at, "%s field %q takes %s, not %s", f.Kind, f.Path, operandNames(f.Kind), got)
	}
	switch f.Kind {
	case Text:
		if o.S == nil {
			return wrong(o.members()[0])
		}
		return value{v: *o.S}, nil
	case Enum:
		if o.S == nil {
			return wrong(o.members()[0])
		}
		// Values are matched in any case ("overdue" is OVERDUE), as the
		// CSV export and the terminal report take them.
		i := slices.IndexFunc(f.Values, func(v string) bool { return strings.EqualFold(v, *o.S) })
		if i < 0 {
			return value{}, errorf(at+".s", "%q is not a value of %q; allowed: %s",
				*o.S, f.Path, strings.Join(f.Values, ", "))
		}
		return value{v: f.Values[i]}, nil
	case Integer:
		var n int64
		switch {
		case o.NInt32 != nil:
			n = int64(*o.NInt32)
		case o.N != nil:
			if err := checkDecimal(*o.N); err != "" {
				return value{}, errorf(at+".n", "%s", err)
			}
			if o.N.Nanos != 0 {
				return value{}, errorf(at+".n", "integer field %q takes whole numbers: nanos must be 0", f.Path)
			}
			n = o.N.Units
		default:
			return wrong(o.members()[0])
		}
		return value{v: n, wide: n < math.MinInt32 || n > math.MaxInt32}, nil
	case Bool:
		if o.B == nil {
			return wrong(o.members()[0])
		}
		return value{v: *o.B}, nil
	case Date:
		if o.D == nil {
			return wrong(o.members()[0])
		}
		d, err := time.Parse(dateLayout, *o.D)
		if err != nil {
			return value{}, errorf(at+".d", "not a date YYYY-MM-DD")
		}
		return value{v: d.Format(dateLayout)}, nil
	default: // Time
		return timeOperand(at, f, o, wrong)
	}
}

// Time operands are limited to years 1 to 9999, which every supported
// database stores and SQLite's text timestamps order correctly.
var (
	minTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	endTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

func timeOperand(at string, f *Field, o *Operand, wrong func(string) (value, error)) (value, error) {
	var (
		t    time.Time
		err  error
		name string
	)
	switch {
	case o.UTC != nil:
		name = "utc"
		t, err = time.Parse(time.RFC3339, *o.UTC)
		if err != nil {
			return value{}, errorf(at+".utc", "not an RFC 3339 timestamp such as 2026-01-31T12:00:00Z")
		}
	case o.Dt != nil:
		name = "dt"
		t, err = time.ParseInLocation(dateTimeLayout, *o.Dt, time.UTC)
		if err != nil {
			return value{}, errorf(at+".dt", "not a date and time YYYY-MM-DDTHH:MM:SS (UTC, no zone)")
		}
	case o.D != nil:
		name = "d"
		t, err = time.ParseInLocation(dateLayout, *o.D, time.UTC)
		if err != nil {
			return value{}, errorf(at+".d", "not a date YYYY-MM-DD")
		}
		next := t.AddDate(0, 0, 1)
		if t.Before(minTime) || !next.Before(endTime) {
			return value{}, errorf(at+".d", "date out of range 0001-01-01 to 9999-12-30")
		}
		return value{v: t, hi: next}, nil
	default:
		return wrong(o.members()[0])
	}
	t = t.UTC()
	if t.Before(minTime) || !t.Before(endTime) {
		return value{}, errorf(at+"."+name, "time out of range: years 0001 to 9999 (UTC)")
	}
	return value{v: t}, nil
}

// checkDecimal returns what is wrong with d, or "".
func checkDecimal(d Decimal) string {
	switch {
	case d.Nanos <= -1e9 || d.Nanos >= 1e9:
		return "nanos must be between -999999999 and 999999999"
	case d.Units > 0 && d.Nanos < 0, d.Units < 0 && d.Nanos > 0:
		return "units and nanos must have the same sign"
	}
	return ""
}
