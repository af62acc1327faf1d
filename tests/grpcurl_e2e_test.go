package tests

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

var (
	grpcurlOnce sync.Once
	grpcurlBin  string
	grpcurlErr  error
)

// grpcurl builds grpcurl from its Go module (a tool of go.mod) once.
func grpcurl(t *testing.T) string {
	t.Helper()
	grpcurlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wasteflow-grpcurl-")
		if err != nil {
			grpcurlErr = err
			return
		}
		grpcurlBin = filepath.Join(dir, "grpcurl")
		out, err := exec.Command("go", "build", "-o", grpcurlBin, "github.com/fullstorydev/grpcurl/cmd/grpcurl").CombinedOutput()
		if err != nil {
			grpcurlErr = err
			grpcurlBin = string(out)
		}
	})
	if grpcurlErr != nil {
		t.Fatalf("build grpcurl: %v\n%s", grpcurlErr, grpcurlBin)
	}
	return grpcurlBin
}

// grpcurl, knowing nothing but the server's reflection, lists the services,
// logs in, files a notification and meets a business error and a refusal.
func TestGrpcurlByReflection(t *testing.T) {
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		bin := grpcurl(t)
		u, _ := url.Parse(d.url)
		// run takes grpcurl's flags, then the verb or method (and its argument).
		run := func(args ...string) (string, error) {
			i := len(args) - 1
			if i > 0 && args[i-1] == "describe" {
				i--
			}
			cmd := append(append(append([]string{"-plaintext", "-format-error"}, args[:i]...), u.Host), args[i:]...)
			out, err := exec.Command(bin, cmd...).CombinedOutput()
			return string(out), err
		}
		out, err := run("list")
		if err != nil {
			t.Fatalf("list: %v %s", err, out)
		}
		for _, svc := range []string{"svc.core.v1.api.AuthApi", "svc.bxa.diwass.v1.api.CompanyDocumentApi", "svc.bxa.bmu.v1.api.BmuDocumentApi",
			"svc.namespaced_notifier.v1.api.NotificationApi", "svc.core.preview.api.PreviewApi", "svc.signer.sign.v1.SigningProcessApi", "grpc.health.v1.Health"} {
			if !strings.Contains(out, svc+"\n") {
				t.Errorf("list lacks %s:\n%s", svc, out)
			}
		}
		if out, err := run("describe", "svc.bxa.diwass.v1.api.CompanyDocumentApi.SetSubmission"); err != nil || !strings.Contains(out, "rpc SetSubmission ( .svc.bxa.diwass.v1.api.SetSubmissionRequest )") {
			t.Fatalf("describe: %v %s", err, out)
		}
		if out, err := run("grpc.health.v1.Health/Check"); err != nil || !strings.Contains(out, `"status": "SERVING"`) {
			t.Fatalf("health: %v %s", err, out)
		}

		out, err = run("-H", "provider_id: dev-1", "-d", `{"usernameCredentials":{"username":"alice","password":"`+passwords["alice"]+`"},"appToken":"`+appUI+`"}`, "svc.core.v1.api.AuthApi/IssueRefreshToken")
		var rt struct{ RefreshToken string }
		if err != nil || json.Unmarshal([]byte(out), &rt) != nil || rt.RefreshToken == "" {
			t.Fatalf("login: %v %s", err, out)
		}
		out, err = run("-H", "provider_id: dev-1", "-H", "authorization: Bearer "+rt.RefreshToken, "svc.core.v1.api.AuthApi/RequestAccess")
		var at struct{ AccessToken string }
		if err != nil || json.Unmarshal([]byte(out), &at) != nil || at.AccessToken == "" {
			t.Fatalf("access: %v %s", err, out)
		}
		auth := []string{"-H", "provider_id: dev-1", "-H", "authorization: Bearer " + at.AccessToken}
		body, _ := json.Marshal(map[string]any{"notification": content()})
		out, err = run(append(auth, "-d", string(body), "svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateSubmission")...)
		var created struct {
			Document struct{ ID, State string }
		}
		if err != nil || json.Unmarshal([]byte(out), &created) != nil || created.Document.State != "DRAFT" {
			t.Fatalf("create: %v %s", err, out)
		}
		body, _ = json.Marshal(map[string]any{"documentId": created.Document.ID, "version": "1", "notification": content()})
		out, err = run(append(auth, "-d", string(body), "svc.bxa.diwass.v1.api.CompanyDocumentApi/SetSubmission")...)
		if err != nil || !strings.Contains(out, `"state": "SUBMITTED"`) || !strings.Contains(out, `"ACKNOWLEDGEMENT_DUE"`) {
			t.Fatalf("file: %v %s", err, out)
		}
		// A business error: an answer with businessErrors, exit 0.
		c := content()
		c["wasteClassifications"] = []any{map[string]any{"list": "EU_LIST_OF_WASTE", "code": "99 99 99"}}
		body, _ = json.Marshal(map[string]any{"notification": c})
		out, err = run(append(auth, "-d", string(body), "svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateSubmission")...)
		if err != nil || !strings.Contains(out, `"code": "WASTE_CLASSIFICATION_INVALID_CODE"`) {
			t.Fatalf("business error: %v %s", err, out)
		}
		// A refusal: the status and its details, a failing exit.
		out, err = run(append(auth, "-d", `{"documentId":"`+created.Document.ID+`","version":"1","notification":{}}`, "svc.bxa.diwass.v1.api.CompanyDocumentApi/SetSubmission")...)
		if err == nil || !strings.Contains(out, `"code": 10`) || !strings.Contains(out, `"reason": "VERSION_MISMATCH"`) {
			t.Fatalf("stale version: %v %s", err, out)
		}
		out, err = run("-d", "{}", "svc.bxa.diwass.v1.api.CompanyDocumentApi/GetNotification")
		if err == nil || !strings.Contains(out, `"code": 12`) || !strings.Contains(out, "Bad gRPC response. HTTP 404 Not Found") {
			t.Fatalf("no provider: %v %s", err, out)
		}
	})
}
