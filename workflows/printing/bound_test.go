package printing_test

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/workflows/printing"
)

// measure renders f and says how much it allocated.
func measure(t *testing.T, f *printing.Form) (uint64, []byte) {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	pdf, err := printing.Render(f)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	return m1.TotalAlloc - m0.TotalAlloc, pdf
}

// unbounded are forms no print should draw in full: a 20 MB value stored
// before fields had lengths, 200,000 rows, 100,000 lines.
func unbounded() map[string]*printing.Form {
	huge := strings.Repeat("x", 20<<20)
	rows := make([]printing.Row, 200_000)
	for i := range rows {
		rows[i] = printing.Row{Label: "field", Value: "a value"}
	}
	printed := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC) // one time: the same form is the same file
	forms := map[string]*printing.Form{
		"a 20 MB value":     {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "name", Value: huge}}}}},
		"a 20 MB number":    {Title: "T", Number: huge, Facts: []printing.Row{{Label: huge, Value: huge}}},
		"200,000 rows":      {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: rows}, {No: "2", Title: "c", Rows: rows}}},
		"100,000 lines":     {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "l", Value: strings.Repeat("a\n", 100_000)}}}}},
		"German, cut":       {Title: "T", Number: "N-1", Labels: printing.German, Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "n", Value: huge}}}}},
		"labels of its own": {Title: "T", Number: "N-1", Labels: printing.Labels{Page: "p", Of: "/"}, Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "n", Value: huge}}}}},
	}
	for _, f := range forms {
		f.Printed = printed
	}
	return forms
}

// Issue 44.3: whatever a form holds, a print draws within its bounds,
// says what it cut, and takes bounded memory. Its time is bounded by
// the same fact, checked without a clock: the file is byte for byte the
// bounded form's, so all the drawing is of a form within the bounds,
// and what the input's size costs beyond that is the cut, whose
// allocations are counted here. BenchmarkPrintBounded times it.
func TestPrintIsBounded(t *testing.T) {
	huge := strings.Repeat("x", 20<<20)
	rows := make([]printing.Row, 200_000)
	for i := range rows {
		rows[i] = printing.Row{Label: "field", Value: "a value"}
	}
	for name, f := range unbounded() {
		t.Run(name, func(t *testing.T) {
			alloc, pdf := measure(t, f)
			t.Logf("%s: %d MB allocated, a PDF of %d KB", name, alloc>>20, len(pdf)>>10)
			if alloc > 400<<20 || len(pdf) > 2<<20 {
				t.Errorf("%s: %d MB allocated, a PDF of %d KB: not bounded", name, alloc>>20, len(pdf)>>10)
			}
			b := printing.Bound(f)
			if again, err := printing.Render(b); err != nil || !bytes.Equal(again, pdf) {
				t.Errorf("%s: the print is not the bounded form's (%d and %d bytes, %v)", name, len(pdf), len(again), err)
			}
			chars, lines, total := 0, 0, 0
			for _, bl := range b.Blocks {
				for _, r := range bl.Rows {
					chars += len([]rune(r.Value))
					lines += strings.Count(r.Value, "\n") + 1
					total++
				}
			}
			if chars > printing.MaxFormChars+500 || lines > printing.MaxFormLines+2 || len([]rune(b.Number)) > printing.MaxNumber {
				t.Errorf("%s: bound to %d characters, %d lines, number %d", name, chars, lines, len(b.Number))
			}
		})
	}
	b := printing.Bound(&printing.Form{Number: "N-1", Blocks: []printing.Block{{Rows: []printing.Row{{Label: "name", Value: huge}}}}})
	if v := b.Blocks[0].Rows[0].Value; len([]rune(v)) != printing.MaxValue || !strings.HasSuffix(v, "[…cut: 20,971,520 characters in all]") {
		t.Errorf("a cut value ends %q (%d characters)", v[len(v)-60:], len([]rune(v)))
	}
	b = printing.Bound(&printing.Form{Number: "N-1", Labels: printing.German, Blocks: []printing.Block{{Rows: rows}}})
	last := b.Blocks[len(b.Blocks)-1]
	if last.Title != "Nicht gedruckt" || !strings.HasPrefix(last.Rows[0].Value, "197.000 weitere Felder") {
		t.Errorf("the rows left out: %+v", last)
	}
	small := &printing.Form{Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "a", Value: "b\nc"}}}}}
	if b := printing.Bound(small); b.Blocks[0].Rows[0] != small.Blocks[0].Rows[0] || len(b.Blocks) != 1 {
		t.Errorf("a form within the bounds changed: %+v", b)
	}
}

// A bounded form bounded again is the same form, and each cut says what
// the original held: a print of 100,000 lines said "4684 more lines"
// (counted after the characters' cut, for 99,701) and, bounded again,
// "1 more lines".
func TestBoundSaysWhatItCut(t *testing.T) {
	for name, f := range unbounded() {
		b := printing.Bound(f)
		if again := printing.Bound(b); !reflect.DeepEqual(again, b) {
			t.Errorf("%s: bounded again, the form changed", name)
		}
	}
	lines := func(n int, line string) string { return strings.TrimSuffix(strings.Repeat(line+"\n", n), "\n") }
	one := func(v string) string {
		b := printing.Bound(&printing.Form{Number: "N-1", Blocks: []printing.Block{{Rows: []printing.Row{{Label: "l", Value: v}}}}})
		return b.Blocks[0].Rows[0].Value
	}
	for _, c := range []struct {
		name, value, want string
	}{
		{"300 lines", lines(printing.MaxLines, "a"), lines(printing.MaxLines, "a")},
		{"300 lines and a break", lines(printing.MaxLines, "a") + "\n", lines(printing.MaxLines-1, "a") + "\n[…cut: 1 more line]"},
		{"301 lines", lines(printing.MaxLines+1, "a"), lines(printing.MaxLines-1, "a") + "\n[…cut: 2 more lines]"},
		{"100,000 lines", strings.Repeat("a\n", 100_000), lines(printing.MaxLines-1, "a") + "\n[…cut: 99,701 more lines]"},
		{"long lines", lines(400, strings.Repeat("b", 99)), strings.Repeat(strings.Repeat("b", 99)+"\n", 99) + strings.Repeat("b", printing.MaxValue-100*99-utf8.RuneCountInString(" […cut: 39,999 characters in all]")) + " […cut: 39,999 characters in all]"},
		{"wide", strings.Repeat("ü", printing.MaxValue+1), strings.Repeat("ü", printing.MaxValue-utf8.RuneCountInString(" […cut: 10,001 characters in all]")) + " […cut: 10,001 characters in all]"},
		{"just fits", strings.Repeat("ü", printing.MaxValue), strings.Repeat("ü", printing.MaxValue)},
	} {
		got := one(c.value)
		if got != c.want {
			t.Errorf("%s: the value ends %q, want %q", c.name, got[max(0, len(got)-60):], c.want[max(0, len(c.want)-60):])
		}
		if n := utf8.RuneCountInString(got); n > printing.MaxValue || strings.Count(got, "\n") >= printing.MaxLines {
			t.Errorf("%s: %d characters, %d lines", c.name, n, strings.Count(got, "\n")+1)
		}
	}
	// The form's budget: once a row does not fit, not even as its marker,
	// it and every row after it are left out and counted, small or not.
	rows := []printing.Row{}
	for range printing.MaxFormChars/printing.MaxValue - 1 {
		rows = append(rows, printing.Row{Label: "full", Value: strings.Repeat("x", printing.MaxValue)})
	}
	rows = append(rows, printing.Row{Label: "nearly", Value: strings.Repeat("x", printing.MaxValue-10)})
	rows = append(rows, printing.Row{Label: "over", Value: strings.Repeat("y", 50)}, printing.Row{Label: "small", Value: "z"})
	b := printing.Bound(&printing.Form{Number: "N-1", Blocks: []printing.Block{{Rows: rows}}})
	if kept := len(b.Blocks[0].Rows); kept != len(rows)-2 || len(b.Blocks) != 2 || !strings.HasPrefix(b.Blocks[1].Rows[0].Value, "2 more rows") {
		t.Errorf("kept %d of %d rows, then %+v", kept, len(rows), b.Blocks[1:])
	}
	b = printing.Bound(&printing.Form{Number: "N-1", Labels: printing.German, Blocks: []printing.Block{{Rows: rows[:len(rows)-1]}}})
	if v := b.Blocks[len(b.Blocks)-1].Rows[0].Value; !strings.HasPrefix(v, "1 weiteres Feld: ein Ausdruck zeigt höchstens 100.000 Zeichen") {
		t.Errorf("one row left out: %s", v)
	}
}

// BenchmarkPrintBounded times a print of each unbounded form beside the
// print of the same form already bounded: the difference is what the
// cut costs.
func BenchmarkPrintBounded(b *testing.B) {
	for name, f := range unbounded() {
		bounded := printing.Bound(f)
		for _, c := range []struct {
			side string
			f    *printing.Form
		}{{"unbounded", f}, {"bounded", bounded}} {
			b.Run(name+"/"+c.side, func(b *testing.B) {
				for b.Loop() {
					if _, err := printing.Render(c.f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
