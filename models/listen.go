package models

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The PostgreSQL channels on which changes are announced (our design):
// SessionChannel every change to a session row, with the session's id
// (a trigger, migration 00017); EventChannel the organisations whose new
// events just got their positions, "<provider>:<organisation>" (the
// sequencer, SequenceEvents; EventsAddedChannel is the events trigger's,
// migration 00020); SigningChannel every change of a signing process's
// state, with the process's id (a trigger, migration 00019).
const (
	SessionChannel = "wasteflow_sessions"
	EventChannel   = "wasteflow_events"
	SigningChannel = "wasteflow_signing"
)

// FeedApplicationName names the listening connections in
// pg_stat_activity (FeedApplicationNameOf: with the schema, when the URL
// names one).
const FeedApplicationName = "wasteflow-session-feed"

// FeedApplicationNameOf is the application_name of the listening
// connection made for dsn: FeedApplicationName, followed by the schema
// when the URL sets search_path, so the feeds of instances on different
// schemas of one database (tests run side by side) are told apart.
func FeedApplicationNameOf(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.RuntimeParams["search_path"] == "" {
		return FeedApplicationName
	}
	return FeedApplicationName + " " + cfg.RuntimeParams["search_path"]
}

// Feed receives the notifications of one channel: Notify with each
// payload, SetLive when the listener starts (true: listening from now on,
// so what was heard of before may be stale) or stops (false).
type Feed interface {
	Notify(payload string)
	SetLive(live bool)
}

// Feeds is a Feed that passes each notification, and each SetLive, to
// every one of its feeds in turn.
type Feeds []Feed

// Notify implements Feed.
func (fs Feeds) Notify(payload string) {
	for _, f := range fs {
		f.Notify(payload)
	}
}

// SetLive implements Feed.
func (fs Feeds) SetLive(live bool) {
	for _, f := range fs {
		f.SetLive(live)
	}
}

// SessionFeed receives the changes of session rows: Evict with a changed
// session's id, SetLive as Feed's.
type SessionFeed interface {
	Evict(id string)
	SetLive(live bool)
}

// Sessions is a SessionFeed as a Feed.
func Sessions(f SessionFeed) Feed { return sessionFeed{f} }

type sessionFeed struct{ SessionFeed }

func (f sessionFeed) Notify(id string) { f.Evict(id) }

// How the listener checks its connection and comes back after losing it.
var (
	listenCheckEvery = 500 * time.Millisecond
	listenRetryFirst = 100 * time.Millisecond
	listenRetryMax   = 5 * time.Second
)

// ListenSessionChanges feeds the changes of session rows to feed until
// ctx ends (Listen with the session channel alone).
func ListenSessionChanges(ctx context.Context, dsn string, feed SessionFeed, log *slog.Logger) {
	Listen(ctx, dsn, map[string]Feed{SessionChannel: Sessions(feed)}, log)
}

// Listen feeds the notifications of each channel to its feed until ctx
// ends, on one connection of its own to the PostgreSQL database at dsn
// (LISTEN holds a connection; the pool's are for transactions): one
// listening connection per instance, whatever waits on it. The connection
// is checked every half second when no notification comes: a failure
// stops the feeds (SetLive(false)) and they start again (after
// SetLive(true)) once a new connection listens. It returns when ctx ends,
// with the feeds stopped.
func Listen(ctx context.Context, dsn string, feeds map[string]Feed, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	setLive := func(live bool) {
		for _, f := range feeds {
			f.SetLive(live)
		}
	}
	defer setLive(false)
	wait := listenRetryFirst
	for ctx.Err() == nil {
		err := listenOnce(ctx, dsn, feeds, setLive)
		setLive(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("the change feed stopped; sessions are read from the database and waits poll it until it listens again", "error", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listenOnce listens on one connection until it fails or ctx ends.
func listenOnce(ctx context.Context, dsn string, feeds map[string]Feed, setLive func(bool)) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["application_name"] = FeedApplicationNameOf(dsn)
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
	for channel := range feeds {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			return err
		}
	}
	setLive(true) // from now on every change is heard; what was kept before is dropped
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenCheckEvery)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			if f, ok := feeds[n.Channel]; ok {
				f.Notify(n.Payload)
			}
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
