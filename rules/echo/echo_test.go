package echo_test

import (
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
