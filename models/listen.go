package models

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SessionChannel is the PostgreSQL channel on which every change to a
// session row is announced with the session's id (migration 00017).
const SessionChannel = "wasteflow_sessions"

// FeedApplicationName names the listening connections in
// pg_stat_activity.
const FeedApplicationName = "wasteflow-session-feed"

// SessionFeed receives the changes of session rows: Evict with a changed
// session's id, SetLive when the feed starts (true: listening from now on,
// so what was cached before may be stale) or stops (false).
type SessionFeed interface {
	Evict(id string)
	SetLive(live bool)
}

// How the listener checks its connection and comes back after losing it.
var (
	listenCheckEvery = 500 * time.Millisecond
	listenRetryFirst = 100 * time.Millisecond
	listenRetryMax   = 5 * time.Second
)

// ListenSessionChanges feeds the changes of session rows to feed until
// ctx ends, on a connection of its own to the PostgreSQL database at dsn
// (LISTEN holds a connection; the pool's are for transactions). The
// connection is checked every half second when no notification comes: a
// failure stops the feed (SetLive(false)) and it starts again (after
// SetLive(true)) once a new connection listens. It returns when ctx ends,
// with the feed stopped.
func ListenSessionChanges(ctx context.Context, dsn string, feed SessionFeed, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	defer feed.SetLive(false)
	wait := listenRetryFirst
	for ctx.Err() == nil {
		err := listenOnce(ctx, dsn, feed)
		feed.SetLive(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("the session change feed stopped; sessions are read from the database until it listens again", "error", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listenOnce listens on one connection until it fails or ctx ends.
func listenOnce(ctx context.Context, dsn string, feed SessionFeed) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["application_name"] = FeedApplicationName
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+SessionChannel); err != nil {
		return err
	}
	feed.SetLive(true) // from now on every change is heard; what was kept before is dropped
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenCheckEvery)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			feed.Evict(n.Payload)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !pgconn.Timeout(err) && !errors.Is(err, context.DeadlineExceeded):
			return err
		}
		// Quiet for a while: is the connection still there?
		pingCtx, cancel := context.WithTimeout(ctx, listenCheckEvery)
		err = conn.Ping(pingCtx)
		cancel()
		if err != nil {
			return err
		}
	}
}
