package signer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Certificates reads every certificate of the key files under dir (to
// trust signatures made with them).
func (k DirKeys) Certificates() ([]*x509.Certificate, error) {
	if k.Dir == "" {
		return nil, nil
	}
	var out []*x509.Certificate
	err := filepath.WalkDir(k.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(path, ".pem") && !strings.HasSuffix(path, ".p12")) {
			return err
		}
		rel, _ := filepath.Rel(k.Dir, path)
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) != 2 {
			return nil
		}
		key, err := k.KeyFor(parts[0], strings.TrimSuffix(strings.TrimSuffix(parts[1], ".pem"), ".p12"))
		if err != nil {
			return err
		}
		out = append(out, key.Cert)
		return nil
	})
	return out, err
}

// WriteTestKey makes a self-signed ECDSA P-256 key and certificate for
// username, for demos and tests: not a qualified signature. An existing
// file is kept.
func (k DirKeys) WriteTestKey(provider, username, organisation string) error {
	path := filepath.Join(k.Dir, filepath.Base(provider), filepath.Base(username)+".pem")
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	tpl := &x509.Certificate{SerialNumber: serial,
		Subject:   pkix.Name{CommonName: username, Organization: []string{organisation}, OrganizationalUnit: []string{"wasteflow test signature, not qualified"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(2, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		return err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	return os.WriteFile(path, data, 0o600)
}

func readP12(base string) (*Key, error) {
	raw, err := os.ReadFile(base + ".p12")
	if err != nil {
		return nil, fmt.Errorf("no signing key (%s.pem or .p12): %w", filepath.Base(base), err)
	}
	pass, err := os.ReadFile(base + ".p12.password")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	pk, cert, _, err := pkcs12.DecodeChain(raw, strings.TrimRight(string(pass), "\r\n"))
	if err != nil {
		return nil, fmt.Errorf("%s.p12: %w", filepath.Base(base), err)
	}
	s, ok := pk.(crypto.Signer)
	if !ok {
		return nil, errors.New("the PKCS#12 key cannot sign")
	}
	return &Key{Signer: s, Cert: cert}, nil
}
