package diwass_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// Each document reaches DIWASS at most once (issue 47.3), on both
// databases: sent and numbered; a rejection recorded with DIWASS's text; a
// hang after the request was written is UNCERTAIN and never sent again;
// refused connections leave it PENDING until DIWASS is back, then it is
// sent once; a worker that stopped while sending (SENDING left behind)
// makes the next run UNCERTAIN without sending.
func TestEachDocumentReachesDIWASSAtMostOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		store := models.NewDIWASSStore(db)
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		enqueue := func(id string) {
			t.Helper()
			if err := store.Enqueue(ctx, models.DIWASSSubmission{DocumentID: id, ProviderID: "p", CreatedAt: now}); err != nil {
				t.Fatal(err)
			}
		}
		fake, url := startFake(t)
		c := client(url)
		c.Timeout = 500 * time.Millisecond
		s := &diwass.Submitter{Client: c, Store: store, Now: func() time.Time { return now },
			Build: func(context.Context, *models.DIWASSSubmission) (*diwass.CreateAnnex7Request, error) {
				return diwass.BuildAnnex7(annex7Input())
			}}
		state := func(id string) *models.DIWASSSubmission {
			t.Helper()
			sub, err := store.Submission(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return sub
		}
		sent := func() int { return fake.Received("CreateAnnex7DocumentTypeRequest") }

		enqueue("a7_ok")
		if err := s.Work(ctx, "a7_ok", false); err != nil {
			t.Fatal(err)
		}
		if sub := state("a7_ok"); sub.State != "SENT" || !strings.HasPrefix(sub.DocumentNumber, "GLW.") || sub.Attempts != 1 || sub.SentAt == nil {
			t.Fatalf("sent: %+v", sub)
		}
		if err := s.Work(ctx, "a7_ok", false); err != nil || sent() != 1 {
			t.Fatalf("a second run sends nothing: %v, %d requests", err, sent())
		}

		enqueue("a7_rejected")
		fake.Next(diwassfake.Mishap{Status: 400, Fault: "validation: at least one carrier"})
		if err := s.Work(ctx, "a7_rejected", false); err != nil {
			t.Fatal(err)
		}
		if sub := state("a7_rejected"); sub.State != "REJECTED" || !strings.Contains(sub.LastError, "at least one carrier") {
			t.Fatalf("rejected: %+v", sub)
		}

		enqueue("a7_hang")
		before := sent()
		fake.Next(diwassfake.Mishap{Hang: true})
		if err := s.Work(ctx, "a7_hang", false); err != nil {
			t.Fatal(err)
		}
		if sub := state("a7_hang"); sub.State != "UNCERTAIN" {
			t.Fatalf("a hang: %+v", sub)
		}
		if err := s.Work(ctx, "a7_hang", false); err != nil || sent() != before+1 {
			t.Fatalf("an uncertain one is not sent again: %v, %d requests", err, sent()-before)
		}

		// DIWASS down: PENDING, retried; back: sent once.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		s.Client = client("http://" + addr)
		enqueue("a7_down")
		for range 2 {
			if err := s.Work(ctx, "a7_down", false); !errors.Is(err, diwass.ErrRetry) {
				t.Fatalf("DIWASS down: %v", err)
			}
		}
		if sub := state("a7_down"); sub.State != "PENDING" || sub.Attempts != 2 || !strings.Contains(sub.LastError, "not sent") {
			t.Fatalf("after two refused connections: %+v", sub)
		}
		// The queue's last attempt that does not reach DIWASS leaves it
		// for the arranger to send again, not PENDING for ever.
		enqueue("a7_gone")
		if err := s.Work(ctx, "a7_gone", true); err != nil {
			t.Fatalf("the last attempt: %v", err)
		}
		if sub := state("a7_gone"); sub.State != "REJECTED" || !strings.Contains(sub.LastError, "could not be reached (attempts: 1; the last: not sent to DIWASS") {
			t.Fatalf("after the last attempt: %+v", sub)
		}
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("the port was taken meanwhile: %v", err)
		}
		back := &http.Server{Handler: fake}
		go back.Serve(ln)
		defer back.Close()
		before = sent()
		if err := s.Work(ctx, "a7_down", false); err != nil {
			t.Fatal(err)
		}
		if sub := state("a7_down"); sub.State != "SENT" || sub.Attempts != 3 || sent() != before+1 {
			t.Fatalf("DIWASS back: %+v, %d requests", sub, sent()-before)
		}

		// A worker that stopped while sending: the next run sends nothing.
		enqueue("a7_killed")
		if sub, err := store.Claim(ctx, "a7_killed", now); err != nil || sub == nil || sub.State != "SENDING" || sub.Stale {
			t.Fatalf("claim: %+v %v", sub, err)
		}
		before = sent()
		if err := s.Work(ctx, "a7_killed", false); err != nil {
			t.Fatal(err)
		}
		if sub := state("a7_killed"); sub.State != "UNCERTAIN" || !strings.Contains(sub.LastError, "may have arrived") || sent() != before {
			t.Fatalf("after a stopped worker: %+v, %d requests", sub, sent()-before)
		}

		// What /metrics reports: the states, and the oldest PENDING's age.
		enqueue("a7_waiting")
		g, err := models.ReadGauges(ctx, db, now.Add(90*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if s := g.DIWASSSubmissions; s["SENT"] != 2 || s["REJECTED"] != 2 || s["UNCERTAIN"] != 2 || s["PENDING"] != 1 || s["SENDING"] != 0 || g.DIWASSOldestPending != 90*time.Minute {
			t.Fatalf("gauges: %v, oldest pending %s", s, g.DIWASSOldestPending)
		}
	})
}
