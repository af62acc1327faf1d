package wastecodes

import (
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// Embedded data files; see data/README.md for their sources and licences.
const (
	euFile    = "data/ewc_avv_list_of_waste.csv"
	baselFile = "data/basel_annex_viii_ix_2014.csv"
	opsFile   = "data/eu_wfd_recovery_disposal_operations_de.csv"
)

//go:embed data/*.csv
var dataFS embed.FS

// tables holds the parsed code lists. It is built once and never written
// afterwards, so concurrent readers need no locking.
type tables struct {
	eu         map[string]Entry     // EU list entries by their six digits ("160213")
	euHeadings map[string]string    // chapter and sub-chapter levels by their digits ("16", "1602")
	basel      map[string]Entry     // Basel entries by code ("A1010"); Entry.List is the annex
	ops        map[string]Operation // operations by code ("R1")
}

// data returns the parsed tables, parsing the embedded files on first use.
// It panics only if the embedded files are malformed, which the tests rule
// out.
var data = sync.OnceValue(func() *tables {
	t, err := parse(dataFS)
	if err != nil {
		panic("wastecodes: malformed embedded data: " + err.Error())
	}
	return t
})

func parse(fsys fs.FS) (*tables, error) {
	t := &tables{}
	var err error
	if t.eu, t.euHeadings, err = parseEU(fsys); err != nil {
		return nil, err
	}
	if t.basel, err = parseBasel(fsys); err != nil {
		return nil, err
	}
	if t.ops, err = parseOps(fsys); err != nil {
		return nil, err
	}
	return t, nil
}

// readTable reads a CSV file whose header must be exactly columns and
// calls row for every record after it. Errors carry the file name and line.
func readTable(fsys fs.FS, name string, columns []string, row func(rec []string) error) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", name, err)
	}
	if !slices.Equal(header, columns) {
		return fmt.Errorf("%s: header is %q, want %q", name, header, columns)
	}
	n := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := row(rec); err != nil {
			line, _ := r.FieldPos(0)
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s: no records", name)
	}
	return nil
}

var euColumns = []string{"code", "code6", "level", "chapter", "sub_chapter", "hazardous", "description_en", "description_de", "note"}

func parseEU(fsys fs.FS) (entries map[string]Entry, headings map[string]string, err error) {
	entries = make(map[string]Entry, 1024)
	headings = make(map[string]string, 160)
	err = readTable(fsys, euFile, euColumns, func(rec []string) error {
		code, code6, level, chapter, sub, hazardous := rec[0], rec[1], rec[2], rec[3], rec[4], rec[5]
		descEN, descDE := rec[6], rec[7]
		key, n, ok := euDigits(code)
		if !ok || !isGrouped(code) {
			return fmt.Errorf("code %q is not of the form \"dd\", \"dd dd\" or \"dd dd dd\"", code)
		}
		digits := string(key[:n])
		if _, dup := entries[digits]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		if _, dup := headings[digits]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		if chapter != code[:2] {
			return fmt.Errorf("code %q has chapter %q", code, chapter)
		}
		switch level {
		case "chapter", "sub-chapter":
			want := 2
			if level == "sub-chapter" {
				want = 4
			}
			if n != want {
				return fmt.Errorf("%s code %q has %d digits, want %d", level, code, n, want)
			}
			if code6 != digits {
				return fmt.Errorf("code %q has code6 %q, want %q", code, code6, digits)
			}
			if hazardous != "" {
				return fmt.Errorf("%s %q has hazardous flag %q, want none", level, code, hazardous)
			}
			headings[digits] = level
		case "entry":
			if n != 6 {
				return fmt.Errorf("entry code %q has %d digits, want 6", code, n)
			}
			if sub != code[:5] {
				return fmt.Errorf("entry %q has sub-chapter %q", code, sub)
			}
			if _, ok := headings[digits[:4]]; !ok {
				return fmt.Errorf("entry %q comes before its sub-chapter", code)
			}
			var haz bool
			switch hazardous {
			case "true":
				haz = true
			case "false":
			default:
				return fmt.Errorf("entry %q has hazardous flag %q, want true or false", code, hazardous)
			}
			want := digits
			if haz {
				want += "*"
			}
			if code6 != want {
				return fmt.Errorf("entry %q (hazardous %t) has code6 %q, want %q", code, haz, code6, want)
			}
			desc := descEN
			if desc == "" {
				desc = descDE
			}
			if desc == "" {
				return fmt.Errorf("entry %q has no description", code)
			}
			canon := code
			if haz {
				canon += "*"
			}
			entries[digits] = Entry{List: EUListOfWaste, Code: canon, Description: desc, Hazardous: haz}
		default:
			return fmt.Errorf("code %q has unknown level %q", code, level)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, headings, nil
}

// isGrouped reports whether s is written in the list's own spelling:
// groups of two digits separated by single spaces.
func isGrouped(s string) bool {
	for i := range len(s) {
		if (i%3 == 2) != (s[i] == ' ') {
			return false
		}
	}
	return len(s)%3 == 2
}

var baselColumns = []string{"code", "basel_annex", "list", "section_code", "section", "entry_first_line", "entry_full_text"}

func parseBasel(fsys fs.FS) (map[string]Entry, error) {
	entries := make(map[string]Entry, 160)
	err := readTable(fsys, baselFile, baselColumns, func(rec []string) error {
		code, annex, list, first, full := rec[0], rec[1], rec[2], rec[5], rec[6]
		if !isBaselCode(code) {
			return fmt.Errorf("code %q is not a letter A or B and four digits", code)
		}
		if _, dup := entries[code]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		var name string
		switch {
		case annex == "VIII" && list == "A" && code[0] == 'A':
			name = BaselAnnexVIII
		case annex == "IX" && list == "B" && code[0] == 'B':
			name = BaselAnnexIX
		default:
			return fmt.Errorf("code %q has annex %q and list %q", code, annex, list)
		}
		desc := full
		if desc == "" {
			desc = first
		}
		if desc == "" {
			return fmt.Errorf("code %q has no description", code)
		}
		entries[code] = Entry{List: name, Code: code, Description: desc}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

var opsColumns = []string{"code", "type", "description_de"}

func parseOps(fsys fs.FS) (map[string]Operation, error) {
	ops := make(map[string]Operation, 32)
	err := readTable(fsys, opsFile, opsColumns, func(rec []string) error {
		code, typ, desc := rec[0], rec[1], rec[2]
		if !isOperationCode(code) {
			return fmt.Errorf("code %q is not R or D and a number from 1 to 19", code)
		}
		if _, dup := ops[code]; dup {
			return fmt.Errorf("duplicate code %q", code)
		}
		recovery := code[0] == 'R'
		want := "disposal"
		if recovery {
			want = "recovery"
		}
		if typ != want {
			return fmt.Errorf("code %q has type %q, want %q", code, typ, want)
		}
		if strings.TrimSpace(desc) == "" {
			return fmt.Errorf("code %q has no description", code)
		}
		ops[code] = Operation{Code: code, Recovery: recovery, Description: desc}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ops, nil
}

// isOperationCode checks the shape of an operation code in the data file:
// R or D, then 1 to 19 without leading zero.
func isOperationCode(s string) bool {
	if len(s) < 2 || len(s) > 3 || (s[0] != 'R' && s[0] != 'D') {
		return false
	}
	if len(s) == 2 {
		return s[1] >= '1' && s[1] <= '9'
	}
	return s[1] == '1' && isDigit(s[2])
}
