package handlers

import (
	"cmp"
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/qpar"
	a7 "github.com/wasteflow/wasteflow/rules/annex7"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// The document lists and work queues of companies and authorities (our
// design: the interface names no list of DIWASS documents).

type ListDocumentsRequest struct {
	Qpar       qpar.QueryParameter `json:"qpar" doc:"filter, sort, paging and mask, as in the store lists" label:"Filter, sort and page|Filter, Sortierung und Seite"`
	Actionable bool                `json:"actionable" doc:"keep only the documents on which you have at least one follow-up intent now: your work queue (then sorted by your nearest deadline unless qpar.sort says otherwise)" label:"Only documents waiting for me|Nur Dokumente, die auf mich warten" help:"Your work queue: the documents on which you can act now.|Ihr Arbeitsvorrat: die Dokumente, bei denen Sie jetzt handeln können."`
}

// NextDeadline is the earliest running deadline the caller must meet.
type NextDeadline struct {
	Rule       string    `json:"rule" label:"Time limit|Frist" codeList:"deadlineRule"`
	LegalBasis string    `json:"legalBasis" label:"Legal basis|Rechtsgrundlage"`
	DueAt      time.Time `json:"dueAt" label:"Due by|Fällig bis"`
	State      string    `json:"state" doc:"OPEN, DUE_SOON or OVERDUE" label:"Status|Status" codeList:"deadlineState"`
}

// DocumentListEntry is one document of a list.
type DocumentListEntry struct {
	DocumentID      string           `json:"documentId" doc:"what the kind's Get operation and GetDocument take (describeFaces names them)" label:"Document|Dokument"`
	Number          string           `json:"number" label:"Number|Nummer"`
	Kind            string           `json:"kind" label:"Kind of document|Dokumentart" codeList:"documentKind"`
	State           string           `json:"state" label:"Status|Status"`
	Version         int64            `json:"version" label:"Version|Version"`
	NotificationID  string           `json:"notificationId" doc:"the notification a movement belongs to; empty for other kinds" label:"Notification|Notifizierung"`
	CreatedAt       time.Time        `json:"createdAt" label:"Created|Angelegt"`
	UpdatedAt       time.Time        `json:"updatedAt" label:"Last changed|Zuletzt geändert"`
	Roles           []string         `json:"roles" doc:"your organisation's roles on the document" label:"Your roles|Ihre Rollen" codeList:"role"`
	FollowUpIntents []FollowUpIntent `json:"followUpIntents" doc:"your follow-up intents, as the retrieval document carries them" label:"What you can do next|Was Sie als Nächstes tun können"`
	NextDeadline    *NextDeadline    `json:"nextDeadline" doc:"the earliest running deadline your organisation must meet (OPEN, DUE_SOON or OVERDUE); null when none" label:"Next time limit|Nächste Frist"`
	NotifierName    string           `json:"notifierName" doc:"the notifier's name (an Annex VII document: the arranger's) as the directory has it now; empty when not listed (a draft lists its author alone). Our design." label:"Notifier|Notifizierende Person"`
	ConsigneeName   string           `json:"consigneeName" doc:"the consignee's name as the directory has it now; empty when not listed (a draft lists its author alone). Our design." label:"Consignee|Empfänger"`
}

// listNameRoles are the roles whose names a list entry carries: the
// notifier (an Annex VII document's arranger) and the consignee.
var listNameRoles = []string{n.RoleNotifier, a7.RoleArranger, shipment.RoleConsignee}

type ListDocumentsResponse struct {
	Entries []DocumentListEntry `json:"entries" label:"Documents|Dokumente"`
	Total   int64               `json:"total" doc:"documents that match the filter, over all pages" label:"Total|Gesamt"`
}

// documentListMask lists the entry fields qpar.mask may select.
var documentListMask = func() []string {
	var out []string
	t := reflect.TypeFor[DocumentListEntry]()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}()

// listDocuments serves both faces: the gateway admits each kind of
// organisation to its own (access.go).
func (s *Server) listDocuments(ctx context.Context, r *ListDocumentsRequest) (*ListDocumentsResponse, error) {
	keep, err := qpar.MaskSelects(r.Qpar.Mask, documentListMask)
	if err != nil {
		return nil, qparErr(err)
	}
	q := documents.ListQuery{Qpar: &r.Qpar, Actionable: r.Actionable}
	if keep == nil || keep["notifierName"] || keep["consigneeName"] {
		q.NameRoles = listNameRoles
	}
	rows, total, err := s.docs.List(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &ListDocumentsResponse{Entries: make([]DocumentListEntry, 0, len(rows)), Total: total}
	for _, e := range rows {
		le := DocumentListEntry{DocumentID: e.DocumentID, Number: e.Number, Kind: e.Kind, State: e.State, Version: e.Version,
			CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Roles: e.Roles, FollowUpIntents: followUpIntents(e.FollowUp)}
		if e.ParentID != nil {
			le.NotificationID = *e.ParentID
		}
		le.NotifierName, le.ConsigneeName = cmp.Or(e.Names[n.RoleNotifier], e.Names[a7.RoleArranger]), e.Names[shipment.RoleConsignee]
		if d := e.Next; d != nil {
			le.NextDeadline = &NextDeadline{Rule: d.Rule, LegalBasis: d.LegalBasis, DueAt: d.DueAt, State: d.State}
		}
		if keep != nil {
			clearUnmasked(&le, keep)
		}
		out.Entries = append(out.Entries, le)
	}
	return out, nil
}

// clearUnmasked empties the fields of v (a pointer to a struct) whose JSON
// names keep does not hold.
func clearUnmasked(v any, keep map[string]bool) {
	rv := reflect.ValueOf(v).Elem()
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); !keep[name] {
			rv.Field(i).SetZero()
		}
	}
}

func (s *Server) listOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	desc := func(who string) string {
		return "The documents of every kind (" + strings.Join(nouns(s.docs.Kinds.Kinds()), ", ") + ") that your organisation is a party to, " + who + " " +
			"Only documents your organisation is a party to are listed (the rule of GetNotification and GetDocument). " +
			"With actionable true, only those on which you have at least one follow-up intent now: your work queue, by default sorted by your nearest deadline. " +
			"qpar as in the store lists: every operator, typed operands, a sort of one or more keys, pageStart and pageSize (default 50, at most 500), and mask " +
			"(entry fields to return). Filter and sort paths: document_id, kind, state, number, version, notification_id, created_at, updated_at, " +
			"next_deadline.due_at, actionable; kinds and states are taken in any case; an unknown path is 400, code 3, naming it. " +
			"Default order: updated_at descending (work queue: next_deadline.due_at ascending, documents without a deadline last)."
	}
	return []api.Operation{
		api.Unary(api.Operation{Package: pkgDiwass, Service: "CompanyDocumentApi", Method: "ListDocuments", Summary: "Your organisation's documents, or your work queue",
			Description: desc("as a company (an authority account gets 403, code 7: authorities use AuthorityDocumentApi/ListDocuments).")}, s.listDocuments),
		api.Unary(api.Operation{Package: pkgDiwass, Service: "AuthorityDocumentApi", Method: "ListDocuments", Summary: "The documents your authority is concerned with, or your work queue",
			Description: desc("as a competent authority (a company account gets 403, code 7).")}, s.listDocuments),
	}
}
