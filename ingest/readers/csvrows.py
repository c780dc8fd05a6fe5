"""CSV rows that resynchronize after a broken one, read from plain or gzip files, byte-safe.

Python's ``csv`` module trusts the quoting: one unclosed quote makes a row swallow the rows after it,
which in a notes export means one patient's note absorbs the next patient's rows. Here a row may only
**start** on a physical line whose leading (key) fields are well formed for their column: a quoted text
field that is still open when such a line comes is a broken row, reported with its first line, and the
new row starts there. Lines that cannot start a row and do not continue one are grouped into one bad
record until the next row start. A byte that is not UTF-8 spoils only its own row. Memory stays bounded
by the largest row (capped): files of any size stream.
"""

from __future__ import annotations

import base64
import csv
import gzip
import io
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"
MAX_ROW_BYTES = 64 * 1024 * 1024  # a row larger than this is reported, not buffered further
_KEEP_RAW = 1_000_000  # raw text kept in the quarantine record (the file and its lines name the rest)

_TIMESTAMP = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]*$")
_DIGITS = re.compile(r"^\d+$")
# a note type as systems write it ("Medical oncology consult (transfer of care)", "H&P", "Rad Onc: OTV",
# "Oncología Médica - primera consulta"): letters of any script, digits and the punctuation of titles
_WORDS = re.compile(r"^(?:[^\W_]|\ufffd)[\w\ufffd _/.,:;&+'#()\-]{0,100}$")  # U+FFFD: a bad byte


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_bytes(path: Path):
    """A binary stream of the file, decompressed when it is gzip (by content, not by name)."""
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def parse_header(line: bytes) -> list[str]:
    """Column names of a CSV header line (BOM and surrounding spaces removed)."""
    text = line.decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r\n")
    return [h.strip() for h in next(csv.reader([text]), [])]


def read_header(path: Path) -> list[str]:
    with open_bytes(path) as f:
        return parse_header(f.readline(1 << 20))


def is_time_column(column: str) -> bool:
    col = column.lower()
    return col.endswith("time") or col in ("date", "authored_at")


def field_check(column: str) -> Callable[[str], bool]:
    """What a key column's value must look like for a line to start a row (shape only: values that
    are wrong but well-shaped, like month 13, are reported by the reader with their own reason)."""
    col = column.lower()
    if is_time_column(col):
        return lambda v: v == "" or bool(_TIMESTAMP.match(v))
    if col in ("subject_id", "hadm_id", "note_seq"):
        return lambda v: v == "" or bool(_DIGITS.match(v))
    if col.endswith("_id") or col == "id":
        return lambda v: v == "" or bool(_ID.match(v))
    if col.endswith("type"):
        return lambda v: v == "" or bool(_WORDS.match(v))
    return lambda v: '"' not in v


@dataclass(frozen=True)
class CsvRow:
    """One row, or one broken stretch of lines. ``fields`` is None when the row is broken; then
    ``problem`` is (reason, fix) and ``raw`` keeps the text (``raw_base64`` the bytes when not UTF-8)."""

    line: int  # first physical line, 1-based (the header is line 1)
    last_line: int
    fields: dict[str, str] | None
    problem: tuple[str, str] | None = None
    raw: str = ""
    raw_base64: str | None = None
    key: list[str] | None = None  # the leading key fields as read from the first line (may be None)

    def record(self) -> dict:
        """What the quarantine keeps of a broken row."""
        out = {"lines": f"{self.line}-{self.last_line}", "raw": self.raw[:_KEEP_RAW]}
        if len(self.raw) > _KEEP_RAW:
            out["raw_truncated"] = True
        if self.raw_base64 is not None:
            out["raw_base64"] = self.raw_base64
        return out


class _Pending:
    __slots__ = ("start", "last", "chunks", "size", "quotes", "bad_bytes", "row_start", "key", "overflow")

    def __init__(self, start: int, row_start: bool, key: list[str] | None):
        self.start = self.last = start
        self.chunks: list[bytes] = []
        self.size = 0
        self.quotes = 0
        self.bad_bytes: int | None = None
        self.row_start = row_start
        self.key = key
        self.overflow = False

    def add(self, lineno: int, raw: bytes, bad_at: int | None) -> None:
        self.last = lineno
        self.quotes += raw.count(b'"')
        if bad_at is not None and self.bad_bytes is None:
            self.bad_bytes = self.size + bad_at
        if self.size + len(raw) > MAX_ROW_BYTES:
            self.overflow = True
        else:
            self.chunks.append(raw)
        self.size += len(raw)

    @property
    def open_quote(self) -> bool:
        return self.quotes % 2 == 1


class CsvRows:
    """Iterate the rows of one CSV file. ``header`` holds the column names once iteration starts.

    The key columns (every column before ``text_column``, or all of them when there is none) must be
    well formed on a row's first line. Inside an open quoted field only a *strict* start (times
    shaped like times too) ends the row; between rows a line whose ids are well formed but whose time
    is not still starts one, so that it is reported as a bad timestamp. O(file size) time.
    """

    def __init__(self, path: Path, text_column: str | None = "text"):
        self.path = Path(path)
        self.text_column = text_column
        self.header: list[str] | None = None

    def __iter__(self) -> Iterator[CsvRow]:
        csv.field_size_limit(sys.maxsize)
        name = str(self.path)
        with open_bytes(self.path) as stream:
            header = self.header = parse_header(stream.readline())
            n_key = header.index(self.text_column) if self.text_column in header else len(header)
            checks = [field_check(c) for c in header[:n_key]]
            timed = [is_time_column(c) for c in header[:n_key]]
            pending: _Pending | None = None
            lineno = 1
            for raw in stream:
                lineno += 1
                text, bad_at = _decode(raw)
                if not text.strip() and (pending is None or not pending.open_quote):
                    if pending is not None and pending.row_start:
                        yield self._finish(pending, name, header, None)
                        pending = None
                    continue  # blank lines between rows carry nothing
                key = _key_fields(text, len(checks))
                ok = [check(v) for check, v in zip(checks, key)] if key is not None else None
                strict = ok is not None and all(ok)
                loose = ok is not None and all(o or t for o, t in zip(ok, timed))
                between_rows = pending is None or not pending.open_quote
                starts = strict or (loose and between_rows)
                if pending is not None and (starts or (pending.row_start and not pending.open_quote)):
                    # a row start ends whatever is pending; a complete row ends at its last line
                    yield self._finish(pending, name, header, lineno if starts else None)
                    pending = None
                if pending is None:
                    pending = _Pending(lineno, starts, key if starts else None)
                pending.add(lineno, raw, bad_at)
            if pending is not None:
                yield self._finish(pending, name, header, None)

    def _finish(self, p: _Pending, name: str, header: list[str], next_line: int | None) -> CsvRow:
        data = b"".join(p.chunks)
        text = data.decode("utf-8", "replace")
        raw_b64 = base64.b64encode(data).decode("ascii") if p.bad_bytes is not None else None

        def broken(reason: str, fix: str) -> CsvRow:
            return CsvRow(p.start, p.last, None, (reason, fix), text, raw_b64, p.key)

        where = f"lines {p.start}-{p.last}" if p.last > p.start else f"line {p.start}"
        if p.overflow:
            return broken(f"row too large: {where} hold {p.size / 1e6:.0f} MB without a complete row",
                          "check the quoting of the text column near the row's first line")
        if not p.row_start:
            return broken(f"not a row: {where} do not start with well-formed "
                          f"{', '.join(header[:3])}... values and continue no row",
                          "check the key columns (ids, type, times) and the quoting of the row above")
        if p.open_quote:
            until = f"runs into the next row at line {next_line}" if next_line else "runs to the end of the file"
            return broken(f"unclosed quote: the row starting at line {p.start} {until}",
                          "close the text field's quote (a quote inside text is written as two quotes \"\")")
        if p.bad_bytes is not None:
            return broken(f"not UTF-8: byte {data[p.bad_bytes]:#04x} at offset {p.bad_bytes} of the row",
                          "re-export the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)")
        try:
            rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
        except csv.Error as exc:
            return broken(f"malformed CSV row: {exc}", "check the quoting of the text column")
        rows = [r for r in rows if r]
        if len(rows) != 1 or len(rows[0]) != len(header):
            got = len(rows[0]) if len(rows) == 1 else f"{len(rows)} rows with {[len(r) for r in rows]}"
            return broken(f"malformed CSV row: wrong number of fields ({got}, expected {len(header)})",
                          "check the quoting of the text column")
        return CsvRow(p.start, p.last, dict(zip(header, rows[0])), None, "", None, p.key)


def _decode(raw: bytes) -> tuple[str, int | None]:
    """(text, offset of the first undecodable byte or None)."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), exc.start


def _key_fields(line: str, n: int) -> list[str] | None:
    """The first ``n`` comma-separated fields of a line when they are plain or closed-quoted values
    on this line (a key field never spans lines). O(len(line))."""
    if n == 0:
        return []
    out, i, size = [], 0, len(line)
    while len(out) < n:
        if i < size and line[i] == '"':
            j = i + 1
            value = []
            while True:
                k = line.find('"', j)
                if k < 0:
                    return None
                value.append(line[j:k])
                if k + 1 < size and line[k + 1] == '"':
                    value.append('"')
                    j = k + 2
                    continue
                i = k + 1
                break
            out.append("".join(value))
            if len(out) < n and (i >= size or line[i] != ","):
                return None
            i += 1
        else:
            k = line.find(",", i)
            if k < 0:
                if len(out) == n - 1:
                    out.append(line[i:].rstrip("\r\n"))
                    break
                return None
            value = line[i:k]
            if '"' in value:
                return None
            out.append(value)
            i = k + 1
    return [v.strip() for v in out]
