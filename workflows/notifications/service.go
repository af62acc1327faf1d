package notifications

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Service runs notifications.
type Service struct {
	DB      *gorm.DB
	Machine *engine.Machine
	Now     func() time.Time
	// WarnWorkingDays is the DUE_SOON window before a deadline (default 2).
	WarnWorkingDays int
}

func (s *Service) warnDays() int {
	if s.WarnWorkingDays <= 0 {
		return 2
	}
	return s.WarnWorkingDays
}

// New builds the machine (validating the declaration) and the service.
func New(db *gorm.DB, now func() time.Time) (*Service, error) {
	m, err := engine.Build(Definition)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Service{DB: db, Machine: m, Now: now}, nil
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// FollowUp is an intent the caller may fire now.
type FollowUp struct {
	Intent    string
	Operation string
	Block     string
	DueAt     *time.Time
}

// View is a document as its caller sees it.
type View struct {
	Doc       models.Document
	Data      *n.Notification
	Deadlines []models.Deadline
	FollowUp  []FollowUp
}

func notFound(id string) error {
	return status.New(status.NotFound, "no document %q", id)
}

// caller builds the engine caller of the request, roles from the parties.
func caller(ctx context.Context) (engine.Caller, *reqctx.Principal, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return engine.Caller{}, nil, status.New(status.PermissionDenied, "document operations need an account's access token")
	}
	return engine.Caller{Actor: fmt.Sprint(p.AccountID), Org: p.OrganisationID}, p, nil
}

func rolesOf(data *n.Notification, org string) []string {
	var out []string
	for _, p := range n.Parties(&data.Content) {
		if p.OrganisationID == org {
			out = append(out, p.Role)
		}
	}
	return out
}

func (s *Service) directory(ctx context.Context, tx *gorm.DB, provider string) (n.Directory, map[string]calendar.Place, error) {
	var orgs []models.Organisation
	if err := tx.WithContext(ctx).Where("provider_id = ?", provider).Find(&orgs).Error; err != nil {
		return nil, nil, err
	}
	kinds := map[string]string{}
	places := map[string]calendar.Place{}
	for _, o := range orgs {
		kinds[o.ID] = o.Kind
		places[o.ID] = calendar.Place{Country: o.Country, Region: o.Region}
	}
	return func(id string) (string, bool) { k, ok := kinds[id]; return k, ok }, places, nil
}

// Create files a new notification as a DRAFT of the caller's organisation.
func (s *Service) Create(ctx context.Context, content n.Content, meta n.Metadata) (*View, []n.BusinessError, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	if p.OrganisationKind != "company" {
		return nil, nil, status.New(status.PermissionDenied, "only companies file notifications")
	}
	if content.Notifier.OrganisationID == "" {
		content.Notifier.OrganisationID = c.Org
	}
	if content.Notifier.OrganisationID != c.Org {
		return nil, nil, status.New(status.PermissionDenied, "the notifier must be your organisation %q", c.Org)
	}
	now := s.Now().UTC()
	var view *View
	var berrs []n.BusinessError
	err = s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		dir, places, err := s.directory(ctx, tx, p.ProviderID)
		if err != nil {
			return err
		}
		data := &n.Notification{Content: content, Metadata: meta}
		if berrs = n.ValidateDraft(&data.Content, dir); len(berrs) > 0 {
			view = &View{Data: data, Doc: models.Document{Kind: Kind, State: n.Draft}}
			return nil
		}
		number, err := s.nextNumber(tx, p.ProviderID, places[c.Org].Country, now)
		if err != nil {
			return err
		}
		raw, _ := json.Marshal(data)
		doc := models.Document{ID: newID("ntf_"), ProviderID: p.ProviderID, Kind: Kind, Number: number, State: n.Draft,
			Version: 1, Data: string(raw), CreatedBy: c.Actor, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(&doc).Error; err != nil {
			return err
		}
		if err := s.saveParties(tx, doc.ID, data); err != nil {
			return err
		}
		if _, err := audit.Append(tx, models.AuditEvent{DocumentID: doc.ID, FromState: "", ToState: n.Draft, Intent: "CREATE",
			Actor: c.Actor, ActorOrg: c.Org, At: now, RequestID: reqctx.From(ctx).RequestID}); err != nil {
			return err
		}
		view = &View{Doc: doc, Data: data}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(berrs) == 0 {
		c.Roles = rolesOf(view.Data, c.Org)
		if err := s.followUp(ctx, view, c); err != nil {
			return nil, nil, err
		}
	}
	return view, berrs, nil
}

// nextNumber gives the human number: country of the notifier, year, sequence.
func (s *Service) nextNumber(tx *gorm.DB, provider, country string, now time.Time) (string, error) {
	if country == "" {
		country = "XX"
	}
	prefix := fmt.Sprintf("%s-%d", country, now.Year())
	var last int64
	err := tx.Raw(`INSERT INTO document_numbers (provider_id, prefix, last_value) VALUES (?, ?, 1)
ON CONFLICT (provider_id, prefix) DO UPDATE SET last_value = document_numbers.last_value + 1
RETURNING last_value`, provider, prefix).Scan(&last).Error
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%06d", prefix, last), nil
}

func (s *Service) saveParties(tx *gorm.DB, id string, data *n.Notification) error {
	if err := tx.Where("document_id = ?", id).Delete(&models.DocumentParty{}).Error; err != nil {
		return err
	}
	var rows []models.DocumentParty
	for _, p := range n.Parties(&data.Content) {
		rows = append(rows, models.DocumentParty{DocumentID: id, OrganisationID: p.OrganisationID, Role: p.Role})
	}
	if len(rows) == 0 {
		return nil
	}
	return tx.Create(&rows).Error
}

// load reads a document the caller may see (locking it when lock is set).
// Another provider's or another party's document is reported exactly like
// a missing one.
func (s *Service) load(tx *gorm.DB, id, provider string, c engine.Caller, lock bool) (*models.Document, *n.Notification, error) {
	q := tx.Where("id = ? AND provider_id = ? AND kind = ?", id, provider, Kind)
	if lock && models.IsPostgres(tx) {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var doc models.Document
	if err := q.Take(&doc).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, nil, notFound(id)
		}
		return nil, nil, err
	}
	if !c.System {
		var k int64
		if err := tx.Model(&models.DocumentParty{}).Where("document_id = ? AND organisation_id = ?", id, c.Org).Count(&k).Error; err != nil {
			return nil, nil, err
		}
		if k == 0 {
			return nil, nil, notFound(id)
		}
	}
	var data n.Notification
	if err := json.Unmarshal([]byte(doc.Data), &data); err != nil {
		return nil, nil, fmt.Errorf("document %s: stored data: %w", id, err)
	}
	return &doc, &data, nil
}

func (s *Service) deadlinesOf(tx *gorm.DB, id string) ([]models.Deadline, error) {
	var out []models.Deadline
	err := tx.Where("document_id = ?", id).Order("started_at, id").Find(&out).Error
	return out, err
}

func views(ds []models.Deadline) []engine.DeadlineView {
	out := make([]engine.DeadlineView, 0, len(ds))
	for _, d := range ds {
		out = append(out, engine.DeadlineView{Rule: d.Rule, PartyOrg: d.PartyOrg, State: d.State, DueAt: d.DueAt, Open: running(&d)})
	}
	return out
}

// Get returns a notification the caller is a party to.
func (s *Service) Get(ctx context.Context, id string) (*View, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	doc, data, err := s.load(s.DB.WithContext(ctx), id, p.ProviderID, c, false)
	if err != nil {
		return nil, err
	}
	view := &View{Doc: *doc, Data: data}
	if view.Deadlines, err = s.deadlinesOf(s.DB.WithContext(ctx), id); err != nil {
		return nil, err
	}
	c.Roles = rolesOf(data, c.Org)
	return view, s.followUp(ctx, view, c)
}

func (s *Service) followUp(ctx context.Context, v *View, c engine.Caller) error {
	ev := &engine.Eval{State: v.Doc.State, Data: v.Data, Caller: c, Now: s.Now().UTC(), Deadlines: views(v.Deadlines)}
	intents, err := s.Machine.FollowUp(ctx, ev)
	if err != nil {
		return err
	}
	v.FollowUp = nil
	for _, in := range intents {
		f := FollowUp{Intent: in.Name, Operation: in.Operation, Block: in.Block}
		// dueAt: the caller's open deadline that this intent stops.
		for _, e := range in.Effects {
			if e.Op != engine.Stop {
				continue
			}
			for _, d := range v.Deadlines {
				if d.Rule == e.Rule && d.PartyOrg == c.Org && (running(&d) || d.State == DeadlineSuspended) {
					due := d.DueAt
					f.DueAt = &due
				}
			}
		}
		v.FollowUp = append(v.FollowUp, f)
	}
	return nil
}

// SetSubmission files a draft (SUBMISSION) or corrects a filed notification
// (CORRECTION), chosen by the document's state.
func (s *Service) SetSubmission(ctx context.Context, id string, version *int64, content n.Content) (*View, []n.BusinessError, error) {
	return s.fire(ctx, id, version, "", &content)
}

// Fire executes intent with its block (a pointer to the block's type) on
// the document.
func (s *Service) Fire(ctx context.Context, id string, version *int64, intent string, input any) (*View, []n.BusinessError, error) {
	if intent == "" {
		return nil, nil, status.Invalid("intent", "required")
	}
	return s.fire(ctx, id, version, intent, input)
}

// FireSystem executes an automatic trigger with actor system (the
// scheduler's entry point). authority names the authority of TACIT_CONSENT.
func (s *Service) FireSystem(ctx context.Context, id, intent, authority string) (*View, error) {
	ctx = reqctx.With(ctx, &reqctx.Info{RequestID: reqctx.From(ctx).RequestID, Logger: reqctx.Logger(ctx), Metadata: map[string][]string{}})
	v, _, err := s.fireAs(ctx, engine.Caller{Actor: engine.System, System: true}, "", id, nil, intent, authority)
	return v, err
}

func (s *Service) fire(ctx context.Context, id string, version *int64, intent string, input any) (*View, []n.BusinessError, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s.fireAs(ctx, c, p.ProviderID, id, version, intent, input)
}

func (s *Service) fireAs(ctx context.Context, c engine.Caller, provider, id string, version *int64, intent string, input any) (*View, []n.BusinessError, error) {
	var view *View
	var berrs []n.BusinessError
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		view, berrs, err = s.fireIn(ctx, tx, c, provider, id, version, intent, input, s.Now().UTC())
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if !c.System {
		c.Roles = rolesOf(view.Data, c.Org)
		if err := s.followUp(ctx, view, c); err != nil {
			return nil, nil, err
		}
	}
	return view, berrs, nil
}

// fireIn runs one intent inside tx (which the sweep shares). Business
// errors come back with a nil error: nothing was written.
func (s *Service) fireIn(ctx context.Context, tx *gorm.DB, c engine.Caller, provider, id string, version *int64, intent string, input any, now time.Time) (*View, []n.BusinessError, error) {
	if c.System {
		var d models.Document
		if err := tx.Select("provider_id").Where("id = ?", id).Take(&d).Error; err != nil {
			return nil, nil, notFound(id)
		}
		provider = d.ProviderID
	}
	doc, data, err := s.load(tx, id, provider, c, true)
	if err != nil {
		return nil, nil, err
	}
	if version != nil && *version != doc.Version {
		return nil, nil, status.New(status.Aborted, "document %s is at version %d, not %d: reload it and try again", id, doc.Version, *version).
			WithDetails(status.Info("VERSION_MISMATCH", map[string]string{"currentVersion": fmt.Sprint(doc.Version)}))
	}
	if !c.System {
		c.Roles = rolesOf(data, c.Org)
	}
	if intent == "" { // SetSubmission
		intent = IntentCorrection
		if doc.State == n.Draft {
			intent = IntentSubmission
		}
	}
	deadlines, err := s.deadlinesOf(tx, id)
	if err != nil {
		return nil, nil, err
	}
	ev := &engine.Eval{State: doc.State, Data: data, Caller: c, Now: now, Input: input, Deadlines: views(deadlines)}
	if err := s.Machine.Check(ctx, ev, intent); err != nil {
		return nil, nil, s.refusal(ctx, err, ev, intent)
	}
	dir, places, err := s.directory(ctx, tx, doc.ProviderID)
	if err != nil {
		return nil, nil, err
	}
	if err := validateInput(input, data); err != nil {
		return nil, nil, err
	}
	var berrs []n.BusinessError
	if content, ok := input.(*n.Content); ok {
		if content.Notifier.OrganisationID == "" {
			content.Notifier.OrganisationID = data.Content.Notifier.OrganisationID
		}
		if content.Notifier.OrganisationID != data.Content.Notifier.OrganisationID {
			berrs = append(berrs, n.BusinessError{Code: n.ErrPartyUnknown, Field: "notification.notifier.organisationId", Message: "the notifier of a notification cannot change"})
		}
		berrs = append(berrs, n.ValidateSubmission(content, dir)...)
	}
	if len(berrs) > 0 {
		return &View{Doc: *doc, Data: data, Deadlines: deadlines}, berrs, nil
	}
	from := doc.State
	accepted := false
	ev.Apply = func() error {
		accepted = apply(intent, ev, data, input, from, now)
		return nil
	}
	if err := s.Machine.Fire(ctx, ev, intent); err != nil {
		return nil, nil, err
	}
	before := map[string]string{}
	for _, d := range deadlines {
		before[d.ID] = d.State
	}
	f := &firing{tx: tx, doc: doc, data: data, ev: ev, places: places, deadlines: deadlines, before: before, warnDays: s.warnDays()}
	if a, ok := input.(string); ok {
		f.input = a
	}
	in, _ := s.Machine.Intent(intent)
	if err := f.applyEffects(in); err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, nil, err
	}
	doc.State, doc.Data, doc.UpdatedAt = ev.State, string(raw), now
	res := tx.Model(&models.Document{}).Where("id = ? AND version = ?", doc.ID, doc.Version).
		Updates(map[string]any{"state": doc.State, "data": doc.Data, "version": doc.Version + 1, "updated_at": now})
	if res.Error != nil {
		return nil, nil, res.Error
	}
	if res.RowsAffected != 1 { // only reachable without row locks (SQLite serialises writers instead)
		return nil, nil, status.New(status.Aborted, "document %s changed meanwhile: reload it and try again", id)
	}
	doc.Version++
	if intent == IntentCorrection && from == n.Submitted || intent == IntentSubmission || accepted {
		if err := s.saveParties(tx, doc.ID, data); err != nil {
			return nil, nil, err
		}
	}
	row, err := audit.Append(tx, models.AuditEvent{DocumentID: doc.ID, FromState: from, ToState: doc.State, Intent: intent,
		Actor: c.Actor, ActorOrg: c.Org, At: now, RequestID: reqctx.From(ctx).RequestID})
	if err != nil {
		return nil, nil, err
	}
	if from != doc.State {
		for _, org := range partyOrgs(data) {
			if err := emit(tx, models.Event{ProviderID: doc.ProviderID, OrganisationID: org, Kind: EventStateChanged, DocumentID: doc.ID,
				DedupKey: fmt.Sprintf("%s:%d:%s", doc.ID, row.Seq, org), CreatedAt: now}, map[string]any{
				"documentNumber": doc.Number, "documentKind": doc.Kind, "from": from, "to": doc.State, "intent": intent, "actor": c.Actor}); err != nil {
				return nil, nil, err
			}
		}
	}
	return &View{Doc: *doc, Data: data, Deadlines: f.deadlines}, nil, nil
}

func partyOrgs(data *n.Notification) []string {
	var out []string
	for _, p := range n.Parties(&data.Content) {
		if !slices.Contains(out, p.OrganisationID) {
			out = append(out, p.OrganisationID)
		}
	}
	return out
}

// refusal turns an engine refusal into the API's answer: 400/9 naming the
// state and what the caller may do, or 403/7 for a wrong role.
func (s *Service) refusal(ctx context.Context, err error, ev *engine.Eval, intent string) error {
	var np *engine.NotPermittedError
	switch {
	case errors.Is(err, engine.ErrRole):
		in, _ := s.Machine.Intent(intent)
		return status.New(status.PermissionDenied, "%s may be fired only by %s; your roles on this document: %s",
			intent, strings.Join(in.Roles, " or "), strings.Join(ev.Caller.Roles, ", "))
	case errors.As(err, &np):
		var permitted []string
		if ins, ferr := s.Machine.FollowUp(ctx, ev); ferr == nil {
			for _, in := range ins {
				permitted = append(permitted, in.Name)
			}
		}
		list := "none"
		if len(permitted) > 0 {
			list = strings.Join(permitted, ", ")
		}
		return status.New(status.FailedPrecondition, "intent %s is not permitted in state %s; permitted for you now: %s", intent, ev.State, list).
			WithDetails(status.Info("INTENT_NOT_PERMITTED", map[string]string{"state": ev.State, "intent": intent, "permitted": strings.Join(permitted, ",")}))
	}
	return err
}

// apply records the block; it reports whether a pending correction was accepted.
func apply(intent string, ev *engine.Eval, data *n.Notification, input any, from string, now time.Time) bool {
	org := ev.Caller.Org
	role := ""
	if len(ev.Caller.Roles) > 0 {
		role = ev.Caller.Roles[0]
	}
	switch intent {
	case IntentSubmission:
		data.Content = *input.(*n.Content)
	case IntentCorrection:
		data.ApplyCorrection(*input.(*n.Content), from, now)
	case IntentAcknowledgement:
		return data.ApplyAcknowledgement(org, *input.(*n.Acknowledgement), now)
	case IntentRequestInformation:
		data.ApplyRequestInformation(org, *input.(*n.RequestInformation), from, now)
	case IntentReplyToRequestInfo:
		data.ApplyReply(*input.(*n.ReplyToRequestInformation), now)
	case IntentDecision:
		for _, r := range ev.Caller.Roles { // the caller's authority role
			if slices.Contains(anyAuthority, r) {
				role = r
			}
		}
		data.ApplyDecision(org, role, *input.(*n.Decision), false, now)
	case IntentTacitConsent:
		data.ApplyDecision(input.(string), n.RoleAuthorityTransit, n.Decision{Type: n.DecisionConsent}, true, now)
	case IntentRequestForChange:
		data.ApplyRequestForChange(*input.(*n.RequestForChange), now)
	case IntentReplyToChange:
		data.ApplyChangeReply(org, *input.(*n.ReplyToRequestForChange), now)
	case IntentNotificationSignal:
		data.ApplySignal(org, *input.(*n.NotificationSignal), now)
	}
	return false
}

// validateInput rejects blocks the transport cannot take (code 3).
func validateInput(input any, data *n.Notification) error {
	switch in := input.(type) {
	case *n.RequestInformation:
		if len(in.Questions) == 0 {
			return status.Invalid("requestInformation.questions", "at least one question is required")
		}
	case *n.ReplyToRequestInformation:
		if len(in.Answers) == 0 {
			return status.Invalid("replyToRequestInformation.answers", "at least one answer is required")
		}
	case *n.Decision:
		switch in.Type {
		case n.DecisionConsent, n.DecisionConsentWithConditions, n.DecisionObjection:
		default:
			return status.Invalid("decision.type", "CONSENT, CONSENT_WITH_CONDITIONS or OBJECTION is required")
		}
		if in.Type == n.DecisionObjection && strings.TrimSpace(in.Grounds) == "" {
			return status.Invalid("decision.grounds", "an objection needs grounds")
		}
		if in.Type == n.DecisionConsentWithConditions && len(in.Conditions) == 0 {
			return status.Invalid("decision.conditions", "a conditional consent needs conditions")
		}
		if in.ValidUntil != "" {
			if _, err := time.Parse(time.DateOnly, in.ValidUntil); err != nil {
				return status.Invalid("decision.validUntil", "a date YYYY-MM-DD is required")
			}
		}
	case *n.RequestForChange:
		if len(in.Changes) == 0 {
			return status.Invalid("requestForChange.changes", "at least one change is required")
		}
	case *n.ReplyToRequestForChange:
		switch in.Result {
		case n.ChangeAccepted, n.ChangeAcceptedWithConditions, n.ChangeRejected:
		default:
			return status.Invalid("replyToRequestForChange.result", "ACCEPTED, ACCEPTED_WITH_CONDITIONS or REJECTED is required")
		}
		if in.Result == n.ChangeRejected && strings.TrimSpace(in.Grounds) == "" {
			return status.Invalid("replyToRequestForChange.grounds", "a rejection needs grounds")
		}
		if in.Result == n.ChangeAcceptedWithConditions && len(in.Conditions) == 0 {
			return status.Invalid("replyToRequestForChange.conditions", "an acceptance with conditions needs conditions")
		}
	case *n.NotificationSignal:
		switch in.Type {
		case n.SignalCancellationOfConsent, n.SignalClosure:
		case n.SignalRevalidation:
			if _, err := time.Parse(time.DateOnly, in.ValidUntil); err != nil {
				return status.Invalid("notificationSignal.validUntil", "a revalidation needs the new validUntil (YYYY-MM-DD)")
			}
		default:
			return status.Invalid("notificationSignal.type", "CANCELLATION_OF_CONSENT, CLOSURE or REVALIDATION is required")
		}
	case string: // TACIT_CONSENT: the authority must be an undecided transit authority
		ok := false
		for _, a := range n.Authorities(&data.Content) {
			if a.OrganisationID == in && a.Role == n.RoleAuthorityTransit && !data.HasDecided(in) {
				ok = true
			}
		}
		if !ok {
			return status.Invalid("authority", fmt.Sprintf("%q is not an undecided transit authority of this notification", in))
		}
	}
	return nil
}
