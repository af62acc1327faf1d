package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Register exports survive a kill: a server process working a CSV and an
// XLSX export of some 20,000 documents is killed with SIGKILL while both
// run; a new process on the same database carries both on from where
// their last slice left them (the job queue rescues the jobs the dead
// instance held), and each file holds every document exactly once.
func TestRegisterExportSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and waits for the job queue's rescue")
	}
	t.Parallel()
	bin := buildBinary(t)
	dbtest.Each(t, func(t *testing.T, db configs.Database) {
		env := demoEnv(t, bin, db)
		env = append(env, "WASTEFLOW_LOG_LEVEL=info", "WASTEFLOW_ADDR=127.0.0.1:0", "WASTEFLOW_JOB_POLL=100ms", "WASTEFLOW_JOB_TIMEOUT=10s", "WASTEFLOW_JOB_RESCUE_AFTER=11s",
			"WASTEFLOW_EXPORT_PAGE_SIZE=25") // small steps: a kill finds both exports midway
		t.Parallel() // each database its own server processes: the rescue waits overlap
		gdb := dbtest.Open(t, db)
		dbtest.CloneDocuments(t, gdb, 200)
		var want int64
		if err := gdb.Raw("SELECT COUNT(DISTINCT document_id) FROM document_parties WHERE organisation_id = 'acme'").Scan(&want).Error; err != nil {
			t.Fatal(err)
		}
		start := func() (*exec.Cmd, string) {
			cmd := exec.Command(bin, "serve", "-no-scheduler")
			cmd.Env = env
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			urlRe := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)`)
			lines := bufio.NewScanner(stderr)
			for lines.Scan() {
				if m := urlRe.FindStringSubmatch(lines.Text()); m != nil {
					go func() { _, _ = io.Copy(io.Discard, stderr) }()
					return cmd, m[1]
				}
			}
			t.Fatal("the server never said where it listens")
			return nil, ""
		}
		cmd, base := start()
		post := func(path, token string, body any) map[string]any {
			t.Helper()
			raw, _ := json.Marshal(body)
			req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(raw))
			req.Header.Set("provider_id", "dev-1")
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			var m map[string]any
			if resp.StatusCode != 200 || json.Unmarshal(out, &m) != nil {
				t.Fatalf("%s: %d %.300s", path, resp.StatusCode, out)
			}
			return m
		}
		token := func() string {
			rt := post("/svc.core.v1.api.AuthApi/IssueRefreshToken", "", map[string]any{
				"usernameCredentials": map[string]string{"username": "alice", "password": "alice-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
			return post("/svc.core.v1.api.AuthApi/RequestAccess", rt["refreshToken"].(string), map[string]any{})["accessToken"].(string)
		}
		const co = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
		tok := token()
		ids := map[string]string{}
		for _, format := range []string{"CSV", "XLSX"} {
			ids[format] = post(co+"ExportRegister", tok, map[string]any{"kinds": []string{"NOTIFICATION", "ANNEX_VII", "MOVEMENT"}, "format": format})["exportId"].(string)
		}
		get := func(format string) map[string]any {
			return post(co+"GetRegisterExport", tok, map[string]any{"exportId": ids[format]})
		}
		// Kill while both are running, each with some rows written.
		deadline := time.Now().Add(60 * time.Second)
		for {
			c, x := get("CSV"), get("XLSX")
			if c["state"] == "RUNNING" && x["state"] == "RUNNING" && c["rows"] != "0" && x["rows"] != "0" {
				t.Logf("killed at %v and %v rows of %v", c["rows"], x["rows"], want)
				break
			}
			if c["state"] == "DONE" || x["state"] == "DONE" || time.Now().After(deadline) {
				t.Fatalf("no moment with both running: %v %v", c, x)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		killed := time.Now()
		_, base = start()
		tok = token()
		files := map[string][]byte{}
		for _, format := range []string{"CSV", "XLSX"} {
			deadline := time.Now().Add(3 * time.Minute)
			for {
				m := get(format)
				if m["state"] == "DONE" {
					if m["rows"] != fmt.Sprint(want) {
						t.Errorf("%s: %v rows, want %d", format, m["rows"], want)
					}
					f, err := base64.StdEncoding.DecodeString(m["document"].(string))
					if err != nil {
						t.Fatal(err)
					}
					files[format] = f
					break
				}
				if m["state"] != "RUNNING" || time.Now().After(deadline) {
					t.Fatalf("%s after the kill: %v", format, m)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		t.Logf("both done %v after the kill", time.Since(killed).Round(time.Second))
		rows, err := csv.NewReader(bytes.NewReader(files["CSV"])).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		sheet := func() [][]string {
			x, err := excelize.OpenReader(bytes.NewReader(files["XLSX"]))
			if err != nil {
				t.Fatal(err)
			}
			r, err := x.GetRows("Register")
			if err != nil {
				t.Fatal(err)
			}
			return r
		}()
		for name, table := range map[string][][]string{"CSV": rows, "XLSX": sheet} {
			seen := map[string]bool{}
			for _, r := range table[1:] {
				if seen[r[0]] {
					t.Fatalf("%s: %s twice", name, r[0])
				}
				seen[r[0]] = true
			}
			if int64(len(seen)) != want || len(table) != int(want)+1 {
				t.Errorf("%s: %d documents in %d rows, want %d", name, len(seen), len(table)-1, want)
			}
		}
	})
}
