"""Timestamps as exported by EHRs: parsed strictly, impossible ones rejected."""

from __future__ import annotations

from datetime import datetime, timezone

EARLIEST = datetime(1900, 1, 1)
LATEST_YEAR = 2200  # MIMIC shifts dates into 2100-2200; anything later is impossible


class BadTime(ValueError):
    pass


def parse_time(value: str | None, what: str, required: bool = True) -> datetime | None:
    """ISO-8601 date or datetime (with or without zone) → naive UTC datetime. Raises BadTime."""
    if value is None or str(value).strip() == "":
        if required:
            raise BadTime(f"missing {what}")
        return None
    text = str(value).strip().replace("Z", "+00:00")
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise BadTime(f"unparseable {what} {value!r}") from None
    if t.tzinfo is not None:
        t = t.astimezone(timezone.utc).replace(tzinfo=None)
    if t < EARLIEST or t.year > LATEST_YEAR:
        raise BadTime(f"impossible {what} {value!r}")
    return t
