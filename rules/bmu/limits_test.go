package bmu

import (
	"reflect"
	"testing"
)

// Issue 44.3: every text and date field of both notes has a length of its
// own, from its tag; an amount the decimal's.
func TestEveryFieldHasItsLength(t *testing.T) {
	for _, docType := range []string{TypeBGS, TypeUNS} {
		var walk func(t reflect.Type, prefix string)
		walk = func(rt reflect.Type, prefix string) {
			for i := range rt.NumField() {
				f := rt.Field(i)
				path := prefix + jsonName(f)
				ft := f.Type
				if ft.Kind() == reflect.Slice {
					ft, path = ft.Elem(), path+"[]"
				}
				switch ft {
				case textType, dateType:
					if f.Tag.Get("maxLength") == "" {
						t.Errorf("%s %s: no maxLength tag of its own", docType, path)
					}
					if n := MaxLength(docType, path); n == 0 || n >= 4000 {
						t.Errorf("%s %s: MaxLength %d", docType, path, n)
					}
				case amountType:
					if MaxLength(docType, path) != MaxAmountLength {
						t.Errorf("%s %s: MaxLength %d", docType, path, MaxLength(docType, path))
					}
				default:
					walk(ft, path+".")
				}
			}
		}
		walk(contentType(docType), "")
	}
	for path, want := range map[string]int{"erzeuger.name": 200, "befoerderer[].name": 200, "befoerderer[].uebernahmeDatum": 32, "unsNrn[]": 20,
		"vermerke": 2000, "menge": MaxAmountLength, "erzeuger": 0, "nope": 0} {
		if got := MaxLength(TypeBGS, path); got != want {
			t.Errorf("MaxLength(BGS, %s) = %d, want %d", path, got, want)
		}
	}
	if got := MaxLength(TypeUNS, "befoerderer.kennzeichen"); got != 64 {
		t.Errorf("MaxLength(UNS, befoerderer.kennzeichen) = %d", got)
	}
}

func TestPattern(t *testing.T) {
	for in, want := range map[string]string{"befoerderer[12].name": "befoerderer[].name", "unsNrn[0]": "unsNrn[]", "erzeuger.name": "erzeuger.name", "a[": "a["} {
		if got := Pattern(in); got != want {
			t.Errorf("Pattern(%q) = %q, want %q", in, got, want)
		}
	}
}
