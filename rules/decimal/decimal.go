// Package decimal is the one decimal value of the API: units plus nanos, as
// the query operand n and notified quantities use it.
package decimal

// Decimal is units + nanos × 10⁻⁹ (google.type.Money without currency).
type Decimal struct {
	Units int64 `json:"units"`
	Nanos int32 `json:"nanos"`
}
