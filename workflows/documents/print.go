package documents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// PrintRequest is what a kind's Print sees besides its aggregate: the
// language, the directory that names the organisations, and for a child
// kind its parent's aggregate and number.
type PrintRequest struct {
	Number string // the document's number
	Lang   string // "en" or "de"
	// Dir is Party as the forms read it.
	Dir printing.Directory
	// Party gives a party's details as the form prints them: as the
	// document (or, for a child, its parent) recorded them when filed,
	// else the directory's (see parties.go).
	Party        func(id string) shipment.PartyDetails
	Parent       any // the parent's aggregate (nil for a kind without parent)
	ParentNumber string
}

// ParentData is a request's parent aggregate (PrintRequest.Parent,
// RegisterRequest.Parent) as a *P (nil when it is not one).
func ParentData[P any](parent any) *P {
	d, _ := parent.(*P)
	return d
}

// Printout is a kind's printed form: the annex's title, whose layout it
// follows, its blocks in order, and the last day of the shipment period
// ("YYYY-MM-DD", "" when the document has none yet): an inspection link
// stays valid a while after it.
type Printout struct {
	Title, Basis string
	Blocks       []printing.Block
	ShipmentEnd  string
	// Facts, optional, stand under the title after the state and version
	// (an Annex VII document's DIWASS number).
	Facts []printing.Row
}

// Printed is a document laid out for print.
type Printed struct {
	Form *printing.Form
	Doc  models.Document
	// ShipmentEnd is the end of the shipment period (zero: none, as for
	// a notification): the day after it, in UTC.
	ShipmentEnd time.Time
	// Now is the provider's time of the print.
	Now time.Time
}

// printFacts are the words of the facts under a form's title.
var printFacts = printing.Words{"state": {"State", "Zustand"}, "version": {"Version", "Version"}, "kind": {"Document", "Dokument"}}

// Print lays out a document the caller is a party to (the rule of Get: a
// non-party, and anyone but its author for a draft, gets the answer of a
// missing document) as its kind's printed form in lang.
func (r *Runner) Print(ctx context.Context, id, lang string) (*Printed, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	return r.print(ctx, Target{ID: id}, p.ProviderID, c, lang)
}

// PrintFor lays out document id of provider as the system sees it (every
// party's view): what an inspection link shows.
func (r *Runner) PrintFor(ctx context.Context, provider, id, lang string) (*Printed, error) {
	return r.print(ctx, Target{ID: id}, provider, engine.Caller{System: true}, lang)
}

func (r *Runner) print(ctx context.Context, t Target, provider string, c engine.Caller, lang string) (*Printed, error) {
	tx := r.Store.Reads(ctx)
	k, loaded, data, err := r.load(tx, t, provider, c, models.DocumentQuery{})
	if err != nil {
		return nil, err
	}
	if k.Print == nil {
		return nil, fmt.Errorf("document kind %s has no printed form", k.Def.Kind)
	}
	req := &PrintRequest{Number: loaded.Doc.Number, Lang: lang}
	ids := partyOrgs(k.Parties(data))
	if pdoc := loaded.Parent; k.Parent != nil && pdoc != nil {
		pk, ok := r.Kinds.Kind(pdoc.Kind)
		if !ok {
			return nil, fmt.Errorf("document %s: parent %s of an unknown kind %s", loaded.Doc.ID, pdoc.ID, pdoc.Kind)
		}
		if req.Parent, err = pk.decode(pdoc.Data); err != nil {
			return nil, fmt.Errorf("document %s: parent %s: stored data: %w", loaded.Doc.ID, pdoc.ID, err)
		}
		req.ParentNumber = pdoc.Number
		ids = append(ids, partyOrgs(pk.Parties(req.Parent))...)
	}
	names, err := r.names(tx, provider, ids)
	if err != nil {
		return nil, err
	}
	req.Party = func(id string) shipment.PartyDetails {
		if p, ok := recorded(k, loaded.Doc.State, data, req.Parent, id); ok {
			return p
		}
		return names.details(id)
	}
	// The forms read a party through Party, whatever fills it.
	req.Dir = func(id string) shipment.PartyDetails { return req.Party(id) }
	out := k.Print(req, data)
	if names.err != nil {
		return nil, names.err
	}
	now, err := r.now(ctx, provider)
	if err != nil {
		return nil, err
	}
	w := printFacts.In(lang)
	state := printing.For(lang).Enum("state/"+strings.ToLower(loaded.Doc.Kind), loaded.Doc.State)
	f := &printing.Form{Title: out.Title, Basis: out.Basis, Number: loaded.Doc.Number, Blocks: out.Blocks, Printed: now,
		AuditHead: loaded.Doc.AuditHash, Labels: printing.LabelsOf(lang),
		Facts: append([]printing.Row{{Label: w("state"), Value: state}, {Label: w("version"), Value: fmt.Sprint(loaded.Doc.Version)}}, out.Facts...)}
	res := &Printed{Form: f, Doc: loaded.Doc, Now: now}
	if out.ShipmentEnd != "" {
		if day, err := time.Parse(time.DateOnly, out.ShipmentEnd); err == nil {
			res.ShipmentEnd = day.AddDate(0, 0, 1)
		}
	}
	return res, nil
}

// printNames names organisations for print: the ones named up front in
// one query, any other one by one (a kind's form may name an organisation
// that is not a party), a database error kept for after the layout.
type printNames struct {
	tx       Reader
	provider string
	known    map[string]models.Organisation
	err      error
}

func (r *Runner) names(tx Reader, provider string, ids []string) (*printNames, error) {
	n := &printNames{tx: tx, provider: provider, known: map[string]models.Organisation{}}
	orgs, err := tx.Organisations(provider, ids)
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		n.known[o.ID] = o
	}
	for _, id := range ids {
		if _, ok := n.known[id]; !ok {
			n.known[id] = models.Organisation{} // unknown: printed as its id
		}
	}
	return n, nil
}

func (n *printNames) party(id string) (name, country string) {
	o, ok := n.known[id]
	if !ok && n.err == nil && id != "" {
		orgs, err := n.tx.Organisations(n.provider, []string{id})
		if err != nil {
			n.err = err
			return "", ""
		}
		if len(orgs) > 0 {
			o = orgs[0]
		}
		n.known[id] = o
	}
	return o.Name, o.Country
}

// details gives the directory's details of organisation id.
func (n *printNames) details(id string) shipment.PartyDetails {
	n.party(id) // reads an organisation not named up front
	o := n.known[id]
	return directoryDetails(&o, id)
}

// Visible returns the stored row of a document the caller is a party to
// (the rule of Get; a draft only for its author), its Data without what
// the row keeps apart (exchanges.go): its aggregate is not decoded.
func (r *Runner) Visible(ctx context.Context, id string) (*models.Document, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	_, loaded, err := r.read(r.Store.Reads(ctx), Target{ID: id}, p.ProviderID, c, models.DocumentQuery{Hot: true})
	if err != nil {
		return nil, err
	}
	return &loaded.Doc, nil
}

// ProviderNow is the time of provider's clock (its test clock in a
// sandbox).
func (r *Runner) ProviderNow(ctx context.Context, provider string) (time.Time, error) {
	return r.now(ctx, provider)
}
