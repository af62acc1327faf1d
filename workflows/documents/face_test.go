package documents_test

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/workflows/documents"
)

func facedToy() *documents.Kind {
	k := toy()
	k.Face = &documents.Face{
		Noun: "toys", ContainerDoc: "set for a toy",
		Create:     documents.OperationDecl{Operation: "/x.Api/Create", Fields: []documents.FieldDecl{{JSON: "note", Input: "Note"}}},
		Get:        documents.OperationDecl{Operation: "/x.Api/GetToy"},
		Operations: []documents.OperationDecl{{Operation: "/x.Api/Push", Fires: []string{"PUSH"}}},
	}
	return k
}

// A face serves every intent a caller fires, each from one operation whose
// intents agree; its create fields are the create input's.
func TestRegistryChecksTheFace(t *testing.T) {
	r, err := documents.NewRegistry(facedToy())
	if err != nil {
		t.Fatalf("valid face refused: %v", err)
	}
	k, _ := r.Kind("TOY")
	if o := k.Face.Operations[0]; o.Method() != "Push" || o.RequestName() != "PushRequest" || o.ResponseName() != "PushResponse" {
		t.Fatalf("names of %+v", o)
	}
	for want, breakIt := range map[string]func(f *documents.Face){
		"no operation serves intent PUSH (/x/Push)":                                        func(f *documents.Face) { f.Operations = nil },
		"intent PULL is no intent a caller fires":                                          func(f *documents.Face) { f.Operations[0].Fires = []string{"PUSH", "PULL"} },
		"intent PUSHED is no intent a caller fires":                                        func(f *documents.Face) { f.Operations[0].Fires = []string{"PUSHED"}; f.Elsewhere = []string{"PUSH"} },
		"intent PUSH is served twice":                                                      func(f *documents.Face) { f.Operations[0].Fires = []string{"PUSH", "PUSH"} },
		`the create input documents_test.toyBlock has no field "Text"`:                     func(f *documents.Face) { f.Create.Fields[0].Input = "Text" },
		`operation "GetToy" is no REST path`:                                               func(f *documents.Face) { f.Get.Operation = "GetToy" },
		`operation "/x.Api/Push" is no REST path /<package>.<Service>/<Method> of its own`: func(f *documents.Face) { f.Get.Operation = "/x.Api/Push" },
		"Noun and ContainerDoc are required":                                               func(f *documents.Face) { f.Noun = "" },
	} {
		k := facedToy()
		breakIt(k.Face)
		_, err := documents.NewRegistry(k)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
	k = facedToy()
	k.Face.Operations, k.Face.Elsewhere = nil, []string{"PUSH"}
	if _, err := documents.NewRegistry(k); err != nil {
		t.Errorf("an intent served elsewhere: %v", err)
	}
}
