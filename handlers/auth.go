package handlers

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/rules/labels"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// tokenAuth adapts the auth workflow to the gateway's Authenticator.
type tokenAuth struct{ svc *auth.Service }

func (a tokenAuth) Authenticate(ctx context.Context, kind api.Security, provider, token string) (*reqctx.Principal, error) {
	k := tokens.Access
	switch kind {
	case api.RefreshToken:
		k = tokens.Refresh
	case api.GroupToken:
		k = tokens.Group
	}
	return a.svc.Authenticate(ctx, k, provider, token)
}

const pkgNotifier = "svc.namespaced_notifier.v1.api"

const tokenLifetimes = "Access tokens live 5 minutes and refresh tokens 30 days by default " +
	"(WASTEFLOW_ACCESS_TOKEN_TTL, WASTEFLOW_REFRESH_TOKEN_TTL); tokens are EdDSA-signed JWTs whose public keys are at /.well-known/jwks.json."

func (s *Server) authOperations() []api.Operation {
	if s.authSvc == nil {
		return nil
	}
	core := func(method, verb string, sec api.Security, scope, summary, desc string) api.Operation {
		return api.Operation{Package: pkgCore, Service: "AuthApi", Method: method, Verb: verb, Security: sec, Scope: scope, Summary: summary, Description: desc}
	}
	notifier := func(method, verb string, sec api.Security, scope, summary, desc string) api.Operation {
		return api.Operation{Package: pkgNotifier, Service: "RegisteredGroupAuthApi", Method: method, Verb: verb, Security: sec, Scope: scope, Summary: summary, Description: desc}
	}
	return []api.Operation{
		api.Unary(core("IssueRefreshToken", http.MethodPost, api.NoToken, "", "Log in: credentials and app token for a refresh token",
			"Send usernameCredentials or clientIdCredentials, plus the appToken of the application. Starts a session (a refresh-token family) "+
				"whose scopes are the application's scopes intersected with the account's. Wrong credentials, unknown user and unknown app token "+
				"all answer 401 with one message. Repeated failures per account and per client address answer 429 with Retry-After until the "+
				"failure window ends (throttling, never a lockout). "+tokenLifetimes), s.issueRefreshToken),
		api.Unary(core("RequestAccess", http.MethodPost, api.RefreshToken, "", "Exchange a refresh token for an access token and the next refresh token",
			"The presented refresh token is consumed at once (rotation); keep the new one. Presenting a consumed refresh token revokes the whole "+
				"session (reuse detection), so two concurrent calls with one token invalidate each other: refresh in one place. "+tokenLifetimes), s.requestAccess),
		api.Unary(core("ChangePassword", http.MethodPost, api.OptionalAccessToken, "", "Change a password, authenticated by the current credentials",
			"Needs no access token to change your own password. To change another account's password of your organisation, add targetUsername "+
				"and send your access token with the scope usermgt. New passwords need at least 12 characters and must not be the username. "+
				"Every session of the changed account is revoked. Failures count towards the login throttle of the account."), s.changePassword),
		api.Unary(core("IssueClientId", http.MethodPost, api.AccessToken, "usermgt", "Create a client id and secret for machine logins",
			"The client secret is shown in this response only; it is stored as an HMAC. Log in with clientIdCredentials."), s.issueClientID),
		api.Unary(core("ListClientIds", http.MethodGet, api.AccessToken, "usermgt", "The calling account's active client ids",
			"Never includes a secret."), s.listClientIDs),
		api.Unary(core("RevokeClientId", http.MethodPost, api.AccessToken, "usermgt", "Revoke a client id of the calling account",
			"Sessions logged in with it end at once."), s.revokeClientID),
		api.Unary(core("ListSessions", http.MethodGet, api.AccessToken, "usermgt", "The calling account's active sessions",
			"A session is a refresh-token family started by one login."), s.listSessions),
		api.Unary(core("RevokeRefreshToken", http.MethodPost, api.AccessToken, "", "End a session of the calling account",
			"Name the session by sessionId (from ListSessions) or by one of its refresh tokens. Its refresh and access tokens stop working at once."), s.revokeRefreshToken),

		api.Unary(notifier("RegisterGroup", http.MethodPost, api.AccessToken, "usermgt", "Register a notifier group for your organisation",
			"A group is how an integration receives notifications (document state changes, inbox entries, deadlines) without a user account. "+
				"The groupSecret is shown in this response only. Names are unique per organisation."), s.registerGroup),
		api.Unary(notifier("ListGroups", http.MethodGet, api.AccessToken, "usermgt", "The notifier groups of your organisation", "Never includes a secret."), s.listGroups),
		api.Unary(notifier("Login", http.MethodPost, api.NoToken, "", "Exchange a group id and secret for a group token",
			"Group tokens live 15 minutes by default (WASTEFLOW_GROUP_TOKEN_TTL) and are accepted only by notifier operations. "+
				"Failures are throttled like user logins."), s.groupLogin),
		api.Unary(notifier("GetGroup", http.MethodGet, api.GroupToken, "", "The group of the presented group token",
			"Lets an integration check its token and registration."), s.getGroup),
		api.Unary(notifier("UnregisterGroup", http.MethodPost, api.AccessToken, "usermgt", "Remove a notifier group of your organisation",
			"Its group tokens stop working on their next use."), s.unregisterGroup),
	}
}

// Credentials and token messages.

type UsernameCredentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type ClientIdCredentials struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
}

type IssueRefreshTokenRequest struct {
	UsernameCredentials *UsernameCredentials `json:"usernameCredentials"`
	ClientIdCredentials *ClientIdCredentials `json:"clientIdCredentials"`
	AppToken            string               `json:"appToken" required:"true" doc:"token of the application, issued by the provider"`
}

type IssueRefreshTokenResponse struct {
	RefreshToken          string    `json:"refreshToken"`
	RefreshTokenExpiresAt time.Time `json:"refreshTokenExpiresAt"`
}

func (s *Server) issueRefreshToken(ctx context.Context, req *IssueRefreshTokenRequest) (*IssueRefreshTokenResponse, error) {
	in := auth.LoginInput{AppToken: req.AppToken}
	if u := req.UsernameCredentials; u != nil {
		in.Username, in.Password = u.Username, u.Password
	}
	if c := req.ClientIdCredentials; c != nil {
		in.ClientID, in.ClientSecret = c.ClientID, c.ClientSecret
	}
	tok, exp, err := s.authSvc.IssueRefreshToken(ctx, in)
	if err != nil {
		return nil, err
	}
	return &IssueRefreshTokenResponse{RefreshToken: tok, RefreshTokenExpiresAt: exp}, nil
}

type RequestAccessRequest struct{}

type RequestAccessResponse struct {
	AccessToken           string    `json:"accessToken"`
	RefreshToken          string    `json:"refreshToken"`
	AccessTokenExpiresAt  time.Time `json:"accessTokenExpiresAt"`
	RefreshTokenExpiresAt time.Time `json:"refreshTokenExpiresAt"`
}

func (s *Server) requestAccess(ctx context.Context, _ *RequestAccessRequest) (*RequestAccessResponse, error) {
	a, err := s.authSvc.RequestAccess(ctx, reqctx.From(ctx).Principal)
	if err != nil {
		return nil, err
	}
	return &RequestAccessResponse{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken,
		AccessTokenExpiresAt: a.AccessTokenExpiresAt, RefreshTokenExpiresAt: a.RefreshTokenExpiresAt}, nil
}

type ChangePasswordRequest struct {
	UsernameCredentials *UsernameCredentials `json:"usernameCredentials" doc:"the caller's current credentials"`
	NewPassword         string               `json:"newPassword" required:"true"`
	TargetUsername      string               `json:"targetUsername" maxLength:"200" doc:"another account of the caller's organisation; needs an access token with usermgt"`
}

type ChangePasswordResponse struct{}

func (s *Server) changePassword(ctx context.Context, req *ChangePasswordRequest) (*ChangePasswordResponse, error) {
	in := auth.ChangePasswordInput{NewPassword: req.NewPassword, TargetUsername: req.TargetUsername}
	if u := req.UsernameCredentials; u != nil {
		in.Username, in.Password = u.Username, u.Password
	}
	if err := s.authSvc.ChangePassword(ctx, in); err != nil {
		return nil, err
	}
	return &ChangePasswordResponse{}, nil
}

type IssueClientIdRequest struct {
	Description string `json:"description"`
}

type IssueClientIdResponse struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret" doc:"shown only here"`
}

func (s *Server) issueClientID(ctx context.Context, req *IssueClientIdRequest) (*IssueClientIdResponse, error) {
	id, secret, err := s.authSvc.IssueClientID(ctx, req.Description)
	if err != nil {
		return nil, err
	}
	return &IssueClientIdResponse{ClientID: id, ClientSecret: secret}, nil
}

type ListClientIdsRequest struct{}

type ClientIdInfo struct {
	ClientID    string     `json:"clientId"`
	Description string     `json:"description"`
	CreatedAt   time.Time  `json:"createdAt"`
	LastUsedAt  *time.Time `json:"lastUsedAt"`
}

type ListClientIdsResponse struct {
	ClientIds []ClientIdInfo `json:"clientIds"`
}

func (s *Server) listClientIDs(ctx context.Context, _ *ListClientIdsRequest) (*ListClientIdsResponse, error) {
	list, err := s.authSvc.ListClientIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := &ListClientIdsResponse{ClientIds: make([]ClientIdInfo, 0, len(list))}
	for _, c := range list {
		out.ClientIds = append(out.ClientIds, ClientIdInfo{ClientID: c.ID, Description: c.Description, CreatedAt: c.CreatedAt, LastUsedAt: c.LastUsedAt})
	}
	return out, nil
}

type RevokeClientIdRequest struct {
	ClientID string `json:"clientId" required:"true"`
}

type RevokeClientIdResponse struct{}

func (s *Server) revokeClientID(ctx context.Context, req *RevokeClientIdRequest) (*RevokeClientIdResponse, error) {
	return &RevokeClientIdResponse{}, s.authSvc.RevokeClientID(ctx, req.ClientID)
}

// CredentialType of a session.
type CredentialType int32

func (CredentialType) EnumNames() []string {
	return []string{"CREDENTIAL_TYPE_UNSPECIFIED", models.CredentialPassword, models.CredentialClientID}
}

// EnumLabels are the words a person sees for the values, by number
// (EnumNames()[n] is labelled EnumLabels()[n]).
func (CredentialType) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "User name and password", DE: "Benutzername und Passwort"},
		{EN: "Client id and secret", DE: "Client-ID und Geheimnis"},
	}
}

func credentialType(s string) CredentialType {
	for i, n := range CredentialType(0).EnumNames() {
		if n == s {
			return CredentialType(i)
		}
	}
	return 0
}

type ListSessionsRequest struct{}

type SessionInfo struct {
	SessionID       string         `json:"sessionId"`
	CreatedAt       time.Time      `json:"createdAt"`
	LastUsedAt      time.Time      `json:"lastUsedAt"`
	ExpiresAt       time.Time      `json:"expiresAt"`
	CredentialType  CredentialType `json:"credentialType"`
	ApplicationName string         `json:"applicationName"`
	UserAgent       string         `json:"userAgent"`
	ClientIP        string         `json:"clientIp"`
}

type ListSessionsResponse struct {
	Sessions []SessionInfo `json:"sessions"`
}

func (s *Server) listSessions(ctx context.Context, _ *ListSessionsRequest) (*ListSessionsResponse, error) {
	list, err := s.authSvc.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	out := &ListSessionsResponse{Sessions: make([]SessionInfo, 0, len(list))}
	for _, v := range list {
		out.Sessions = append(out.Sessions, SessionInfo{SessionID: v.ID, CreatedAt: v.CreatedAt, LastUsedAt: v.LastUsedAt, ExpiresAt: v.ExpiresAt,
			CredentialType: credentialType(v.CredentialType), ApplicationName: v.ApplicationName, UserAgent: v.UserAgent, ClientIP: v.ClientIP})
	}
	return out, nil
}

type RevokeRefreshTokenRequest struct {
	SessionID    string `json:"sessionId"`
	RefreshToken string `json:"refreshToken"`
}

type RevokeRefreshTokenResponse struct{}

func (s *Server) revokeRefreshToken(ctx context.Context, req *RevokeRefreshTokenRequest) (*RevokeRefreshTokenResponse, error) {
	return &RevokeRefreshTokenResponse{}, s.authSvc.RevokeSession(ctx, req.SessionID, req.RefreshToken)
}

// Notifier groups.

// EventKind is a kind of notification a group can receive.
type EventKind int32

func (EventKind) EnumNames() []string {
	return append([]string{"EVENT_KIND_UNSPECIFIED"}, auth.EventKinds...)
}

type Group struct {
	GroupID        string      `json:"groupId"`
	Name           string      `json:"name"`
	OrganisationID string      `json:"organisationId"`
	EventKinds     []EventKind `json:"eventKinds"`
	CreatedAt      time.Time   `json:"createdAt"`
	LastLoginAt    *time.Time  `json:"lastLoginAt"`
}

func groupOf(g *models.NotifierGroup) Group {
	return Group{GroupID: g.ID, Name: g.Name, OrganisationID: g.OrganisationID, CreatedAt: g.CreatedAt, LastLoginAt: g.LastLoginAt, EventKinds: eventKinds(g.EventKinds)}
}

// eventKind is the enum value of an event kind's name (0 for none known).
func eventKind(name string) EventKind {
	if i := slices.Index(EventKind(0).EnumNames(), name); i > 0 {
		return EventKind(i)
	}
	return 0
}

// eventKinds are the enum values of known kind names.
func eventKinds(names []string) []EventKind {
	out := []EventKind{}
	for _, n := range names {
		if k := eventKind(n); k > 0 {
			out = append(out, k)
		}
	}
	return out
}

// kindNames are the names of enum values ("UNKNOWN" for a value out of
// range, which the workflow refuses by name).
func kindNames(kinds []EventKind) []string {
	names := EventKind(0).EnumNames()
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		if k <= 0 || int(k) >= len(names) {
			out = append(out, "UNKNOWN")
			continue
		}
		out = append(out, names[k])
	}
	return out
}

type RegisterGroupRequest struct {
	Name       string      `json:"name" required:"true"`
	EventKinds []EventKind `json:"eventKinds" required:"true"`
}

type RegisterGroupResponse struct {
	GroupID     string `json:"groupId"`
	GroupSecret string `json:"groupSecret" doc:"shown only here"`
	Group       Group  `json:"group"`
}

func (s *Server) registerGroup(ctx context.Context, req *RegisterGroupRequest) (*RegisterGroupResponse, error) {
	g, secret, err := s.authSvc.RegisterGroup(ctx, req.Name, kindNames(req.EventKinds))
	if err != nil {
		return nil, err
	}
	return &RegisterGroupResponse{GroupID: g.ID, GroupSecret: secret, Group: groupOf(g)}, nil
}

type ListGroupsRequest struct{}

type ListGroupsResponse struct {
	Groups []Group `json:"groups"`
}

func (s *Server) listGroups(ctx context.Context, _ *ListGroupsRequest) (*ListGroupsResponse, error) {
	list, err := s.authSvc.ListGroups(ctx)
	if err != nil {
		return nil, err
	}
	out := &ListGroupsResponse{Groups: make([]Group, 0, len(list))}
	for i := range list {
		out.Groups = append(out.Groups, groupOf(&list[i]))
	}
	return out, nil
}

type GroupLoginRequest struct {
	GroupID     string `json:"groupId" required:"true"`
	GroupSecret string `json:"groupSecret" required:"true"`
}

type GroupLoginResponse struct {
	GroupToken string    `json:"groupToken"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

func (s *Server) groupLogin(ctx context.Context, req *GroupLoginRequest) (*GroupLoginResponse, error) {
	tok, exp, err := s.authSvc.GroupLogin(ctx, req.GroupID, req.GroupSecret)
	if err != nil {
		return nil, err
	}
	return &GroupLoginResponse{GroupToken: tok, ExpiresAt: exp}, nil
}

type GetGroupRequest struct{}

type GetGroupResponse struct {
	Group Group `json:"group"`
}

func (s *Server) getGroup(ctx context.Context, _ *GetGroupRequest) (*GetGroupResponse, error) {
	g, err := s.authSvc.GetGroup(ctx)
	if err != nil {
		return nil, err
	}
	return &GetGroupResponse{Group: groupOf(g)}, nil
}

type UnregisterGroupRequest struct {
	GroupID string `json:"groupId"`
}

type UnregisterGroupResponse struct{}

func (s *Server) unregisterGroup(ctx context.Context, req *UnregisterGroupRequest) (*UnregisterGroupResponse, error) {
	return &UnregisterGroupResponse{}, s.authSvc.UnregisterGroup(ctx, req.GroupID)
}
