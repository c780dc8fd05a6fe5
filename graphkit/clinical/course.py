"""The course of a cancer as ingestion stores it: over (a past cancer) or moving (progression).

The one owner of the codes and flags the state reads for "is this cancer still there" and "did it
progress": ingestion writes them, :mod:`graphkit.state` reads them back, nothing re-parses text.
"""

from __future__ import annotations

#: The flag ingestion puts on a cancer of the patient's history ("h/o colon ca 2010, NED"): treated,
#: no current disease. A cancer known only by such mentions is no current cancer: no guideline applies.
PAST_CANCER = "past-cancer"

#: Problem concepts that say the disease grew or came back on or after treatment ("PROGRESSION",
#: "progressive disease", "PD per RECIST", "local recurrence"): the signal for a later line of therapy.
#: (The curated abbreviation table names them; no terminology code is assumed here unverified.)
PROGRESSION_CODES = frozenset({"graphkit-problem|disease-progression", "graphkit-problem|recurrence-of-disease"})


def is_progression(codes: tuple[str, ...] | list[str]) -> bool:
    """Does a Problem with these codes document progression or recurrence? O(codes)."""
    return any(c in PROGRESSION_CODES for c in codes)
