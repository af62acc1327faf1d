package codec_test

import (
	"encoding/json"
	"time"
)

// Test messages shared by all tests.

type State int32

const (
	StateUnspecified State = iota
	StateActive
	StateArchived
)

func (State) EnumNames() []string { return []string{"STATE_UNSPECIFIED", "ACTIVE", "ARCHIVED"} }

type Filter struct {
	Field string `json:"field"`
	Op    string `json:"op"`
	Value string `json:"value"`
}

type QueryParams struct {
	PageSize  int32    `json:"pageSize,omitempty"` // options are ignored
	PageStart string   `json:"pageStart"`
	Filter    []Filter `json:"filter"`
}

type Ref struct {
	ID string `json:"id"`
}

// Rich exercises every wire rule at least once.
type Rich struct {
	B          bool              `json:"b"`
	I8         int8              `json:"i8"`
	NInt32     int32             `json:"nInt32"`
	U32        uint32            `json:"u32"`
	I64        int64             `json:"i64"`
	U64        uint64            `json:"u64"`
	Int        int               `json:"int"`
	F32        float32           `json:"f32"`
	F64        float64           `json:"f64"`
	S          string            `json:"s" doc:"A plain string."`
	Data       []byte            `json:"data"`
	State      State             `json:"state" doc:"Lifecycle state."`
	States     []State           `json:"states"`
	StatePtr   *State            `json:"statePtr"`
	At         time.Time         `json:"at"`
	AtPtr      *time.Time        `json:"atPtr"`
	Times      []time.Time       `json:"times"`
	Raw        json.RawMessage   `json:"raw"`
	Any        any               `json:"any"`
	Meta       map[string]any    `json:"meta"`
	Labels     map[string]string `json:"labels"`
	Refs       map[string]*Ref   `json:"refs"`
	Counts     map[string]int64  `json:"counts"`
	Qpar       QueryParams       `json:"qpar"`
	TemplateID *Ref              `json:"templateId"`
	IDs        []string          `json:"ids"`
	Nums       []int64           `json:"nums"`
	Opt        *int32            `json:"opt"`
	DocXML     string            `json:"docXml"`
	NoTag      string
	Skip       string `json:"-"`
	//lint:ignore U1000 only reflection sees it: the codec must skip it
	hidden string
	Anon   struct {
		X int32 `json:"x"`
	} `json:"anon"`
	Next *Rich `json:"next"` // recursive type
}

// w wraps a single field "v" so table tests can target one rule at a time.
type w[T any] struct {
	V T `json:"v"`
}

func ptr[T any](v T) *T { return &v }

// richZeroJSON is the rendering of Rich{}: every field, declaration order.
const richZeroJSON = `{"b":false,"i8":0,"nInt32":0,"u32":0,"i64":"0","u64":"0","int":"0","f32":0,"f64":0,"s":"",` +
	`"data":"","state":"STATE_UNSPECIFIED","states":[],"statePtr":null,"at":null,"atPtr":null,"times":[],` +
	`"raw":null,"any":null,"meta":null,"labels":{},"refs":{},"counts":{},` +
	`"qpar":{"pageSize":0,"pageStart":"","filter":[]},"templateId":null,"ids":[],"nums":[],"opt":null,` +
	`"docXml":"","noTag":"","anon":{"x":0},"next":null}`

// sampleRich is a populated message used by round-trip, schema and benchmark tests.
func sampleRich() *Rich {
	at := time.Date(2024, 5, 6, 7, 8, 9, 120_000_000, time.UTC)
	r := &Rich{
		B: true, I8: -8, NInt32: -32, U32: 4_000_000_000, I64: -1 << 62, U64: 1<<64 - 1, Int: 42,
		F32: 0.25, F64: 1.5e-7, S: "héllo <world> \"q\"\n", Data: []byte{0, 1, 2, 0xfb, 0xff},
		State: StateActive, States: []State{StateArchived, StateUnspecified}, StatePtr: ptr(StateArchived),
		At: at, AtPtr: ptr(at.Add(time.Microsecond)), Times: []time.Time{at},
		Raw:    json.RawMessage(`{"free":[1,"two",null]}`),
		Any:    []any{"x", 1.5, true},
		Meta:   map[string]any{"k": "v", "n": 3.0},
		Labels: map[string]string{"env": "prod", "app": "wasteflow"},
		Refs:   map[string]*Ref{"a": {ID: "r1"}},
		Counts: map[string]int64{"big": 1 << 60},
		Qpar: QueryParams{PageSize: 50, PageStart: "tok", Filter: []Filter{
			{Field: "status", Op: "eq", Value: "open"}, {Field: "kg", Op: "gt", Value: "10"},
		}},
		TemplateID: &Ref{ID: "tpl-1"},
		IDs:        []string{"a", "b"},
		Nums:       []int64{1, -2, 3},
		Opt:        ptr(int32(7)),
		DocXML:     "<doc/>",
		NoTag:      "nt",
	}
	r.Anon.X = 9
	r.Next = &Rich{S: "child", Qpar: QueryParams{PageSize: 1}}
	return r
}
