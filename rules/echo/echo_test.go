package echo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/rules/echo"
)

func TestQuoteKeepsAtMostMaxCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{strings.Repeat("x", echo.Max), `"` + strings.Repeat("x", echo.Max) + `"`},
		{strings.Repeat("x", echo.Max+1), `"` + strings.Repeat("x", echo.Max) + `"… (65 characters)`},
		{strings.Repeat("ä", 100_000), `"` + strings.Repeat("ä", echo.Max) + `"… (100000 characters)`},
		{"a\"b\n", `"a\"b\n"`},
	} {
		if got := echo.Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q…) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSprintfCutsQuotedValuesOnly(t *testing.T) {
	long := strings.Repeat("y", 100_000)
	got := echo.Sprintf("no document %q; states %s; %d", long, "DRAFT, SUBMITTED", 7)
	want := `no document "` + strings.Repeat("y", echo.Max) + `"… (100000 characters); states DRAFT, SUBMITTED; 7`
	if got != want {
		t.Fatalf("got %.200s", got)
	}
	// %s and %v are the server's own words: whole.
	if got := echo.Sprintf("%s|%v|%10.3s", long, long, long); got != long+"|"+long+"|       yyy" {
		t.Fatalf("%%s, %%v or a width changed: %.80s", got)
	}
	if got := echo.Sprintf("%q", "short"); got != `"short"` {
		t.Fatal(got)
	}
}

// A named string type (a code, a path) is cut as a string is, and
// Errorf wraps as fmt.Errorf does.
func TestNamedStringsAndErrorf(t *testing.T) {
	type code string
	long := code(strings.Repeat("z", 1000))
	if got := echo.Sprintf("%q", long); got != `"`+strings.Repeat("z", echo.Max)+`"… (1000 characters)` {
		t.Fatalf("a named string type is not cut: %.100s", got)
	}
	inner := errors.New("inner")
	err := echo.Errorf("code %q: %w", string(long), inner)
	if !errors.Is(err, inner) || len(err.Error()) > 200 {
		t.Fatalf("Errorf: %v", err)
	}
}
