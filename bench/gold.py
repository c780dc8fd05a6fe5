"""Gold mention sets: load, locate offsets, validate, merge parts and assign splits.

Gold records name each mention by its exact text and occurrence (see the annotation guidelines in
``bench/data/oncology`` and ``bench/data/clinical_ner``); this module turns them into character spans.

    python bench/gold.py check bench/data/oncology/parts/*.jsonl
    python bench/gold.py merge-oncology           # parts -> oncology_gold.jsonl with a seeded test split
"""

from __future__ import annotations

import csv
import json
import random
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = Path(__import__("os").environ.get("GRAPHKIT_SHARED_DATA", HERE.parent.parent / "shared" / "data"))

ONCOLOGY_KINDS = {"cancer", "stage", "biomarker", "treatment", "test", "problem"}
CLINICAL_KINDS = {"problem", "medication", "procedure", "test"}
ASSERTIONS = {"present", "negated", "possible", "historical", "family", "planned"}
MARKER_STATUS = {
    "ER": {"positive", "negative"}, "PR": {"positive", "negative"}, "HR": {"positive", "negative"},
    "HER2": {"positive", "equivocal", "negative", "mutated", "wild-type"},
    "EGFR": {"mutated", "wild-type"}, "KRAS": {"mutated", "wild-type"}, "BRAF": {"mutated", "wild-type"},
    "MET": {"mutated", "wild-type", "positive", "negative"},
    "ALK": {"positive", "negative"}, "ROS1": {"positive", "negative"}, "RET": {"positive", "negative"},
    "NTRK": {"positive", "negative"}, "PD-L1": {"high", "low", "negative", "positive"},
    "MSI": {"high", "low", "stable"}, "MMR": {"deficient", "proficient"},
    "BRCA1": {"mutated", "wild-type"}, "BRCA2": {"mutated", "wild-type"},
}
ANY_STATUS = {"pending", "invalid"}
_STAGE_GROUP = re.compile(r"^(0|I|II|III|IV)([ABC]\d?)?$")
_TNM = re.compile(r"^(c|p|yp|r|yc)?(T(?:x|X|is|[0-4](?:mi|[a-d])?)(?:N(?:x|X|[0-3](?:mi|[a-c])?))?(?:M[01][a-c]?)?"
                  r"|N(?:x|X|[0-3](?:mi|[a-c])?)|M[01][a-c]?)$")


@dataclass
class GoldMention:
    start: int
    end: int
    text: str
    kind: str
    assertion: str
    values: tuple[str, ...] = ()
    code: str | None = None
    detail: dict = field(default_factory=dict)
    normalized: str | None = None


@dataclass
class GoldNote:
    id: str
    text: str
    split: str
    mentions: list[GoldMention]
    meta: dict = field(default_factory=dict)


def locate(text: str, needle: str, occurrence: int) -> tuple[int, int] | None:
    """Offsets of the ``occurrence``-th (1-based) exact occurrence of ``needle``; None if absent."""
    pos = -1
    for _ in range(occurrence):
        pos = text.find(needle, pos + 1)
        if pos < 0:
            return None
    return pos, pos + len(needle)


@cache
def _csv_rows(source: str) -> dict[str, str]:
    csv.field_size_limit(sys.maxsize)
    path = SHARED / source
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if "note" in rows[0]:
        return {r["encounter_id"]: r["note"] for r in rows}
    return {r["ID"]: r["section_text"] for r in rows}


def source_text(source: str, record: str) -> str:
    """The note text of an ACI-Bench (``note``) or MTS-Dialog (``section_text``) record."""
    return _csv_rows(source)[str(record)]


@cache
def doid_terms() -> dict[str, str]:
    out: dict[str, str] = {}
    for name in ("DO_NCIthesaurus_subset.obo", "DO_cancer_slim.obo"):
        term = None
        for line in (SHARED / "ontology" / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("id: DOID:"):
                term = line[4:]
            elif line.startswith("alt_id: DOID:") and term:
                out.setdefault(line[8:], term)
            elif line.startswith("name: ") and term:
                out.setdefault(term, line[6:])
    return out


def problems(record: dict, oncology: bool) -> list[str]:
    """Every rule of the guideline the record breaks (empty when it is valid)."""
    out = []
    text = record.get("text") if oncology else source_text(record["source"], record["record"])
    kinds = ONCOLOGY_KINDS if oncology else CLINICAL_KINDS
    rid = record.get("id") or f"{record.get('source')}#{record.get('record')}"
    for i, m in enumerate(record.get("mentions", [])):
        where = f"{rid} mention {i} {m.get('text')!r}"
        if locate(text, m.get("text", ""), int(m.get("occurrence", 1))) is None or not m.get("text"):
            out.append(f"{where}: text not found (occurrence {m.get('occurrence', 1)})")
        if m.get("kind") not in kinds:
            out.append(f"{where}: kind {m.get('kind')!r} not in {sorted(kinds)}")
        if m.get("assertion") not in ASSERTIONS or (not oncology and m.get("assertion") == "planned"):
            out.append(f"{where}: assertion {m.get('assertion')!r}")
        for v in m.get("values") or []:
            if m.get("kind") == "biomarker" or (m.get("kind") == "problem" and "=" in v):
                marker, _, status = v.partition("=")
                if m.get("kind") == "problem":
                    if marker not in ("ECOG", "KPS"):
                        out.append(f"{where}: problem value {v!r}")
                elif marker not in MARKER_STATUS or status not in MARKER_STATUS[marker] | ANY_STATUS:
                    out.append(f"{where}: biomarker value {v!r}")
            elif m.get("kind") == "stage":
                if not (v == "invalid" or _STAGE_GROUP.match(v) or _TNM.match(v)):
                    out.append(f"{where}: stage value {v!r}")
        code = m.get("code")
        if code and code.startswith("DOID:") and code not in doid_terms():
            out.append(f"{where}: {code} is not in the Disease Ontology files")
        if code and not re.match(r"^(DOID:\d+|RXNORM:\d+|regimen:[A-Z0-9\-+/ ]+|SNOMED:\d+|ICD10CM:[A-Z]\d[\dA-Z.]*)$", code):
            out.append(f"{where}: malformed code {code!r}")
        if oncology and m.get("kind") == "cancer" and not code and not m.get("no_code_reason") \
                and not re.search(r"in situ|\bDCIS\b|\bLCIS\b", m.get("text", ""), re.I):
            # a carcinoma in situ has no term in the Disease Ontology cancer subsets: its code is not scored
            out.append(f"{where}: a cancer needs a DOID code")
    return out


def load(path: Path, oncology: bool | None = None) -> list[GoldNote]:
    """Gold notes with offsets. Raises ValueError listing every invalid mention."""
    notes, errors = [], []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        onc = oncology if oncology is not None else "text" in rec
        errors += problems(rec, onc)
        text = rec["text"] if onc else source_text(rec["source"], rec["record"])
        mentions = []
        for m in rec["mentions"]:
            span = locate(text, m["text"], int(m.get("occurrence", 1)))
            if span:
                mentions.append(GoldMention(span[0], span[1], m["text"], m["kind"], m["assertion"],
                                            tuple(m.get("values") or ()), m.get("code"), m.get("detail") or {},
                                            m.get("normalized")))
        nid = rec.get("id") or f"{rec['source']}#{rec['record']}"
        notes.append(GoldNote(nid, text, rec.get("split", "dev"), mentions,
                              {k: v for k, v in rec.items() if k not in ("text", "mentions")}))
    if errors:
        raise ValueError(f"{path}: {len(errors)} invalid mentions, e.g.\n  " + "\n  ".join(errors[:20]))
    return notes


def merge_oncology(parts: list[Path], out: Path, seed: int = 14, test_fraction: float = 1 / 3) -> dict:
    """Concatenate the parts, then mark a seeded third of each cancer's notes ``test``."""
    records = [json.loads(x) for p in parts for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
    by_cancer: dict[str, list[dict]] = {}
    for r in records:
        by_cancer.setdefault(r["cancer"], []).append(r)
    rng = random.Random(seed)
    for group in by_cancer.values():
        group.sort(key=lambda r: r["id"])
        test = set(rng.sample([r["id"] for r in group], round(len(group) * test_fraction)))
        for r in group:
            r["split"] = "test" if r["id"] in test else "dev"
    records.sort(key=lambda r: r["id"])
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return {c: {"dev": sum(r["split"] == "dev" for r in g), "test": sum(r["split"] == "test" for r in g)}
            for c, g in by_cancer.items()}


def main(argv: list[str]) -> int:
    if argv and argv[0] == "check":
        bad = 0
        for p in argv[1:]:
            first = next((json.loads(x) for x in Path(p).read_text(encoding="utf-8").splitlines() if x.strip()), {})
            onc = "text" in first
            recs = [json.loads(x) for x in Path(p).read_text(encoding="utf-8").splitlines() if x.strip()]
            errs = [e for r in recs for e in problems(r, onc)]
            n = sum(len(r["mentions"]) for r in recs)
            print(f"{p}: {len(recs)} notes, {n} mentions, {len(errs)} problems")
            for e in errs[:50]:
                print("  " + e)
            bad += len(errs)
        return 1 if bad else 0
    if argv and argv[0] == "merge-oncology":
        parts = sorted((HERE / "data" / "oncology" / "parts").glob("*.jsonl"))
        print(merge_oncology(parts, HERE / "data" / "oncology" / "oncology_gold.jsonl"))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
