package rules

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/echo"
)

// ProviderSetting is a value of a rule that a provider may set where the
// law leaves room or is expected to change (our design): its name in the
// provider's settings (`admin apply`), the legal default, the range a
// provider may choose and the rule it sets, with its legal basis.
type ProviderSetting struct {
	Name       string
	Default    int
	Min, Max   int
	Unit       string
	LegalBasis string // of the rule the setting sets, with the law's value
}

// ProviderSettings are every setting a provider may make (operators.md
// describes each; a test holds the guide to this list).
var ProviderSettings = []ProviderSetting{
	{Name: annex7.SettingPriorInformationDays, Default: annex7.PriorInformationDays, Min: 0, Max: 10, Unit: "working days",
		LegalBasis: annex7.PriorInformationBasis},
}

// ProviderSettingOf is the declaration of setting name.
func ProviderSettingOf(name string) (ProviderSetting, bool) {
	for _, s := range ProviderSettings {
		if s.Name == name {
			return s, true
		}
	}
	return ProviderSetting{}, false
}

// CheckProviderSettings checks a provider's settings (name → value) and
// returns them as the stored JSON: every name declared, every value a
// whole number in its range. A setting equal to its default is kept (the
// provider said so), an empty map is "{}".
func CheckProviderSettings(in map[string]string) (string, error) {
	out := map[string]int{}
	for name, v := range in {
		s, ok := ProviderSettingOf(name)
		if !ok {
			return "", echo.Errorf("setting %q: not a provider setting (known: %s)", name, settingNames())
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < s.Min || n > s.Max {
			return "", echo.Errorf("setting %s: want a whole number of %s from %d to %d, not %q", name, s.Unit, s.Min, s.Max, v)
		}
		out[name] = n
	}
	raw, err := json.Marshal(out)
	return string(raw), err
}

// ProviderSettingValue is setting name's value in stored (the JSON
// CheckProviderSettings wrote), or its default when unset or unreadable.
func ProviderSettingValue(stored, name string) int {
	s, _ := ProviderSettingOf(name)
	var m map[string]int
	if err := json.Unmarshal([]byte(stored), &m); err == nil {
		if v, ok := m[name]; ok {
			return v
		}
	}
	return s.Default
}

func settingNames() string {
	names := make([]string, 0, len(ProviderSettings))
	for _, s := range ProviderSettings {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}
