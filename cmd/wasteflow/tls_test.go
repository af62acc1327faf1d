package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/wasteflow/wasteflow/models/dbtest"
	core "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
)

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, cert *x509.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wasteflow test"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// With WASTEFLOW_TLS_CERT_FILE and WASTEFLOW_TLS_KEY_FILE, serve speaks TLS
// on its one port: REST over HTTP/1.1 and HTTP/2, gRPC over HTTP/2.
func TestServeOverTLS(t *testing.T) {
	certFile, keyFile, cert := selfSigned(t)
	env := environment(t, dbtest.SQLite(t), "WASTEFLOW_ADDR", "127.0.0.1:0", "WASTEFLOW_TLS_CERT_FILE", certFile, "WASTEFLOW_TLS_KEY_FILE", keyFile)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"serve"}, strings.NewReader(""), io.Discard, io.Discard, env, func(a string) { addr <- a })
	}()
	var a string
	select {
	case a = <-addr:
	case code := <-exit:
		t.Fatalf("serve exited %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	for _, h2 := range []bool{false, true} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: h2}
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		resp, err := (&http.Client{Transport: tr}).Get("https://" + a + "/readyz")
		if err != nil || resp.StatusCode != 200 || (resp.ProtoMajor == 2) != h2 {
			t.Fatalf("REST over TLS (HTTP/2 %v): %v %v", h2, err, resp)
		}
		resp.Body.Close()
	}
	conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if list, err := core.NewDiscoveryApiClient(conn).ListProvider(context.Background(), &core.ListProviderRequest{}); err != nil || list == nil {
		t.Fatalf("gRPC over TLS: %v", err)
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit %d", code)
	}
}
