package main

import (
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// A SIGKILL of the serving instance loses no submission to DIWASS and
// sends none twice (issue 47.3), on both databases, with the binary as
// operators run it:
//  1. queued: DIWASS cannot be reached (nothing listens on its port), so
//     the announcement's job waits for its retry; the server is killed;
//     DIWASS comes up; a new server sends the document once, and the
//     document shows DIWASS's number;
//  2. killed while sending: DIWASS holds the request (written, no answer);
//     the server is killed; the restarted server rescues the job, finds
//     the submission SENDING and records it UNCERTAIN: nothing is sent
//     again.
func TestDIWASSSubmissionSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		url := "http://" + addr
		// A kill during a call leaves its job running: the next process
		// rescues it after WASTEFLOW_JOB_RESCUE_AFTER.
		env := append(demoEnv(t, bin, db), "WASTEFLOW_LOG_LEVEL=info", "WASTEFLOW_ADDR=127.0.0.1:0", "WASTEFLOW_JOB_POLL=100ms",
			"WASTEFLOW_JOB_TIMEOUT=3s", "WASTEFLOW_JOB_RESCUE_AFTER=4s", "WASTEFLOW_DIWASS_TIMEOUT=2s",
			"WASTEFLOW_DIWASS_ANNEX7_URL="+url+"/annex7", "WASTEFLOW_DIWASS_OPERATORS_URL="+url+"/operators", "WASTEFLOW_DIWASS_PING_URL="+url+"/ping",
			"WASTEFLOW_DIWASS_CLIENT_ID=wasteflow-test", "WASTEFLOW_DIWASS_RESPONSIBLE_AUTHORITY=DE002")
		gdb := dbtest.Open(t, db)
		submission := func(id string) models.DIWASSSubmission {
			var s models.DIWASSSubmission
			gdb.Where("document_id = ?", id).Take(&s)
			return s
		}
		waitFor := func(what string, limit time.Duration, ok func() bool) {
			t.Helper()
			for deadline := time.Now().Add(limit); !ok(); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: not within %s", what, limit)
				}
			}
		}
		day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
		org := func(id string) map[string]any { return map[string]any{"organisationId": id} }
		content := map[string]any{
			"arranger": org("acme"), "consignee": org("recyc"), "facility": org("recyc"), "producers": []any{org("acme")},
			"carriers":             []any{map[string]any{"organisationId": "truck", "meansOfTransport": "ROAD"}},
			"competentAuthorities": map[string]any{"dispatch": org("auth-de-by"), "destination": org("auth-nl")},
			"wasteClassifications": []any{map[string]any{"list": "BASEL_ANNEX_IX", "code": "B3011"}}, "usualDescription": "PET flakes",
			"recoveryCode": "R3", "actualQuantity": map[string]any{"tonnes": map[string]any{"units": "20"}}, "actualDateOfShipment": day(7),
		}
		const co = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
		announce := func(c *hookClient) string {
			t.Helper()
			tok := c.login("alice")
			doc := c.post(co+"CreateAnnex7", tok, map[string]any{"annex7": content})["document"].(map[string]any)
			c.post(co+"SetAnnex7", tok, map[string]any{"documentId": doc["id"], "version": doc["version"], "annex7": content})
			return doc["id"].(string)
		}
		exchange := func(c *hookClient, id string) map[string]any {
			doc := c.post(co+"GetAnnex7", c.login("alice"), map[string]any{"documentId": id})["document"].(map[string]any)
			return doc["metadata"].(map[string]any)["diwass"].(map[string]any)
		}
		kill := func(cmd interface{ Wait() error }, signal func(syscall.Signal) error) {
			t.Helper()
			if err := signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
		}

		// 1. Queued while DIWASS cannot be reached; killed; sent once by the next.
		cmd, base := startServe(t, bin, env)
		queued := announce(&hookClient{t: t, base: base})
		waitFor("a failed attempt", 30*time.Second, func() bool { s := submission(queued); return s.State == "PENDING" && s.Attempts >= 1 })
		kill(cmd, func(s syscall.Signal) error { return cmd.Process.Signal(s) })
		fake := diwassfake.New()
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("DIWASS's port was taken meanwhile: %v", err)
		}
		srv := &http.Server{Handler: fake}
		go srv.Serve(ln)
		t.Cleanup(func() { fake.Release(); srv.Close() })
		cmd, base = startServe(t, bin, env)
		c := &hookClient{t: t, base: base}
		var x map[string]any
		waitFor("the queued document sent after the restart", time.Minute, func() bool { x = exchange(c, queued); return x["state"] == "SENT" })
		if n := fake.Received("CreateAnnex7DocumentTypeRequest"); n != 1 || len(fake.Documents()) != 1 || fake.Documents()[0].Number != x["documentNumber"] {
			t.Fatalf("DIWASS received %d creates; the document shows %v", n, x)
		}

		// 2. Killed while DIWASS holds the request: UNCERTAIN, not sent again.
		fake.Next(diwassfake.Mishap{Hang: true})
		held := announce(c)
		waitFor("the request written", 30*time.Second, func() bool { return fake.Received("CreateAnnex7DocumentTypeRequest") == 2 })
		if s := submission(held); s.State != "SENDING" {
			t.Fatalf("while DIWASS holds the request: %+v", s)
		}
		kill(cmd, func(s syscall.Signal) error { return cmd.Process.Signal(s) })
		fake.Release()
		killed := time.Now()
		_, base = startServe(t, bin, env)
		c = &hookClient{t: t, base: base}
		waitFor("the held document uncertain after the restart", time.Minute, func() bool { x = exchange(c, held); return x["state"] == "UNCERTAIN" })
		t.Logf("UNCERTAIN %v after the kill: %s", time.Since(killed).Round(100*time.Millisecond), x["lastError"])
		time.Sleep(time.Second) // nothing more comes
		if n := fake.Received("CreateAnnex7DocumentTypeRequest"); n != 2 {
			t.Fatalf("DIWASS received %d creates, want 2 (the held one once)", n)
		}
		if s := submission(held); s.State != "UNCERTAIN" || s.Attempts != 1 {
			t.Fatalf("the held submission: %+v", s)
		}
	})
}
