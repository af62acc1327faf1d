package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm/logger"
)

// quietTrace is gorm's logger at level Warn without its cost on every
// statement: gorm's own Trace renders the statement (its SQL, with the
// parameters' placeholders) before it decides whether to log it, about 3 %
// of a request's CPU; this one asks first, and passes only the statements
// it logs (errors other than a missing row, the slow ones) on.
type quietTrace struct {
	logger.Interface
	slow  time.Duration
	level logger.LogLevel // 0: Warn; Info (db.Debug()) passes every statement on
}

func (q quietTrace) LogMode(level logger.LogLevel) logger.Interface {
	return quietTrace{Interface: q.Interface.LogMode(level), slow: q.slow, level: level}
}

func (q quietTrace) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	failed := err != nil && !errors.Is(err, logger.ErrRecordNotFound)
	if q.level < logger.Info && !failed && (q.slow == 0 || time.Since(begin) <= q.slow) {
		return
	}
	q.Interface.Trace(ctx, begin, fc, err)
}
