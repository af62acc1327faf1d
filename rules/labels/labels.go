// Package labels holds the words a person sees for the codes of the code
// lists (operations R1–R13/D1–D15, lists of waste, means of transport,
// packaging, states, intents, roles, decision types), in English and
// German, declared once; the console, the pages, the print, the mails and
// the register all read them from here or from what is declared beside the
// types (field labels in struct tags, enum labels beside the enum).
package labels

// Text is a label in English and German.
type Text struct {
	EN string `json:"en"`
	DE string `json:"de"`
}

// In returns the label in lang ("de" for German, English otherwise).
func (t Text) In(lang string) string {
	if lang == "de" && t.DE != "" {
		return t.DE
	}
	return t.EN
}

// Code returns the label of code in the code list named list, and whether
// the list knows it.
func Code(list, code string) (Text, bool) {
	return Text{}, false
}
