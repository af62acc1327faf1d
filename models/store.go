package models

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// The stores of the services (authstore.go, eventstore.go, ...) implement
// the storage interfaces the workflows declare in their own words. They
// share the conventions below.

// ErrDuplicate is returned by a store when a row with the same unique key
// exists already (an expected answer the workflow words for its caller).
var ErrDuplicate = errors.New("already exists")

// notFound turns gorm's missing row into the repositories' ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}

// duplicate turns a unique violation into ErrDuplicate, keeping the cause.
func duplicate(err error) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return fmt.Errorf("%w: %w", ErrDuplicate, err)
	}
	return err
}

// inTx runs fn in one transaction of db (a savepoint when ctx carries one
// already, as a request with an Idempotency-Key does). The ctx fn receives
// carries the transaction: every store method called with it runs inside,
// so the workflow's mutation commits or rolls back as one.
func inTx(ctx context.Context, db *gorm.DB, fn func(ctx context.Context) error) error {
	return Conn(ctx, db).Transaction(func(tx *gorm.DB) error { return fn(WithTx(ctx, tx)) })
}

// listPage runs a qpar query over base: the page (of columns sel, when
// given) and the total of matching rows. A client's mistake in q is a
// *qpar.Error.
func listPage[T any](base *gorm.DB, q *qpar.QueryParameter, s *qpar.Schema, sel ...string) ([]T, int64, error) {
	counted, err := qpar.Where(base.Session(&gorm.Session{}), q, s)
	if err != nil {
		return nil, 0, err
	}
	var total int64
	if err := counted.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	if len(sel) > 0 {
		base = base.Session(&gorm.Session{}).Select(sel[0])
	}
	paged, _, err := qpar.Apply(base, q, s)
	if err != nil {
		return nil, 0, err
	}
	var out []T
	if err := paged.Scan(&out).Error; err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Columns maps the public paths of a list's qpar schema to the SQL
// expressions of the store's query: the workflow declares what a list can
// be filtered and sorted on, the store says where it is.
type Columns map[string]string

// Bind returns s with every field's Column set from c. A path without a
// column is the program's mistake and panics at start.
func (c Columns) Bind(s *qpar.Schema) *qpar.Schema {
	out := *s
	out.Fields = make([]qpar.Field, len(s.Fields))
	for i, f := range s.Fields {
		col, ok := c[f.Path]
		if !ok {
			panic(fmt.Sprintf("models: no column for the list path %q", f.Path))
		}
		f.Column = col
		out.Fields[i] = f
	}
	return &out
}
