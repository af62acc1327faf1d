package models

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"gorm.io/gorm"
)

// A document's aggregate is stored in two parts (issue 49.2): Data, what
// its acts and its retrieval document read, and Archive, the oldest closed
// items of its exchange lists (a notification's answered requests,
// acknowledgements, signals...), which no act changes any more. Data is
// rewritten by every act; Archive only when items move into it, a batch at
// a time. The aggregate whole is Data with each list of Archive put back
// in front of the list of the same name (JoinArchive): every reader gets
// it so (Load, Find, the register, the replay) except one that asks for
// Data alone (DocumentQuery.Hot: a retrieval document, whose lists carry
// the open and the latest closed items only, and which counts the rest
// from Archived) or for the parts (DocumentQuery.Apart: an act decodes
// Data alone and joins the archive's JSON back to digest the whole).
//
// Archive is a JSON object of arrays ({"informationRequests":[...]}), the
// items as the encoder of the whole aggregate wrote them; Archived counts
// them by list ({"informationRequests":40}). Both are "" when nothing is
// kept apart, so a row written before this split reads as it did.

// ArchiveCut is how many of a list's first items are kept apart.
type ArchiveCut struct {
	List string
	N    int
}

// SplitArchive cuts the first items of the top-level arrays of whole that
// cuts name (in whole's JSON text, no value decoded or encoded again): hot
// is whole without them, archive and archived the Archive and Archived
// columns that keep them. A cut of 0 keeps nothing of its list; with
// every cut 0 hot is whole and archive and archived are "".
func SplitArchive(whole []byte, cuts []ArchiveCut) (hot []byte, archive, archived string, err error) {
	want := map[string]int{}
	for _, c := range cuts {
		if c.N > 0 {
			want[c.List] = c.N
		}
	}
	if len(want) == 0 {
		return whole, "", "", nil
	}
	kept := map[string][]byte{} // the list's items joined by commas
	var out bytes.Buffer
	out.Grow(len(whole))
	from := 0 // whole[from:] is not copied to out yet
	err = topMembers(whole, func(dec *jsontext.Decoder, name string) error {
		n, ok := want[name]
		if !ok {
			return dec.SkipValue()
		}
		if tok, err := dec.ReadToken(); err != nil {
			return err
		} else if tok.Kind() != '[' {
			return fmt.Errorf("%s is not a list", name)
		}
		start := int(dec.InputOffset()) // just after '['
		var items []byte
		for i := range n {
			if dec.PeekKind() == ']' {
				return fmt.Errorf("%s has %d items, not %d to keep apart", name, i, n)
			}
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if i > 0 {
				items = append(items, ',')
			}
			items = append(items, v...)
		}
		end := int(dec.InputOffset()) // just after the last item kept apart
		if dec.PeekKind() != ']' {
			end = skipComma(whole, end)
		}
		kept[name] = items
		out.Write(whole[from:start])
		from = end
		for dec.PeekKind() != ']' {
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	})
	if err != nil {
		return nil, "", "", fmt.Errorf("keeping apart: %w", err)
	}
	out.Write(whole[from:])
	names := make([]string, 0, len(kept))
	for name := range kept {
		names = append(names, name)
	}
	slices.Sort(names)
	var a, c strings.Builder
	a.WriteByte('{')
	c.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			a.WriteByte(',')
			c.WriteByte(',')
		}
		a.WriteString(strconv.Quote(name))
		a.WriteString(":[")
		a.Write(kept[name])
		a.WriteByte(']')
		c.WriteString(strconv.Quote(name) + ":" + strconv.Itoa(want[name]))
	}
	a.WriteByte('}')
	c.WriteByte('}')
	return out.Bytes(), a.String(), c.String(), nil
}

// JoinArchive is the aggregate whole: data with archive's lists put back
// in front of its lists of the same name. data may be in any JSON layout
// (PostgreSQL's jsonb text spaces and orders it its own way).
func JoinArchive(data, archive string) (string, error) {
	if archive == "" {
		return data, nil
	}
	lists := map[string][]byte{} // each list's items, joined by commas
	err := topMembers([]byte(archive), func(dec *jsontext.Decoder, name string) error {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		inner := bytes.TrimSpace(v)
		if len(inner) < 2 || inner[0] != '[' {
			return fmt.Errorf("%s is not a list", name)
		}
		if inner = bytes.TrimSpace(inner[1 : len(inner)-1]); len(inner) > 0 {
			lists[name] = bytes.Clone(inner)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("the archive: %w", err)
	}
	var out strings.Builder
	out.Grow(len(data) + len(archive))
	from, found := 0, 0
	err = topMembers([]byte(data), func(dec *jsontext.Decoder, name string) error {
		items, ok := lists[name]
		if !ok {
			return dec.SkipValue()
		}
		found++
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		at := int(dec.InputOffset())
		switch tok.Kind() {
		case 'n': // an empty list written as null
			out.WriteString(data[from : at-len("null")])
			out.WriteByte('[')
			out.Write(items)
			out.WriteByte(']')
			from = at
			return nil
		case '[':
		default:
			return fmt.Errorf("%s is not a list", name)
		}
		out.WriteString(data[from:at])
		out.Write(items)
		if dec.PeekKind() != ']' {
			out.WriteByte(',')
		}
		from = at
		for dec.PeekKind() != ']' {
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
		_, err = dec.ReadToken()
		return err
	})
	if err != nil {
		return "", fmt.Errorf("the aggregate: %w", err)
	}
	if found != len(lists) {
		return "", errors.New("the archive keeps a list the aggregate does not have")
	}
	out.WriteString(data[from:])
	return out.String(), nil
}

// ArchivedCounts reads the Archived column: how many items each list keeps
// apart (nil when none).
func ArchivedCounts(archived string) (map[string]int, error) {
	if archived == "" {
		return nil, nil
	}
	out := map[string]int{}
	err := topMembers([]byte(archived), func(dec *jsontext.Decoder, name string) error {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() != '0' {
			return fmt.Errorf("%s is not a count", name)
		}
		out[name] = int(tok.Int())
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archived counts: %w", err)
	}
	return out, nil
}

// topMembers calls member for each member of the JSON object b, with the
// decoder before the member's value, which member must read whole.
func topMembers(b []byte, member func(dec *jsontext.Decoder, name string) error) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return errors.New("not a JSON object")
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(dec, tok.String()); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}

// skipComma is the offset after the comma that follows b[at:]'s spaces.
func skipComma(b []byte, at int) int {
	for at < len(b) && (b[at] == ' ' || b[at] == '\n' || b[at] == '\t' || b[at] == '\r') {
		at++
	}
	if at < len(b) && b[at] == ',' {
		at++
	}
	return at
}

// join makes d's Data, as read from its row, the aggregate whole (Archive
// stays, so that an act can tell whether it changed what is kept apart).
// Every read of a row calls it once: gorm's through AfterFind, the
// statements scanned by hand after their Scan.
func (d *Document) join() error {
	if d.Archive == "" {
		return nil
	}
	whole, err := JoinArchive(d.Data, d.Archive)
	if err != nil {
		return fmt.Errorf("document %s: %w", d.ID, err)
	}
	d.Data = whole
	return nil
}

// AfterFind joins a row gorm read (Take, Find, First).
func (d *Document) AfterFind(*gorm.DB) error { return d.join() }
