package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// grpc.health.v1 on the gRPC face, for every protocol: Check, List and
// Watch answer as /readyz does (SERVING when the database answers and the
// schema is current). connect-go's grpchealth serves Check alone; load
// balancers and Kubernetes' gRPC probes also watch.
type health struct{ s *Server }

const healthService = "grpc.health.v1.Health"

// handler serves the service's three methods, their messages held
// to what a call without a token may send.
func (h health) handler(opts ...connect.HandlerOption) http.Handler {
	mux := http.NewServeMux()
	prefix := "/" + healthService + "/"
	mux.Handle(prefix+"Check", connect.NewUnaryHandler(prefix+"Check", h.check, opts...))
	mux.Handle(prefix+"List", connect.NewUnaryHandler(prefix+"List", h.list, opts...))
	watch := connect.NewServerStreamHandler(prefix+"Watch", h.watch, opts...)
	mux.Handle(prefix+"Watch", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streaming(w) // a watch lives as long as its client wants
		watch.ServeHTTP(w, r)
	}))
	return mux
}

// status is the serving status of service ("" for the server); an
// unknown service is an error.
func (h health) status(ctx context.Context, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	if service != "" && !h.s.servesService(service) {
		return healthpb.HealthCheckResponse_SERVICE_UNKNOWN, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown service %s", service))
	}
	if _, err := h.s.ready(ctx); err != nil {
		return healthpb.HealthCheckResponse_NOT_SERVING, nil
	}
	return healthpb.HealthCheckResponse_SERVING, nil
}

func (h health) check(ctx context.Context, req *connect.Request[healthpb.HealthCheckRequest]) (*connect.Response[healthpb.HealthCheckResponse], error) {
	st, err := h.status(ctx, req.Msg.GetService())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&healthpb.HealthCheckResponse{Status: st}), nil
}

func (h health) list(ctx context.Context, _ *connect.Request[healthpb.HealthListRequest]) (*connect.Response[healthpb.HealthListResponse], error) {
	st, _ := h.status(ctx, "")
	out := &healthpb.HealthListResponse{Statuses: map[string]*healthpb.HealthCheckResponse{"": {Status: st}}}
	for _, name := range h.s.grpc.services {
		out.Statuses[name] = &healthpb.HealthCheckResponse{Status: st}
	}
	return connect.NewResponse(out), nil
}

// watch sends the status at once and on each change (checked every
// second), until the client ends it, or the server's shutdown
// (UNAVAILABLE: the client watches another instance).
func (h health) watch(ctx context.Context, req *connect.Request[healthpb.HealthCheckRequest], st *connect.ServerStream[healthpb.HealthCheckResponse]) error {
	last := healthpb.HealthCheckResponse_UNKNOWN
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s, err := h.status(ctx, req.Msg.GetService())
		if err != nil {
			s = healthpb.HealthCheckResponse_SERVICE_UNKNOWN // Watch reports it instead of failing
		}
		if s != last {
			if err := st.Send(&healthpb.HealthCheckResponse{Status: s}); err != nil {
				return err
			}
			last = s
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		case <-h.s.streamsDone:
			return connect.NewError(connect.CodeUnavailable, errors.New("the server is shutting down"))
		}
	}
}
