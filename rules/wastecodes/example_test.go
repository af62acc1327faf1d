package wastecodes_test

import (
	"fmt"
	"time"

	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

func ExampleLookup() {
	e, ok, _ := wastecodes.Lookup(wastecodes.EUListOfWaste, "160213*")
	fmt.Println(ok, e.Code, e.Hazardous)

	_, ok, reason := wastecodes.Lookup(wastecodes.EUListOfWaste, "160213")
	fmt.Println(ok, reason)

	_, ok, reason = wastecodes.Lookup(wastecodes.BaselAnnexVIII, "B1010")
	fmt.Println(ok, reason)
	// Output:
	// true 16 02 13* true
	// false waste code "160213" is not valid in list EU_LIST_OF_WASTE: 16 02 13* is a hazardous entry and must be written with an asterisk, as "16 02 13*"
	// false waste code "B1010" is not valid in list BASEL_ANNEX_VIII: B1010 is a list B entry of Basel Annex IX, not of Annex VIII; claim it under BASEL_ANNEX_IX
}

func ExampleLookupOperation() {
	op, ok := wastecodes.LookupOperation("r1")
	fmt.Println(ok, op.Code, op.Recovery)
	_, ok = wastecodes.LookupOperation("R14")
	fmt.Println(ok)
	// Output:
	// true R1 true
	// false
}

func ExampleLookupOn() {
	may2022 := time.Date(2022, 5, 1, 0, 0, 0, 0, time.UTC)
	e, ok, _ := wastecodes.LookupOn(wastecodes.BaselAnnexIX, "b3011", may2022)
	fmt.Println(ok, e.Code, e.InForceFrom.Format(time.DateOnly), e.Replaces)

	_, ok, reason := wastecodes.LookupOn(wastecodes.BaselAnnexIX, "B3010", may2022)
	fmt.Println(ok, reason)

	e, ok, _ = wastecodes.LookupOn(wastecodes.BaselAnnexIandII, "Y48", may2022)
	fmt.Println(ok, e.Wording, e.Description == "", e.Summary != "")
	// Output:
	// true B3011 2021-01-01 B3010
	// false waste code "B3010" is not valid in list BASEL_ANNEX_IX on 2022-05-01: B3010 was deleted from Basel Annex IX on 2021-01-01; use B3011
	// true summary true true
}

func ExampleIsGreenListed() {
	may2022 := time.Date(2022, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ list, code string }{
		{wastecodes.BaselAnnexIX, "B3011"},
		{wastecodes.OECD, "GC010"},
		{wastecodes.EUAnnexIIIA, "B1010+B1050"},
		{wastecodes.EUListOfWaste, "17 04 05"},
		{wastecodes.OECD, "AC150"},
		{wastecodes.BaselAnnexVIII, "A3210"},
	} {
		green, _ := wastecodes.IsGreenListed(c.list, c.code, may2022)
		fmt.Println(c.code, green)
	}
	_, reason := wastecodes.IsGreenListed(wastecodes.BaselAnnexIandII, "Y48", may2022)
	fmt.Println(reason)
	// Output:
	// B3011 true
	// GC010 true
	// B1010+B1050 true
	// 17 04 05 true
	// AC150 false
	// A3210 false
	// waste code "Y48" in list BASEL_ANNEX_I_II is not green-listed: Y48 is a category of Basel Annex II, "other wastes" requiring special consideration, which need prior notification and consent; plastic waste that qualifies for the green list is claimed under B3011 (BASEL_ANNEX_IX) or, for shipments within the EU, EU3011 (EU_ANNEX_IIIB)
}
