package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/events"
)

// Notification is one event delivered to a notifier group.
type Notification struct {
	Cursor     string          `json:"cursor" doc:"position of this event; acknowledge it with AckNotifications"`
	Kind       EventKind       `json:"kind"`
	DocumentID string          `json:"documentId"`
	DeadlineID string          `json:"deadlineId"`
	Payload    json.RawMessage `json:"payload" doc:"documentNumber, documentKind and, by kind, from/to/intent or rule/legalBasis/party/state/dueAt"`
	CreatedAt  time.Time       `json:"createdAt"`
}

type ListNotificationsRequest struct {
	Cursor      string `json:"cursor" doc:"return events after this cursor; empty: after the last acknowledged one. A cursor past the latest event is 400, code 3"`
	Limit       int32  `json:"limit" doc:"at most this many (default 100, max 500)"`
	WaitSeconds int32  `json:"waitSeconds" doc:"long-poll: wait up to this long (max 30) for an event when none is pending"`
}

type ListNotificationsResponse struct {
	Notifications []Notification `json:"notifications"`
	NextCursor    string         `json:"nextCursor" doc:"pass it as cursor next time"`
}

type AckNotificationsRequest struct {
	Cursor string `json:"cursor" required:"true" doc:"every event up to and including this one is acknowledged; a cursor past the latest event (never handed out) is 400, code 3"`
}

type AckNotificationsResponse struct{}

func (s *Server) eventOperations() []api.Operation {
	if s.events == nil {
		return nil
	}
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgNotifier, Service: "NotificationApi", Method: method, Verb: http.MethodPost, Security: api.GroupToken, Summary: summary, Description: desc}
	}
	return []api.Operation{
		api.Unary(op("ListNotifications", "Read the group's notifications by cursor (long-poll)",
			"Events of the group's organisation of the kinds it registered for: DOCUMENT_STATE_CHANGED, INBOX_ENTRY_ADDED, DEADLINE_DUE_SOON, "+
				"DEADLINE_OVERDUE, DEADLINE_MET_LATE, WEBHOOK_ENDPOINT_DISABLED (the same events come as webhooks: WebhookApi). Each event exists once; read it again until acknowledged. The REST path is unary: waitSeconds bounds a long poll."),
			func(ctx context.Context, r *ListNotificationsRequest) (*ListNotificationsResponse, error) {
				list, next, err := s.events.List(ctx, r.Cursor, int(r.Limit), time.Duration(r.WaitSeconds)*time.Second)
				if err != nil {
					return nil, err
				}
				out := &ListNotificationsResponse{Notifications: make([]Notification, 0, len(list)), NextCursor: next}
				for _, e := range list {
					out.Notifications = append(out.Notifications, Notification{Cursor: events.Cursor(events.Position(&e)), Kind: eventKind(e.Kind), DocumentID: e.DocumentID,
						DeadlineID: e.DeadlineID, Payload: json.RawMessage(e.Payload), CreatedAt: e.CreatedAt})
				}
				return out, nil
			}),
		api.Unary(op("AckNotifications", "Acknowledge notifications up to a cursor",
			"Later ListNotifications calls without a cursor start after it. A cursor past the latest event is refused (400, code 3, naming cursor): it was never handed out, and acknowledging it would pass over every event to come."),
			func(ctx context.Context, r *AckNotificationsRequest) (*AckNotificationsResponse, error) {
				return &AckNotificationsResponse{}, s.events.Ack(ctx, r.Cursor)
			}),
	}
}
