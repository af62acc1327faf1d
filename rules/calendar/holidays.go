package calendar

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/at"
	"github.com/rickar/cal/v2/be"
	"github.com/rickar/cal/v2/bg"
	"github.com/rickar/cal/v2/ch"
	"github.com/rickar/cal/v2/cz"
	"github.com/rickar/cal/v2/de"
	"github.com/rickar/cal/v2/dk"
	"github.com/rickar/cal/v2/es"
	"github.com/rickar/cal/v2/fr"
	"github.com/rickar/cal/v2/gb"
	"github.com/rickar/cal/v2/gr"
	"github.com/rickar/cal/v2/hr"
	"github.com/rickar/cal/v2/ie"
	"github.com/rickar/cal/v2/it"
	"github.com/rickar/cal/v2/lt"
	"github.com/rickar/cal/v2/lv"
	"github.com/rickar/cal/v2/nl"
	"github.com/rickar/cal/v2/no"
	"github.com/rickar/cal/v2/pl"
	"github.com/rickar/cal/v2/ro"
	"github.com/rickar/cal/v2/se"
	"github.com/rickar/cal/v2/si"
	"github.com/rickar/cal/v2/sk"
)

// national lists the holidays that apply throughout a country, taken from
// the library's country packages. The library has no package for CY, EE, FI,
// HU, LU, MT, PT, IS or LI; those countries get weekends only until it does.
//
// Every entry of a list counts, whatever its cal.ObservanceType: the lists
// are what the library considers days off in that country, and e.g. the
// Swedish Midsummer, Christmas and New Year's Eves (typed "other") are
// expressly treated like public holidays by Swedish law on time limits.
var national = map[string][]*cal.Holiday{
	"AT": at.Holidays,
	"BE": be.Holidays,
	"BG": bg.Holidays,
	"CH": intersect(slices.Collect(maps.Values(cantons))...),
	"CZ": cz.Holidays,
	"DE": de.Holidays,
	"DK": dk.Holidays,
	"ES": es.Holidays,
	"FR": fr.Holidays,
	"GB": gb.Holidays, // England and Wales; the library has no Scottish list
	"GR": gr.Holidays,
	"HR": hr.Holidays,
	"IE": ie.Holidays,
	"IT": it.Holidays,
	"LT": lt.Holidays,
	"LV": lv.Holidays,
	"NL": nl.Holidays,
	"NO": no.Holidays,
	"PL": pl.Holidays,
	"RO": ro.Holidays,
	"SE": se.Holidays,
	"SI": si.Holidays,
	"SK": sk.Holidays,
}

// regional lists, per country, the complete holiday lists (national ones
// included) of the subdivisions the library models, keyed by the ISO 3166-2
// code without the country prefix.
var regional = map[string]map[string][]*cal.Holiday{
	"DE": germanStates,
	"CH": cantons,
}

var germanStates = map[string][]*cal.Holiday{
	"BW": de.HolidaysBW,
	"BY": de.HolidaysBY,
	"BE": de.HolidaysBE,
	"BB": de.HolidaysBB,
	"HB": de.HolidaysHB,
	"HH": de.HolidaysHH,
	"HE": de.HolidaysHE,
	// The library (v2.1.13) predates the 2023 amendment of the
	// Mecklenburg-Vorpommern Feiertagsgesetz that made International Women's
	// Day a public holiday; reuse its Berlin definition from 2023 on.
	"MV": append(slices.Clone(de.HolidaysMV), de.Frauentag.Clone(&cal.Holiday{StartYear: 2023})),
	"NI": de.HolidaysNI,
	"NW": de.HolidaysNW,
	"RP": de.HolidaysRP,
	"SL": de.HolidaysSL,
	"SN": de.HolidaysSN,
	"ST": de.HolidaysST,
	"SH": de.HolidaysSH,
	"TH": de.HolidaysTH,
}

var cantons = map[string][]*cal.Holiday{
	"ZH": ch.HolidaysZH,
	"BE": ch.HolidaysBE,
	"LU": ch.HolidaysLU,
	"UR": ch.HolidaysUR,
	"SZ": ch.HolidaysSZ,
	"OW": ch.HolidaysOW,
	"NW": ch.HolidaysNW,
	"GL": ch.HolidaysGL,
	"ZG": ch.HolidaysZG,
	"FR": ch.HolidaysFR,
	"SO": ch.HolidaysSO,
	"BS": ch.HolidaysBS,
	"BL": ch.HolidaysBL,
	"SH": ch.HolidaysSH,
	"AR": ch.HolidaysAR,
	"AI": ch.HolidaysAI,
	"SG": ch.HolidaysSG,
	"GR": ch.HolidaysGR,
	"AG": ch.HolidaysAG,
	"TG": ch.HolidaysTG,
	"VD": ch.HolidaysVD,
	"TI": ch.HolidaysTI,
	"VS": ch.HolidaysVS,
	"NE": ch.HolidaysNE,
	"GE": ch.HolidaysGE,
	"JU": ch.HolidaysJU,
}

// intersect returns the holidays present in every list. ch.Holidays is the
// union of all cantonal holidays (Josefstag, Berchtoldstag, ...), so a Swiss
// party without a canton gets only the days off everywhere in Switzerland,
// mirroring de.Holidays for Germany. Order follows the first list that
// contains them, which does not affect lookups.
func intersect(lists ...[]*cal.Holiday) []*cal.Holiday {
	if len(lists) == 0 {
		return nil
	}
	var out []*cal.Holiday
	for _, h := range lists[0] {
		everywhere := true
		for _, l := range lists[1:] {
			if !slices.Contains(l, h) {
				everywhere = false
				break
			}
		}
		if everywhere {
			out = append(out, h)
		}
	}
	return out
}

// normPlace canonicalises p so that equivalent spellings share one cached
// calendar and so that arbitrary input cannot grow the cache without bound:
// unknown regions collapse onto their country, countries with neither zone
// nor holidays onto the empty country.
func normPlace(p Place) Place {
	c := normCountry(p.Country)
	_, hasZone := zones[c]
	_, hasHolidays := national[c]
	if !hasZone && !hasHolidays {
		return Place{}
	}
	r := strings.ToUpper(strings.TrimSpace(p.Region))
	r = strings.TrimPrefix(r, c+"-") // tolerate full ISO 3166-2 codes ("DE-BY")
	if _, ok := regional[c][r]; !ok {
		r = ""
	}
	return Place{Country: c, Region: r}
}

// calendars caches one *cal.BusinessCalendar per normalised Place.
var calendars sync.Map // Place -> *cal.BusinessCalendar

// businessCalendar returns the (shared, read-only) calendar of a normalised
// place, building it on first use.
func businessCalendar(p Place) *cal.BusinessCalendar {
	if c, ok := calendars.Load(p); ok {
		return c.(*cal.BusinessCalendar)
	}
	c := cal.NewBusinessCalendar() // Monday to Friday are workdays
	c.Name = p.Country
	list := national[p.Country]
	if p.Region != "" {
		c.Name += "-" + p.Region
		list = regional[p.Country][p.Region]
	}
	for _, h := range list {
		c.AddHoliday(civilDates(h))
	}
	// c.Cacheable stays false on purpose: the library's cache is a plain
	// map written during lookups, which would make the shared calendar
	// unsafe for concurrent use. Without it lookups only read.
	actual, _ := calendars.LoadOrStore(p, c)
	return actual.(*cal.BusinessCalendar)
}

// civilDates returns a copy of h whose dates do not depend on the host's
// time zone.
//
// The library builds holiday dates as local midnight in cal.DefaultLoc
// (time.Local). Where the host zone switches to DST at midnight (e.g.
// America/Havana or America/Santiago), that midnight does not exist and
// time.Date returns 23:00 of the previous day, so the holiday, its weekday
// and any weekend substitution move by a day. The copy rounds the library's
// result to the nearest date (all it can be off by is the DST shift) and
// hands Holiday.Calc a UTC midnight, on which the CalcOffset and Observed
// arithmetic is exact.
func civilDates(h *cal.Holiday) *cal.Holiday {
	c := h.Clone(nil)
	if fn := h.Func; fn != nil {
		c.Func = func(h *cal.Holiday, year int) time.Time {
			t := fn(h, year)
			if t.IsZero() { // "no occurrence this year"
				return t
			}
			y, m, d := t.Add(12 * time.Hour).Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
	}
	return c
}
