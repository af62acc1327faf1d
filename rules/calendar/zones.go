package calendar

import (
	"fmt"
	"strings"
	"sync"
	"time"

	// Deadlines must not depend on the host having /usr/share/zoneinfo
	// (distroless and scratch images do not); the embedded database is only
	// consulted when the system one is missing.
	_ "time/tzdata"
)

// defaultZone is used for countries we know nothing about. Brussels is the
// seat of the Commission and shares CET/CEST with most of the Union, so it is
// the least surprising guess for a party in an unlisted country.
const defaultZone = "Europe/Brussels"

// zones maps ISO 3166-1 alpha-2 codes to the IANA zone of the country's
// capital. It covers the EU and EEA, Switzerland and the United Kingdom, plus
// the European neighbours that commonly appear as countries of transit,
// dispatch or destination in waste shipments.
//
// A country with several zones (ES: Canary Islands, PT: Azores) is mapped to
// its mainland zone because Location is keyed by country only.
var zones = map[string]string{
	// EU member states.
	"AT": "Europe/Vienna",
	"BE": "Europe/Brussels",
	"BG": "Europe/Sofia",
	"CY": "Asia/Nicosia",
	"CZ": "Europe/Prague",
	"DE": "Europe/Berlin",
	"DK": "Europe/Copenhagen",
	"EE": "Europe/Tallinn",
	"ES": "Europe/Madrid",
	"FI": "Europe/Helsinki",
	"FR": "Europe/Paris",
	"GR": "Europe/Athens",
	"HR": "Europe/Zagreb",
	"HU": "Europe/Budapest",
	"IE": "Europe/Dublin",
	"IT": "Europe/Rome",
	"LT": "Europe/Vilnius",
	"LU": "Europe/Luxembourg",
	"LV": "Europe/Riga",
	"MT": "Europe/Malta",
	"NL": "Europe/Amsterdam",
	"PL": "Europe/Warsaw",
	"PT": "Europe/Lisbon",
	"RO": "Europe/Bucharest",
	"SE": "Europe/Stockholm",
	"SI": "Europe/Ljubljana",
	"SK": "Europe/Bratislava",
	// EEA (non-EU), Switzerland, United Kingdom.
	"IS": "Atlantic/Reykjavik",
	"LI": "Europe/Vaduz",
	"NO": "Europe/Oslo",
	"CH": "Europe/Zurich",
	"GB": "Europe/London",
	// Other European countries and territories.
	"AD": "Europe/Andorra",
	"AL": "Europe/Tirane",
	"BA": "Europe/Sarajevo",
	"FO": "Atlantic/Faroe",
	"GI": "Europe/Gibraltar",
	"MC": "Europe/Monaco",
	"MD": "Europe/Chisinau",
	"ME": "Europe/Podgorica",
	"MK": "Europe/Skopje",
	"RS": "Europe/Belgrade",
	"SM": "Europe/San_Marino",
	"TR": "Europe/Istanbul",
	"UA": "Europe/Kyiv",
	"VA": "Europe/Vatican",
	"XK": "Europe/Belgrade",
}

// aliases maps the codes EU documents use instead of ISO 3166-1 (Greece is
// "EL" and the United Kingdom "UK" in EU usage) so that either spelling works.
var aliases = map[string]string{
	"EL": "GR",
	"UK": "GB",
}

// normCountry upper-cases and trims a country code and resolves EU aliases.
func normCountry(country string) string {
	c := strings.ToUpper(strings.TrimSpace(country))
	if a, ok := aliases[c]; ok {
		return a
	}
	return c
}

// locations caches loaded zones by IANA name: LoadLocation parses the
// database on every call, which is far too slow for per-call use.
var locations sync.Map // string -> *time.Location

// Location returns the time zone of country (ISO 3166-1 alpha-2, case
// insensitive; the EU codes EL and UK are accepted). Countries not in the
// table get Europe/Brussels. The result is shared and must not be modified.
func Location(country string) *time.Location {
	zone, ok := zones[normCountry(country)]
	if !ok {
		zone = defaultZone
	}
	return loadZone(zone)
}

func loadZone(zone string) *time.Location {
	if loc, ok := locations.Load(zone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		// Only reachable with a misspelt entry in zones: time/tzdata is
		// embedded, and TestLocationAllZones loads every entry.
		panic(fmt.Sprintf("calendar: loading zone %q: %v", zone, err))
	}
	actual, _ := locations.LoadOrStore(zone, loc)
	return actual.(*time.Location)
}
