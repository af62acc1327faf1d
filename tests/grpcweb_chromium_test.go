package tests

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// grpcWebPage is what a browser client of the gRPC face does (section 8:
// gRPC-Web on the same host), written out: the gRPC-Web frames (a flag
// byte, a length, the message; the trailers in a frame of their own),
// Protocol Buffers' binary wire format for a login, and the JSON codec
// (application/grpc-web+json) for a notification.
const grpcWebPage = `
async function grpcWeb(method, codec, headers, message) {
  const body = new Uint8Array(5 + message.length);
  new DataView(body.buffer).setUint32(1, message.length);
  body.set(message, 5);
  const resp = await fetch('/' + method, {method: 'POST', body,
    headers: Object.assign({'content-type': 'application/grpc-web+' + codec, 'x-grpc-web': '1'}, headers)});
  const buf = new Uint8Array(await resp.arrayBuffer());
  const out = {http: resp.status, contentType: resp.headers.get('content-type'), messages: [], trailers: {}};
  if (resp.headers.get('grpc-status') !== null) { // trailers-only
    out.trailers['grpc-status'] = resp.headers.get('grpc-status');
    out.trailers['grpc-message'] = decodeURIComponent(resp.headers.get('grpc-message') || '');
  }
  for (let i = 0; i < buf.length;) {
    const flag = buf[i], n = new DataView(buf.buffer, i + 1, 4).getUint32(0), data = buf.slice(i + 5, i + 5 + n);
    i += 5 + n;
    if (flag & 0x80) {
      for (const line of new TextDecoder().decode(data).split('\r\n')) {
        const k = line.indexOf(':');
        if (k > 0) out.trailers[line.slice(0, k).trim().toLowerCase()] = decodeURIComponent(line.slice(k + 1).trim());
      }
    } else out.messages.push(data);
  }
  return out;
}
// Protocol Buffers, as far as a login needs: length-delimited fields.
function varint(n) { const b = []; while (n > 127) { b.push((n & 127) | 128); n >>>= 7; } b.push(n); return b; }
function field(no, bytes) { return [...varint(no << 3 | 2), ...varint(bytes.length), ...bytes]; }
function str(s) { return [...new TextEncoder().encode(s)]; }
function readFields(bytes) {
  const out = {};
  for (let i = 0; i < bytes.length;) {
    let key = 0, shift = 0, b;
    do { b = bytes[i++]; key |= (b & 127) << shift; shift += 7; } while (b & 128);
    let len = 0; shift = 0;
    if ((key & 7) !== 2) throw new Error('unexpected wire type ' + (key & 7));
    do { b = bytes[i++]; len |= (b & 127) << shift; shift += 7; } while (b & 128);
    out[key >>> 3] = bytes.slice(i, i + len); i += len;
  }
  return out;
}
window.run = async function(user, password, appToken, notification) {
  const result = {};
  const auth = 'svc.core.v1.api.AuthApi/';
  // IssueRefreshToken { usernameCredentials = 1 { username = 1; password = 2 }; appToken = 3 }, binary.
  const login = new Uint8Array([...field(1, [...field(1, str(user)), ...field(2, str(password))]), ...field(3, str(appToken))]);
  let r = await grpcWeb(auth + 'IssueRefreshToken', 'proto', {'provider_id': 'dev-1'}, login);
  result.login = {http: r.http, contentType: r.contentType, status: r.trailers['grpc-status']};
  const refresh = new TextDecoder().decode(readFields(r.messages[0])[1]);
  r = await grpcWeb(auth + 'RequestAccess', 'proto', {'provider_id': 'dev-1', 'authorization': 'Bearer ' + refresh}, new Uint8Array());
  const access = new TextDecoder().decode(readFields(r.messages[0])[1]);
  result.access = {status: r.trailers['grpc-status'], length: access.length};
  // CreateSubmission in JSON.
  const json = (o) => new TextEncoder().encode(JSON.stringify(o));
  const headers = {'provider_id': 'dev-1', 'authorization': 'Bearer ' + access};
  r = await grpcWeb('svc.bxa.diwass.v1.api.CompanyDocumentApi/CreateSubmission', 'json', headers, json({notification}));
  const created = JSON.parse(new TextDecoder().decode(r.messages[0]));
  result.created = {status: r.trailers['grpc-status'], state: created.document.state, number: created.document.number};
  // A refusal: no provider_id.
  r = await grpcWeb('svc.bxa.diwass.v1.api.CompanyDocumentApi/GetNotification', 'json', {}, json({documentId: created.document.id}));
  result.refused = {http: r.http, status: r.trailers['grpc-status'], message: r.trailers['grpc-message']};
  return result;
}
`

// A real browser calls the gRPC face with gRPC-Web, same port as REST:
// a login in binary Protocol Buffers, a notification created in gRPC-Web's
// JSON codec, and a refusal carried in the trailers.
func TestGRPCWebFromChromium(t *testing.T) {
	exe := chromium(t)
	d := startDocs(t, dbtest.SQLite(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	notification, _ := json.Marshal(content())
	var got struct {
		Login struct {
			HTTP                int
			ContentType, Status string
		}
		Access struct {
			Status string
			Length int
		}
		Created struct{ Status, State, Number string }
		Refused struct {
			HTTP            int
			Status, Message string
		}
	}
	if _, err := chromedp.Run(bctx, chromedp.Navigate(d.url+"/healthz")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[chromedp.Void](grpcWebPage)); err != nil {
		t.Fatal(err)
	}
	raw, err := chromedp.Run(bctx, chromedp.Evaluate[string]("run("+jsString("alice")+","+jsString(passwords["alice"])+","+jsString(appUI)+","+string(notification)+
		").then(JSON.stringify)", chromedp.EvalAwaitPromise))
	if err == nil {
		err = json.Unmarshal([]byte(raw), &got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.Login.HTTP != 200 || got.Login.ContentType != "application/grpc-web+proto" || got.Login.Status != "0" {
		t.Errorf("login: %+v", got.Login)
	}
	if got.Access.Status != "0" || got.Access.Length < 100 {
		t.Errorf("access: %+v", got.Access)
	}
	if got.Created.Status != "0" || got.Created.State != "DRAFT" || got.Created.Number == "" {
		t.Errorf("created: %+v", got.Created)
	}
	if got.Refused.Status != "12" || got.Refused.Message != "Bad gRPC response. HTTP 404 Not Found: the provider_id header is missing" {
		t.Errorf("refused: %+v", got.Refused)
	}
}
