package auth_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

const loginFixture = `
providers:
  - {id: dev-1, environment: development, name: Dev}
organisations:
  - {id: acme, provider: dev-1, kind: company, name: ACME, country: DE}
applications:
  - {provider: dev-1, name: ui, appToken: "app-token-ui-0123456789abcdef", scopes: [usermgt]}
accounts:
  - {provider: dev-1, organisation: acme, username: alice, password: "alice-password-1", scopes: [usermgt]}
`

// TestFailedLoginsDoTheSameWork holds a failed login to the same work
// whether or not its username exists (issue 44.9): one password hash and
// the same statements, so that the answer's time does not tell which
// usernames exist. Measured from outside (200 tries each, in random
// order): the medians agree within the noise on both databases.
func TestFailedLoginsDoTheSameWork(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		var statements atomic.Int64
		count := func(*gorm.DB) { statements.Add(1) }
		for _, cb := range []interface {
			Register(string, func(*gorm.DB)) error
		}{db.Callback().Query().After("*"), db.Callback().Raw().After("*"), db.Callback().Row().After("*"),
			db.Callback().Create().After("*"), db.Callback().Update().After("*"), db.Callback().Delete().After("*")} {
			if err := cb.Register("test:count", count); err != nil {
				t.Fatal(err)
			}
		}
		ring, _ := credentials.NewKeyring(bytes.Repeat([]byte{9}, 32))
		hasher := credentials.NewHasher(1)
		f, err := bootstrap.Parse(strings.NewReader(loginFixture))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&bootstrap.Applier{Store: models.NewSeedStore(db), Hasher: hasher, Keyring: ring}).Apply(context.Background(), f); err != nil {
			t.Fatal(err)
		}
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		now := func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }
		svc, err := auth.New(context.Background(), auth.Service{
			Store: models.NewAuthStore(db), Tokens: &tokens.Issuer{Keys: tokens.NewKeys(priv), Name: "wasteflow", Now: now},
			Hasher: hasher, Keyring: ring, Now: now,
			Config: auth.Config{AccessTTL: 5 * time.Minute, RefreshTTL: time.Hour, GroupTTL: time.Minute,
				MaxFailures: 1000, MaxFailuresPerIP: 1000, FailureWindow: 15 * time.Minute},
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := reqctx.With(context.Background(), &reqctx.Info{ProviderID: "dev-1", ClientIP: "203.0.113.7"})

		type work struct{ hashes, statements int64 }
		login := func(username, password string) (work, error) {
			h, s := hasher.Verifications(), statements.Load()
			_, _, err := svc.IssueRefreshToken(ctx, auth.LoginInput{Username: username, Password: password, AppToken: "app-token-ui-0123456789abcdef"})
			return work{hasher.Verifications() - h, statements.Load() - s}, err
		}
		// Twice each, so that the throttle's counter exists for both keys
		// the second time, as it does for a guesser's repeated tries.
		var known, unknown work
		for range 2 {
			if known, err = login("alice", "wrong-password-1"); err == nil {
				t.Fatal("a wrong password logged in")
			}
			if unknown, err = login("nobody", "wrong-password-1"); err == nil {
				t.Fatal("an unknown user logged in")
			}
		}
		if known.hashes != 1 || unknown.hashes != 1 {
			t.Errorf("password hashes: known user %d, unknown user %d; want one each", known.hashes, unknown.hashes)
		}
		if known.statements != unknown.statements {
			t.Errorf("statements: known user %d, unknown user %d; want the same", known.statements, unknown.statements)
		}
		if ok, err := login("alice", "alice-password-1"); err != nil || ok.hashes != 1 {
			t.Fatalf("the right password: %v (%d hashes)", err, ok.hashes)
		}
	})
}
