package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// EventKinds a notifier group can subscribe to.
var EventKinds = []string{
	"DOCUMENT_STATE_CHANGED", "INBOX_ENTRY_ADDED", "DEADLINE_DUE_SOON", "DEADLINE_OVERDUE", "DEADLINE_MET_LATE",
}

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
			return nil, "", status.Invalid("eventKinds", fmt.Sprintf("unknown event kind %q at index %d; known: %s", k, i, strings.Join(EventKinds, ", ")))
		}
	}
	secret := randomSecret()
	g := models.NotifierGroup{
		ID: "grp_" + randomID(12), ProviderID: p.ProviderID, OrganisationID: p.OrganisationID, Name: name,
		EventKinds: models.NewScopes(kinds...), SecretHash: s.Keyring.MAC(credentials.PurposeGroupSecret, secret),
		CreatedBy: acc, CreatedAt: s.now(),
	}
	if err := models.ExpectDuplicates(models.Conn(ctx, s.DB)).Create(&g).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
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
	var out []models.NotifierGroup
	err := models.Conn(ctx, s.DB).Where("provider_id = ? AND organisation_id = ?", p.ProviderID, p.OrganisationID).
		Order("name").Find(&out).Error
	return out, err
}

// GetGroup returns the group a group token belongs to.
func (s *Service) GetGroup(ctx context.Context) (*models.NotifierGroup, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.GroupID == "" {
		return nil, status.New(status.PermissionDenied, "this operation needs a group token")
	}
	var g models.NotifierGroup
	err := models.Conn(ctx, s.DB).Where("id = ? AND provider_id = ?", p.GroupID, p.ProviderID).Take(&g).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, invalidToken("the group is no longer registered")
	}
	return &g, err
}

// UnregisterGroup removes a group of the caller's organisation; its tokens
// stop working on their next use.
func (s *Service) UnregisterGroup(ctx context.Context, id string) error {
	p := reqctx.From(ctx).Principal
	if _, err := needAccount(p); err != nil {
		return err
	}
	res := models.Conn(ctx, s.DB).Where("id = ? AND provider_id = ? AND organisation_id = ?", id, p.ProviderID, p.OrganisationID).
		Delete(&models.NotifierGroup{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return status.New(status.NotFound, "no group %q in your organisation", id)
	}
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
	var g models.NotifierGroup
	err = models.Conn(ctx, s.DB).Where("id = ? AND provider_id = ?", id, info.ProviderID).Take(&g).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		release(false)
		return "", time.Time{}, err
	}
	if err != nil || !credentials.Equal(g.SecretHash, s.Keyring.MAC(credentials.PurposeGroupSecret, secret)) {
		release(false)
		return "", time.Time{}, invalidCredentials()
	}
	release(true)
	var org models.Organisation
	if err := models.Conn(ctx, s.DB).Where("provider_id = ? AND id = ?", g.ProviderID, g.OrganisationID).Take(&org).Error; err != nil {
		return "", time.Time{}, err
	}
	c := tokens.Claims{Provider: g.ProviderID, Organisation: g.OrganisationID, OrganisationKind: org.Kind}
	c.Subject = g.ID
	c.ID = "gt_" + randomID(16)
	token, exp, err := s.Tokens.Sign(tokens.Group, c, s.Config.GroupTTL)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := models.Conn(ctx, s.DB).Model(&models.NotifierGroup{}).Where("id = ?", g.ID).Update("last_login_at", s.now()).Error; err != nil {
		return "", time.Time{}, err
	}
	return token, exp, nil
}
