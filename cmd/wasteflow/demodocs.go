package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// demoStep is one step of configs/demo_documents.yaml.
type demoStep struct {
	At int `yaml:"at"`
	// WorkingDaysIn makes at count the working days of that country
	// (backwards from now) instead of calendar days.
	WorkingDaysIn string         `yaml:"workingDaysIn"`
	As            string         `yaml:"as"`
	Create        string         `yaml:"create"`
	Ref           string         `yaml:"ref"`
	Parent        string         `yaml:"parent"`
	Intent        string         `yaml:"intent"`
	Sweep         bool           `yaml:"sweep"`
	Block         map[string]any `yaml:"block"`
}

// demoDocuments builds the scenario's documents for provider as of now,
// through the runner the API uses, on a clock that walks through the
// scenario's days; it ends with a sweep as of now. A provider that has
// documents already is left alone (the demo is repeatable). It returns how
// many documents it created.
func demoDocuments(ctx context.Context, db *models.DB, cfg *configs.Config, provider string, now time.Time, scenario []byte) (int, error) {
	existing, err := models.NewSeedStore(db).CountDocuments(ctx, provider)
	if err != nil {
		return 0, err
	}
	if existing > 0 {
		return 0, nil
	}
	steps, err := parseDemoSteps(scenario, now)
	if err != nil {
		return 0, err
	}
	clock := now
	runner, err := newRunner(db, cfg, func() time.Time { return clock })
	if err != nil {
		return 0, err
	}
	ids, kinds := map[string]string{}, map[string]string{}
	principals := map[string]*reqctx.Principal{}
	for i, st := range steps {
		clock = now.AddDate(0, 0, st.At)
		where := fmt.Sprintf("demo step %d (day %d, %s %s%s)", i+1, st.At, st.As, st.Create, st.Intent)
		if st.Sweep {
			if _, err := runner.Sweep(ctx, clock); err != nil {
				return 0, fmt.Errorf("%s: sweep: %w", where, err)
			}
			continue
		}
		p, ok := principals[st.As]
		if !ok {
			if p, err = demoPrincipal(ctx, db, provider, st.As); err != nil {
				return 0, fmt.Errorf("%s: %w", where, err)
			}
			principals[st.As] = p
		}
		actx := reqctx.With(ctx, &reqctx.Info{RequestID: fmt.Sprintf("demo-%d", i+1), ProviderID: provider, Principal: p})
		raw, err := json.Marshal(st.Block)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", where, err)
		}
		var view *documents.View
		var berrs []engine.BusinessError
		if st.Create != "" {
			k, ok := runner.Kinds.Kind(st.Create)
			if !ok {
				return 0, fmt.Errorf("%s: no kind %q", where, st.Create)
			}
			input, err := demoCreateInput(k, raw, ids[st.Parent])
			if err != nil {
				return 0, fmt.Errorf("%s: %w", where, err)
			}
			view, berrs, err = runner.Create(actx, st.Create, input)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", where, err)
			}
			if view != nil && len(berrs) == 0 {
				ids[st.Ref], kinds[st.Ref] = view.Doc.ID, st.Create
			}
		} else {
			k, ok := runner.Kinds.Kind(kinds[st.Ref])
			if !ok {
				return 0, fmt.Errorf("%s: no document %q created before", where, st.Ref)
			}
			in, ok := k.Machine().Intent(st.Intent)
			if !ok || in.Input == nil {
				return 0, fmt.Errorf("%s: %s has no intent %s taking a block", where, k.Name(), st.Intent)
			}
			input := in.Input()
			if err := codec.Unmarshal(raw, input); err != nil {
				return 0, fmt.Errorf("%s: block: %w", where, err)
			}
			if _, berrs, err = runner.Fire(actx, documents.Target{ID: ids[st.Ref], Kinds: []string{k.Name()}}, []string{st.Intent}, input); err != nil {
				return 0, fmt.Errorf("%s: %w", where, err)
			}
		}
		if len(berrs) > 0 {
			var msgs []string
			for _, b := range berrs {
				msgs = append(msgs, b.Code+" "+b.Field+": "+b.Message)
			}
			return 0, fmt.Errorf("%s: %s", where, strings.Join(msgs, "; "))
		}
	}
	if _, err := runner.Sweep(ctx, now); err != nil {
		return 0, err
	}
	return len(ids), nil
}

// parseDemoSteps expands {{date N}} (the date N days from now, UTC) and
// orders the steps by day, file order within a day.
func parseDemoSteps(scenario []byte, now time.Time) ([]demoStep, error) {
	tmpl, err := template.New("demo").Funcs(template.FuncMap{
		"date": func(days int) string { return now.UTC().AddDate(0, 0, days).Format(time.DateOnly) },
	}).Parse(string(scenario))
	if err != nil {
		return nil, err
	}
	var text bytes.Buffer
	if err := tmpl.Execute(&text, nil); err != nil {
		return nil, err
	}
	var file struct {
		Steps []demoStep `yaml:"steps"`
	}
	if err := yaml.Unmarshal(text.Bytes(), &file); err != nil {
		return nil, fmt.Errorf("demo documents: %w", err)
	}
	for i, st := range file.Steps {
		if st.WorkingDaysIn != "" {
			file.Steps[i].At = workingDaysBack(calendar.Place{Country: st.WorkingDaysIn}, now, -st.At)
		}
	}
	slices.SortStableFunc(file.Steps, func(a, b demoStep) int { return a.At - b.At })
	return file.Steps, nil
}

// workingDaysBack is the day offset (negative) n working days of place p
// before now.
func workingDaysBack(p calendar.Place, now time.Time, n int) int {
	days := 0
	for count := 0; count < n; {
		days--
		if calendar.IsWorkingDay(p, now.AddDate(0, 0, days)) {
			count++
		}
	}
	return days
}

// demoCreateInput is what the kind's create operation passes the runner
// for a create request (block: the fields of the kind's face, wire JSON),
// with the parent's id when the kind is a child.
func demoCreateInput(k *documents.Kind, block []byte, parentID string) (any, error) {
	if k.Face == nil || k.Def.Create == nil || k.Def.Create.Input == nil {
		return nil, fmt.Errorf("kind %s has no create operation", k.Name())
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(block, &fields); err != nil {
		return nil, fmt.Errorf("the %s create request: %w", k.Name(), err)
	}
	in := k.Def.Create.Input()
	v := reflect.ValueOf(in).Elem()
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		i := slices.IndexFunc(k.Face.Create.Fields, func(f documents.FieldDecl) bool { return f.JSON == name })
		if i < 0 {
			return nil, fmt.Errorf("the %s create request has no field %q", k.Name(), name)
		}
		if err := codec.Unmarshal(fields[name], v.FieldByName(k.Face.Create.Fields[i].Input).Addr().Interface()); err != nil {
			return nil, fmt.Errorf("the %s create request's %s: %w", k.Name(), name, err)
		}
	}
	if p := k.Parent; p != nil {
		if parentID == "" || p.SetRef == nil {
			return nil, fmt.Errorf("a %s is created under a %s: name it with parent", k.Name(), p.Kind)
		}
		p.SetRef(in, parentID)
	}
	return in, nil
}

// demoPrincipal is the demo account username of provider as an access
// token would present it.
func demoPrincipal(ctx context.Context, db *models.DB, provider, username string) (*reqctx.Principal, error) {
	seed := models.NewSeedStore(db)
	a, err := seed.AccountByUsername(ctx, provider, username)
	if err != nil {
		return nil, fmt.Errorf("account %s of %s: %w", username, provider, err)
	}
	o, err := seed.Organisation(ctx, provider, a.OrganisationID)
	if err != nil {
		return nil, fmt.Errorf("organisation %s of %s: %w", a.OrganisationID, provider, err)
	}
	return &reqctx.Principal{Subject: fmt.Sprint(a.ID), AccountID: a.ID, ProviderID: provider, OrganisationID: o.ID,
		OrganisationKind: o.Kind, Scopes: []string(a.Scopes)}, nil
}
