package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/handlers/contract"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// registerEnumLabels makes the labels of every enum the operations' requests
// and responses use a rules/labels list named by the enum's proto name
// (DecisionType, NotificationSignalType): the names clients see in the
// .proto files and, without the package qualifier, in the OpenAPI
// components.
func registerEnumLabels(ops []api.Operation) error {
	var roots []reflect.Type
	for _, op := range ops {
		roots = append(roots, op.Request)
		if op.Response != nil {
			roots = append(roots, op.Response)
		}
	}
	names, err := codec.NewComponentNames(roots...)
	if err != nil {
		return err
	}
	seen := map[reflect.Type]bool{}
	var walk func(d *codec.Desc)
	walk = func(d *codec.Desc) {
		if d == nil || seen[d.Type] {
			return
		}
		seen[d.Type] = true
		if d.Shape == codec.ShapeEnum && d.EnumLabels != nil {
			m := make(map[string]labels.Text, len(d.EnumNames))
			for i, n := range d.EnumNames {
				m[n] = d.EnumLabels[i]
			}
			labels.Register(contract.ProtoName(names.ComponentName(d.Type), d.Type), m)
		}
		walk(d.Elem)
		for _, f := range d.Fields {
			walk(f.Type)
		}
	}
	for _, t := range roots {
		if t == nil {
			continue
		}
		d, err := codec.Describe(t)
		if err != nil {
			return err
		}
		walk(d)
	}
	return nil
}

// labelsFile is /labels.json: every list of rules/labels, rendered when
// first asked for (the server registered its kinds' and enums' lists while
// it was built), with its ETag. Each server has its own.
type labelsFile struct {
	once       sync.Once
	body, etag []byte
}

func (l *labelsFile) serve(c *gin.Context) {
	l.once.Do(func() {
		l.body, _ = json.Marshal(struct {
			Lists map[string]map[string]labels.Text `json:"lists"`
		}{labels.Lists()})
		sum := sha256.Sum256(l.body)
		l.etag = []byte(`"` + hex.EncodeToString(sum[:16]) + `"`)
	})
	c.Header("ETag", string(l.etag))
	c.Header("Cache-Control", "public, max-age=3600")
	if c.GetHeader("If-None-Match") == string(l.etag) {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, "application/json", l.body)
}

// machineLabels is the labels member of /workflows/<kind>.json.
type machineLabels struct {
	Kind    labels.Text            `json:"kind"`
	States  map[string]labels.Text `json:"states"`
	Intents map[string]labels.Text `json:"intents"`
	Roles   map[string]labels.Text `json:"roles"`
}

func labelsOf(d *engine.Definition) machineLabels {
	or := func(m map[string]labels.Text) map[string]labels.Text {
		if m == nil {
			return map[string]labels.Text{}
		}
		return m
	}
	return machineLabels{Kind: d.Labels.Kind, States: or(d.Labels.States), Intents: or(d.Labels.Intents), Roles: or(d.Labels.Roles)}
}
