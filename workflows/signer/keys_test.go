package signer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Keys come from PEM files (PKCS#8 key and certificate) or PKCS#12 files
// with their password beside them; every certificate is found for trust.
func TestDirKeysReadPEMAndPKCS12(t *testing.T) {
	dir := t.TempDir()
	k := DirKeys{Dir: dir}
	if err := k.WriteTestKey("dev-1", "tom", "truck"); err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "dora"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, _ := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	cert, _ := x509.ParseCertificate(der)
	p12, err := pkcs12.Modern.Encode(key, cert, nil, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "dev-1", "dora.p12"), p12, 0o600)
	os.WriteFile(filepath.Join(dir, "dev-1", "dora.p12.password"), []byte("s3cret\n"), 0o600)

	for _, who := range []string{"tom", "dora"} {
		got, err := k.KeyFor("dev-1", who)
		if err != nil || got.Cert.Subject.CommonName != who || got.Signer == nil {
			t.Fatalf("%s: %+v %v", who, got, err)
		}
	}
	if _, err := k.KeyFor("dev-1", "nobody"); err == nil {
		t.Fatal("a key for nobody")
	}
	os.WriteFile(filepath.Join(dir, "dev-1", "dora.p12.password"), []byte("wrong"), 0o600)
	if _, err := k.KeyFor("dev-1", "dora"); err == nil {
		t.Fatal("a wrong PKCS#12 password was taken")
	}
	os.WriteFile(filepath.Join(dir, "dev-1", "dora.p12.password"), []byte("s3cret"), 0o600)
	certs, err := k.Certificates()
	if err != nil || len(certs) != 2 {
		t.Fatalf("certificates: %d %v", len(certs), err)
	}
	// A demo key is written once.
	before, _ := os.ReadFile(filepath.Join(dir, "dev-1", "tom.pem"))
	k.WriteTestKey("dev-1", "tom", "truck")
	if after, _ := os.ReadFile(filepath.Join(dir, "dev-1", "tom.pem")); string(after) != string(before) {
		t.Fatal("the demo key was replaced")
	}
}
