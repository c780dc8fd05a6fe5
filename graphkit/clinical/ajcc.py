"""AJCC 8th edition anatomic stage groups for breast, lung and colorectal cancer, as data.

Each table maps (T, N, M) category patterns to a stage group; :func:`derive_group` returns a group only
when every row that matches gives the same group (an unambiguous derivation), else None. Sources: AJCC
Cancer Staging Manual, 8th ed. (2017), as summarized in the NCI PDQ treatment summaries (breast: anatomic
stage table; lung: Table 3 of the PDQ NSCLC summary; colon/rectum: PDQ colon and rectal summaries).
Breast's *prognostic* stage also needs grade, ER, PR and HER2: what is derived here is the anatomic group,
and callers say so.
"""

from __future__ import annotations

# A pattern is a set of categories; "T1" in a pattern matches T1, T1mi, T1a, T1b, T1c (prefix match).
_Row = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str]

BREAST: tuple[_Row, ...] = (
    (("Tis",), ("N0",), ("M0",), "0"),
    (("T1",), ("N0",), ("M0",), "IA"),
    (("T0", "T1"), ("N1mi",), ("M0",), "IB"),
    (("T0", "T1"), ("N1",), ("M0",), "IIA"),
    (("T2",), ("N0",), ("M0",), "IIA"),
    (("T2",), ("N1",), ("M0",), "IIB"),
    (("T3",), ("N0",), ("M0",), "IIB"),
    (("T0", "T1", "T2"), ("N2",), ("M0",), "IIIA"),
    (("T3",), ("N1", "N2"), ("M0",), "IIIA"),
    (("T4",), ("N0", "N1", "N2"), ("M0",), "IIIB"),
    (("T0", "T1", "T2", "T3", "T4", "Tis"), ("N3",), ("M0",), "IIIC"),
    (("T",), ("N",), ("M1",), "IV"),
)

LUNG: tuple[_Row, ...] = (
    (("Tis",), ("N0",), ("M0",), "0"),
    (("T1mi", "T1a"), ("N0",), ("M0",), "IA1"),
    (("T1b",), ("N0",), ("M0",), "IA2"),
    (("T1c",), ("N0",), ("M0",), "IA3"),
    (("T2a",), ("N0",), ("M0",), "IB"),
    (("T2b",), ("N0",), ("M0",), "IIA"),
    (("T1", "T2"), ("N1",), ("M0",), "IIB"),
    (("T3",), ("N0",), ("M0",), "IIB"),
    (("T1", "T2"), ("N2",), ("M0",), "IIIA"),
    (("T3",), ("N1",), ("M0",), "IIIA"),
    (("T4",), ("N0", "N1"), ("M0",), "IIIA"),
    (("T1", "T2"), ("N3",), ("M0",), "IIIB"),
    (("T3", "T4"), ("N2",), ("M0",), "IIIB"),
    (("T3", "T4"), ("N3",), ("M0",), "IIIC"),
    (("T",), ("N",), ("M1a", "M1b"), "IVA"),
    (("T",), ("N",), ("M1c",), "IVB"),
)

COLORECTAL: tuple[_Row, ...] = (
    (("Tis",), ("N0",), ("M0",), "0"),
    (("T1", "T2"), ("N0",), ("M0",), "I"),
    (("T3",), ("N0",), ("M0",), "IIA"),
    (("T4a",), ("N0",), ("M0",), "IIB"),
    (("T4b",), ("N0",), ("M0",), "IIC"),
    (("T1", "T2"), ("N1",), ("M0",), "IIIA"),
    (("T1",), ("N2a",), ("M0",), "IIIA"),
    (("T3", "T4a"), ("N1",), ("M0",), "IIIB"),
    (("T2", "T3"), ("N2a",), ("M0",), "IIIB"),
    (("T1", "T2"), ("N2b",), ("M0",), "IIIB"),
    (("T4a",), ("N2a",), ("M0",), "IIIC"),
    (("T3", "T4a"), ("N2b",), ("M0",), "IIIC"),
    (("T4b",), ("N1", "N2"), ("M0",), "IIIC"),
    (("T",), ("N",), ("M1a",), "IVA"),
    (("T",), ("N",), ("M1b",), "IVB"),
    (("T",), ("N",), ("M1c",), "IVC"),
)

TABLES = {"breast": BREAST, "lung": LUNG, "colorectal": COLORECTAL}


def _matches(value: str | None, pattern: tuple[str, ...]) -> bool | None:
    """True/False when ``value`` decides the pattern; None when it is missing or X and the pattern is
    not a wildcard ("T", "N": any category)."""
    if pattern in (("T",), ("N",)):
        return True
    if value is None or value[1:] in ("x", "X"):
        return None
    # N1mi (breast) is its own category, not an N1; T1mi is one of the T1s
    return any(value.startswith(p) and not (value.startswith("N") and value.endswith("mi") and not p.endswith("mi"))
               for p in pattern)


def derive_group(site: str, t: str | None, n: str | None, m: str | None) -> str | None:
    """The AJCC 8 anatomic stage group of (T, N, M) for ``site`` ("breast" | "lung" | "colorectal"),
    or None when the categories leave it open (a missing or X category that matters, or no row).
    A missing M is read as M0 when T and N are both known (a resection specimen's TNM rarely states M;
    callers record that the group is derived). Categories are given without prefix ("T2", "N1a"). O(rows)."""
    table = TABLES.get(site)
    if table is None:
        return None
    if m is None and t is not None and n is not None:
        m = "M0"
    groups = set()
    for tp, np_, mp, group in table:
        checks = [_matches(t, tp), _matches(n, np_), _matches(m, mp)]
        if False in checks:
            continue
        if None in checks:
            return None  # an unknown category could put it in this row or another
        groups.add(group)
    return groups.pop() if len(groups) == 1 else None
