package bootstrap

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/models"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/bmu"
)

// Template entry: a transport template of an organisation with a block of
// count note numbers from firstNumber (numbers without a usable check
// digit are skipped, as the issuing system skips them).
type Template struct {
	entry
	ID                 string `yaml:"id"`
	Provider           string `yaml:"provider"`
	Organisation       string `yaml:"organisation"`
	InterneBezeichnung string `yaml:"interneBezeichnung"`
	Art                string `yaml:"art"`
	FirstNumber        string `yaml:"firstNumber"`
	Count              int    `yaml:"count"`
}

func (a *Applier) validateTransport(ps *problems, f *File) {
	seen := map[string]entry{}
	for _, o := range f.Organisations {
		for _, n := range o.Numbers {
			if !rbmu.IsPartyNumber(n) {
				ps.add(o.entry, "number %q: an official number is a state letter, 8 letters or digits and a check digit", n)
			}
			key := o.Provider + "/" + n
			if first, dup := seen[key]; dup {
				ps.add(o.entry, "number %s is held twice (first at %s)", n, first)
			}
			seen[key] = o.entry
		}
	}
	for _, t := range f.Templates {
		required(ps, t.entry, map[string]string{"id": t.ID, "provider": t.Provider, "organisation": t.Organisation, "interneBezeichnung": t.InterneBezeichnung, "art": t.Art, "firstNumber": t.FirstNumber})
		if t.Art != "" && t.Art != "N" && t.Art != "S" {
			ps.add(t.entry, "art %q: N (consignment note) or S (acceptance note); record lists (L) are not supported yet", t.Art)
		}
		if t.FirstNumber != "" && !rbmu.IsNoteNumber(t.FirstNumber) {
			ps.add(t.entry, "firstNumber %q: a note number has 14 digits", t.FirstNumber)
		}
		if t.Count < 1 || t.Count > 100000 {
			ps.add(t.entry, "count %d: from 1 to 100000 numbers", t.Count)
		}
	}
}

// numbersHeld reports whether the organisation holds exactly o.Numbers.
func (a *Applier) numbersHeld(ctx context.Context, o Organisation) bool {
	cur, _ := a.Store.OrganisationNumbers(ctx, o.Provider, o.ID)
	slices.Sort(cur)
	want := slices.Clone(o.Numbers)
	slices.Sort(want)
	return slices.Equal(cur, want)
}

// applyNumbers makes the organisation hold exactly o.Numbers.
func (a *Applier) applyNumbers(ctx context.Context, o Organisation) error {
	if err := a.Store.DeleteOrganisationNumbers(ctx, o.Provider, o.ID); err != nil {
		return err
	}
	rows := make([]models.OrganisationNumber, 0, len(o.Numbers))
	for _, n := range o.Numbers {
		rows = append(rows, models.OrganisationNumber{ProviderID: o.Provider, Number: n, OrganisationID: o.ID})
	}
	if err := a.Store.HoldNumbers(ctx, rows); err != nil {
		return fmt.Errorf("%s: numbers: %w", o.entry, err)
	}
	return nil
}

// applyTemplates creates templates that do not exist; an existing one
// (its numbers partly used) is left as it is.
func (a *Applier) applyTemplates(ctx context.Context, in []Template) (Counts, error) {
	var c Counts
	cd, _ := rbmu.CheckDigitMethod(rbmu.DefaultCheckDigit)
	for _, t := range in {
		exists, err := a.Store.TemplateExists(ctx, t.ID)
		if err != nil {
			return c, err
		}
		if exists {
			c.Unchanged++
			continue
		}
		org, err := a.Store.Organisation(ctx, t.Provider, t.Organisation)
		if err != nil {
			return c, fmt.Errorf("%s: organisation %q: %w", t.entry, t.Organisation, err)
		}
		docType, role, prefix := rbmu.TypeBGS, rbmu.RoleERZ, "erzeuger"
		if t.Art == "S" {
			docType = rbmu.TypeUNS
		}
		l := rbmu.NewLayer(1, rbmu.LayerVorlage, role)
		l.Values[prefix+".name"] = org.Name
		own, _ := a.Store.OrganisationNumbers(ctx, t.Provider, t.Organisation)
		if len(own) > 0 {
			l.Values[prefix+".nummer"] = own[0]
		}
		d, err := bmu.Ours{}.New(&rbmu.Note{Type: docType, Layers: []*rbmu.Layer{l}})
		if err != nil {
			return c, err
		}
		x, err := d.Bytes()
		if err != nil {
			return c, err
		}
		now := time.Now().UTC()
		if err := a.Store.CreateTemplate(ctx, &models.TransportTemplate{ID: t.ID, ProviderID: t.Provider, OrganisationID: t.Organisation, InterneBezeichnung: t.InterneBezeichnung,
			Art: t.Art, Format: "BMU", XML: x, CreatedAt: now, UpdatedAt: now}); err != nil {
			return c, fmt.Errorf("%s: %w", t.entry, err)
		}
		first, _ := strconv.ParseInt(t.FirstNumber, 10, 64)
		var numbers []models.TemplateNumber
		for v := first; len(numbers) < t.Count; v++ {
			s := fmt.Sprintf("%014d", v)
			if len(s) > 14 {
				return c, fmt.Errorf("%s: the block runs past 99999999999999", t.entry)
			}
			if _, err := cd.Digit(s); err != nil {
				continue // unusable: never issued
			}
			numbers = append(numbers, models.TemplateNumber{TemplateID: t.ID, Number: s})
		}
		if err := a.Store.CreateTemplateNumbers(ctx, numbers); err != nil {
			return c, fmt.Errorf("%s: %w", t.entry, err)
		}
		c.Created++
	}
	return c, nil
}
