package rules_test

import (
	"testing"

	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/rules/labels"
)

// TestEveryBusinessErrorHasWords: a person reads a business error in
// English and German (the list businessError of /labels.json).
func TestEveryBusinessErrorHasWords(t *testing.T) {
	for _, c := range rules.BusinessErrors {
		w, ok := labels.Code(rules.ListBusinessError, c.Code)
		if !ok || w.EN == "" || w.DE == "" || w.EN == w.DE {
			t.Errorf("%s: words %+v", c.Code, w)
		}
	}
}
