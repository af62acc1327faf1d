package handlers

import (
	"context"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// A document's history: its audit trail as its parties read it (our
// design; the interface names no such operation). The console's timeline
// reads it.

type GetDocumentHistoryRequest struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
}

// HistoryEntry is one row of a document's audit trail: one fired intent.
type HistoryEntry struct {
	Seq                 int64     `json:"seq" doc:"1 for the creation; every write of the document adds one (its version counts them)" label:"No.|Nr."`
	At                  time.Time `json:"at" label:"At|Am"`
	Intent              string    `json:"intent" doc:"the intent fired (CREATE for the creation); the scheduler's are TACIT_CONSENT, CONSENT_VALIDITY_EXPIRY, ..." label:"Action|Aktion"`
	FromState           string    `json:"fromState" doc:"empty for the creation" label:"From status|Von Status"`
	ToState             string    `json:"toState" label:"To status|Zu Status"`
	ActorOrganisationID string    `json:"actorOrganisationId" doc:"the organisation that fired it; empty for the scheduler" label:"Organisation|Organisation"`
	Actor               string    `json:"actor" doc:"the username that fired it, shown to its own organisation only (empty for other organisations' rows); system for the scheduler" label:"Person|Person"`
	Detail              string    `json:"detail" doc:"what the intent did beyond its states, in words (e.g. the decision taken)" label:"What was done|Was getan wurde"`
	Hash                string    `json:"hash" doc:"SHA-256 of the row and the previous row's hash (hex)" label:"Check value|Prüfwert"`
	PrevHash            string    `json:"prevHash" label:"Previous check value|Vorheriger Prüfwert"`
}

// ChainCheck says whether the document's hash chain holds.
type ChainCheck struct {
	Verified bool   `json:"verified" doc:"every row's hash matches its content and the row before, and the document's head is the last row" label:"History intact|Verlauf unverändert"`
	Head     string `json:"head" doc:"the hash of the last row: a printed or exported copy quoting it can be checked against the server" label:"Last check value|Letzter Prüfwert"`
	BrokenAt int64  `json:"brokenAt" doc:"the first row that does not hold (0 when verified)" label:"First entry not intact|Erster veränderter Eintrag"`
	Reason   string `json:"reason" label:"Reason|Grund"`
}

type GetDocumentHistoryResponse struct {
	DocumentID string         `json:"documentId" label:"Document|Dokument"`
	Number     string         `json:"number" label:"Number|Nummer"`
	Kind       string         `json:"kind" label:"Kind of document|Dokumentart" codeList:"documentKind"`
	State      string         `json:"state" label:"Status|Status"`
	Version    int64          `json:"version" label:"Version|Version"`
	Entries    []HistoryEntry `json:"entries" doc:"oldest first" label:"History|Verlauf"`
	Chain      ChainCheck     `json:"chain" label:"Integrity check|Integritätsprüfung"`
}

func (s *Server) documentHistory(ctx context.Context, r *GetDocumentHistoryRequest) (*GetDocumentHistoryResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	h, err := s.docs.History(ctx, r.DocumentID)
	if err != nil {
		return nil, err
	}
	var provider, own string
	if p := reqctx.From(ctx).Principal; p != nil {
		provider, own = p.ProviderID, p.OrganisationID
	}
	// Actors are account ids: the caller's own organisation's are named.
	var ids []int64
	for _, e := range h.Rows {
		if id, err := strconv.ParseInt(e.Actor, 10, 64); err == nil && e.ActorOrg == own {
			ids = append(ids, id)
		}
	}
	names, err := models.Usernames(ctx, s.db, provider, own, ids)
	if err != nil {
		return nil, err
	}
	out := &GetDocumentHistoryResponse{DocumentID: h.Doc.ID, Number: h.Doc.Number, Kind: h.Doc.Kind, State: h.Doc.State, Version: h.Doc.Version,
		Entries: make([]HistoryEntry, 0, len(h.Rows)), Chain: ChainCheck{Verified: h.Break == nil}}
	for _, e := range h.Rows {
		he := HistoryEntry{Seq: e.Seq, At: e.At, Intent: e.Intent, FromState: e.FromState, ToState: e.ToState, ActorOrganisationID: e.ActorOrg,
			Detail: e.Detail, Hash: e.Hash, PrevHash: e.PrevHash}
		switch id, _ := strconv.ParseInt(e.Actor, 10, 64); {
		case e.ActorOrg == "":
			he.Actor = e.Actor // the scheduler
		case e.ActorOrg == own:
			he.Actor = names[id]
		}
		out.Entries = append(out.Entries, he)
		out.Chain.Head = e.Hash
	}
	if b := h.Break; b != nil {
		out.Chain.BrokenAt, out.Chain.Reason = b.Seq, b.Reason
	}
	return out, nil
}

func (s *Server) historyOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	desc := "Who fired which intent when, from which state to which, oldest first: the document's audit trail, with its hash chain checked " +
		"(chain.verified; chain.head is the hash a printed copy quotes). Only the document's parties (the rule of GetDocument: anyone else " +
		"gets the 404 of a missing document); a draft only for its author. Usernames are shown for the caller's own organisation only; other " +
		"rows name the organisation. Our design: the interface names no history."
	return []api.Operation{
		api.Unary(api.Operation{Package: pkgDiwass, Service: "CompanyDocumentApi", Method: "GetDocumentHistory", Summary: "A document's history (audit trail), its chain checked",
			Description: desc + " Company accounts (an authority gets 403, code 7)."}, s.documentHistory),
		api.Unary(api.Operation{Package: pkgDiwass, Service: "AuthorityDocumentApi", Method: "GetDocumentHistory", Summary: "A document's history (audit trail), its chain checked",
			Description: desc + " Authority accounts (a company gets 403, code 7)."}, s.documentHistory),
	}
}
