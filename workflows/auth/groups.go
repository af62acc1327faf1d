package auth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// EventKinds a notifier group can subscribe to.
var EventKinds = eventkinds.Names()

// RegisterGroup creates a notifier group for the caller's organisation. The
// secret is returned here only.
func (s *Service) RegisterGroup(ctx context.Context, name string, kinds []string) (*models.NotifierGroup, string, error) {
	p := reqctx.From(ctx).Principal
	acc, err := needAccount(p)
	if err != nil {
		return nil, "", err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return nil, "", status.Invalid("name", "a name of 1 to 100 characters is required")
	}
	if len(kinds) == 0 {
		return nil, "", status.Invalid("eventKinds", "at least one event kind is required: "+strings.Join(EventKinds, ", "))
	}
	for i, k := range kinds {
		if !slices.Contains(EventKinds, k) {
			return nil, "", status.Invalidf("eventKinds", "unknown event kind %q at index %d; known: %s", k, i, strings.Join(EventKinds, ", "))
		}
	}
	secret := randomSecret()
	g := models.NotifierGroup{
		ID: "grp_" + randomID(12), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Name: name,
		EventKinds: models.NewScopes(kinds...), SecretHash: s.Keyring.MAC(credentials.PurposeGroupSecret, secret),
		CreatedBy: acc, CreatedAt: s.now(),
	}
	if err := s.Store.CreateGroup(ctx, &g); err != nil {
		if errors.Is(err, models.ErrDuplicate) {
			return nil, "", status.New(status.AlreadyExists, "your organisation already has a group named %q", name)
		}
		return nil, "", err
	}
	return &g, secret, nil
}

// ListGroups returns the groups of the caller's organisation.
func (s *Service) ListGroups(ctx context.Context) ([]models.NotifierGroup, error) {
	p := reqctx.From(ctx).Principal
	if _, err := needAccount(p); err != nil {
		return nil, err
	}
	return s.Store.GroupsOf(ctx, p.ProviderID, p.OrganisationID)
}

// GetGroup returns the group a group token belongs to.
func (s *Service) GetGroup(ctx context.Context) (*models.NotifierGroup, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.GroupID == "" {
		return nil, status.New(status.PermissionDenied, "this operation needs a group token")
	}
	g, err := s.Store.Group(ctx, p.ProviderID, p.GroupID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, invalidToken("the group is no longer registered")
	}
	return g, err
}

// UnregisterGroup removes a group of the caller's organisation; its tokens
// stop working on their next use.
func (s *Service) UnregisterGroup(ctx context.Context, id string) error {
	p := reqctx.From(ctx).Principal
	if _, err := needAccount(p); err != nil {
		return err
	}
	found, err := s.Store.DeleteGroup(ctx, p.ProviderID, p.OrganisationID, id)
	if err != nil {
		return err
	}
	if !found {
		return status.New(status.NotFound, "no group %q in your organisation", id)
	}
	s.Sessions.Evict(groupKey(id)) // at once here; other instances by the feed
	return nil
}

// GroupLogin exchanges a group's id and secret for a short-lived group token.
func (s *Service) GroupLogin(ctx context.Context, id, secret string) (string, time.Time, error) {
	info := reqctx.From(ctx)
	if id == "" || secret == "" {
		return "", time.Time{}, status.Invalid("groupId", "groupId and groupSecret are required")
	}
	if err := checkLengths(map[string]string{"groupId": id, "groupSecret": secret}); err != nil {
		return "", time.Time{}, err
	}
	release, err := s.attempt(ctx, "group:"+info.ProviderID+":"+id, ipKey(info.ClientIP))
	if err != nil {
		return "", time.Time{}, err
	}
	g, err := s.Store.Group(ctx, info.ProviderID, id)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		release(false)
		return "", time.Time{}, err
	}
	if err != nil || !credentials.Equal(g.SecretHash, s.Keyring.MAC(credentials.PurposeGroupSecret, secret)) {
		release(false)
		return "", time.Time{}, invalidCredentials()
	}
	release(true)
	org, err := s.Store.Organisation(ctx, g.ProviderID, g.OrganisationID)
	if err != nil {
		return "", time.Time{}, err
	}
	c := tokens.Claims{Provider: g.ProviderID, Organisation: g.OrganisationID, OrganisationKind: org.Kind}
	c.Subject = g.ID
	c.ID = "gt_" + randomID(16)
	token, exp, err := s.Tokens.Sign(tokens.Group, c, s.Config.GroupTTL)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := s.Store.TouchGroupLogin(ctx, g.ID, s.now()); err != nil {
		return "", time.Time{}, err
	}
	return token, exp, nil
}
