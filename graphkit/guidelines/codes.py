"""Well-formedness of terminology codes, with the check digits the standards define.

SNOMED CT identifiers end in a Verhoeff check digit; LOINC codes end in a mod-10 (Luhn) check digit;
ICD-10-CM codes are looked up in the April 2026 code set (``simple-icd-10-cm``). A code that fails is
reported, never silently linked.
"""

from __future__ import annotations

import re

# Verhoeff tables (dihedral group D5): multiplication, permutation.
_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
      [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
      [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
      [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
      [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
      [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]

_FORMAT = {
    "SNOMED-CT": re.compile(r"^[1-9]\d{5,17}$"),
    "LOINC": re.compile(r"^\d{1,7}-\d$"),
    "ICD-10-CM": re.compile(r"^[A-Z]\d[0-9A-Z](\.[0-9A-Z]{1,4})?$"),
    "RxNorm": re.compile(r"^\d{1,9}$"),
    "DOID": re.compile(r"^DOID:\d{1,7}$"),
    "NCIT": re.compile(r"^C\d{1,7}$"),
    "ATC": re.compile(r"^[A-Z](?:\d{2}(?:[A-Z](?:[A-Z](?:\d{2})?)?)?)?$"),
    "regimen": re.compile(r"^[A-Z0-9][A-Z0-9\-]*$"),
    # graphkit's own procedure terms, where no standard code is committed (ingest/link/data/procedures.tsv)
    "graphkit-procedure": re.compile(r"^[a-z0-9][a-z0-9\-]*$"),
}


def verhoeff_valid(digits: str) -> bool:
    """True when the last digit is the Verhoeff check digit of the rest. O(len)."""
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _D[c][_P[i % 8][int(ch)]]
    return c == 0


def luhn_valid(digits: str) -> bool:
    """True when the last digit is the mod-10 (Luhn) check digit of the rest, as LOINC uses. O(len)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def code_problem(system: str, code: str) -> str | None:
    """Why ``code`` is not a well-formed ``system`` code, or None when it is."""
    fmt = _FORMAT.get(system)
    if fmt is None:
        return f"unknown code system {system!r}"
    if not fmt.match(code):
        return f"{code!r} is not a well-formed {system} code"
    if system == "SNOMED-CT":
        if not verhoeff_valid(code):
            return f"{code!r} fails the SNOMED CT Verhoeff check digit"
        if code[-3:-1] not in ("00", "10"):
            return f"{code!r} is a SNOMED CT identifier but not a concept id (partition {code[-3:-1]})"
    if system == "LOINC" and not luhn_valid(code.replace("-", "")):
        return f"{code!r} fails the LOINC mod-10 check digit"
    if system == "ICD-10-CM":
        import simple_icd_10_cm as icd

        if not icd.is_valid_item(code):
            return f"{code!r} is not in the ICD-10-CM code set"
    return None
