package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

// Webhooks (svc.namespaced_notifier.v1.api.WebhookApi): a notifier group
// registers endpoints that receive its organisation's events, signed to
// the Standard Webhooks specification, and sees every delivery.

type WebhookEndpoint struct {
	EndpointID          string      `json:"endpointId"`
	URL                 string      `json:"url"`
	Description         string      `json:"description"`
	EventKinds          []EventKind `json:"eventKinds"`
	Enabled             bool        `json:"enabled" doc:"false: nothing is sent; the events meanwhile wait and go when it is enabled again"`
	DisabledReason      string      `json:"disabledReason" doc:"why it is disabled: by the group, or every attempt failing for 3 days"`
	FailingSince        *time.Time  `json:"failingSince" doc:"the first failed attempt since the last delivery (null while deliveries succeed)"`
	PreviousSecretUntil *time.Time  `json:"previousSecretUntil" doc:"after RotateWebhookSecret: until when the old secret signs beside the new one"`
	CreatedAt           time.Time   `json:"createdAt"`
	UpdatedAt           time.Time   `json:"updatedAt"`
}

func endpointOf(e *models.WebhookEndpoint) WebhookEndpoint {
	out := WebhookEndpoint{EndpointID: e.ID, URL: e.URL, Description: e.Description, EventKinds: eventKinds(e.EventKinds), Enabled: e.Enabled,
		DisabledReason: e.DisabledReason, FailingSince: e.FailingSince, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.PreviousUntil != nil && time.Now().Before(*e.PreviousUntil) {
		out.PreviousSecretUntil = e.PreviousUntil
	}
	return out
}

type CreateWebhookEndpointRequest struct {
	URL         string      `json:"url" required:"true" doc:"https (http and loopback addresses only in the development and test environments); private, link-local and metadata addresses are refused"`
	EventKinds  []EventKind `json:"eventKinds" required:"true" doc:"the kinds of event to send (ListNotifications' kinds)"`
	Description string      `json:"description" doc:"free text, at most 500 characters"`
}

type CreateWebhookEndpointResponse struct {
	Endpoint WebhookEndpoint `json:"endpoint"`
	Secret   string          `json:"secret" doc:"the signing secret, whsec_ and base64: shown only here; verify deliveries with it"`
}

type ListWebhookEndpointsRequest struct{}

type ListWebhookEndpointsResponse struct {
	Endpoints []WebhookEndpoint `json:"endpoints"`
}

type UpdateWebhookEndpointRequest struct {
	EndpointID  string      `json:"endpointId" required:"true"`
	URL         *string     `json:"url" doc:"a new URL (absent: unchanged)"`
	EventKinds  []EventKind `json:"eventKinds" doc:"new kinds (absent: unchanged)"`
	Enabled     *bool       `json:"enabled" doc:"false holds deliveries; true resumes them where they stopped (absent: unchanged)"`
	Description *string     `json:"description" doc:"absent: unchanged"`
}

type WebhookEndpointResponse struct {
	Endpoint WebhookEndpoint `json:"endpoint"`
}

type WebhookEndpointRequest struct {
	EndpointID string `json:"endpointId" required:"true"`
}

type DeleteWebhookEndpointResponse struct{}

type RotateWebhookSecretResponse struct {
	Endpoint WebhookEndpoint `json:"endpoint"`
	Secret   string          `json:"secret" doc:"the new secret, shown only here; the old one keeps signing beside it until endpoint.previousSecretUntil"`
}

type WebhookDelivery struct {
	EventID       string     `json:"eventId" doc:"the webhook-id header: the same on every attempt, so a receiver drops a duplicate"`
	Kind          string     `json:"kind" doc:"the event's kind (the body's type), or WEBHOOK_TEST"`
	DocumentID    string     `json:"documentId"`
	State         string     `json:"state" doc:"PENDING (to be tried, or waiting behind an earlier event of its document), DELIVERED or FAILED (every retry failed)"`
	Attempts      int32      `json:"attempts"`
	LastStatus    int32      `json:"lastStatusCode" doc:"the HTTP status of the last attempt (0: no answer)"`
	LastError     string     `json:"lastError"`
	LastResponse  string     `json:"lastResponse" doc:"the first 1 KB of the last failed attempt's answer"`
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	NextAttemptAt *time.Time `json:"nextAttemptAt" doc:"when it is tried next (null: now, or waiting behind an earlier event)"`
	DeliveredAt   *time.Time `json:"deliveredAt"`
	CreatedAt     time.Time  `json:"createdAt"`
}

func deliveryOf(d *models.WebhookDelivery) WebhookDelivery {
	return WebhookDelivery{EventID: d.MessageID, Kind: d.Kind, DocumentID: d.DocumentID, State: d.State, Attempts: int32(d.Attempts),
		LastStatus: int32(d.LastStatus), LastError: d.LastError, LastResponse: d.LastResponse, LastAttemptAt: d.LastAttemptAt,
		NextAttemptAt: d.NextAttemptAt, DeliveredAt: d.DeliveredAt, CreatedAt: d.CreatedAt}
}

type ListWebhookDeliveriesRequest struct {
	EndpointID string              `json:"endpointId" required:"true"`
	Qpar       qpar.QueryParameter `json:"qpar"`
}

type ListWebhookDeliveriesResponse struct {
	Deliveries []WebhookDelivery `json:"deliveries"`
	Total      int64             `json:"total"`
}

type RedeliverWebhookRequest struct {
	EventID    string `json:"eventId" required:"true" doc:"a delivery's eventId (evt_…)"`
	EndpointID string `json:"endpointId" doc:"only to this endpoint (default: every endpoint of the group that had the event)"`
}

type WebhookDeliveriesResponse struct {
	Deliveries []WebhookDelivery `json:"deliveries"`
}

type SendTestWebhookResponse struct {
	Delivery WebhookDelivery `json:"delivery" doc:"the test message's one attempt and its outcome"`
}

// sampleBody documents a message's body.
var sampleBody, _ = json.Marshal(map[string]any{"type": "DOCUMENT_STATE_CHANGED", "timestamp": "2026-12-01T09:00:00Z",
	"data": map[string]any{"cursor": "42", "kind": "DOCUMENT_STATE_CHANGED", "documentId": "…", "deadlineId": "", "payload": map[string]any{}, "createdAt": "2026-12-01T09:00:00Z"}})

func (s *Server) webhookOperations() []api.Operation {
	if s.webhooks == nil {
		return nil
	}
	w := s.webhooks
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgNotifier, Service: "WebhookApi", Method: method, Verb: http.MethodPost, Security: api.GroupToken, Summary: summary, Description: desc}
	}
	return []api.Operation{
		api.Unary(op("CreateWebhookEndpoint", "Register an endpoint that receives the organisation's events",
			"Each event of the endpoint's kinds is POSTed to it as JSON "+string(sampleBody)+" (data is the event as ListNotifications shows it), "+
				"signed to the Standard Webhooks specification: headers webhook-id (the event's id, the same on every retry), webhook-timestamp "+
				"(Unix seconds of the attempt) and webhook-signature (v1, and the base64 HMAC-SHA256 of id.timestamp.body under the secret). "+
				"A 2xx answer within 10 s is a delivery; anything else (a redirect too) is retried for about three days (5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h), "+
				"the events of one document in order. An endpoint failing every attempt for 3 days is disabled and the organisation gets "+
				"WEBHOOK_ENDPOINT_DISABLED. The endpoint receives the events stored after it was created."),
			func(ctx context.Context, r *CreateWebhookEndpointRequest) (*CreateWebhookEndpointResponse, error) {
				e, secret, err := w.Create(ctx, r.URL, kindNames(r.EventKinds), r.Description)
				if err != nil {
					return nil, err
				}
				return &CreateWebhookEndpointResponse{Endpoint: endpointOf(e), Secret: secret}, nil
			}),
		api.Unary(op("ListWebhookEndpoints", "The group's webhook endpoints", "A group sees only the endpoints it registered."),
			func(ctx context.Context, _ *ListWebhookEndpointsRequest) (*ListWebhookEndpointsResponse, error) {
				list, err := w.List(ctx)
				if err != nil {
					return nil, err
				}
				out := &ListWebhookEndpointsResponse{Endpoints: make([]WebhookEndpoint, 0, len(list))}
				for i := range list {
					out.Endpoints = append(out.Endpoints, endpointOf(&list[i]))
				}
				return out, nil
			}),
		api.Unary(op("UpdateWebhookEndpoint", "Change an endpoint's URL, kinds, description, or enable or disable it",
			"Fields left out are unchanged. Enabling a disabled endpoint sends what waited, from where it stopped."),
			func(ctx context.Context, r *UpdateWebhookEndpointRequest) (*WebhookEndpointResponse, error) {
				u := webhooks.Update{URL: r.URL, Enabled: r.Enabled, Description: r.Description}
				if r.EventKinds != nil {
					u.EventKinds = kindNames(r.EventKinds)
				}
				e, err := w.Update(ctx, r.EndpointID, u)
				if err != nil {
					return nil, err
				}
				return &WebhookEndpointResponse{Endpoint: endpointOf(e)}, nil
			}),
		api.Unary(op("DeleteWebhookEndpoint", "Delete an endpoint and its deliveries", "Its pending deliveries are dropped."),
			func(ctx context.Context, r *WebhookEndpointRequest) (*DeleteWebhookEndpointResponse, error) {
				return &DeleteWebhookEndpointResponse{}, w.Delete(ctx, r.EndpointID)
			}),
		api.Unary(op("RotateWebhookSecret", "Give an endpoint a new signing secret",
			"For 24 hours every message carries two signatures, one with each secret, so a receiver switches without losing a delivery."),
			func(ctx context.Context, r *WebhookEndpointRequest) (*RotateWebhookSecretResponse, error) {
				e, secret, err := w.Rotate(ctx, r.EndpointID)
				if err != nil {
					return nil, err
				}
				return &RotateWebhookSecretResponse{Endpoint: endpointOf(e), Secret: secret}, nil
			}),
		api.Unary(op("ListWebhookDeliveries", "An endpoint's deliveries and their attempts",
			"Newest first unless qpar sorts otherwise. "+qpar.Describe(webhooks.DeliverySchema)),
			func(ctx context.Context, r *ListWebhookDeliveriesRequest) (*ListWebhookDeliveriesResponse, error) {
				list, total, err := w.Deliveries(ctx, r.EndpointID, &r.Qpar)
				if err != nil {
					return nil, err
				}
				out := &ListWebhookDeliveriesResponse{Deliveries: make([]WebhookDelivery, 0, len(list)), Total: total}
				for i := range list {
					out.Deliveries = append(out.Deliveries, deliveryOf(&list[i]))
				}
				return out, nil
			}),
		api.Unary(op("RedeliverWebhook", "Send an event again",
			"A delivery waiting for a retry is tried now; a delivered or failed one starts its retries again, with the same webhook-id."),
			func(ctx context.Context, r *RedeliverWebhookRequest) (*WebhookDeliveriesResponse, error) {
				list, err := w.Redeliver(ctx, r.EventID, r.EndpointID)
				if err != nil {
					return nil, err
				}
				out := &WebhookDeliveriesResponse{Deliveries: make([]WebhookDelivery, 0, len(list))}
				for i := range list {
					out.Deliveries = append(out.Deliveries, deliveryOf(&list[i]))
				}
				return out, nil
			}),
		api.Unary(op("SendTestWebhook", "Send a test message to an endpoint now",
			"One attempt, signed like every message, of type WEBHOOK_TEST; the answer says how it went. It is not retried and does not count towards disabling the endpoint."),
			func(ctx context.Context, r *WebhookEndpointRequest) (*SendTestWebhookResponse, error) {
				d, err := w.SendTest(ctx, r.EndpointID)
				if err != nil {
					return nil, err
				}
				return &SendTestWebhookResponse{Delivery: deliveryOf(d)}, nil
			}),
	}
}
