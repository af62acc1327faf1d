package models

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"
)

// SessionPollEvery is how often PollSessionChanges reads the changes:
// a session ended or a group removed by another process is refused by
// this one within it (and the read that finds it).
const SessionPollEvery = 250 * time.Millisecond

// sessionChangesKept is how long a change's row stays: a poller that has
// not read for this long may have lost some, and starts over.
const sessionChangesKept = time.Minute

// PollSessionChanges feeds the changes of session and group rows to feed
// on SQLite, where there is no NOTIFY, until ctx ends: migration 00037's
// triggers write each change to session_changes, whatever process makes it,
// and every `every` this reads the rows after the last it read and evicts
// their keys. SQLite has one writer at a time, so rows are numbered in
// the order they commit and a row read never leaves an earlier one unread.
// The feed is live from the first read on; a failed read stops it (the
// cache empties and every request reads its row) until a read succeeds
// again. A gap in the numbers (rows removed before this read them, after
// a minute without a read) empties the cache. Rows older than a minute are
// removed now and then. It returns when ctx ends, with the feed stopped.
func PollSessionChanges(ctx context.Context, db *gorm.DB, feed SessionFeed, every time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	defer feed.SetLive(false)
	var last int64
	live, warned, pruned := false, false, time.Time{}
	failed := func(err error) { // said once a failure, not at every poll
		if ctx.Err() == nil && !warned {
			warned = true
			log.Warn("session changes: reading failed; sessions are read on every request until it works", "error", LogSafe(err))
		}
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		if !live {
			// from here on (the numbers' high-water mark, not the largest
			// row left, which may have been removed: the next row would
			// look like a gap); what changed before needs no eviction, as
			// the cache starts empty
			if err := db.WithContext(ctx).Raw("SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'session_changes'), 0), (SELECT COALESCE(MAX(seq), 0) FROM session_changes))").Scan(&last).Error; err != nil {
				failed(err)
			} else {
				if warned {
					log.Info("session changes: read again; sessions are kept")
				}
				live, warned = true, false
				feed.SetLive(true)
			}
		} else if err := pollSessionChanges(ctx, db, feed, &last); err != nil {
			if ctx.Err() != nil {
				return
			}
			failed(err)
			live = false
			feed.SetLive(false)
		}
		if live && time.Since(pruned) > sessionChangesKept {
			pruned = time.Now()
			cutoff := time.Now().Add(-sessionChangesKept).Unix()
			if err := db.WithContext(ctx).Exec("DELETE FROM session_changes WHERE changed_at < ?", cutoff).Error; err != nil && ctx.Err() == nil {
				log.Warn("session changes: removing old rows failed", "error", LogSafe(err))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// pollSessionChanges reads the changes after *last and evicts them.
func pollSessionChanges(ctx context.Context, db *gorm.DB, feed SessionFeed, last *int64) error {
	for {
		var rows []struct {
			Seq int64
			Key string
		}
		if err := db.WithContext(ctx).Raw("SELECT seq, key FROM session_changes WHERE seq > ? ORDER BY seq LIMIT 500", *last).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if rows[0].Seq != *last+1 { // rows removed unread: start over
			feed.SetLive(true)
		}
		for _, r := range rows {
			feed.Evict(r.Key)
		}
		*last = rows[len(rows)-1].Seq
		if len(rows) < 500 {
			return nil
		}
	}
}
