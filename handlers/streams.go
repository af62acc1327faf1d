package handlers

import (
	"bytes"
	"context"
	"reflect"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
)

// The server streams of the gRPC face (section 8: "native gRPC or
// gRPC-Web on the same host provide streaming"; REST stays unary). Each is
// made of the unary operations a client could call itself, through the
// gateway with the stream's credentials (Caller): the same checks, the
// same answers, nothing a stream can see that its caller could not.

// StreamNotificationsRequest starts a notifier group's event stream.
type StreamNotificationsRequest struct {
	Cursor string `json:"cursor" doc:"stream the events after this cursor (the last one received, to resume); empty: after the last acknowledged one. A cursor past the latest event ends the stream with INVALID_ARGUMENT"`
}

// WatchDocumentRequest names the document to watch.
type WatchDocumentRequest struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
}

// streamPoll is how long one ListNotifications of a stream waits.
const streamPoll = 25 * time.Second

func (s *Server) streamOperations() []api.Operation {
	var ops []api.Operation
	if s.events != nil {
		ops = append(ops, api.ServerStream(api.Operation{Package: pkgNotifier, Service: "NotificationApi", Method: "StreamNotifications", Security: api.GroupToken,
			Summary: "The group's notifications as they happen (server stream)",
			Description: "Every event ListNotifications would return, in order, as soon as it exists; each carries its cursor. To resume after a " +
				"broken connection or a restart of the server, pass the cursor of the last event received: the stream goes on after it, so no " +
				"event is lost or repeated (events are stored, not held by an instance). The stream does not acknowledge: AckNotifications does. " +
				"Each poll re-checks the group token: when it expires the stream ends with UNAUTHENTICATED; log in and resume."},
			func(ctx context.Context, r *StreamNotificationsRequest, call api.Caller, send func(*Notification) error) error {
				cursor := r.Cursor
				for {
					var out ListNotificationsResponse
					if err := call(ctx, pkgNotifier+".NotificationApi/ListNotifications",
						&ListNotificationsRequest{Cursor: cursor, Limit: 100, WaitSeconds: int32(streamPoll / time.Second)}, &out); err != nil {
						return err
					}
					for i := range out.Notifications {
						if err := send(&out.Notifications[i]); err != nil {
							return err
						}
						cursor = out.Notifications[i].Cursor
					}
					if out.NextCursor != "" {
						cursor = out.NextCursor
					}
				}
			}))
	}
	if s.docs != nil {
		c := s.containers()
		for _, svc := range []string{"CompanyDocumentApi", "AuthorityDocumentApi"} {
			get := pkgDiwass + "." + svc + "/GetDocument"
			ops = append(ops, api.MadeStream(api.Operation{Package: pkgDiwass, Service: svc, Method: "WatchDocument",
				Summary: "A document's changes as they happen (server stream), for UIs",
				Description: "Sends the document as " + svc + "/GetDocument answers it (the container, with the caller's follow-up intents and " +
					"deadlines) at once, then again whenever that answer changes: a new state or version, other follow-up intents, a deadline met " +
					"or overdue. It reads the document every WASTEFLOW_WATCH_INTERVAL (1 s), on whichever instance serves the stream, with the " +
					"caller's token: when the token expires the stream ends with UNAUTHENTICATED."},
				reflect.TypeFor[WatchDocumentRequest](), c.get,
				func(ctx context.Context, req reflect.Value, call api.Caller, send func(any) error) error {
					r := req.Addr().Interface().(*WatchDocumentRequest)
					var last []byte
					for {
						out := reflect.New(c.get).Interface()
						if err := call(ctx, get, &GetDocumentRequest{DocumentID: r.DocumentID}, out); err != nil {
							return err
						}
						b, err := codec.Marshal(out)
						if err != nil {
							return err
						}
						if !bytes.Equal(b, last) {
							if err := send(out); err != nil {
								return err
							}
							last = b
						}
						t := time.NewTimer(s.cfg.WatchInterval)
						select {
						case <-ctx.Done():
							t.Stop()
							return nil
						case <-t.C:
						}
					}
				}))
		}
	}
	return ops
}
