package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// ExpectDuplicates returns db for a statement whose unique violation is an
// expected answer, not a failure: the caller turns gorm.ErrDuplicatedKey
// into its own message (an account that exists already), so that statement
// is not also logged as an ERROR with its SQL. Every other outcome is
// logged as before, without the values.
func ExpectDuplicates(db *gorm.DB) *gorm.DB {
	return db.Session(&gorm.Session{Logger: duplicatesExpected{db.Logger}})
}

type duplicatesExpected struct{ logger.Interface }

func (l duplicatesExpected) LogMode(level logger.LogLevel) logger.Interface {
	return duplicatesExpected{l.Interface.LogMode(level)}
}

func (l duplicatesExpected) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return
	}
	l.Interface.Trace(ctx, begin, fc, err)
}

// ParamsFilter leaves the values out, as quietTrace does: gorm asks this
// logger, not the one it wraps.
func (l duplicatesExpected) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
