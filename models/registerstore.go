package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// RegisterQuery selects the documents of an organisation's register: those
// of provider it is a party to, of kinds, created in [From, To), after the
// keyset (AfterAt, AfterID) in (created_at, id) order.
type RegisterQuery struct {
	Provider, Org string
	Kinds         []string
	From, To      time.Time
	AfterAt       time.Time
	AfterID       string
	Limit         int
}

// RegisterPage is one page of a register with what its rows need: each
// document's deadlines, parent, children (their summaries) and the time it
// left its draft.
type RegisterPage struct {
	Docs      []Document
	Deadlines map[string][]Deadline
	Parents   map[string]*Document // by the parent's id
	Children  map[string][]Document
	// Filed is when each document left DRAFT (absent: it never was one,
	// or it still is).
	Filed map[string]time.Time
}

func (q *RegisterQuery) where(db *gorm.DB) *gorm.DB {
	db = db.Table("documents").
		Where("EXISTS (SELECT 1 FROM document_parties p WHERE p.document_id = documents.id AND p.organisation_id = ?)", q.Org).
		Where("documents.provider_id = ? AND documents.created_at >= ? AND documents.created_at < ?", q.Provider, q.From, q.To)
	if len(q.Kinds) > 0 {
		db = db.Where("documents.kind IN ?", q.Kinds)
	}
	return db
}

// RegisterCount counts the documents of q (the keyset ignored).
func (s *DocumentStore) RegisterCount(ctx context.Context, q RegisterQuery) (int64, error) {
	var n int64
	err := q.where(Conn(ctx, s.db)).Count(&n).Error
	return n, err
}

// RegisterPage reads one page of q.
func (s *DocumentStore) RegisterPage(ctx context.Context, q RegisterQuery) (*RegisterPage, error) {
	db := Conn(ctx, s.db)
	p := &RegisterPage{Deadlines: map[string][]Deadline{}, Parents: map[string]*Document{}, Children: map[string][]Document{}, Filed: map[string]time.Time{}}
	page := q.where(db)
	if q.AfterID != "" {
		page = page.Where("(documents.created_at, documents.id) > (?, ?)", q.AfterAt, q.AfterID) // a row value: the index walks on from the keyset
	}
	if err := page.Order("documents.created_at, documents.id").Limit(q.Limit).Find(&p.Docs).Error; err != nil {
		return nil, err
	}
	if len(p.Docs) == 0 {
		return p, nil
	}
	ids := make([]string, 0, len(p.Docs))
	var parentIDs, withChildren []string
	for _, d := range p.Docs {
		ids = append(ids, d.ID)
		if d.ParentID != nil {
			parentIDs = append(parentIDs, *d.ParentID)
		}
		if d.Children > 0 {
			withChildren = append(withChildren, d.ID)
		}
	}
	deadlines, err := DeadlinesOf(db, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range deadlines {
		p.Deadlines[d.DocumentID] = append(p.Deadlines[d.DocumentID], d)
	}
	if len(parentIDs) > 0 {
		var parents []Document
		if err := db.Where("id IN ?", parentIDs).Find(&parents).Error; err != nil {
			return nil, err
		}
		for i := range parents {
			p.Parents[parents[i].ID] = &parents[i]
		}
	}
	if len(withChildren) > 0 {
		var children []Document
		if err := db.Select("id, provider_id, kind, number, state, version, summary, parent_id, created_at, updated_at").
			Where("parent_id IN ?", withChildren).Order("created_at, id").Find(&children).Error; err != nil {
			return nil, err
		}
		for _, c := range children {
			p.Children[*c.ParentID] = append(p.Children[*c.ParentID], c)
		}
	}
	var filed []struct {
		DocumentID string
		At         time.Time
	}
	if err := db.Table("audit_events").Select("document_id, at").
		Where("document_id IN ? AND (from_state = 'DRAFT' OR (seq = 1 AND to_state <> 'DRAFT'))", ids).
		Order("seq").Scan(&filed).Error; err != nil {
		return nil, err
	}
	for _, f := range filed {
		if _, ok := p.Filed[f.DocumentID]; !ok {
			p.Filed[f.DocumentID] = f.At // the first (by seq)
		}
	}
	return p, nil
}

// OrganisationNumbers are the official numbers of provider's organisations
// among ids, by organisation.
func (s *DocumentStore) OrganisationNumbers(ctx context.Context, provider string, ids []string) (map[string][]string, error) {
	var rows []OrganisationNumber
	if err := Conn(ctx, s.db).Where("provider_id = ? AND organisation_id IN ?", provider, ids).Order("number").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, r := range rows {
		out[r.OrganisationID] = append(out[r.OrganisationID], r.Number)
	}
	return out, nil
}
