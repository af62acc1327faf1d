package calendar

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rickar/cal/v2"
)

var (
	pDE = Place{Country: "DE"}
	pBY = Place{Country: "DE", Region: "BY"}
	pBE = Place{Country: "DE", Region: "BE"}
	pNW = Place{Country: "DE", Region: "NW"}
	pSN = Place{Country: "DE", Region: "SN"}
	pSL = Place{Country: "DE", Region: "SL"}
	pMV = Place{Country: "DE", Region: "MV"}
	pNL = Place{Country: "NL"}
)

// ts parses an RFC 3339 instant; tests state instants with explicit offsets
// so the expected UTC values can be checked by hand.
func ts(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	return v
}

// noon is 12:00 local time in Berlin on the given date, far from midnight so
// that only the date matters.
func noon(t testing.TB, date string) time.Time {
	return ts(t, date+"T12:00:00+01:00")
}

func TestAddWorkingDays(t *testing.T) {
	tests := []struct {
		name  string
		p     Place
		start string // RFC 3339
		n     int
		want  string // RFC 3339, UTC
	}{
		{"plain week", pDE, "2027-03-01T10:00:00+01:00", 5, "2027-03-08T22:59:59.999999999Z"},
		{"n=0 is end of event day", pDE, "2027-03-01T10:00:00+01:00", 0, "2027-03-01T22:59:59.999999999Z"},
		{"n<0 is end of event day", pDE, "2027-03-01T10:00:00+01:00", -3, "2027-03-01T22:59:59.999999999Z"},
		{"n=0 on a Sunday stays", pDE, "2027-03-07T10:00:00+01:00", 0, "2027-03-07T22:59:59.999999999Z"},
		{"event on Friday", pDE, "2027-03-05T16:00:00+01:00", 1, "2027-03-08T22:59:59.999999999Z"},
		{"event on Saturday", pDE, "2027-03-06T16:00:00+01:00", 1, "2027-03-08T22:59:59.999999999Z"},

		// Easter 2027: Good Friday 26 March, Easter Monday 29 March; CEST
		// starts on Easter Sunday, so the deadline is 22:00 UTC - 1ns.
		{"over Easter 2027", pDE, "2027-03-25T09:00:00+01:00", 1, "2027-03-30T21:59:59.999999999Z"},
		{"over Easter 2027, 3 days", pDE, "2027-03-24T09:00:00+01:00", 3, "2027-03-31T21:59:59.999999999Z"},

		// Epiphany, Wednesday 6 January 2027: BY (and BW, ST) only.
		{"Epiphany in BY", pBY, "2027-01-05T10:00:00+01:00", 1, "2027-01-07T22:59:59.999999999Z"},
		{"Epiphany is working day in NW", pNW, "2027-01-05T10:00:00+01:00", 1, "2027-01-06T22:59:59.999999999Z"},
		{"Epiphany is working day in national DE", pDE, "2027-01-05T10:00:00+01:00", 1, "2027-01-06T22:59:59.999999999Z"},
		// Corpus Christi, Thursday 27 May 2027: BY and NW, not Berlin.
		{"Corpus Christi in BY", pBY, "2027-05-26T10:00:00+02:00", 1, "2027-05-28T21:59:59.999999999Z"},
		{"Corpus Christi in NW", pNW, "2027-05-26T10:00:00+02:00", 1, "2027-05-28T21:59:59.999999999Z"},
		{"Corpus Christi is working day in BE", pBE, "2027-05-26T10:00:00+02:00", 1, "2027-05-27T21:59:59.999999999Z"},
		// Reformation Day, Tuesday 31 October 2028: Saxony, not Bavaria.
		{"Reformation Day in SN", pSN, "2028-10-30T10:00:00+01:00", 1, "2028-11-01T22:59:59.999999999Z"},
		{"Reformation Day is working day in BY", pBY, "2028-10-30T10:00:00+01:00", 1, "2028-10-31T22:59:59.999999999Z"},
		// ... and All Saints' Day, 1 November 2028, the other way round.
		{"All Saints in BY", pBY, "2028-10-31T10:00:00+01:00", 1, "2028-11-02T22:59:59.999999999Z"},
		{"All Saints is working day in SN", pSN, "2028-10-31T10:00:00+01:00", 1, "2028-11-01T22:59:59.999999999Z"},

		// Year end 2026: 24 and 31 December are working days in Germany,
		// 25 (Fri) and 26 (Sat) December and 1 January (Fri) are not.
		{"year end: 24 Dec counts", pDE, "2026-12-23T10:00:00+01:00", 1, "2026-12-24T22:59:59.999999999Z"},
		{"year end: 5 days end on 31 Dec", pDE, "2026-12-23T10:00:00+01:00", 5, "2026-12-31T22:59:59.999999999Z"},
		{"year end: 6 days skip New Year", pDE, "2026-12-23T10:00:00+01:00", 6, "2027-01-04T22:59:59.999999999Z"},
		{"event on 31 Dec", pDE, "2026-12-31T23:00:00+01:00", 1, "2027-01-04T22:59:59.999999999Z"},

		// The Berlin date differs from the UTC date near midnight.
		{"23:30Z is already 24 Dec in Berlin", pDE, "2026-12-23T23:30:00Z", 1, "2026-12-28T22:59:59.999999999Z"},
		{"22:30Z in summer is already next day", pBY, "2027-05-26T22:30:00Z", 1, "2027-05-28T21:59:59.999999999Z"},
		{"22:59:59Z in winter is still same day", pDE, "2027-03-01T22:59:59Z", 0, "2027-03-01T22:59:59.999999999Z"},

		// DST changes in Europe/Berlin: 28 March and 31 October 2027.
		{"end of spring-forward day", pDE, "2027-03-28T10:00:00+02:00", 0, "2027-03-28T21:59:59.999999999Z"},
		{"end of fall-back day", pDE, "2027-10-31T10:00:00+01:00", 0, "2027-10-31T22:59:59.999999999Z"},
		{"period over fall-back", pDE, "2027-10-29T10:00:00+02:00", 1, "2027-11-01T22:59:59.999999999Z"},

		// King's Day, Tuesday 27 April 2027.
		{"King's Day in NL", pNL, "2027-04-26T10:00:00+02:00", 1, "2027-04-28T21:59:59.999999999Z"},
		{"27 April is working day in DE", pDE, "2027-04-26T10:00:00+02:00", 1, "2027-04-27T21:59:59.999999999Z"},

		// Unknown country: weekends only, Brussels time.
		{"unknown country ignores Good Friday", Place{Country: "XX"}, "2027-03-25T10:00:00+01:00", 1, "2027-03-26T22:59:59.999999999Z"},
		{"empty place", Place{}, "2027-03-25T10:00:00+01:00", 2, "2027-03-29T21:59:59.999999999Z"},
		// Unknown region of a known country: national holidays only.
		{"unknown region", Place{Country: "DE", Region: "ZZ"}, "2027-01-05T10:00:00+01:00", 1, "2027-01-06T22:59:59.999999999Z"},
		{"lower case and prefixed region", Place{Country: "de", Region: "de-by"}, "2027-01-05T10:00:00+01:00", 1, "2027-01-07T22:59:59.999999999Z"},
		// A time zone west of Berlin: end of day is 23:00 UTC in London.
		{"GB Easter Monday", Place{Country: "GB"}, "2027-03-25T10:00:00Z", 1, "2027-03-30T22:59:59.999999999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AddWorkingDays(tt.p, ts(t, tt.start), tt.n)
			want := ts(t, tt.want)
			if !got.Equal(want) {
				t.Errorf("AddWorkingDays(%v, %s, %d) = %s, want %s", tt.p, tt.start, tt.n,
					got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
			}
			if got.Location() != time.UTC {
				t.Errorf("result in %v, want UTC", got.Location())
			}
		})
	}
}

func TestAddCalendarDays(t *testing.T) {
	tests := []struct {
		name  string
		p     Place
		start string
		n     int
		want  string
	}{
		{"ends on a working day", pDE, "2027-03-01T10:00:00+01:00", 30, "2027-03-31T21:59:59.999999999Z"},
		// 17 Dec 2026 + 30 = Saturday 16 Jan 2027 -> Monday 18 Jan.
		{"Saturday moves to Monday", pDE, "2026-12-17T10:00:00+01:00", 30, "2027-01-18T22:59:59.999999999Z"},
		// 26 Feb 2027 + 30 = Easter Sunday 28 Mar -> Easter Monday is a
		// holiday too -> Tuesday 30 March (already CEST).
		{"Easter Sunday moves to Tuesday", pDE, "2027-02-26T10:00:00+01:00", 30, "2027-03-30T21:59:59.999999999Z"},
		{"Easter Sunday, unknown country: Monday", Place{Country: "XX"}, "2027-02-26T10:00:00+01:00", 30, "2027-03-29T21:59:59.999999999Z"},
		// Decision period: 30 days, suspended for 7 days after 10 days,
		// falls due 37 days after the event: 1 Mar + 37 = Wed 7 Apr 2027.
		{"30 days suspended 7", pDE, "2027-03-01T10:00:00+01:00", 37, "2027-04-07T21:59:59.999999999Z"},
		// 22 Feb + 37 = Wed 31 Mar, a working day.
		{"37 days over month end", pDE, "2027-02-22T10:00:00+01:00", 37, "2027-03-31T21:59:59.999999999Z"},
		// 19 Feb + 37 = Good Friday 26 Mar -> Tuesday 30 Mar.
		{"37 days onto Good Friday", pDE, "2027-02-19T10:00:00+01:00", 37, "2027-03-30T21:59:59.999999999Z"},
		{"ends on 31 Dec", pDE, "2026-12-01T10:00:00+01:00", 30, "2026-12-31T22:59:59.999999999Z"},
		// 2 Dec 2026 + 30 = Fri 1 Jan 2027 -> Mon 4 Jan.
		{"ends on New Year", pDE, "2026-12-02T10:00:00+01:00", 30, "2027-01-04T22:59:59.999999999Z"},
		{"n=0 on a working day", pDE, "2027-03-01T10:00:00+01:00", 0, "2027-03-01T22:59:59.999999999Z"},
		{"n=0 on a Saturday moves", pDE, "2027-03-06T10:00:00+01:00", 0, "2027-03-08T22:59:59.999999999Z"},
		{"negative n counts as 0", pDE, "2027-03-01T10:00:00+01:00", -5, "2027-03-01T22:59:59.999999999Z"},
		{"ends on DST day, moves", pDE, "2027-10-01T10:00:00+02:00", 30, "2027-11-01T22:59:59.999999999Z"},
		{"near midnight UTC", pDE, "2027-02-28T23:30:00Z", 30, "2027-03-31T21:59:59.999999999Z"},
		{"Koningsdag in NL", pNL, "2027-03-28T10:00:00+02:00", 30, "2027-04-28T21:59:59.999999999Z"},
		{"Assumption in SL", pSL, "2028-07-16T10:00:00+02:00", 30, "2028-08-16T21:59:59.999999999Z"},
		{"Assumption is working day in BY (statewide)", pBY, "2028-07-16T10:00:00+02:00", 30, "2028-08-15T21:59:59.999999999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AddCalendarDays(tt.p, ts(t, tt.start), tt.n)
			want := ts(t, tt.want)
			if !got.Equal(want) {
				t.Errorf("AddCalendarDays(%v, %s, %d) = %s, want %s", tt.p, tt.start, tt.n,
					got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
			}
			if got.Location() != time.UTC {
				t.Errorf("result in %v, want UTC", got.Location())
			}
		})
	}
}

func TestEndOfDSTDays(t *testing.T) {
	berlin := Location("DE")
	tests := []struct {
		day      string
		wantUTC  string
		wantDur  time.Duration // length of the local day
		wantZone string
	}{
		{"2027-03-28", "2027-03-28T21:59:59.999999999Z", 23 * time.Hour, "CEST"},
		{"2027-10-31", "2027-10-31T22:59:59.999999999Z", 25 * time.Hour, "CET"},
		{"2027-07-01", "2027-07-01T21:59:59.999999999Z", 24 * time.Hour, "CEST"},
		{"2027-01-01", "2027-01-01T22:59:59.999999999Z", 24 * time.Hour, "CET"},
	}
	for _, tt := range tests {
		t.Run(tt.day, func(t *testing.T) {
			start, err := time.ParseInLocation(time.DateOnly, tt.day, berlin)
			if err != nil {
				t.Fatal(err)
			}
			got := AddWorkingDays(pDE, start, 0)
			if want := ts(t, tt.wantUTC); !got.Equal(want) {
				t.Errorf("end of %s = %s, want %s", tt.day, got.Format(time.RFC3339Nano), tt.wantUTC)
			}
			local := got.In(berlin)
			if h, m, s := local.Clock(); h != 23 || m != 59 || s != 59 || local.Nanosecond() != 999999999 {
				t.Errorf("local end of %s = %s, want 23:59:59.999999999", tt.day, local.Format(time.RFC3339Nano))
			}
			if d := local.Format(time.DateOnly); d != tt.day {
				t.Errorf("local end date = %s, want %s", d, tt.day)
			}
			if zone, _ := local.Zone(); zone != tt.wantZone {
				t.Errorf("zone at end of %s = %s, want %s", tt.day, zone, tt.wantZone)
			}
			if d := got.Add(time.Nanosecond).Sub(start); d != tt.wantDur {
				t.Errorf("length of %s = %v, want %v", tt.day, d, tt.wantDur)
			}
		})
	}
}

func TestIsWorkingDayAndHoliday(t *testing.T) {
	tests := []struct {
		name        string
		p           Place
		at          string // RFC 3339
		wantWorking bool
		wantHoliday string
	}{
		{"Good Friday 2027", pDE, "2027-03-26T12:00:00+01:00", false, "Karfreitag"},
		{"Easter Sunday 2027", pDE, "2027-03-28T12:00:00+02:00", false, ""},
		{"Easter Monday 2027", pDE, "2027-03-29T12:00:00+02:00", false, "Ostermontag"},
		{"Tuesday after Easter", pDE, "2027-03-30T12:00:00+02:00", true, ""},
		{"Epiphany BY", pBY, "2027-01-06T12:00:00+01:00", false, "Heilige Drei Könige"},
		{"Epiphany NW", pNW, "2027-01-06T12:00:00+01:00", true, ""},
		{"Epiphany BE", pBE, "2027-01-06T12:00:00+01:00", true, ""},
		{"Corpus Christi BY", pBY, "2027-05-27T12:00:00+02:00", false, "Fronleichnam"},
		{"Corpus Christi NW", pNW, "2027-05-27T12:00:00+02:00", false, "Fronleichnam"},
		{"Corpus Christi BE", pBE, "2027-05-27T12:00:00+02:00", true, ""},
		{"Assumption SL", pSL, "2028-08-15T12:00:00+02:00", false, "Mariä Himmelfahrt"},
		{"Assumption BY (municipal only)", pBY, "2028-08-15T12:00:00+02:00", true, ""},
		{"Assumption NW", pNW, "2028-08-15T12:00:00+02:00", true, ""},
		{"Reformation Day SN", pSN, "2028-10-31T12:00:00+01:00", false, "Reformationstag"},
		{"Reformation Day BY", pBY, "2028-10-31T12:00:00+01:00", true, ""},
		{"Women's Day BE", pBE, "2027-03-08T12:00:00+01:00", false, "Frauentag"},
		{"Women's Day MV since 2023", pMV, "2027-03-08T12:00:00+01:00", false, "Frauentag"},
		{"Women's Day MV before 2023", pMV, "2022-03-08T12:00:00+01:00", true, ""},
		{"Women's Day BY", pBY, "2027-03-08T12:00:00+01:00", true, ""},
		{"Christmas Eve DE", pDE, "2026-12-24T12:00:00+01:00", true, ""},
		{"Christmas DE", pDE, "2026-12-25T12:00:00+01:00", false, "Weihnachtstag"},
		{"Boxing Day DE (Saturday)", pDE, "2026-12-26T12:00:00+01:00", false, "Zweiter Weihnachtsfeiertag"},
		{"New Year's Eve DE", pDE, "2026-12-31T12:00:00+01:00", true, ""},
		{"New Year DE", pDE, "2027-01-01T12:00:00+01:00", false, "Neujahrstag"},
		{"King's Day NL", pNL, "2027-04-27T12:00:00+02:00", false, "Koningsdag"},
		{"King's Day NL 2025 on Sunday", pNL, "2025-04-27T12:00:00+02:00", false, "Koningsdag"},
		{"King's Day NL 2025 observed Saturday", pNL, "2025-04-26T12:00:00+02:00", false, "Koningsdag"},
		{"Good Friday NL", pNL, "2027-03-26T12:00:00+01:00", false, "Goede Vrijdag"},
		{"Belgian national day", Place{Country: "BE"}, "2027-07-21T12:00:00+02:00", false, "Nationale Feestdag"},
		{"Bastille Day", Place{Country: "FR"}, "2027-07-14T12:00:00+02:00", false, "Fête Nationale"},
		{"Good Friday is working in FR", Place{Country: "FR"}, "2027-03-26T12:00:00+01:00", true, ""},
		{"Austrian national day", Place{Country: "AT"}, "2027-10-26T12:00:00+01:00", false, "Nationalfeiertag"},
		{"Immaculate Conception AT", Place{Country: "AT"}, "2027-12-08T12:00:00+01:00", false, "Mariä Empfängnis"},
		{"Swiss national day", Place{Country: "CH"}, "2028-08-01T12:00:00+02:00", false, "Bundesfeiertag"},
		{"Josefstag CH-LU", Place{Country: "CH", Region: "LU"}, "2027-03-19T12:00:00+01:00", false, "Josefstag"},
		{"Josefstag CH-ZH", Place{Country: "CH", Region: "ZH"}, "2027-03-19T12:00:00+01:00", true, ""},
		{"Josefstag CH without canton", Place{Country: "CH"}, "2027-03-19T12:00:00+01:00", true, ""},
		{"Greece via EU code EL", Place{Country: "EL"}, "2027-03-25T12:00:00+02:00", false, "Εικοστή Πέμπτη Μαρτίου"},
		{"Saturday", pDE, "2027-03-06T12:00:00+01:00", false, ""},
		{"Sunday", pDE, "2027-03-07T12:00:00+01:00", false, ""},
		{"Monday", pDE, "2027-03-08T12:00:00+01:00", true, ""},
		{"unknown country, Good Friday", Place{Country: "XX"}, "2027-03-26T12:00:00+01:00", true, ""},
		{"unknown country, Saturday", Place{Country: "XX"}, "2027-03-27T12:00:00+01:00", false, ""},
		{"country without holiday data", Place{Country: "PT"}, "2027-03-26T12:00:00Z", true, ""},
		// Instants near midnight UTC that are already the next day in Berlin.
		{"22:30Z before Epiphany is Epiphany in BY", pBY, "2027-01-05T23:30:00Z", false, "Heilige Drei Könige"},
		{"22:59Z before Epiphany is still 5 Jan", pBY, "2027-01-05T22:59:59Z", true, ""},
		{"summer: 22:30Z is next day", pBY, "2027-05-26T22:30:00Z", false, "Fronleichnam"},
		{"summer: 21:59Z is same day", pBY, "2027-05-26T21:59:59Z", true, ""},
		{"Sunday 23:30Z is Monday in Berlin", pDE, "2027-03-07T23:30:00Z", true, ""},
		{"Friday 23:30Z is Saturday in Berlin", pDE, "2027-03-05T23:30:00Z", false, ""},
		{"same instant in London is still Friday", Place{Country: "GB"}, "2027-03-05T23:30:00Z", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := ts(t, tt.at)
			if got := IsWorkingDay(tt.p, at); got != tt.wantWorking {
				t.Errorf("IsWorkingDay(%v, %s) = %v, want %v", tt.p, tt.at, got, tt.wantWorking)
			}
			if got := Holiday(tt.p, at); got != tt.wantHoliday {
				t.Errorf("Holiday(%v, %s) = %q, want %q", tt.p, tt.at, got, tt.wantHoliday)
			}
		})
	}
}

func TestDaysBetween(t *testing.T) {
	tests := []struct {
		name string
		p    Place
		a, b string
		want int
	}{
		{"same day", pDE, "2027-03-01T08:00:00+01:00", "2027-03-01T20:00:00+01:00", 0},
		{"suspension of 7 days", pDE, "2027-03-11T10:00:00+01:00", "2027-03-18T09:00:00+01:00", 7},
		{"negative", pDE, "2027-03-18T09:00:00+01:00", "2027-03-11T10:00:00+01:00", -7},
		{"over spring-forward", pDE, "2027-03-27T12:00:00+01:00", "2027-03-29T12:00:00+02:00", 2},
		{"over fall-back", pDE, "2027-10-30T00:30:00+02:00", "2027-10-31T23:30:00+01:00", 1},
		{"over year end", pDE, "2026-12-31T23:59:00+01:00", "2027-01-01T00:01:00+01:00", 1},
		{"one UTC day, two Berlin days", pDE, "2027-03-01T22:30:00Z", "2027-03-01T23:30:00Z", 1},
		{"one Berlin day across UTC midnight", pDE, "2027-03-01T23:30:00Z", "2027-03-02T22:30:00Z", 0},
		{"leap year", pDE, "2028-02-28T12:00:00+01:00", "2028-03-01T12:00:00+01:00", 2},
		{"a full year", pDE, "2027-01-01T12:00:00+01:00", "2028-01-01T12:00:00+01:00", 365},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DaysBetween(tt.p, ts(t, tt.a), ts(t, tt.b)); got != tt.want {
				t.Errorf("DaysBetween(%v, %s, %s) = %d, want %d", tt.p, tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestWorkingDaysBetween(t *testing.T) {
	tests := []struct {
		name string
		p    Place
		a, b string
		want int
	}{
		{"same day", pDE, "2027-03-01T08:00:00+01:00", "2027-03-01T20:00:00+01:00", 0},
		{"next day", pDE, "2027-03-01T08:00:00+01:00", "2027-03-02T08:00:00+01:00", 1},
		{"a week", pDE, "2027-03-01T08:00:00+01:00", "2027-03-08T08:00:00+01:00", 5},
		{"over Easter", pDE, "2027-03-25T08:00:00+01:00", "2027-03-31T08:00:00+02:00", 2},
		{"over Easter, reversed", pDE, "2027-03-31T08:00:00+02:00", "2027-03-25T08:00:00+01:00", -2},
		{"Friday to Saturday", pDE, "2027-03-05T08:00:00+01:00", "2027-03-06T08:00:00+01:00", 0},
		{"Saturday to Friday before, reversed", pDE, "2027-03-06T08:00:00+01:00", "2027-03-05T08:00:00+01:00", 0},
		{"Monday back to Friday", pDE, "2027-03-08T08:00:00+01:00", "2027-03-05T08:00:00+01:00", -1},
		{"Epiphany in BY", pBY, "2027-01-04T08:00:00+01:00", "2027-01-08T08:00:00+01:00", 3},
		{"Epiphany in NW", pNW, "2027-01-04T08:00:00+01:00", "2027-01-08T08:00:00+01:00", 4},
		{"year end", pDE, "2026-12-23T08:00:00+01:00", "2027-01-04T08:00:00+01:00", 6},
		{"near midnight UTC", pDE, "2027-03-01T22:30:00Z", "2027-03-01T23:30:00Z", 1},
		{"unknown country", Place{Country: "XX"}, "2027-03-25T08:00:00+01:00", "2027-03-31T08:00:00+02:00", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WorkingDaysBetween(tt.p, ts(t, tt.a), ts(t, tt.b)); got != tt.want {
				t.Errorf("WorkingDaysBetween(%v, %s, %s) = %d, want %d", tt.p, tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// TestConsistency checks the functions against each other: the deadline of
// n working days is n working days away, and a working day is never a
// holiday.
func TestConsistency(t *testing.T) {
	places := []Place{pDE, pBY, pSN, pNL, {Country: "BE"}, {Country: "FR"}, {Country: "XX"}}
	start := noon(t, "2026-12-01")
	for _, p := range places {
		for day := range 120 {
			s := start.AddDate(0, 0, day)
			for _, n := range []int{1, 5, 10, 30} {
				due := AddWorkingDays(p, s, n)
				if !IsWorkingDay(p, due) {
					t.Fatalf("%v: AddWorkingDays(%s, %d) = %s is not a working day", p, s, n, due)
				}
				if got := WorkingDaysBetween(p, s, due); got != n {
					t.Fatalf("%v: WorkingDaysBetween(%s, %s) = %d, want %d", p, s, due, got, n)
				}
				if got := WorkingDaysBetween(p, due, s); got != -n {
					t.Fatalf("%v: WorkingDaysBetween(%s, %s) = %d, want %d", p, due, s, got, -n)
				}
				cd := AddCalendarDays(p, s, n)
				if !IsWorkingDay(p, cd) || DaysBetween(p, s, cd) < n {
					t.Fatalf("%v: AddCalendarDays(%s, %d) = %s", p, s, n, cd)
				}
			}
			if IsWorkingDay(p, s) && Holiday(p, s) != "" && s.Weekday() != time.Saturday && s.Weekday() != time.Sunday {
				t.Fatalf("%v: %s is a working day but Holiday = %q", p, s, Holiday(p, s))
			}
		}
	}
}

func TestLocation(t *testing.T) {
	tests := []struct{ country, want string }{
		{"DE", "Europe/Berlin"},
		{"de", "Europe/Berlin"},
		{" nl ", "Europe/Amsterdam"},
		{"GB", "Europe/London"},
		{"UK", "Europe/London"},
		{"EL", "Europe/Athens"},
		{"PT", "Europe/Lisbon"},
		{"FI", "Europe/Helsinki"},
		{"CH", "Europe/Zurich"},
		{"XX", "Europe/Brussels"},
		{"", "Europe/Brussels"},
	}
	for _, tt := range tests {
		if got := Location(tt.country).String(); got != tt.want {
			t.Errorf("Location(%q) = %s, want %s", tt.country, got, tt.want)
		}
	}
	if Location("DE") != Location("de") {
		t.Error("Location is not cached: two calls returned different pointers")
	}
}

// TestLocationAllZones makes sure every zone in the table exists in the
// embedded database, so the panic in loadZone is unreachable.
func TestLocationAllZones(t *testing.T) {
	for country, zone := range zones {
		if got := Location(country).String(); got != zone {
			t.Errorf("Location(%q) = %s, want %s", country, got, zone)
		}
	}
	// Countries with holiday data must have a zone of their own rather
	// than the Brussels fallback.
	for country := range national {
		if _, ok := zones[country]; !ok {
			t.Errorf("country %s has holidays but no zone", country)
		}
	}
}

func TestRegionsCovered(t *testing.T) {
	for _, r := range []string{"BW", "BY", "BE", "BB", "HB", "HH", "HE", "MV", "NI", "NW", "RP", "SL", "SN", "ST", "SH", "TH"} {
		if got := normPlace(Place{Country: "DE", Region: r}); got.Region != r {
			t.Errorf("DE-%s not covered: normalised to %+v", r, got)
		}
	}
}

// TestConcurrent exercises the lazily built caches from many goroutines;
// run with -race.
func TestConcurrent(t *testing.T) {
	places := []Place{pDE, pBY, pBE, pNL, {Country: "CH", Region: "GE"}, {Country: "SE"}, {Country: "XX"}}
	start := noon(t, "2027-01-01")
	want := make([]time.Time, len(places))
	for i, p := range places {
		want[i] = AddWorkingDays(p, start, 40)
	}
	calendars.Clear()
	locations.Clear()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range places {
				p := places[(i+g)%len(places)]
				got := AddWorkingDays(p, start, 40)
				if w := want[(i+g)%len(places)]; !got.Equal(w) {
					t.Errorf("%v: got %s, want %s", p, got, w)
				}
			}
		})
	}
	wg.Wait()
}

// TestIndependentOfHostZone guards civilDates: the library computes holiday
// dates in cal.DefaultLoc (the host's time.Local), and zones that switch to
// DST at midnight used to move holidays falling on such days by one day.
func TestIndependentOfHostZone(t *testing.T) {
	if testing.Short() {
		t.Skip("computes 17 years of holidays for several places and zones")
	}
	places := []Place{pDE, pBE, pMV, {Country: "DE", Region: "TH"}, pNL, {Country: "BG"}, {Country: "GB"}, {Country: "SE"}, {Country: "CH", Region: "BE"}}
	type dayInfo struct {
		place   Place
		date    string
		working bool
		holiday string
	}
	snapshot := func() []dayInfo {
		var days []dayInfo
		for _, p := range places {
			for d := noon(t, "2015-01-01"); d.Year() < 2032; d = d.AddDate(0, 0, 1) {
				days = append(days, dayInfo{p, d.Format(time.DateOnly), IsWorkingDay(p, d), Holiday(p, d)})
			}
		}
		return days
	}
	saved := cal.DefaultLoc
	t.Cleanup(func() { cal.DefaultLoc = saved })
	cal.DefaultLoc = time.UTC
	want := snapshot()
	for _, zone := range []string{"America/Havana", "America/Santiago", "America/Asuncion"} {
		cal.DefaultLoc = loadZone(zone)
		diffs := 0
		for i, g := range snapshot() {
			if w := want[i]; g != w {
				if diffs++; diffs <= 5 {
					t.Errorf("host zone %s: %+v, want %+v", zone, g, w)
				}
			}
		}
		if diffs > 0 {
			t.Errorf("host zone %s: %d days differ", zone, diffs)
		}
	}
}

func BenchmarkAddWorkingDays(b *testing.B) {
	start := noon(b, "2027-03-01")
	for _, n := range []int{5, 30, 60} {
		b.Run(fmt.Sprintf("DE-BY/%d", n), func(b *testing.B) {
			for b.Loop() {
				AddWorkingDays(pBY, start, n)
			}
		})
	}
}

func ExampleAddWorkingDays() {
	// A notification acknowledged on Thursday before Easter 2027 in Munich;
	// three working days to respond.
	event := time.Date(2027, time.March, 25, 15, 0, 0, 0, Location("DE"))
	due := AddWorkingDays(Place{Country: "DE", Region: "BY"}, event, 3)
	fmt.Println(due)
	fmt.Println(due.In(Location("DE")))
	// Output:
	// 2027-04-01 21:59:59.999999999 +0000 UTC
	// 2027-04-01 23:59:59.999999999 +0200 CEST
}

// The working days kept by place and year (workdays) are the library's
// answers: every day of fifteen years, leap years' last days included,
// and counts over ranges across year ends, against a walk that asks the
// library day by day.
func TestWorkdaysAreTheLibrarys(t *testing.T) {
	places := []Place{pDE, pBY, {Country: "NL"}, {Country: "BE"}, {Country: "GB"}, {Country: "XX"}}
	walk := func(p Place, from, to time.Time) int {
		bc, n := businessCalendar(normPlace(p)), 0
		for d := from.AddDate(0, 0, 1); !d.After(to); d = d.AddDate(0, 0, 1) {
			if bc.IsWorkday(d) {
				n++
			}
		}
		return n
	}
	first := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range places {
		c, bc := calFor(p), businessCalendar(normPlace(p))
		for d := first; d.Year() < 2035; d = d.AddDate(0, 0, 1) {
			if c.isWorking(d) != bc.IsWorkday(d) {
				t.Fatalf("%v %s: isWorking %v, the library %v", p, d.Format(time.DateOnly), c.isWorking(d), bc.IsWorkday(d))
			}
		}
		noonAt := func(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, c.loc) }
		for i := range 400 {
			from := first.AddDate(0, 0, (i*397)%4800)
			to := from.AddDate(0, 0, (i*131)%1200)
			want := walk(p, from, to)
			if got := WorkingDaysBetween(p, noonAt(from), noonAt(to)); got != want {
				t.Fatalf("%v from %s to %s: %d working days, the walk %d", p, from.Format(time.DateOnly), to.Format(time.DateOnly), got, want)
			}
			if got := WorkingDaysBetween(p, noonAt(to), noonAt(from)); got != -want {
				t.Fatalf("%v from %s back to %s: %d working days, want %d", p, to.Format(time.DateOnly), from.Format(time.DateOnly), got, -want)
			}
		}
	}
}

// What is left of a consent's validity, three years: the deadline card
// counts it on every retrieval document.
func BenchmarkWorkingDaysBetween(b *testing.B) {
	from := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	to := from.AddDate(3, 0, 0)
	for b.Loop() {
		WorkingDaysBetween(pBY, from, to)
	}
}
