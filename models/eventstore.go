package models

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// EventStore reads the notification events of notifier groups and keeps
// their acknowledged positions: the storage of workflows/events
// (events.Store).
type EventStore struct{ db *gorm.DB }

// NewEventStore returns the event store over db.
func NewEventStore(db *gorm.DB) *EventStore { return &EventStore{db: db} }

// Group is notifier group id.
func (s *EventStore) Group(ctx context.Context, id string) (*NotifierGroup, error) {
	var g NotifierGroup
	if err := Conn(ctx, s.db).Where("id = ?", id).Take(&g).Error; err != nil {
		return nil, notFound(err)
	}
	return &g, nil
}

// Acked is the position group acknowledged; ErrNotFound before its first
// acknowledgement.
func (s *EventStore) Acked(ctx context.Context, group string) (int64, error) {
	var c GroupCursor
	if err := Conn(ctx, s.db).Where("group_id = ?", group).Take(&c).Error; err != nil {
		return 0, notFound(err)
	}
	return c.AckedID, nil
}

// EventsAfter lists up to limit events of provider's organisation org of
// the given kinds after position after, in order of position. On
// PostgreSQL it first gives positions to the events committed meanwhile
// (SequenceEvents), so a read after a write sees the write's events.
func (s *EventStore) EventsAfter(ctx context.Context, provider, org string, after int64, kinds []string, limit int) ([]Event, error) {
	db := Conn(ctx, s.db)
	if IsPostgres(db) {
		// Read your writes: the organisation's committed events get their
		// positions first. One committed behind a transaction still running
		// waits for it (briefly: at most a second, then it comes later).
		for deadline := time.Now().Add(time.Second); ; {
			if _, _, err := SequenceEvents(ctx, s.db, true); err != nil {
				return nil, err
			}
			var waiting bool
			if err := s.db.WithContext(ctx).Raw("SELECT EXISTS (SELECT 1 FROM events WHERE position IS NULL AND provider_id = ? AND organisation_id = ?)", provider, org).
				Scan(&waiting).Error; err != nil {
				return nil, err
			}
			if !waiting || time.Now().After(deadline) {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	var list []Event
	err := db.Where("provider_id = ? AND organisation_id = ? AND position > ? AND kind IN ?",
		provider, org, after, kinds).Order("position").Limit(limit).Find(&list).Error
	return list, err
}

// sequenceLock is the advisory lock key of the event sequencer, one per
// schema (schemaLock).
var sequenceLock = schemaLock("sequencer")

// sequenceBatch bounds the events one sequencing positions.
const sequenceBatch = 10_000

// sequenceStatement positions a batch, announces each organisation once
// (pg_notify, delivered at commit) and says whether events are left
// without a position, in one round trip: the organisations come back as
// rows, the last one (k NULL) carries more. more looks for events left
// unpositioned in the statement's own snapshot, where the rows it
// positions still read NULL: it leaves those out by id. Events committed
// after the snapshot was taken announce themselves (their trigger's
// notification wakes the sequencer again).
const sequenceStatement = `WITH s AS (
    SELECT id, nextval('event_positions') AS position FROM (
        SELECT id FROM events WHERE position IS NULL AND xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY id LIMIT ?) o
), u AS (
    UPDATE events e SET position = s.position FROM s WHERE e.id = s.id RETURNING e.provider_id || ':' || e.organisation_id AS k
), ks AS (
    SELECT DISTINCT k FROM u
)
SELECT k, pg_notify(?, k) IS NULL AS sent FROM ks
UNION ALL
SELECT NULL, EXISTS (SELECT 1 FROM events WHERE position IS NULL AND id NOT IN (SELECT id FROM s))`

// SequenceEvents gives positions, in id order, to the events of every
// transaction that ended before the oldest one still running began, one
// sequencer at a time across instances (an advisory lock: with wait it
// waits for a running one, else it leaves the work to it), and announces
// their organisations on EventChannel at commit. keys are those
// organisations ("provider:organisation"); more reports events left
// without a position (their transactions still running, or behind one).
// PostgreSQL only; nothing to do costs one index probe.
func SequenceEvents(ctx context.Context, db *gorm.DB, wait bool) (keys []string, more bool, err error) {
	var pending bool
	if err := db.WithContext(ctx).Raw("SELECT EXISTS (SELECT 1 FROM events WHERE position IS NULL)").Scan(&pending).Error; err != nil || !pending {
		return nil, false, err
	}
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if wait {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(" + sequenceLock + ")").Error; err != nil {
				return err
			}
		} else {
			var got bool
			if err := tx.Raw("SELECT pg_try_advisory_xact_lock(" + sequenceLock + ")").Scan(&got).Error; err != nil || !got {
				more = !got
				return err
			}
		}
		// the statement after the lock: its snapshot sees what the
		// sequencer before this one positioned
		rows, err := tx.Raw(sequenceStatement, sequenceBatch, EventChannel).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k *string
			var flag bool
			if err := rows.Scan(&k, &flag); err != nil {
				return err
			}
			if k == nil {
				more = flag
			} else {
				keys = append(keys, *k)
			}
		}
		return rows.Err()
	})
	return keys, more, err
}

// LatestPosition is the highest position given to an event so far, on the
// whole server (positions are one sequence): no cursor handed out lies
// past it. It is the sequence's own high-water mark (PostgreSQL's
// event_positions, SQLite's AUTOINCREMENT counter of events), not the
// largest position still stored, so events deleted since (a sandbox's
// reset) do not make a cursor handed out before look like one from the
// future.
func (s *EventStore) LatestPosition(ctx context.Context) (int64, error) {
	db := Conn(ctx, s.db)
	var latest int64
	q := "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)"
	if IsPostgres(db) {
		q = "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM event_positions"
	}
	err := db.Raw(q).Scan(&latest).Error
	return latest, err
}

// Unack moves group's acknowledged position back to latest when it lies
// past it.
func (s *EventStore) Unack(ctx context.Context, group string, latest int64) error {
	return Conn(ctx, s.db).Model(&GroupCursor{}).Where("group_id = ? AND acked_id > ?", group, latest).Update("acked_id", latest).Error
}

// Ack moves group's acknowledged position to id; it never moves back.
func (s *EventStore) Ack(ctx context.Context, group string, id int64) error {
	return Conn(ctx, s.db).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "group_id"}},
		DoUpdates: clause.Set{{Column: clause.Column{Name: "acked_id"}, Value: gorm.Expr("CASE WHEN group_cursors.acked_id > excluded.acked_id THEN group_cursors.acked_id ELSE excluded.acked_id END")}},
	}).Create(&GroupCursor{GroupID: group, AckedID: id}).Error
}

// EventsAddedChannel is where the events table's trigger says that events
// wait for a position (migration 00020).
const EventsAddedChannel = "wasteflow_events_added"

// Sequencer gives positions to new events on PostgreSQL (SequenceEvents)
// when told that some were added (a Feed of EventsAddedChannel), again
// soon while some are left (another instance sequencing, or their
// transactions behind a running one), and every 30 s in case a
// notification was lost (the events' trigger notifies at every commit
// that adds some; SetLive wakes it when the listener comes back). Every instance runs one; they take turns.
type Sequencer struct {
	db   *gorm.DB
	kick chan struct{}
	log  *slog.Logger
}

// NewSequencer sequences the events of db.
func NewSequencer(db *gorm.DB, log *slog.Logger) *Sequencer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sequencer{db: db, kick: make(chan struct{}, 1), log: log}
}

// Notify implements Feed: events were added.
func (s *Sequencer) Notify(string) { s.wake() }

// SetLive implements Feed: whatever was added while the listener was
// down is sequenced now.
func (s *Sequencer) SetLive(bool) { s.wake() }

func (s *Sequencer) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// sequencerSafety is how often a sequencer looks without being told;
// sequencerRound bounds one round's work.
const (
	sequencerSafety = 30 * time.Second
	sequencerRound  = 10 * time.Second
	// sequencerBehind bounds the back-off while events wait behind a
	// running transaction (of any database of the cluster: a snapshot's
	// xmin is the cluster's). Only while some wait: four rounds a second
	// at most.
	sequencerBehind = 250 * time.Millisecond
)

// Run sequences until ctx ends.
func (s *Sequencer) Run(ctx context.Context) {
	retry := time.Duration(0)
	for {
		wait := sequencerSafety
		if retry > 0 {
			wait = retry
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.kick:
		case <-timer.C:
		}
		timer.Stop()
		// bounded: a connection whose packets vanish (a pooler whose
		// server is gone) must not hold the sequencer past a round
		round, cancel := context.WithTimeout(ctx, sequencerRound)
		keys, more, err := SequenceEvents(round, s.db, false)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("event sequencing failed; retrying", "error", err)
			retry = min(max(2*retry, 50*time.Millisecond), time.Second)
		case more && len(keys) > 0:
			retry = 0
			s.wake() // progress: at once again
		case more: // behind a running transaction or another sequencer
			// at most sequencerBehind apart: an event waits for the
			// transaction before it, not for a long back-off after it
			retry = min(max(2*retry, 5*time.Millisecond), sequencerBehind)
		default:
			retry = 0
		}
	}
}
