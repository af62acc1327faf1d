// Package calendar implements the day counting behind the deadlines of
// Regulation (EU) 2024/1157 on shipments of waste, following Regulation
// (EEC, Euratom) No 1182/71 on periods, dates and time limits:
//
//   - working days exclude Saturdays, Sundays and the public holidays of the
//     acting party's country (and region, where one is given);
//   - the day of the triggering event is not counted (1182/71 Art. 3(1));
//   - a deadline falls due at the end of its last day in the acting party's
//     time zone (Art. 3(2)(b));
//   - a period in calendar days that ends on a non-working day ends with the
//     next working day instead (Art. 3(4)).
//
// Days are counted as civil dates in the place's time zone, never as 24-hour
// steps, so daylight saving changes cannot shift a deadline by a day. All
// functions are pure (callers pass the instants) and safe for concurrent use.
// Holidays come from github.com/rickar/cal/v2.
package calendar

import (
	"math/bits"
	"sync"
	"time"

	"github.com/rickar/cal/v2"
)

// Place is where the acting party sits: ISO 3166-1 alpha-2 country, optional
// ISO 3166-2 subdivision without prefix (e.g. Country "DE", Region "BY").
//
// Codes are case insensitive. A region the library has no holiday list for
// (every German Land and Swiss canton is covered) falls back to the
// country's national holidays; a country without holiday data has weekends
// only.
type Place struct{ Country, Region string }

// IsWorkingDay reports whether the civil date of t in p's time zone is a
// working day at p.
func IsWorkingDay(p Place, t time.Time) bool {
	c := calFor(p)
	return c.isWorking(c.date(t))
}

// Holiday returns the name of the public holiday at p on t's civil date (in
// p's time zone), or "" if there is none. It also names a holiday on the day
// it is observed when that differs from its actual date (e.g. Dutch King's
// Day moved to Saturday 26 April when the 27th is a Sunday). Names are in the
// country's language, as the library has them.
func Holiday(p Place, t time.Time) string {
	c := calFor(p)
	act, obs, h := c.bc.IsHoliday(c.date(t))
	if (act || obs) && h != nil {
		return h.Name
	}
	return ""
}

// AddWorkingDays returns the instant a period of n working days that starts
// with an event at start falls due: the end (next local midnight minus 1ns)
// of the n-th working day after start's civil date at p, in UTC. The event
// day itself is not counted. For n <= 0 it is the end of start's own day.
func AddWorkingDays(p Place, start time.Time, n int) time.Time {
	c := calFor(p)
	d := c.date(start)
	for n > 0 {
		d = d.AddDate(0, 0, 1)
		if c.isWorking(d) {
			n--
		}
	}
	return c.endOfDay(d)
}

// AddCalendarDays returns the end of the n-th calendar day after start's
// civil date at p or, when that day is not a working day, the end of the next
// working day (1182/71 Art. 3(4)), in UTC. A negative n counts as 0, so the
// result is never before the end of start's own (or next working) day.
func AddCalendarDays(p Place, start time.Time, n int) time.Time {
	c := calFor(p)
	d := c.date(start).AddDate(0, 0, max(n, 0))
	for !c.isWorking(d) {
		d = d.AddDate(0, 0, 1)
	}
	return c.endOfDay(d)
}

// DaysBetween counts calendar days from a's civil date to b's civil date at
// p: positive when b is later, negative when earlier, 0 on the same day. It
// measures e.g. how long a deadline was suspended.
func DaysBetween(p Place, a, b time.Time) int {
	c := calFor(p)
	return int(epochDay(c.date(b)) - epochDay(c.date(a)))
}

// WorkingDaysBetween counts the working days at p in (a's date, b's date],
// i.e. excluding a's day and including b's. When b's date is before a's it
// returns minus the count for (b's date, a's date], so that
// WorkingDaysBetween(p, a, b) == -WorkingDaysBetween(p, b, a).
func WorkingDaysBetween(p Place, a, b time.Time) int {
	c := calFor(p)
	from, to, sign := c.date(a), c.date(b), 1
	if to.Before(from) {
		from, to, sign = to, from, -1
	}
	n := 0
	for d := from.AddDate(0, 0, 1); !d.After(to); { // a year's part at a time
		y := d.Year()
		last := time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC)
		if to.Before(last) {
			last = to
		}
		n += c.year(y).count(d.YearDay()-1, last.YearDay()-1)
		d = last.AddDate(0, 0, 1)
	}
	return sign * n
}

// placeCal bundles what every operation needs for one place.
type placeCal struct {
	place Place // normalised
	loc   *time.Location
	bc    *cal.BusinessCalendar
}

func calFor(p Place) placeCal {
	p = normPlace(p)
	return placeCal{place: p, loc: Location(p.Country), bc: businessCalendar(p)}
}

// workdays marks a year's working days at a place, bit i for the year's
// day i+1: asking the library is a walk over its holiday rules (a running
// deadline of a consent's validity counted up to 1,100 days, on every
// retrieval document), reading a bit is not. Built once per place and
// year from the library's own answers, and then only read.
type workdays [6]uint64

// count is how many of days from to through to (0-based days of the year)
// are working days.
func (w *workdays) count(from, to int) int {
	n := 0
	for from <= to {
		word, bit := from/64, from%64
		take := min(64-bit, to-from+1)
		n += bits.OnesCount64(w[word] >> bit & (1<<take - 1))
		from += take
	}
	return n
}

func (w *workdays) has(day int) bool { return w[day/64]>>(day%64)&1 == 1 }

type placeYear struct {
	place Place
	year  int
}

var years sync.Map // placeYear -> *workdays

// year is the working days of year y at the place.
func (c placeCal) year(y int) *workdays {
	key := placeYear{c.place, y}
	if w, ok := years.Load(key); ok {
		return w.(*workdays)
	}
	w := new(workdays)
	first := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	for d, i := first, 0; d.Year() == y; d, i = d.AddDate(0, 0, 1), i+1 {
		if c.bc.IsWorkday(d) {
			w[i/64] |= 1 << (i % 64)
		}
	}
	actual, _ := years.LoadOrStore(key, w)
	return actual.(*workdays)
}

// date returns t's civil date at the place as midnight UTC. UTC has no DST,
// so AddDate(0, 0, 1) on such a value is always exactly the next date, and
// the library only looks at its year, month, day and weekday.
func (c placeCal) date(t time.Time) time.Time {
	y, m, d := t.In(c.loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// isWorking reports whether the civil date d (as returned by date) is a
// working day. The library treats a holiday as a day off on its observed
// date, which equals the actual date unless the country moves it.
func (c placeCal) isWorking(d time.Time) bool {
	return c.year(d.Year()).has(d.YearDay() - 1)
}

// endOfDay returns the last nanosecond of civil date d in the place's zone,
// in UTC. It is derived from the next local midnight rather than by setting
// 23:59:59.999999999 so that it stays right on 23- and 25-hour days.
func (c placeCal) endOfDay(d time.Time) time.Time {
	y, m, day := d.Date()
	return time.Date(y, m, day+1, 0, 0, 0, 0, c.loc).Add(-time.Nanosecond).UTC()
}

// epochDay numbers a civil date as returned by date (days since 1970-01-01).
func epochDay(d time.Time) int64 {
	const secondsPerDay = 24 * 60 * 60
	return d.Unix() / secondsPerDay
}
