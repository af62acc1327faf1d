package shipment

import (
	"net/mail"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// DetailProblem is one thing wrong with a party's details: the field by
// its JSON path (address.postalCode) and why.
type DetailProblem struct{ Field, Message string }

var (
	eoriShape      = regexp.MustCompile(`^[A-Z]{2}[A-Z0-9]{1,15}$`)
	vatShape       = regexp.MustCompile(`^[A-Z]{2}[A-Z0-9+*.]{2,13}$`)
	telephoneShape = regexp.MustCompile(`^\+?[0-9][0-9 ()/.-]*[0-9]$`)
)

// CheckPartyDetails returns what is wrong with p: a value longer than its
// maxLength tag allows (the limit a request's JSON has, in characters), an
// e-mail that does not look like one, a country that is not ISO 3166-1
// alpha-2, a telephone number that is not digits (with an optional leading
// +, spaces, brackets, dots, dashes or slashes; at least 6 digits), an EORI
// (two letters, up to 15 letters or digits) or VAT identifier (two letters,
// 2 to 13 characters) of another shape. Empty values are not checked: which
// are required is the caller's rule.
func CheckPartyDetails(p *PartyDetails) []DetailProblem {
	var out []DetailProblem
	lengths(reflect.ValueOf(p).Elem(), "", &out)
	if p.Email != "" {
		a, err := mail.ParseAddress(p.Email)
		if err != nil || a.Address != p.Email || a.Name != "" || !strings.Contains(p.Email[strings.LastIndexByte(p.Email, '@')+1:], ".") {
			out = append(out, DetailProblem{"email", echo.Sprintf("%q is not an e-mail address (name@example.org)", p.Email)})
		}
	}
	if c := p.Address.Country; c != "" {
		if r, err := language.ParseRegion(c); len(c) != 2 || strings.ToUpper(c) != c || err != nil || !r.IsCountry() {
			out = append(out, DetailProblem{"address.country", echo.Sprintf("%q is not an ISO 3166-1 alpha-2 country code", c)})
		}
	}
	if t := p.Telephone; t != "" {
		digits := 0
		for _, r := range t {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if !telephoneShape.MatchString(t) || digits < 6 {
			out = append(out, DetailProblem{"telephone", echo.Sprintf("%q is not a telephone number (digits, an optional leading +, spaces or dashes; e.g. +49 89 1234567)", t)})
		}
	}
	if p.EORI != "" && !eoriShape.MatchString(p.EORI) {
		out = append(out, DetailProblem{"eori", echo.Sprintf("%q is not an EORI number (country code and up to 15 letters or digits, e.g. DE123456789012345)", p.EORI)})
	}
	if p.VAT != "" && !vatShape.MatchString(p.VAT) {
		out = append(out, DetailProblem{"vat", echo.Sprintf("%q is not a VAT identification number (country code and 2 to 13 characters, e.g. DE123456789)", p.VAT)})
	}
	return out
}

// lengths adds a problem for each string of v (a struct, at path) longer
// than its field's maxLength tag.
func lengths(v reflect.Value, path string, out *[]DetailProblem) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if path != "" {
			name = path + "." + name
		}
		switch f.Type.Kind() {
		case reflect.Struct:
			lengths(v.Field(i), name, out)
		case reflect.String:
			limit, err := strconv.Atoi(f.Tag.Get("maxLength"))
			if err != nil {
				continue
			}
			if n := utf8.RuneCountInString(v.Field(i).String()); n > limit {
				*out = append(*out, DetailProblem{name, "at most " + strconv.Itoa(limit) + " characters, it has " + strconv.Itoa(n)})
			}
		}
	}
}
