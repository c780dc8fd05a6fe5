"""When a treatment ended or begins, from a date written with it.

A clinician dates what is over: "FOLFOX x 12 cycles 11/2023-5/2024", "maintenance pembrolizumab until
6/2023", "AC x4 (completed 5/2024)", "VATS LUL lobectomy 4/2022". A drug whose period ended, or an
operation or radiotherapy course done, before the day the note was written is history (assertion
guideline R9/R10: completed, finished, stopped), whatever cue words surround it. A start date ("since
3/2023", "started 1/2024") says it goes on; a date on or after the note's day is today's or a plan.
A drug with a single date is not judged (a start? a dose given?), nor is a dated test: a staging scan
of the current episode of care is present, an older one historical, and the date alone cannot tell
the two apart (R9). Care or a test whose clause dates it after the note ("C1 5/21/24" in a note of
5/14/24, "colonoscopy 3/2026") is scheduled: planned. Only a date in the mention's own clause counts.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MON = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
        r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?![a-z])")  # "decreased 2024" is no December
_ORD = r"(?:st|nd|rd|th)?"
# one day, in every form a clinician writes it: 5 Feb 2024, 4-Mar-2024, 3rd March, 2025, Feb 5, 2024,
# 2/5/24, 04.03.2025 (dotted: day first), 2024-02-05, "5. May 2025" (a German or Nordic day, glossed).
# The one reader of dates: sentences, clauses, starts
_DAY = (rf"(?:(?<![\d.])\d{{1,2}}{_ORD}\.?[\s-]{_MON},?[\s-]\d{{4}}|{_MON}\s+\d{{1,2}}{_ORD},?\s+\d{{4}}|"
        r"(?<![\d/.])\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})(?![\d/])|(?<![\d.])\d{1,2}\.\d{1,2}\.\d{4}(?!\d|\.\d)|"
        # "24.02.25" (German, Dutch, Scandinavian notes): dotted with a two-digit year, not a version "v2.1.25"
        r"(?<![\w.])\d{1,2}\.\d{1,2}\.\d{2}(?!\d|\.\d)|"
        # "10-03-2025" (Dutch, German, Indian notes): read like the slashed form, by the note's order
        r"(?<![\d-])\d{1,2}-\d{1,2}-\d{4}(?![\d-])|"
        r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-]))")
_DAY_RX = re.compile(_DAY, re.I)
DAY, MONTH = _DAY, _MON  # for a reader that puts its own words before a date ("since", "started")
# any written date: a day, a month (5/2024, 2024-05, May 2024) or a year alone (not a dose, size or count)
_D = (rf"(?:{_DAY}|(?<![\d/.])\d{{1,2}}/\d{{4}}(?![\d/])|(?<![\d-])\d{{4}}-\d{{2}}(?![\d-])|{_MON}\s+\d{{4}}|"
      r"(?<![\d/.-])(?:19|20)\d{2}(?![\d/.%-])(?!\s*(?:mg|mcg|g|ml|units?|c?Gy|mm|cm|x)\b))")
_D_RX = re.compile(_D, re.I)
# the first date of the clause after the mention, with what stands right before it, and a period's end
_DATED = re.compile(rf"(?P<lead>\b(?:since|from|started|starting|start|began|begun|initiated|due|next|scheduled|"
                    rf"planned|c1d1|c1|cycle\s*1|on\s+hold\s+since)\s+(?:on\s+|in\s+)?)?(?P<a>{_D})"
                    rf"(?:\s*(?:-|–|to|through|thru)\s*(?P<b>{_D}))?", re.I)
# "until 6/2023", "completed 5/2024", and a later cycle or the last dose on a date ("C6 6/27/24"): given by then
_UNTIL = re.compile(rf"(?:\b(?:until|till|through|completed|finished|ended|stopped|last\s+(?:dose|cycle|infusion|"
                    rf"fraction|treatment))|(?<![A-Za-z])(?:C|cycle\s*)(?:[2-9]|\d{{2}})(?:D\d{{1,2}})?)\s+(?:on\s+|in\s+)?"
                    rf"(?P<b>{_D})", re.I)
# (a title's dot ends nothing: "Termin Strahlentherapie (Dr. Hoffmann) 28.05.")
_CLAUSE_END = re.compile(r"[;\n]|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bProf)(?<!\bDra)\.\s|,\s*(?:then|and|but)\b|\bthen\b")
WINDOW = 70  # characters after the mention: past its dose, cycles and a parenthesis, not into the next fact
NEAR = 30  # characters after the mention where a day written without its year may still date it

KINDS = ("Procedure", "Medication")
_WORD_END = re.compile(r"[\w/.-]*")


_NUMERIC_DAY = re.compile(r"(?<![\d/-])(\d{1,2})(?:/(\d{1,2})/(?:\d{4}|\d{2})(?![\d/])|-(\d{1,2})-\d{4}(?![\d-]))")
_NUMERIC_DATE = re.compile(r"(?<![\d/-])\d{1,2}(?:/\d{1,2}/(?:\d{4}|\d{2})(?![\d/])|-\d{1,2}-\d{4}(?![\d-]))")


# "3 Mar - 9 Apr 2025", "Mar 3 - Apr 9, 2025", "24 Jun to 1 Aug 2024": a range's first day takes its year from
# the second (the year before when its month comes later)
_YEARLESS_RANGE = re.compile(
    rf"(?<![\d.])(?P<a>\d{{1,2}}{_ORD}[\s-](?P<am>{_MON})|(?P<am2>{_MON})\s+\d{{1,2}}{_ORD})(?![\s,-]*\d{{4}})"
    rf"(?P<sep>\s*(?:-|–|to|through|thru|until)\s*)(?P<b>(?:\d{{1,2}}{_ORD}[\s-](?P<bm>{_MON})|(?P<bm2>{_MON})\s+\d{{1,2}}{_ORD}),?"
    rf"[\s-](?P<y>\d{{4}}))", re.I)


# "(17/02 - 14/03/2025)": a numeric period whose first day borrows the year written once at its end
_YEARLESS_NUMERIC_RANGE = re.compile(
    r"(?<![\d/.])(?P<a1>\d{1,2})(?P<s>[/.])(?P<a2>\d{1,2})(?![/.]?\d)(?P<sep>\s*(?:-|–|to|through|thru|until)\s*)"
    r"(?P<b>(?P<b1>\d{1,2})(?P=s)(?P<b2>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2}))(?![/.]?\d)")
# "(Apr-Jun 2024)", "May-Sept 2023", "Nov 2023 - Feb 2024" written "Nov-Feb 2024": a period of whole months
# whose first month takes the year written once at its end (the year before when its month comes later)
_MONTH_RANGE = re.compile(rf"(?<![\d\w])(?<!\d\s)(?P<am>{_MON})(?P<sep>\s*(?:-|–|to|through|thru|until)\s*)"
                          rf"(?P<b>(?P<bm>{_MON})\s+(?P<y>\d{{4}}))", re.I)
# "05-06/2022", "06-08/2023": a period of whole months written as two month numbers and one year
_NUMERIC_MONTH_RANGE = re.compile(r"(?<![\d/.-])(?P<a>0?[1-9]|1[0-2])(?P<sep>\s*[-–]\s*)"
                                  r"(?P<b>(?P<bm>0?[1-9]|1[0-2])/(?P<y>\d{4}))(?![\d/])")
_DIGIT = re.compile(r"\d")  # every written date has one: text without a digit is skipped at once


def _with_range_years(text: str) -> str:
    """``text`` with the year written into a range's year-less first day. O(len(text))."""
    if not _DIGIT.search(text):
        return text
    def fill(m: re.Match) -> str:
        a_month = _MONTH_NAMES.index((m.group("am") or m.group("am2"))[:3].lower())
        b_month = _MONTH_NAMES.index((m.group("bm") or m.group("bm2"))[:3].lower())
        year = int(m.group("y")) - (1 if a_month > b_month else 0)
        return f"{m.group('a')} {year}{m.group('sep')}{m.group('b')}"
    def fill_numeric(m: re.Match) -> str:
        a, b = (int(m.group("a1")), int(m.group("a2"))), (int(m.group("b1")), int(m.group("b2")))
        same_year = a <= b or a[::-1] <= b[::-1]  # either order may be the note's: a year's turn only if both say so
        year = m.group("y")
        if not same_year:
            year = str(int(year) - 1).zfill(len(year))
        return f"{m.group('a1')}{m.group('s')}{m.group('a2')}{m.group('s')}{year}{m.group('sep')}{m.group('b')}"
    def fill_months(m: re.Match) -> str:
        a_month = _MONTH_NAMES.index(m.group("am")[:3].lower())
        b_month = _MONTH_NAMES.index(m.group("bm")[:3].lower())
        return f"{m.group('am')} {int(m.group('y')) - (a_month > b_month)}{m.group('sep')}{m.group('b')}"
    def fill_month_numbers(m: re.Match) -> str:
        a, b = int(m.group("a")), int(m.group("bm"))
        if a >= b:
            return m.group()  # "10-03/2024" is no period of months
        return f"{m.group('a')}/{m.group('y')}{m.group('sep')}{m.group('b')}"
    text = _YEARLESS_NUMERIC_RANGE.sub(fill_numeric, _YEARLESS_RANGE.sub(fill, text))
    return _NUMERIC_MONTH_RANGE.sub(fill_month_numbers, _MONTH_RANGE.sub(fill_months, text))


def date_order(texts: list[str]) -> bool | None:
    """How the texts write numeric dates: True day first ("29/08/2024"), False month first ("08/29/2024"),
    None when no date decides (every one could be either, or they disagree). O(text)."""
    firsts = [(int(a), int(b or c)) for t in texts for a, b, c in _NUMERIC_DAY.findall(t)]
    dm, md = any(a > 12 >= b for a, b in firsts), any(b > 12 >= a for a, b in firsts)
    return dm if dm != md else None


def day_first(texts: list[str], near: date | None = None) -> bool:
    """Does a note write its dates day first? Its own convention when some numeric date can only be read
    one way. When none decides and ``near`` (the note's day) is given, the reading that puts the note's
    ambiguous dates nearer to it, a day after the note counting three times its distance as a note tells
    mostly what came before it ("03/06/2025" in a note of 10 June 2025: 3 June, not 6 March; "3/4/24 -
    8/12/24" in a note of 16 Sep 2024: March to August, not April to a December still to come; an addendum's
    "MDT 03/09/2024" in a report of 27 Aug 2024: 3 September, not 9 March); a tie reads month first.
    O(text)."""
    order = date_order(texts)
    if order is not None or near is None:
        return bool(order)
    def distance(dmy: bool) -> int:
        days = [d for t in texts for m in _NUMERIC_DATE.finditer(t) if (d := exact_day(m.group(), dmy))]
        return sum(abs((d - near).days) * (3 if d > near else 1) for d in days)
    return distance(True) < distance(False)


def period_end(text: str, day_first: bool = False) -> date | None:
    """The last day a written date can mean: 5/2024 → 2024-05-31, 2023 → 2023-12-31, 12/05/23 → that day
    (5 December with ``day_first``), 3 Mar 2025 → that day."""
    t = text.strip().lower().rstrip(".")
    if _DAY_RX.fullmatch(t):
        return exact_day(t, day_first)
    try:
        if re.fullmatch(r"\d{1,2}/\d{4}", t):
            mo, yr = (int(x) for x in t.split("/"))
            return date(yr, mo, calendar.monthrange(yr, mo)[1])
        if re.fullmatch(r"\d{4}-\d{2}", t):
            yr, mo = (int(x) for x in t.split("-"))
            return date(yr, mo, calendar.monthrange(yr, mo)[1])
        if re.fullmatch(r"\d{4}", t):
            return date(int(t), 12, 31)
        word, yr = t.replace(".", "").split()
        mo = _MONTH_NAMES.index(word[:3]) + 1
        return date(int(yr), mo, calendar.monthrange(int(yr), mo)[1])
    except (ValueError, IndexError):
        return None  # 2/30/2024, month 13: not a date


def exact_day(text: str, day_first: bool = False) -> date | None:
    """The day a fully written date means ("5 Feb 2024", "Feb 5, 2024", "4-Mar-2024", "3rd March 2025",
    "2/5/24" month first unless ``day_first``, "04.03.2025" always day first, "2024-02-05"); None when it
    names no day."""
    t = text.strip().lower().rstrip(".")
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
            return date.fromisoformat(t)
        if re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}-\d{1,2}-\d{4}", t):
            mo, da, yr = (int(x) for x in re.split(r"[/-]", t))
            if day_first:
                mo, da = da, mo
            return date(yr + 2000 if yr < 100 else yr, mo, da)
        if re.fullmatch(r"\d{1,2}\.\d{1,2}\.(?:\d{4}|\d{2})", t):  # "24.02.25": dotted is day first
            da, mo, yr = (int(x) for x in t.split("."))
            return date(yr + 2000 if yr < 100 else yr, mo, da)
        parts = re.sub(r"[,.-]", " ", t).split()
        if len(parts) != 3:
            return None
        day, month, year = (parts[0], parts[1], parts[2]) if parts[1][:3] in _MONTH_NAMES else (parts[1], parts[0], parts[2])
        return date(int(year), _MONTH_NAMES.index(month[:3]) + 1, int(re.sub(r"\D", "", day)))
    except ValueError:
        return None  # 2/30/2024, month 13: not a date


def days(text: str, day_first: bool = False):
    """Every day fully written in ``text`` (:data:`_DAY`'s forms), in order. O(len(text))."""
    if not _DIGIT.search(text):
        return
    for m in _DAY_RX.finditer(_with_range_years(text)):
        d = exact_day(m.group(), day_first)
        if d is not None:
            yield d


def periods(text: str, day_first: bool = False):
    """(first day, last day) of every date written in ``text``: a day is itself, "5/2024" its month,
    "2023" its year. O(len(text))."""
    if not _DIGIT.search(text):
        return
    for m in _D_RX.finditer(_with_range_years(text)):
        a, b = period_start(m.group(), day_first), period_end(m.group(), day_first)
        if a is not None and b is not None:
            yield a, b


def iso(text: str, day_first: bool = False) -> str | None:
    """A written date as ISO at the precision written: "7 Feb 2025" → "2025-02-07", "3/2023" or "Mar 2023"
    → "2023-03"; None for a year alone or no date."""
    d = exact_day(text, day_first) if _DAY_RX.fullmatch(text.strip().rstrip(".")) else None
    if d is not None:
        return d.isoformat()
    end = period_end(text, day_first)
    return end.isoformat()[:7] if end is not None and not re.fullmatch(r"\s*\d{4}\s*", text) else None


# "Dates: 5 Feb 2024 -> 14 Mar 2024", "Start 2024-04-15   End 2024-05-08" (or "Finish", "Stop",
# "Completion"): the course a summary reports
_COURSE = re.compile(rf"\b(?:(?:treatment\s+)?dates?|course|treatment\s+period)\s*:\s*(?P<a>{_DAY})\s*"
                     rf"(?:->|→|-|–|to|through|thru|until)\s*(?P<b>{_DAY})|"
                     rf"\bstart(?:ed)?\s*:?\s*(?P<a2>{_DAY})[^\n]{{0,30}}?"
                     rf"\b(?:end(?:ed)?|completed|completion|finish(?:ed)?|stop(?:ped)?)\s*:?\s*"
                     rf"(?P<b2>{_DAY})", re.I)


def course_period(texts: list[str], day_first: bool = False) -> tuple[date, date] | None:
    """The one treatment course a note reports as a labelled period (a radiotherapy or infusion summary's
    "Dates: A -> B", "Start A ... End B"), or None when it states none or several. O(text)."""
    found = set()
    for t in texts:
        for m in _COURSE.finditer(t):
            a = exact_day(m.group("a") or m.group("a2"), day_first)
            b = exact_day(m.group("b") or m.group("b2"), day_first)
            if a and b and a <= b:
                found.add((a, b))
    return found.pop() if len(found) == 1 else None


#: the first cycle or day of a course ("C1", "C1D1", "cycle 1", "D1"), not a range of days ("D1-14")
FIRST_CYCLE = re.compile(r"\b(?:C1|C1D1|cycle\s*(?:1|one)|D1|day\s*1)\b(?!\s*[-–]\s*\d)", re.I)
# ("C1 given 17/02/25", "cycle 2 on 10/03"): a word for the cycle's giving may stand before its day
_CYCLE_HEAD = r"\b(?:C|cycle\s*)(?P<n>\d{1,2})(?:D1)?(?:\s+(?:given|administered|started|begun|on))?\s*[:=|-]?\s*"
_CYCLE_DAY = re.compile(rf"{_CYCLE_HEAD}(?P<day>{_DAY})", re.I)


_CYCLE_DAY_NO_YEAR = re.compile(rf"{_CYCLE_HEAD}(?P<a>\d{{1,2}})(?P<s>[/.])(?P<b>\d{{1,2}})(?![/.]?\d)", re.I)


def _year_less(a: int, b: int, day_first: bool, note_day: date) -> date | None:
    """The day "a/b" means in a note of ``note_day``: its year, or the year before when that would come
    more than a month after the note ("C1 21/12" in a January note); a day soon after is still to come."""
    month, dd = (b, a) if day_first or a > 12 else (a, b)  # "21/10" can only be day first
    try:
        d = date(note_day.year, month, dd)
        return d if (d - note_day).days <= 31 else date(note_day.year - 1, month, dd)
    except ValueError:
        return None


def cycle_period(text: str, day_first: bool = False, note_day: date | None = None) -> tuple[date, date] | None:
    """"C1 3/17/25, C2 4/7/25, C3 4/28/25, C4 5/19/25": a line of dated cycles is the course's first and last
    day (at least two cycles, in order), or None; with ``note_day``, year-less cycle days ("(C1 21/10, C2
    18/11)", dotted day first: "C1 10.03., C2 31.03.") are read in the note's year. O(len(text))."""
    at = {m.start(): (int(m.group("n")), exact_day(m.group("day"), day_first)) for m in _CYCLE_DAY.finditer(text)}
    if note_day is not None:  # "(C1 given 17/02/25, C2 10/03, C3 31/03)": the first day's year, the rest's not
        for m in _CYCLE_DAY_NO_YEAR.finditer(text):
            if not at.get(m.start(), (0, None))[1]:
                at[m.start()] = (int(m.group("n")), _year_less(int(m.group("a")), int(m.group("b")),
                                                                day_first or m.group("s") == ".", note_day))
    days = [(n, d) for _, (n, d) in sorted(at.items()) if d]
    if len(days) < 2 or [n for n, _ in days] != sorted(n for n, _ in days) or days[0][1] > days[-1][1]:
        return None
    return days[0][1], days[-1][1]


# "reported 21/02", "Histology 26/5:", "from 19/08": a day written without its year after a word that dates
# what it names
_DAY_AFTER_WORD = re.compile(r"\b(?:reported|dated|on|from|since|until|histo(?:logy)?|path(?:ology)?|surgery|op|"
                             r"bx|biopsy|ct|mri|pet(?:-ct)?|mammo(?:gram)?)\s*\(?\s*(?P<a>\d{1,2})(?P<s>[/.])"
                             r"(?P<b>\d{1,2})(?![/.]?\d)", re.I)


def days_without_year(text: str, near: date, day_first: bool = False) -> list[date]:
    """Days ``text`` writes without their year after a word that dates an event ("Histo (core, reported
    21/02)"), read in the year of ``near`` (the day they are compared with; the year before when that
    would put them more than a month after it); dotted ones day first. O(len(text))."""
    out = []
    for m in _DAY_AFTER_WORD.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        d = _year_less(a, b, day_first or m.group("s") == ".", near)
        if d is not None:
            out.append(d)
    return out


def has_date(text: str) -> bool:
    """Does a sentence write a date of its own?"""
    return bool(_DATED.search(text) or _DAY_RX.search(text))


def as_day(note_day: date | datetime) -> date:
    """The day of a note's time (a datetime's date; a date as it is)."""
    return note_day.date() if isinstance(note_day, datetime) else note_day


def _clause_dates(text: str, end: int, note_day: date | datetime, day_first: bool = False):
    """(the note's day, the first "until"/"completed"/later-cycle date, the first date) of the clause
    right after a mention ending at ``end``. O(WINDOW)."""
    day = as_day(note_day)
    cut = _WORD_END.match(text, end + WINDOW)  # never inside a date: "29/11/20|24" is not 29 Nov 2020
    # (a year-less dotted day first, close to the mention: its closing dot ends no clause, "Termin
    # Strahlentherapie 28.05. zum Planungs-CT"; not "ileostomy active day 1, ..., discharged day 6 (18.11.")
    after = _with_nearest_dotted_year(text[end:cut.end() if cut else end + WINDOW], day, NEAR)
    stop = _CLAUSE_END.search(after)
    after = _with_note_year(_with_range_years(after[:stop.start()] if stop else after), day, day_first)
    after = _with_nearest_year(after, day)  # one string for both searches: their offsets are compared
    return day, _UNTIL.search(after), _DATED.search(after)


# "baseline CT chest Mar 31", "C1 8 Apr": a day named by its month without its year (a lower-case "may" is
# the verb)
_YEARLESS_NAMED_DAY = re.compile(rf"(?<![\d.])(?:(?P<d1>\d{{1,2}}){_ORD}[\s-](?P<m1>{_MON})|(?<!\d\s)(?<!\d-)(?P<m2>{_MON})\s+"
                                 rf"(?P<d2>\d{{1,2}}){_ORD}(?![\d:]))(?![\s,/.-]*\d)", re.I)


def _with_nearest_year(text: str, day: date) -> str:
    """``text`` with the year written into each day named without one: the year that puts it nearest the
    note's ``day``, a day after the note counting three times its distance (a note tells mostly what came
    before it; "CT booked Sept 16" in a note of 8 Sept is still to come). O(len(text))."""
    if not _DIGIT.search(text):
        return text
    def fill(m: re.Match) -> str:
        month_word = m.group("m1") or m.group("m2")
        if month_word == "may":
            return m.group()
        month = _MONTH_NAMES.index(month_word[:3].lower()) + 1
        year = _nearest_year(int(m.group("d1") or m.group("d2")), month, day)
        return f"{m.group()} {year}" if year else m.group()
    return _YEARLESS_NAMED_DAY.sub(fill, text)


def _with_nearest_dotted_year(text: str, day: date, near: int) -> str:
    """``text`` with the nearest year (as :func:`_with_nearest_year`) written into each dotted day-first day
    written without one in its first ``near`` characters ("28.05." → "28.05.2025"). O(len(text))."""
    def fill(m: re.Match) -> str:
        year = _nearest_year(int(m.group("d")), int(m.group("m")), day) if m.start() < near else None
        return f"{m.group('d')}.{m.group('m')}.{year}" if year else m.group()
    return _YEARLESS_DOTTED_DAY.sub(fill, text) if _DIGIT.search(text) else text


# "Termin Strahlentherapie 28.05. zum Planungs-CT": a day written day-first with dots, its year left out (two
# month digits and the closing dot: not "Hb 11.8.")
_YEARLESS_DOTTED_DAY = re.compile(r"(?<![\d.,:=/])(?P<d>\d{1,2})\.(?P<m>0[1-9]|1[0-2])\.(?!\d)")


def _nearest_year(dd: int, month: int, day: date) -> int | None:
    """The year that puts day ``dd`` of ``month`` nearest the note's ``day``, a day after the note counting three
    times its distance (see :func:`_with_nearest_year`), or None for no such day."""
    options = []
    for year in (day.year - 1, day.year, day.year + 1):
        try:
            d = date(year, month, dd)
        except ValueError:
            continue
        options.append((abs((d - day).days) * (3 if d > day else 1), year))
    return min(options)[1] if options else None


# "paclitaxel x 6 (4/22 - 5/27)": a period of two year-less days, right after the care it dates
_YEARLESS_PERIOD = re.compile(r"(?<![\d/.])(?P<a1>\d{1,2})(?P<s>[/.])(?P<a2>\d{1,2})(?P<sep>\s*(?:-|–|to|through|thru|until)\s*)"
                              r"(?P<b1>\d{1,2})(?P=s)(?P<b2>\d{1,2})(?![/.]?\d)")


def _with_note_year(text: str, day: date, day_first: bool = False) -> str:
    """``text`` with the note's year written into a period of two year-less days (the year before when
    the period would end after the note), read in the note's date order ("(02/04 - 11/06)" in a
    day-first note ends on 11 June). O(len(text))."""
    def fill(m: re.Match) -> str:
        if m.group("s") == "." and min(len(m.group(k)) for k in ("a1", "a2", "b1", "b2")) < 2:
            return m.group()  # "INR target 2.5-3.5": a range of decimals (a dotted day is "02.04 - 11.06")
        a1, a2, b1, b2 = (int(m.group(k)) for k in ("a1", "a2", "b1", "b2"))
        if day_first:
            dd, month = (b1, b2) if b2 <= 12 else (b2, b1)
        else:
            month, dd = (b1, b2) if b1 <= 12 else (b2, b1)  # month first unless it cannot be
        if month > 12 or dd > 31 or max(a1, a2) > 31 or min(a1, a2, b1, b2) < 1:
            return m.group()
        year = day.year - 1 if (month, dd) > (day.month, day.day) else day.year
        return f"{m.group('a1')}{m.group('s')}{m.group('a2')}{m.group('s')}{year}{m.group('sep')}" \
               f"{m.group('b1')}{m.group('s')}{m.group('b2')}{m.group('s')}{year}"
    return _YEARLESS_PERIOD.sub(fill, text) if "/" in text or "." in text else text


def over_before(text: str, end: int, note_day: date | datetime | None, single_date: bool = True,
                day_first: bool = False) -> date | None:
    """The date, written in the clause right after a mention ending at ``end``, on which it was over, when
    that is before ``note_day``; else None. A single date (not a period's end, not "until" / "completed"
    X) counts only with ``single_date``. O(WINDOW)."""
    if note_day is None:
        return None
    day, until, m = _clause_dates(text, end, note_day, day_first)
    if until and (m is None or until.start() <= m.start() + len(m.group("lead") or "")):
        over = period_end(until.group("b"), day_first)
    elif m is None or m.group("lead"):
        return None  # no date, or a start, due or planned date
    elif m.group("b") or single_date:
        over = period_end(m.group("b") or m.group("a"), day_first)
    else:
        return None
    return over if over is not None and over < day else None


def ranges(text: str, day_first: bool = False):
    """(first day, last day) of every period written as one ("11/11/2024 - 12/20/2024", "3 Mar - 9 Apr
    2025"), not a start or due date. O(len(text))."""
    if not _DIGIT.search(text):
        return
    for m in _DATED.finditer(_with_range_years(text)):
        if m.group("b") and not m.group("lead"):
            a, b = period_start(m.group("a"), day_first), period_end(m.group("b"), day_first)
            if a is not None and b is not None and a <= b:
                yield a, b


def closing_range(text: str, day_first: bool = False) -> tuple[date, date, int] | None:
    """The period that closes a sentence and is its only date ("he received long-course chemoradiotherapy -
    50.4 Gy in 28 fractions with concurrent capecitabine - 17/03/2025 to 24/04/2025."): (first day, last
    day, where it is written). None otherwise. O(len(text))."""
    if not _DIGIT.search(text):
        return None
    filled = _with_range_years(text)  # fills a year into the range only: what stands before it keeps its place
    found = list(_DATED.finditer(filled))
    if len(found) != 1 or not found[0].group("b") or found[0].group("lead") or \
            filled[found[0].end():].strip(" .;)\n"):
        return None
    a, b = period_start(found[0].group("a"), day_first), period_end(found[0].group("b"), day_first)
    return (a, b, found[0].start()) if a is not None and b is not None and a <= b else None


# "* 04/2024 lap sigmoid colectomy: pT4a", "12/2024 - palliative RT 8 Gy/1 fx", "10/15/24-01/07/25: weekly
# paclitaxel": a history line that opens with its date (or period), then what happened then
_LEADING = re.compile(rf"^[\s*•·>-]*(?P<a>{_D})(?:\s*(?:-|–|to|through|thru)\s*(?P<b>{_D}))?\s*(?::|-|–|—)?\s+"
                      r"(?=[A-Za-z0-9]|$)", re.I)


# "  C1 28/08: docetaxel 75 mg/m2 + cyclophosphamide 600 mg/m2": a first-cycle line opening with its day,
# often without its year
_FIRST_CYCLE_LINE = re.compile(r"^[\s*•·>-]*(?:C|cycle\s*)1(?:\s*D1)?\s*[:,=-]?\s*(?P<a>\d{1,2})[/.](?P<b>\d{1,2})"
                               r"(?:[/.](?P<y>\d{4}|\d{2}))?(?![/.]?\d)\s*(?::|-|–|—)\s*", re.I)


def first_cycle_line(text: str, note_day: date | datetime, day_first: bool = False) -> date | None:
    """The day a line opening with its first cycle ("C1 28/08:", "Cycle 1 02.05.2024 -") gives: the
    course's start. A day written without its year takes the note's (the year before, when that day
    would fall after the note). ``text`` is the line up to the mention. O(1)."""
    m = _FIRST_CYCLE_LINE.match(text)
    if m is None:
        return None
    a, b = int(m.group("a")), int(m.group("b"))
    dd, mm = (a, b) if day_first or b > 12 else (b, a)
    day = as_day(note_day)
    year = int(m.group("y")) if m.group("y") else day.year
    year = year + 2000 if year < 100 else year
    try:
        found = date(year, mm, dd)
    except ValueError:
        return None
    if not m.group("y") and found > day:
        found = found.replace(year=year - 1) if not (mm == 2 and dd == 29) else None
    return found


def leading_date(text: str, day_first: bool = False) -> tuple[date, bool] | None:
    """(the last day, is it a period) of the date a line opens with, when the line goes on with words;
    else None. ``text`` is the line up to the mention. O(1) (one anchored match)."""
    if not _DIGIT.search(text[:12]):
        return None
    m = _LEADING.match(_with_range_years(text))  # "05-06/2022 whole breast RT", "Apr-Jun 2024: FOLFOX"
    if m is None:
        return None
    end = period_end(m.group("b") or m.group("a"), day_first)
    return (end, bool(m.group("b"))) if end is not None else None


def clause_period(text: str, end: int, note_day: date | datetime | None, day_first: bool = False) -> date | None:
    """The first day of a period ("CRT 1/29/24 - 3/6/24") or the start ("C1 1 Jul 2024", "from 3/2024") written
    first in the clause right after a mention ending at ``end``: the course began then. None for a single
    date or none. O(WINDOW)."""
    if note_day is None:
        return None
    _, _, m = _clause_dates(text, end, note_day, day_first)
    if m is None:
        return None
    lead = (m.group("lead") or "").strip().lower()
    if lead.startswith(("c1", "cycle", "since", "from", "start", "began", "begun", "initiated")):
        return period_start(m.group("a"), day_first)  # "TCHP (C1 1 Jul 2024, C6 14/10/2024)": its first cycle
    return period_start(m.group("a"), day_first) if m.group("b") and not lead else None


# "Comparison 8/22/2024", "compared with 12/23/2024": the earlier study's day, not this one's
_COMPARISON = re.compile(r"\b(?:comparison|compared\s+(?:with|to)|in\s+comparison\s+(?:with|to))\b[^\n.;]*", re.I)


def without_comparisons(text: str) -> str:
    """``text`` with each comparison clause blanked (same length: offsets hold), so that no reader of its
    dates takes the earlier study's day for this one's. O(len(text))."""
    return _COMPARISON.sub(lambda m: " " * len(m.group()), text)


def dated(text: str, end: int, note_day: date | datetime | None, day_first: bool = False) -> date | None:
    """The last day of the first date written in the clause right after a mention ending at ``end``
    ("colon ca 2010", "IDC stage I (2016)"), unless it is a start, due or planned date. O(WINDOW)."""
    if note_day is None:
        return None
    _, _, m = _clause_dates(text, end, note_day, day_first)
    return period_end(m.group("a"), day_first) if m is not None and not m.group("lead") else None


def period_start(text: str, day_first: bool = False) -> date | None:
    """The first day a written date can mean: 5/2024 → 2024-05-01, 2023 → 2023-01-01."""
    end = period_end(text, day_first)
    if end is None:
        return None
    t = text.strip().lower().rstrip(".")
    if re.fullmatch(r"\d{4}", t):
        return date(end.year, 1, 1)
    if _DAY_RX.fullmatch(t):
        return end
    return date(end.year, end.month, 1)


_NEXT_DOSE = re.compile(r"\bnext\s+(?:dose|cycle|infusion|injection|treatment|fraction|due)\b", re.I)


def starts_after(text: str, end: int, note_day: date | datetime | None, day_first: bool = False) -> date | None:
    """The date written in the clause right after a mention ending at ``end`` when care begins after
    ``note_day`` ("mFOLFOX6 x12, C1 5/21/24" in a note of 5/14/24; "lap colectomy 5/20/25"): care dated
    in the future is scheduled, not given. None otherwise. O(WINDOW)."""
    if note_day is None:
        return None
    day, until, m = _clause_dates(text, end, note_day, day_first)
    if m is None or (until and until.start() <= m.start()):
        return None
    lead = (m.group("lead") or "").strip().lower()
    if lead.startswith(("since", "started", "began", "begun", "initiated", "on hold")) or _NEXT_DOSE.search(m.string, 0, m.start("a")):
        return None  # "Zoledronic acid next due 10/2024": the next dose of a treatment under way
    begin = period_start(m.group("a"), day_first)
    return begin if begin is not None and begin > day else None
