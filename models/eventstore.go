package models

import (
	"context"

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
// the given kinds after position after, in order.
func (s *EventStore) EventsAfter(ctx context.Context, provider, org string, after int64, kinds []string, limit int) ([]Event, error) {
	var list []Event
	err := Conn(ctx, s.db).Where("provider_id = ? AND organisation_id = ? AND id > ? AND kind IN ?",
		provider, org, after, kinds).Order("id").Limit(limit).Find(&list).Error
	return list, err
}

// Ack moves group's acknowledged position to id; it never moves back.
func (s *EventStore) Ack(ctx context.Context, group string, id int64) error {
	return Conn(ctx, s.db).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "group_id"}},
		DoUpdates: clause.Set{{Column: clause.Column{Name: "acked_id"}, Value: gorm.Expr("CASE WHEN group_cursors.acked_id > excluded.acked_id THEN group_cursors.acked_id ELSE excluded.acked_id END")}},
	}).Create(&GroupCursor{GroupID: group, AckedID: id}).Error
}
