package wastecodes_test

import (
	"fmt"

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
