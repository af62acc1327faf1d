package tokens

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// RFC 8037 Appendix A.3: the thumbprint of the RFC's example Ed25519 key.
func TestThumbprintRFC8037(t *testing.T) {
	x, err := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := thumbprint(x), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"; got != want {
		t.Errorf("thumbprint = %s, want %s", got, want)
	}
	// Same key from its RFC 8037 A.1 seed, to tie the vector to NewKeys.
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	if got := NewKeys(ed25519.NewKeyFromSeed(seed)).SigningKID(); got != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
		t.Errorf("SigningKID = %s", got)
	}
}

type jwksDoc struct {
	Keys []map[string]string `json:"keys"`
}

func TestJWKS(t *testing.T) {
	sk, old1, old2 := newKey(t), newKey(t), newKey(t)
	// Duplicates (including the signing key's own public half) appear once.
	k := NewKeys(sk, pub(old2), pub(old1), pub(sk), pub(old1), ed25519.PublicKey("short"))
	raw := k.JWKS()

	var doc jwksDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Keys) != 3 {
		t.Fatalf("%d keys, want 3: %s", len(doc.Keys), raw)
	}
	if doc.Keys[0]["kid"] != k.SigningKID() {
		t.Errorf("signing key not first")
	}
	if !slices.IsSorted([]string{doc.Keys[1]["kid"], doc.Keys[2]["kid"]}) {
		t.Errorf("verification keys not sorted by kid")
	}
	wantPubs := map[string]ed25519.PublicKey{}
	for _, s := range []ed25519.PrivateKey{sk, old1, old2} {
		wantPubs[thumbprint(pub(s))] = pub(s)
	}
	for _, key := range doc.Keys {
		if len(key) != 6 || key["kty"] != "OKP" || key["crv"] != "Ed25519" || key["alg"] != "EdDSA" || key["use"] != "sig" {
			t.Errorf("bad JWK %v", key)
		}
		x, err := base64.RawURLEncoding.DecodeString(key["x"])
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := wantPubs[key["kid"]]; !ok || !bytes.Equal(x, want) || thumbprint(x) != key["kid"] {
			t.Errorf("kid %s does not match its key", key["kid"])
		}
		delete(wantPubs, key["kid"])
	}
	// No private material.
	if strings.Contains(string(raw), `"d"`) {
		t.Error("private key in JWKS")
	}

	// Deterministic: same bytes whatever the argument order, every call,
	// and callers cannot alter the cached document.
	again := NewKeys(sk, pub(old1), pub(old2)).JWKS()
	if !bytes.Equal(raw, again) {
		t.Errorf("JWKS not deterministic:\n%s\n%s", raw, again)
	}
	raw[0] = 'X'
	if k.JWKS()[0] != '{' {
		t.Error("JWKS returned shared buffer")
	}
}

func TestKeysZeroAndNil(t *testing.T) {
	var nilKeys *Keys
	if nilKeys.SigningKID() != "" || string(nilKeys.JWKS()) != `{"keys":[]}` {
		t.Error("nil Keys")
	}
	if got := string(NewKeys(nil).JWKS()); got != `{"keys":[]}` {
		t.Errorf("empty JWKS = %s", got)
	}
}

// TestNewKeysCopies: later changes to the caller's slices do not reach us.
func TestNewKeysCopies(t *testing.T) {
	sk := newKey(t)
	k := NewKeys(sk)
	kid := k.SigningKID()
	iss := &Issuer{Keys: k, Name: testIssuer}
	clear(sk)
	token, _, err := iss.Sign(Access, sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iss.Verify(Access, token); err != nil || k.SigningKID() != kid {
		t.Fatalf("key changed under us: %v", err)
	}
}

func TestRotationNewKeys(t *testing.T) {
	oldSK, newSK := newKey(t), newKey(t)
	now := func() time.Time { return t0 }
	oldIss := &Issuer{Keys: NewKeys(oldSK), Name: testIssuer, Now: now}
	token, _, err := oldIss.Sign(Access, sampleClaims(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	during := &Issuer{Keys: NewKeys(newSK, pub(oldSK)), Name: testIssuer, Now: now}
	if _, err := during.Verify(Access, token); err != nil {
		t.Fatalf("old token during rotation: %v", err)
	}
	fresh, _, err := during.Sign(Access, sampleClaims(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if kidOf(t, fresh) != thumbprint(pub(newSK)) {
		t.Error("rotation did not switch the signing key")
	}

	after := &Issuer{Keys: NewKeys(newSK), Name: testIssuer, Now: now}
	if _, err := after.Verify(Access, token); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "unknown kid") {
		t.Fatalf("old token after rotation: %v", err)
	}
	if _, err := after.Verify(Access, fresh); err != nil {
		t.Fatalf("new token after rotation: %v", err)
	}
}

func TestRotationLoadKeys(t *testing.T) {
	dir := t.TempDir()
	oldFile := filepath.Join(dir, "old.pem")
	oldKeys, err := LoadKeys(oldFile, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return t0 }
	token, _, err := (&Issuer{Keys: oldKeys, Name: testIssuer, Now: now}).Sign(Refresh, sampleClaims(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	// The old key may be kept as its private PEM or exported as public PEM.
	oldSK, err := parseSigningPEM(readFile(t, oldFile))
	if err != nil {
		t.Fatal(err)
	}
	oldPub := writePEM(t, dir, "old.pub.pem", "PUBLIC KEY", mustPKIX(t, pub(oldSK)))

	newFile := filepath.Join(dir, "new.pem")
	for _, verify := range [][]string{{oldFile}, {oldPub}, {oldFile, oldPub}} {
		keys, err := LoadKeys(newFile, verify, true)
		if err != nil {
			t.Fatal(err)
		}
		iss := &Issuer{Keys: keys, Name: testIssuer, Now: now}
		if _, err := iss.Verify(Refresh, token); err != nil {
			t.Errorf("verify with %v: %v", verify, err)
		}
		if keys.SigningKID() == oldKeys.SigningKID() {
			t.Error("verification file became the signing key")
		}
		if n := len(decodeJWKS(t, keys)); n != 2 {
			t.Errorf("%d keys in JWKS, want 2", n)
		}
	}

	keys, err := LoadKeys(newFile, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Issuer{Keys: keys, Name: testIssuer, Now: now}).Verify(Refresh, token); !errors.Is(err, ErrInvalid) {
		t.Error("old token verifies after its key was removed")
	}
}

func TestLoadKeysCreatesOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets", "jwt")
	file := filepath.Join(dir, "signing.pem")

	first, err := LoadKeys(file, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	content := readFile(t, file)
	second, err := LoadKeys(file, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if first.SigningKID() == "" || first.SigningKID() != second.SigningKID() {
		t.Fatalf("kid changed between loads: %q, %q", first.SigningKID(), second.SigningKID())
	}
	if !bytes.Equal(content, readFile(t, file)) {
		t.Error("second load rewrote the key file")
	}
	if block, _ := pem.Decode(content); block == nil || block.Type != "PRIVATE KEY" {
		t.Errorf("file is not a PKCS#8 PEM")
	}

	if runtime.GOOS != "windows" {
		assertMode(t, file, 0o600)
		assertMode(t, dir, 0o700)
	}
	assertNoTempFiles(t, dir)

	// Without create, a missing file is an error, not a new key.
	_, err = LoadKeys(filepath.Join(dir, "missing.pem"), nil, false)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file without create: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.pem")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("file created although create was false")
	}
}

// TestLoadKeysConcurrentCreate: replicas starting together agree on one key
// and never see a half-written file.
func TestLoadKeysConcurrentCreate(t *testing.T) {
	for round := range 5 {
		dir := filepath.Join(t.TempDir(), "k")
		file := filepath.Join(dir, "signing.pem")
		const n = 16
		kids := make([]string, n)
		errs := make([]error, n)
		var start, wg sync.WaitGroup
		start.Add(1)
		for i := range n {
			wg.Go(func() {
				start.Wait()
				k, err := LoadKeys(file, nil, true)
				errs[i] = err
				if err == nil {
					kids[i] = k.SigningKID()
				}
			})
		}
		start.Done()
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: %v", round, errs[i])
			}
			if kids[i] != kids[0] {
				t.Fatalf("round %d: kids differ: %v", round, kids)
			}
		}
		assertNoTempFiles(t, dir)
	}
}

func TestLoadKeysRejects(t *testing.T) {
	dir := t.TempDir()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPKCS8, err := x509.MarshalPKCS8PrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	ecSEC1, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	// X25519 shares the curve with Ed25519 but is a key-agreement key.
	xKey, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	xPKCS8, err := x509.MarshalPKCS8PrivateKey(xKey)
	if err != nil {
		t.Fatal(err)
	}
	edPKCS8, err := x509.MarshalPKCS8PrivateKey(newKey(t))
	if err != nil {
		t.Fatal(err)
	}

	good := writePEM(t, dir, "good.pem", "PRIVATE KEY", edPKCS8)
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("this is not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name    string
		signing string
		verify  []string
		want    string
	}{
		{"garbage signing", garbage, nil, "no PEM block"},
		{"empty signing", empty, nil, "no PEM block"},
		{"ECDSA PKCS#8 signing", writePEM(t, dir, "ec.pem", "PRIVATE KEY", ecPKCS8), nil, "not an Ed25519 key"},
		{"X25519 PKCS#8 signing", writePEM(t, dir, "x25519.pem", "PRIVATE KEY", xPKCS8), nil, "not an Ed25519 key"},
		{"SEC1 EC signing", writePEM(t, dir, "sec1.pem", "EC PRIVATE KEY", ecSEC1), nil, `want "PRIVATE KEY"`},
		{"public key as signing", writePEM(t, dir, "pub.pem", "PUBLIC KEY", mustPKIX(t, pub(newKey(t)))), nil, `want "PRIVATE KEY"`},
		{"corrupt DER signing", writePEM(t, dir, "corrupt.pem", "PRIVATE KEY", []byte("not DER")), nil, "parsing PKCS#8"},
		{"garbage verify", good, []string{garbage}, "no PEM block"},
		{"ECDSA public verify", good, []string{writePEM(t, dir, "ecpub.pem", "PUBLIC KEY", mustPKIX(t, &ecKey.PublicKey))}, "not an Ed25519 key"},
		{"X25519 private verify", good, []string{filepath.Join(dir, "x25519.pem")}, "not an Ed25519 key"},
		{"certificate verify", good, []string{writePEM(t, dir, "cert.pem", "CERTIFICATE", []byte{1})}, `want "PUBLIC KEY"`},
		{"missing verify", good, []string{filepath.Join(dir, "nope.pem")}, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, create := range []bool{false, true} {
				k, err := LoadKeys(tc.signing, tc.verify, create)
				if err == nil || k != nil {
					t.Fatalf("accepted (create=%v)", create)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %q, want it to mention %q", err, tc.want)
				}
			}
		})
	}
	// The bad file was left alone, not replaced by a new key.
	if got := readFile(t, garbage); string(got) != "this is not a key\n" {
		t.Error("garbage key file was overwritten")
	}
}

// --- helpers ---------------------------------------------------------------

func kidOf(t *testing.T, token string) string {
	t.Helper()
	var h struct{ Kid string }
	if err := json.Unmarshal(decodeSeg(t, splitToken(t, token)[0]), &h); err != nil {
		t.Fatal(err)
	}
	return h.Kid
}

func decodeJWKS(t *testing.T, k *Keys) []map[string]string {
	t.Helper()
	var doc jwksDoc
	if err := json.Unmarshal(k.JWKS(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Keys
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustPKIX(t *testing.T, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func assertMode(t *testing.T, name string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", name, got, want)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
