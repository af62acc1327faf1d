package models

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm/logger"
)

func TestQuietTraceLogsWhatGormsLoggerWould(t *testing.T) {
	var out bytes.Buffer
	q := quietTrace{Interface: logger.NewSlogLogger(slog.New(slog.NewTextHandler(&out, nil)), logger.Config{
		SlowThreshold: slowStatement, LogLevel: logger.Warn, IgnoreRecordNotFoundError: true, ParameterizedQueries: true,
	}), slow: slowStatement}
	rendered := 0
	trace := func(l logger.Interface, name string, took time.Duration, err error) {
		l.Trace(context.Background(), time.Now().Add(-took), func() (string, int64) { rendered++; return "SELECT " + name, 1 }, err)
	}
	trace(q, "fast", time.Millisecond, nil)
	trace(q, "missing", time.Millisecond, logger.ErrRecordNotFound)
	if rendered != 0 || out.Len() != 0 {
		t.Fatalf("a fast statement was rendered (%d) or logged: %s", rendered, out.String())
	}
	trace(q, "slow", 2*slowStatement, nil)
	trace(q, "failed", time.Millisecond, errors.New("boom"))
	for _, want := range []string{"SELECT slow", "SELECT failed", "boom"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("%q not logged: %s", want, out.String())
		}
	}
	out.Reset()
	trace(q.LogMode(logger.Info), "debug", time.Millisecond, nil) // db.Debug()
	if !strings.Contains(out.String(), "SELECT debug") {
		t.Fatalf("in Info mode a statement is not logged: %s", out.String())
	}
}
