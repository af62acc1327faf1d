package notification

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// The financial guarantee or equivalent insurance, Art. 7 Regulation (EU)
// 2024/1157 (read in its published text): shipments that need a
// notification are covered by a guarantee or insurance (7(1)–(2)); it is
// established by the notifier or on its behalf and takes effect at the
// notification or, where the approving authority allows, at the latest
// when the movement document is completed under Art. 16(2), and applies to
// a shipment at the latest when it starts (7(3)); the competent authority
// of dispatch approves it, its form, wording and amount (7(4)); it is
// valid for and covers the shipment (7(5)). The authorities may make their
// consent conditional on it: consent deemed withdrawn when the guarantee is
// not valid at the latest when the movement document is completed (Art. 10
// by our domain notes, whose source was read only in part: not verified
// here). Here (our design): the notifier submits a guarantee, the
// authority of dispatch approves it, and no movement is created for a
// date of shipment no approved guarantee covers.
const GuaranteeBasis = "Art. 7 Regulation (EU) 2024/1157"

// ErrGuaranteeNotValid: no approved financial guarantee or insurance is
// valid on a movement's date of shipment.
const ErrGuaranteeNotValid = "GUARANTEE_NOT_VALID"

// GuaranteeKind: a financial guarantee or an equivalent insurance.
type GuaranteeKind int32

// Guarantee kinds.
const (
	GuaranteeUnspecified GuaranteeKind = iota
	GuaranteeFinancial
	GuaranteeInsurance
)

// EnumNames implements the codec's enum contract.
func (GuaranteeKind) EnumNames() []string {
	return []string{"GUARANTEE_KIND_UNSPECIFIED", "FINANCIAL_GUARANTEE", "INSURANCE"}
}

// EnumLabels are the words a person sees for the values, by number.
func (GuaranteeKind) EnumLabels() []labels.Text {
	return []labels.Text{
		{EN: "Not set", DE: "Nicht angegeben"},
		{EN: "Financial guarantee", DE: "Sicherheitsleistung"},
		{EN: "Equivalent insurance", DE: "Gleichwertige Versicherung"},
	}
}

// Guarantee is the block of GUARANTEE: the guarantee or insurance the
// notifier submits.
type Guarantee struct {
	Kind       GuaranteeKind `json:"kind" required:"true" label:"Kind|Art" codeList:"GuaranteeKind"`
	Amount     Decimal       `json:"amount" required:"true" label:"Amount covered|Gedeckter Betrag" help:"The sum the guarantee or insurance covers.|Die Summe, die die Sicherheit oder Versicherung deckt."`
	Currency   string        `json:"currency" required:"true" maxLength:"3" doc:"ISO 4217 code (EUR)" label:"Currency|Währung" help:"Three letters, such as EUR.|Drei Buchstaben, etwa EUR."`
	Guarantor  string        `json:"guarantor" required:"true" maxLength:"300" label:"Guarantor or insurer|Bürge oder Versicherer" help:"The bank or insurer that gives it.|Die Bank oder Versicherung, die sie stellt."`
	Reference  string        `json:"reference" required:"true" maxLength:"100" label:"Guarantee or policy number|Nummer der Bürgschaft oder Police"`
	ValidFrom  string        `json:"validFrom" required:"true" maxLength:"64" doc:"YYYY-MM-DD" label:"Valid from|Gültig ab"`
	ValidUntil string        `json:"validUntil" required:"true" maxLength:"64" doc:"YYYY-MM-DD" label:"Valid until|Gültig bis"`
}

// GuaranteeApproval is the block of GUARANTEE_APPROVAL.
type GuaranteeApproval struct {
	Remarks string `json:"remarks" maxLength:"4000" label:"Remarks|Bemerkungen"`
}

// GuaranteeRecord is a guarantee submitted, and its approval.
type GuaranteeRecord struct {
	Guarantee  Guarantee  `json:"guarantee" label:"Guarantee or insurance|Sicherheitsleistung oder Versicherung"`
	At         time.Time  `json:"at" label:"Submitted at|Eingereicht am"`
	ApprovedBy string     `json:"approvedBy" doc:"the authority of dispatch that approved it (Art. 7(4)); empty until approved" label:"Approved by|Genehmigt von"`
	ApprovedAt *time.Time `json:"approvedAt" label:"Approved at|Genehmigt am"`
	Remarks    string     `json:"remarks" label:"Remarks on the approval|Bemerkungen zur Genehmigung"`
}

var currency = regexp.MustCompile(`^[A-Z]{3}$`)

// CheckGuarantee checks a guarantee submitted on today: every field, a
// positive amount, a currency code, a validity that has not ended, and
// something new (CHANGE_PROPOSES_NOTHING when it equals the last one).
func CheckGuarantee(n *Notification, g *Guarantee, today string) []BusinessError {
	k := &shipment.Checker{}
	if g.Kind != GuaranteeFinancial && g.Kind != GuaranteeInsurance {
		k.Add(ErrRequiredMissing, "guarantee.kind", "FINANCIAL_GUARANTEE or INSURANCE is required")
	}
	if g.Amount.Units < 0 || g.Amount.Nanos < 0 || g.Amount.Units == 0 && g.Amount.Nanos == 0 {
		k.Add(ErrQuantity, "guarantee.amount", "the amount covered is positive")
	}
	g.Currency = strings.ToUpper(strings.TrimSpace(g.Currency))
	if !currency.MatchString(g.Currency) {
		k.Add(ErrRequiredMissing, "guarantee.currency", "a currency code of three letters (ISO 4217, such as EUR) is required")
	}
	if strings.TrimSpace(g.Guarantor) == "" {
		k.Add(ErrRequiredMissing, "guarantee.guarantor", "the guarantor or insurer is required")
	}
	if strings.TrimSpace(g.Reference) == "" {
		k.Add(ErrRequiredMissing, "guarantee.reference", "the number of the guarantee or policy is required")
	}
	from, errFrom := shipment.ParseDate(g.ValidFrom)
	until, errUntil := shipment.ParseDate(g.ValidUntil)
	switch {
	case errFrom != nil:
		k.Add(shipment.ErrDateOutOfRange, "guarantee.validFrom", "a date YYYY-MM-DD is required")
	case errUntil != nil:
		k.Add(shipment.ErrDateOutOfRange, "guarantee.validUntil", "a date YYYY-MM-DD is required")
	case until.Before(from):
		k.Add(shipment.ErrDateOutOfRange, "guarantee.validUntil", "the validity ends (%s) before it begins (%s)", g.ValidUntil, g.ValidFrom)
	case g.ValidUntil < today:
		k.Add(shipment.ErrDateOutOfRange, "guarantee.validUntil", "the validity ended on %s, before today (%s)", g.ValidUntil, today)
	}
	if len(n.Guarantees) > 0 && len(k.Errors) == 0 {
		k.Errors = append(k.Errors, shipment.NothingChanged("guarantee", "the guarantee", &n.Guarantees[len(n.Guarantees)-1].Guarantee, g)...)
	}
	return k.Errors
}

// ApplyGuarantee records a guarantee submitted; it awaits approval.
func (n *Notification) ApplyGuarantee(g Guarantee, now time.Time) {
	n.Guarantees = append(n.Guarantees, GuaranteeRecord{Guarantee: g, At: now})
}

// PendingGuarantee is the guarantee last submitted, while it awaits
// approval.
func (n *Notification) PendingGuarantee() *GuaranteeRecord {
	if len(n.Guarantees) == 0 || n.Guarantees[len(n.Guarantees)-1].ApprovedAt != nil {
		return nil
	}
	return &n.Guarantees[len(n.Guarantees)-1]
}

// ApplyGuaranteeApproval records the approval of the pending guarantee.
func (n *Notification) ApplyGuaranteeApproval(authority string, a GuaranteeApproval, now time.Time) {
	if g := n.PendingGuarantee(); g != nil {
		g.ApprovedBy, g.ApprovedAt, g.Remarks = authority, &now, a.Remarks
	}
}

// ApprovedGuarantee is the guarantee in force: the one last approved.
func (n *Notification) ApprovedGuarantee() *GuaranteeRecord {
	for i := len(n.Guarantees) - 1; i >= 0; i-- {
		if n.Guarantees[i].ApprovedAt != nil {
			return &n.Guarantees[i]
		}
	}
	return nil
}

// GuaranteeEndsEarly reports whether the guarantee in force ends before
// the shipment period (a renewal is due before it runs out).
func (n *Notification) GuaranteeEndsEarly() bool {
	g := n.ApprovedGuarantee()
	return g != nil && g.Guarantee.ValidUntil < n.Content.ShipmentPeriod.LastDeparture
}

// GuaranteeEnd is the last day of the guarantee in force ("" without one).
func (n *Notification) GuaranteeEnd() string {
	if g := n.ApprovedGuarantee(); g != nil {
		return g.Guarantee.ValidUntil
	}
	return ""
}

// CheckGuaranteeCovers refuses a movement on date (YYYY-MM-DD) that no
// approved guarantee covers, at field, naming the guarantee in force or
// the one awaiting approval.
func CheckGuaranteeCovers(n *Notification, field, date string) []BusinessError {
	g := n.ApprovedGuarantee()
	why := ""
	switch {
	case g == nil && n.PendingGuarantee() != nil:
		p := n.PendingGuarantee().Guarantee
		why = fmt.Sprintf("the guarantee %s of %s submitted awaits the approval of the authority of dispatch", ref(p), p.Guarantor)
	case g == nil:
		why = "the notifier has submitted none (GUARANTEE)"
	case date < g.Guarantee.ValidFrom || date > g.Guarantee.ValidUntil:
		why = fmt.Sprintf("the guarantee %s of %s, approved on %s, is valid from %s to %s", ref(g.Guarantee), g.Guarantee.Guarantor,
			g.ApprovedAt.Format(time.DateOnly), g.Guarantee.ValidFrom, g.Guarantee.ValidUntil)
	default:
		return nil
	}
	return []BusinessError{{Code: ErrGuaranteeNotValid, Field: field, Message: fmt.Sprintf(
		"no approved financial guarantee or insurance covers a shipment on %s (%s): %s", date, GuaranteeBasis, why)}}
}

func ref(g Guarantee) string {
	if g.Reference == "" { // stored before the number was required
		return "(no number)"
	}
	return g.Reference
}
