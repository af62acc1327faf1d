package models

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/models/qpar"
)

// SignerStore keeps signing processes: the storage of workflows/signer
// (signer.Store).
type SignerStore struct{ db *gorm.DB }

// NewSignerStore returns the signer store over db.
func NewSignerStore(db *gorm.DB) *SignerStore { return &SignerStore{db: db} }

// SigningProcessView is a signing process with the names of who asked for
// it.
type SigningProcessView struct {
	SigningProcess
	RequestedBy      string // the username of the account that created it
	OrganisationName string // the name of the organisation that created it
}

// EnabledAccountByUsername is provider's account username unless disabled.
func (s *SignerStore) EnabledAccountByUsername(ctx context.Context, provider, username string) (*Account, error) {
	var acc Account
	if err := Conn(ctx, s.db).Where("provider_id = ? AND username = ? AND disabled_at IS NULL", provider, username).Take(&acc).Error; err != nil {
		return nil, notFound(err)
	}
	return &acc, nil
}

// HoldsAnyNumber reports whether provider's organisation org holds one of
// the official numbers.
func (s *SignerStore) HoldsAnyNumber(ctx context.Context, provider, org string, numbers []string) (bool, error) {
	var held int64
	err := Conn(ctx, s.db).Model(&OrganisationNumber{}).
		Where("provider_id = ? AND organisation_id = ? AND number IN ?", provider, org, numbers).Count(&held).Error
	return held > 0, err
}

// CreateProcess stores a new process.
func (s *SignerStore) CreateProcess(ctx context.Context, sp *SigningProcess) error {
	return Conn(ctx, s.db).Create(sp).Error
}

// Requester is the username of account and the name of provider's
// organisation org ("" for one that is gone).
func (s *SignerStore) Requester(ctx context.Context, account int64, provider, org string) (username, orgName string, err error) {
	db := Conn(ctx, s.db)
	var names []string
	if err := db.Model(&Account{}).Where("id = ?", account).Limit(1).Pluck("username", &names).Error; err != nil {
		return "", "", err
	}
	if len(names) > 0 {
		username = names[0]
	}
	names = names[:0]
	if err := db.Model(&Organisation{}).Where("provider_id = ? AND id = ?", provider, org).Limit(1).Pluck("name", &names).Error; err != nil {
		return "", "", err
	}
	if len(names) > 0 {
		orgName = names[0]
	}
	return username, orgName, nil
}

// Process is provider's process id.
func (s *SignerStore) Process(ctx context.Context, provider, id string) (*SigningProcess, error) {
	var sp SigningProcess
	if err := Conn(ctx, s.db).Where("id = ? AND provider_id = ?", id, provider).Take(&sp).Error; err != nil {
		return nil, notFound(err)
	}
	return &sp, nil
}

// Reload reads sp again by its id.
func (s *SignerStore) Reload(ctx context.Context, sp *SigningProcess) error {
	return notFound(Conn(ctx, s.db).Where("id = ?", sp.ID).Take(sp).Error)
}

// MoveProcess moves process id from one of the states from to state with
// its outcome, completed at now; moved is false when it is in none of
// from (any more).
func (s *SignerStore) MoveProcess(ctx context.Context, id string, from []string, state string, result []byte, reason string, now time.Time) (moved bool, err error) {
	r := Conn(ctx, s.db).Model(&SigningProcess{}).Where("id = ? AND state IN ?", id, from).
		Updates(map[string]any{"state": state, "result": result, "reason": reason, "completed_at": now})
	return r.RowsAffected > 0, r.Error
}

// OpenProcess moves process id from state from to state to, opened at now
// (nothing when it is no longer in from).
func (s *SignerStore) OpenProcess(ctx context.Context, id, from, to string, now time.Time) error {
	return Conn(ctx, s.db).Model(&SigningProcess{ID: id}).Where("state = ?", from).Updates(map[string]any{"state": to, "opened_at": now}).Error
}

// ExpireProcesses moves the processes of provider that org created or
// account is to sign, in one of the states from and past their expiry at
// now, to state with reason.
func (s *SignerStore) ExpireProcesses(ctx context.Context, provider, org string, account int64, from []string, state, reason string, now time.Time) error {
	return Conn(ctx, s.db).Model(&SigningProcess{}).
		Where("provider_id = ? AND (organisation_id = ? OR signer_id = ?) AND state IN ? AND expires_at < ?", provider, org, account, from, now).
		Updates(map[string]any{"state": state, "reason": reason, "completed_at": now}).Error
}

// ExpireDue ends every process in one of the states from whose expiry
// has passed at now, of any provider (the sweep's), and reports how many.
func (s *SignerStore) ExpireDue(ctx context.Context, from []string, state, reason string, now time.Time) (int64, error) {
	res := Conn(ctx, s.db).Model(&SigningProcess{}).Where("state IN ? AND expires_at < ?", from, now).
		Updates(map[string]any{"state": state, "reason": reason, "completed_at": now})
	return res.RowsAffected, res.Error
}

// SigningColumns say where the paths of the process list are (bind the
// workflow's schema with them).
var SigningColumns = Columns{
	"id": "sp.id", "state": "sp.state", "signer": "sp.signer_name", "position": "sp.position",
	"requested_by.username": "a.username", "requested_by.organisation_id": "sp.organisation_id",
	"created_at": "sp.created_at", "expires_at": "sp.expires_at", "opened_at": "sp.opened_at", "completed_at": "sp.completed_at",
}

// ListProcesses lists, without their documents, the processes of provider
// that org created or account is to sign, only those in one of the states
// when states is not nil, as q selects them (schema bound with
// SigningColumns); a mistake in q is a *qpar.Error.
func (s *SignerStore) ListProcesses(ctx context.Context, provider, org string, account int64, states []string, q *qpar.QueryParameter, schema *qpar.Schema) ([]SigningProcessView, int64, error) {
	base := Conn(ctx, s.db).Table("signing_processes sp").
		Select("sp.id, sp.provider_id, sp.organisation_id, sp.created_by, sp.signer_id, sp.signer_name, sp.position, sp.state, sp.reason, "+
			"sp.created_at, sp.expires_at, sp.opened_at, sp.completed_at, a.username AS requested_by, o.name AS organisation_name").
		Joins("LEFT JOIN accounts a ON a.id = sp.created_by").
		Joins("LEFT JOIN organisations o ON o.provider_id = sp.provider_id AND o.id = sp.organisation_id").
		Where("sp.provider_id = ? AND (sp.organisation_id = ? OR sp.signer_id = ?)", provider, org, account)
	if states != nil {
		base = base.Where("sp.state IN ?", states)
	}
	return listPage[SigningProcessView](base, q, schema)
}
