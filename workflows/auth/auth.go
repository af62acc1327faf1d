// Package auth is the account and token workflow: logins by password or
// client id, strict refresh-token rotation with reuse detection, sessions,
// client ids, password changes, notifier groups, and the validation of the
// tokens the gateway receives.
package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// Config holds lifetimes and throttling limits.
type Config struct {
	AccessTTL  time.Duration // default 5 minutes
	RefreshTTL time.Duration // default 30 days
	GroupTTL   time.Duration // default 15 minutes

	// MaxFailures per account, client id or group within FailureWindow;
	// MaxFailuresPerIP per client address. Attempts beyond answer 429.
	MaxFailures      int
	MaxFailuresPerIP int
	FailureWindow    time.Duration
}

// Service runs the account and token workflows.
type Service struct {
	Store   Store
	Tokens  *tokens.Issuer
	Hasher  *credentials.Hasher
	Keyring *credentials.Keyring
	Config  Config
	// Now is the clock; tests move it.
	Now func() time.Time
	// Sessions caches the sessions of access tokens while its feed is
	// live; nil reads every session's row.
	Sessions *SessionCache

	dummyHash string
}

// New prepares a service. It hashes one throwaway password so that a login
// for an unknown user costs as much as one with a wrong password.
func New(ctx context.Context, s Service) (*Service, error) {
	if s.Now == nil {
		s.Now = time.Now
	}
	h, err := s.Hasher.Hash(ctx, "timing-equaliser-"+randomID(8))
	if err != nil {
		return nil, err
	}
	s.dummyHash = h
	return &s, nil
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// invalidCredentials is the one answer to every failed login, whatever
// failed: user, password, client id, secret or app token.
func invalidCredentials() error {
	return status.New(status.Unauthenticated, "invalid credentials")
}

func invalidToken(why string) error {
	return status.New(status.Unauthenticated, "invalid token: %s", why)
}

// expiredToken says that a token expired, so that a client knows to get a
// new one (RequestAccess with its refresh token, or a login) rather than
// give up: in the message and, as RFC 6750 (section 3.1) has it, in
// WWW-Authenticate's error_description.
func expiredToken(kind tokens.Kind, cause error) error {
	what := "the access token expired"
	switch kind {
	case tokens.Refresh:
		what = "the refresh token expired"
	case tokens.Group:
		what = "the group token expired"
	}
	e := status.Wrap(cause, status.Unauthenticated, "%s", what)
	e.Headers = map[string]string{"WWW-Authenticate": `Bearer realm="wasteflow", error="invalid_token", error_description="` + what + `"`}
	return e
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randomSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// LoginInput is what IssueRefreshToken receives.
type LoginInput struct {
	Username, Password     string
	ClientID, ClientSecret string
	AppToken               string
}

// IssueRefreshToken logs in and starts a session (a refresh-token family).
func (s *Service) IssueRefreshToken(ctx context.Context, in LoginInput) (string, time.Time, error) {
	info := reqctx.From(ctx)
	provider := info.ProviderID
	byPassword := in.Username != "" || in.Password != ""
	byClient := in.ClientID != "" || in.ClientSecret != ""
	switch {
	case byPassword && byClient:
		return "", time.Time{}, status.Invalid("usernameCredentials", "send either usernameCredentials or clientIdCredentials, not both")
	case !byPassword && !byClient:
		return "", time.Time{}, status.Invalid("usernameCredentials", "credentials are required: usernameCredentials or clientIdCredentials")
	case in.AppToken == "":
		return "", time.Time{}, status.Invalid("appToken", "the app token is required")
	}
	if err := checkLengths(map[string]string{"usernameCredentials.username": in.Username, "usernameCredentials.password": in.Password,
		"clientIdCredentials.clientId": in.ClientID, "clientIdCredentials.clientSecret": in.ClientSecret, "appToken": in.AppToken}); err != nil {
		return "", time.Time{}, err
	}
	key := accountKey(provider, in.Username)
	if byClient {
		key = "client:" + provider + ":" + in.ClientID
	}
	release, err := s.attempt(ctx, key, ipKey(info.ClientIP))
	if err != nil {
		return "", time.Time{}, err
	}

	app, appErr := s.Store.ActiveApplicationByToken(ctx, provider, s.Keyring.MAC(credentials.PurposeAppToken, in.AppToken))
	if appErr != nil && !errors.Is(appErr, models.ErrNotFound) {
		release(false)
		return "", time.Time{}, appErr
	}
	var acc *models.Account
	var clientID *string
	credType := models.CredentialPassword
	if byPassword {
		acc, err = s.verifyPassword(ctx, provider, in.Username, in.Password)
	} else {
		credType = models.CredentialClientID
		acc, err = s.verifyClient(ctx, provider, in.ClientID, in.ClientSecret)
		clientID = &in.ClientID
	}
	if err != nil {
		release(false)
		return "", time.Time{}, err
	}
	if acc == nil || appErr != nil {
		release(false)
		return "", time.Time{}, invalidCredentials()
	}
	release(true)

	now := s.now()
	sess := models.Session{
		ID: "ses_" + randomID(16), ProviderID: provider, AccountID: acc.ID, ClientID: clientID,
		ApplicationID: app.ID, CredentialType: credType, Scopes: intersect(app.Scopes, acc.Scopes),
		UserAgent: truncate(info.UserAgent, 256), ClientIP: info.ClientIP,
		CreatedAt: now, LastUsedAt: now, ExpiresAt: now.Add(s.Config.RefreshTTL),
	}
	org, err := s.organisation(ctx, provider, acc.OrganisationID)
	if err != nil {
		return "", time.Time{}, err
	}
	var token string
	var exp time.Time
	err = s.Store.Tx(ctx, func(ctx context.Context) error {
		if err := s.Store.CreateSession(ctx, &sess); err != nil {
			return err
		}
		if clientID != nil {
			if err := s.Store.TouchClientID(ctx, *clientID, now); err != nil {
				return err
			}
		}
		token, exp, err = s.issueRefresh(ctx, &sess, acc, org, 1)
		return err
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return token, exp, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// verifyPassword returns the account, nil when the credentials are wrong.
// An unknown user costs one hash too.
func (s *Service) verifyPassword(ctx context.Context, provider, username, password string) (*models.Account, error) {
	acc, err := s.Store.EnabledAccountByUsername(ctx, provider, username)
	if errors.Is(err, models.ErrNotFound) {
		_, herr := s.Hasher.Verify(ctx, password, s.dummyHash)
		return nil, busy(herr)
	}
	if err != nil {
		return nil, err
	}
	ok, err := s.Hasher.Verify(ctx, password, acc.PasswordHash)
	if err != nil {
		return nil, busy(err)
	}
	if !ok {
		return nil, nil
	}
	return acc, nil
}

func busy(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, credentials.ErrBusy) {
		return status.Wrap(err, status.Unavailable, "too many logins at once; try again").RetryAfter(time.Second)
	}
	return err
}

func (s *Service) verifyClient(ctx context.Context, provider, clientID, secret string) (*models.Account, error) {
	c, err := s.Store.ActiveClientID(ctx, provider, clientID)
	mac := s.Keyring.MAC(credentials.PurposeClientSecret, secret)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !credentials.Equal(mac, c.SecretHash) {
		return nil, nil
	}
	acc, err := s.Store.EnabledAccount(ctx, c.AccountID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	return acc, err
}

func (s *Service) organisation(ctx context.Context, provider, id string) (*models.Organisation, error) {
	org, err := s.Store.Organisation(ctx, provider, id)
	if err != nil {
		return nil, fmt.Errorf("organisation %s/%s: %w", provider, id, err)
	}
	return org, nil
}

func intersect(a, b models.Scopes) models.Scopes {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
			}
		}
	}
	return models.NewScopes(out...)
}

func baseClaims(sess *models.Session, acc *models.Account, org *models.Organisation) tokens.Claims {
	c := tokens.Claims{
		Provider: sess.ProviderID, Organisation: org.ID, OrganisationKind: org.Kind,
		Scopes: []string(sess.Scopes), SessionID: sess.ID,
	}
	c.Subject = strconv.FormatInt(acc.ID, 10)
	return c
}

// issueRefresh records and signs generation gen of the session's refresh
// token in the transaction of ctx.
func (s *Service) issueRefresh(ctx context.Context, sess *models.Session, acc *models.Account, org *models.Organisation, gen int) (string, time.Time, error) {
	c := baseClaims(sess, acc, org)
	c.ID = "rt_" + randomID(16)
	c.Generation = gen
	token, exp, err := s.Tokens.Sign(tokens.Refresh, c, s.Config.RefreshTTL)
	if err != nil {
		return "", time.Time{}, err
	}
	rt := models.RefreshToken{JTI: c.ID, SessionID: sess.ID, Generation: gen, IssuedAt: s.now(), ExpiresAt: exp}
	if err := s.Store.CreateRefreshToken(ctx, &rt); err != nil {
		return "", time.Time{}, err
	}
	return token, exp, nil
}

// Access is what RequestAccess returns.
type Access struct {
	AccessToken, RefreshToken                   string
	AccessTokenExpiresAt, RefreshTokenExpiresAt time.Time
}

// RequestAccess consumes the presented refresh token and issues an access
// token and the next refresh token of the same session. A token that was
// already consumed revokes the whole session (RFC 9700 reuse detection).
func (s *Service) RequestAccess(ctx context.Context, p *reqctx.Principal) (*Access, error) {
	now := s.now()
	var out Access
	reused := false
	err := s.Store.Tx(ctx, func(ctx context.Context) error {
		consumed, err := s.Store.ConsumeRefreshToken(ctx, p.TokenID, p.SessionID, now)
		if err != nil {
			return err
		}
		if !consumed {
			known, err := s.Store.RefreshTokenExists(ctx, p.TokenID, p.SessionID)
			if err != nil {
				return err
			}
			if !known {
				return invalidToken("unknown refresh token")
			}
			reused = true
			return s.Store.RevokeSession(ctx, p.SessionID, now, "reuse")
		}
		// The session, its account and the account's organisation in one
		// statement: this runs on every token refresh.
		row, err := s.Store.SessionOwner(ctx, p.SessionID)
		if errors.Is(err, models.ErrNotFound) {
			return invalidToken("unknown session")
		}
		if err != nil {
			return err
		}
		sess := row.Session
		switch {
		case !sess.Active(now):
			return invalidToken("the session has ended")
		case row.AccountDisabledAt != nil:
			return invalidToken("the account is disabled")
		case row.OrganisationKind == nil:
			return fmt.Errorf("organisation %s/%s: %w", sess.ProviderID, row.AccountOrganisationID, models.ErrNotFound)
		}
		acc := models.Account{ID: sess.AccountID, ProviderID: sess.ProviderID, OrganisationID: row.AccountOrganisationID}
		org := &models.Organisation{ProviderID: sess.ProviderID, ID: row.AccountOrganisationID, Kind: *row.OrganisationKind}
		if out.RefreshToken, out.RefreshTokenExpiresAt, err = s.issueRefresh(ctx, &sess, &acc, org, p.Generation+1); err != nil {
			return err
		}
		ac := baseClaims(&sess, &acc, org)
		ac.ID = "at_" + randomID(16)
		if out.AccessToken, out.AccessTokenExpiresAt, err = s.Tokens.Sign(tokens.Access, ac, s.Config.AccessTTL); err != nil {
			return err
		}
		return s.Store.ExtendSession(ctx, sess.ID, now, out.RefreshTokenExpiresAt)
	})
	if err != nil {
		return nil, err
	}
	if reused {
		s.Sessions.Evict(p.SessionID) // at once here; other instances by the feed
		reqctx.Logger(ctx).Warn("refresh token reuse detected; session revoked", "session", p.SessionID, "generation", p.Generation)
		return nil, invalidToken("refresh token already used; the session is revoked")
	}
	return &out, nil
}

// Authenticate validates a bearer token of kind for provider. Group
// tokens are checked against their group, access tokens against their
// session, each read from the database or from the session cache while its
// invalidation feed is live (see SessionCache), so an unregistered group
// or a revoked session is refused at once on this instance and within
// milliseconds on others.
func (s *Service) Authenticate(ctx context.Context, kind tokens.Kind, provider, token string) (*reqctx.Principal, error) {
	c, err := s.Tokens.Verify(kind, token)
	if tokens.Expired(err) {
		return nil, expiredToken(kind, err)
	}
	if err != nil {
		return nil, status.Wrap(err, status.Unauthenticated, "invalid token")
	}
	if c.Provider != provider {
		return nil, invalidToken("issued for another provider")
	}
	p := &reqctx.Principal{
		Subject: c.Subject, ProviderID: c.Provider, OrganisationID: c.Organisation, OrganisationKind: c.OrganisationKind,
		Scopes: c.Scopes, SessionID: c.SessionID, TokenID: c.ID, Generation: c.Generation,
	}
	switch kind {
	case tokens.Group:
		// kept as the sessions are, under a key no session id has; the
		// feed evicts it when the group's row is deleted (migration 00036)
		key := groupKey(c.Subject)
		if e, ok := s.Sessions.get(key, s.now()); !ok || e.subject != provider {
			gen, caching := s.Sessions.generation()
			exists, err := s.Store.GroupExists(ctx, provider, c.Subject)
			if err != nil {
				return nil, err
			}
			if !exists {
				return nil, invalidToken("the group is no longer registered")
			}
			if caching {
				s.Sessions.put(key, gen, cachedSession{subject: provider, expires: maxTime})
			}
		}
		p.GroupID = c.Subject
		p.Scopes = nil
		return p, nil
	case tokens.Access:
		now := s.now()
		if e, ok := s.Sessions.get(c.SessionID, now); ok && e.subject == c.Subject {
			p.AccountID = e.account
			return p, nil
		}
		gen, caching := s.Sessions.generation()
		sess, err := s.Store.Session(ctx, c.SessionID)
		if errors.Is(err, models.ErrNotFound) || (err == nil && (!sess.Active(now) || strconv.FormatInt(sess.AccountID, 10) != c.Subject)) {
			return nil, invalidToken("the session has ended")
		}
		if err != nil {
			return nil, err
		}
		if caching {
			s.Sessions.put(c.SessionID, gen, cachedSession{account: sess.AccountID, subject: c.Subject, expires: sess.ExpiresAt})
		}
		p.AccountID = sess.AccountID
	case tokens.Refresh:
		// The session and the token's state are checked by RequestAccess
		// inside its transaction.
		id, err := strconv.ParseInt(c.Subject, 10, 64)
		if err != nil {
			return nil, invalidToken("bad subject")
		}
		p.AccountID = id
	}
	return p, nil
}

// ProvidersOfAppToken lists the providers with an active application
// holding token (the deadline page offers only those).
func (s *Service) ProvidersOfAppToken(ctx context.Context, token string) ([]string, error) {
	if token == "" {
		var out []string
		return out, nil
	}
	return s.Store.ProvidersOfAppToken(ctx, s.Keyring.MAC(credentials.PurposeAppToken, token))
}

// Lengths of unauthenticated input: nothing longer is a real credential,
// and nothing longer reaches the database or a log line.
const (
	MaxNameBytes   = 200  // usernames, client ids
	MaxSecretBytes = 1024 // passwords, secrets, tokens
)

// checkLengths refuses credential fields over their limit (400 naming the
// field, without echoing it).
func checkLengths(fields map[string]string) error {
	for _, f := range []string{"usernameCredentials.username", "clientIdCredentials.clientId", "groupId", "targetUsername",
		"usernameCredentials.password", "clientIdCredentials.clientSecret", "appToken", "groupSecret", "newPassword"} {
		v, ok := fields[f]
		if !ok {
			continue
		}
		limit := MaxSecretBytes
		if strings.HasSuffix(f, "username") || strings.HasSuffix(f, "clientId") || f == "groupId" || f == "targetUsername" {
			limit = MaxNameBytes
		}
		if len(v) > limit {
			return status.Invalid(f, fmt.Sprintf("at most %d bytes (%d given)", limit, len(v)))
		}
	}
	return nil
}
