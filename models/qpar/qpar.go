// Package qpar turns the public QueryParameter of wasteflow's list
// operations (field mask, filter, sort and paging) into gorm query clauses.
//
// Every list declares a Schema: the public paths it exposes, the SQL
// expression behind each one and its Kind. Apply and Where check a request
// against that whitelist and add WHERE, ORDER BY and LIMIT/OFFSET clauses in
// which only Field.Column is ever written into SQL; every client value is a
// bound parameter. Client mistakes come back as *Error, which handlers answer
// with HTTP 400 (code 3, INVALID_ARGUMENT); any other error is a programming
// mistake in the Schema.
//
// Semantics, identical on PostgreSQL and SQLite:
//
//   - CONTAINS, BEGINS_WITH and ENDS_WITH apply to Text fields only and ignore
//     case: they compare LOWER(column) LIKE LOWER(pattern) with %, _ and \ in
//     the operand escaped. (SQLite's LOWER folds ASCII letters only, so other
//     letters match case-insensitively on PostgreSQL alone.)
//   - EQUAL on text is exact and case-sensitive. LESSER_THAN and the other
//     comparisons, and sorting, follow the database's text ordering, which is
//     byte order on SQLite and the database collation on PostgreSQL; they
//     agree for ASCII text of one case.
//   - NOT_EQUAL also matches rows where the field is null ("not equal to x"
//     holds for a missing value); every other comparison, BETWEEN and IN_LIST
//     never match null.
//   - BETWEEN includes both bounds.
//   - On a Time field a date operand (d) stands for the whole UTC day:
//     EQUAL matches the day, NOT_EQUAL everything else, LESSER_THAN and
//     GREATER_OR_EQUAL_THAN compare with the start of the day,
//     LESSER_OR_EQUAL_THAN and GREATER_THAN with the start of the next day;
//     BETWEEN includes both days entirely and IN_LIST matches any of the days.
//     dt operands are UTC; utc operands are converted to UTC.
//   - Sorting puts nulls after all values in ascending order and before them
//     in descending order.
package qpar

import (
	"github.com/wasteflow/wasteflow/rules/decimal"

	"fmt"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Op is the comparison of one filter condition.
type Op int32

// Filter operators. The numbers are part of the public interface.
const (
	Equal              Op = iota // EQUAL
	NotEqual                     // NOT_EQUAL
	IsNull                       // IS_NULL
	IsNotNull                    // IS_NOT_NULL
	Contains                     // CONTAINS
	BeginsWith                   // BEGINS_WITH
	EndsWith                     // ENDS_WITH
	LesserThan                   // LESSER_THAN
	GreaterThan                  // GREATER_THAN
	LesserOrEqualThan            // LESSER_OR_EQUAL_THAN
	GreaterOrEqualThan           // GREATER_OR_EQUAL_THAN
	Between                      // BETWEEN
	InList                       // IN_LIST
)

var opNames = []string{
	"EQUAL", "NOT_EQUAL", "IS_NULL", "IS_NOT_NULL", "CONTAINS", "BEGINS_WITH", "ENDS_WITH",
	"LESSER_THAN", "GREATER_THAN", "LESSER_OR_EQUAL_THAN", "GREATER_OR_EQUAL_THAN", "BETWEEN", "IN_LIST",
}

// EnumNames returns the wire names of Op, indexed by number.
func (Op) EnumNames() []string { return opNames }

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int32(o))
}

func (o Op) valid() bool { return o >= 0 && int(o) < len(opNames) }

// Direction is the order of one sort entry.
type Direction int32

// Sort directions.
const (
	Asc  Direction = iota // ASC
	Desc                  // DESC
)

var directionNames = []string{"ASC", "DESC"}

// EnumNames returns the wire names of Direction, indexed by number.
func (Direction) EnumNames() []string { return directionNames }

func (d Direction) String() string {
	if d >= 0 && int(d) < len(directionNames) {
		return directionNames[d]
	}
	return fmt.Sprintf("Direction(%d)", int32(d))
}

// Decimal is a decimal number: Units plus Nanos billionths, both with the
// same sign (google.type.Money without the currency).
type Decimal = decimal.Decimal

// Operand is one value of a filter condition; exactly one member is set.
type Operand struct {
	S      *string  `json:"s"`
	NInt32 *int32   `json:"nInt32"`
	B      *bool    `json:"b"`
	N      *Decimal `json:"n"`
	D      *string  `json:"d" doc:"date YYYY-MM-DD"`
	Dt     *string  `json:"dt" doc:"date and time YYYY-MM-DDTHH:MM:SS, UTC"`
	UTC    *string  `json:"utc" doc:"RFC 3339 timestamp"`
}

// Filter is one condition; all conditions of a QueryParameter must hold.
type Filter struct {
	Path     string    `json:"path"`
	Op       Op        `json:"op"`
	Operands []Operand `json:"operands"`
}

// Sort is one sort entry; earlier entries take precedence.
type Sort struct {
	Path      string    `json:"path"`
	Direction Direction `json:"direction"`
}

// QueryParameter selects, filters, sorts and pages the items of a list.
type QueryParameter struct {
	Mask      string   `json:"mask" doc:"field mask: comma-separated paths to return (all when empty)"`
	Filter    []Filter `json:"filter"`
	Sort      []Sort   `json:"sort"`
	PageStart int32    `json:"pageStart"`
	PageSize  int32    `json:"pageSize"`
}

// Kind of a filterable field: it decides the operands and ops accepted.
type Kind int

// Field kinds.
const (
	Text    Kind = iota // text; operand s
	Integer             // integer; operand nInt32, or n without nanos
	Bool                // Boolean; operand b
	Time                // timestamp; operands utc, dt or d (a whole UTC day)
	Date                // date stored as text YYYY-MM-DD; operand d
	Enum                // text column with a fixed set of values; operand s
)

var kindNames = []string{"text", "integer", "Boolean", "timestamp", "date", "enum"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Field maps a public path to a SQL expression (a column, qualified if
// needed) and its kind. Column is written into SQL verbatim, so it must be a
// constant of the program without "?"; an expression other than a column or
// a function call should be parenthesised.
type Field struct {
	Path     string   // public path in proto notation, e.g. "doc.document_type"
	Column   string   // SQL expression, e.g. "d.kind"
	Kind     Kind     // decides the operands and ops accepted
	Values   []string // Enum: the allowed values
	Sortable bool     // may appear in qpar.sort
}

// Schema is the set of fields a list exposes, plus paging limits.
//
// DefaultSort is used when a request has no sort, and its entries missing
// from a request's sort are appended to it, so paging is stable when
// DefaultSort ends with a unique field. Its fields must be Sortable.
// DefaultPageSize must be positive and MaxPageSize at least as large.
type Schema struct {
	Fields          []Field
	DefaultSort     []Sort
	DefaultPageSize int32
	MaxPageSize     int32
}

// Error is a client mistake (becomes HTTP 400, code 3): Field is like
// "qpar.filter[2].operands[0]" and Reason says what is wrong.
type Error struct {
	Field, Reason string
}

func (e *Error) Error() string {
	return echo.Sprintf("invalid value for field %q: %s", e.Field, e.Reason)
}

func errorf(field, format string, args ...any) *Error {
	return &Error{Field: field, Reason: echo.Sprintf(format, args...)}
}
