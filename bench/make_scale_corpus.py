#!/usr/bin/env python3
"""A scale corpus in MIMIC-IV-Note layout (``discharge.csv.gz``), made offline and reproducibly.

Templates: the clinician-written notes of ACI-Bench (train + valid) and MTS-Dialog (section texts), the
hand-written oncology notes of ``bench/data/oncology`` and the vignettes. Each generated note is one
template with its names, ages, dates, doses and lab values substituted by seeded random ones, so no
two notes are identical and nothing is copied verbatim at scale; patients get 1-12 admissions each.
The files are not committed: this command makes them.

    python bench/make_scale_corpus.py --notes 100000 --out /tmp/scale    # writes discharge.csv.gz
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import json
import random
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.gold import SHARED  # noqa: E402

HERE = Path(__file__).resolve().parent
FIRST = ("Maria James Linda Robert Patricia John Jennifer Michael Elizabeth David Barbara William Susan Richard "
         "Jessica Joseph Sarah Thomas Karen Charles Nancy Daniel Lisa Matthew Betty Anthony Sandra Mark").split()
LAST = ("Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson "
        "Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Lewis").split()
_NAME = re.compile(r"\b(?:Mr\.|Mrs\.|Ms\.|Dr\.)\s+[A-Z][a-z]+|\b[A-Z][a-z]+ [A-Z][a-z]+(?= is a)")
_AGE = re.compile(r"\b(\d{2})(?=[- ](?:year|yo\b|y/o|M\b|F\b|male|female))")
_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b")
_NUM = re.compile(r"\b(\d{2,3})(\s?(?:mg|mL|mmHg|%|units))\b")


def templates() -> list[str]:
    csv.field_size_limit(10**8)
    out = []
    for split in ("train", "valid"):
        with open(SHARED / "aci-bench" / f"{split}.csv", newline="", encoding="utf-8") as f:
            out += [r["note"] for r in csv.DictReader(f)]
        with open(SHARED / "mts-dialog" / f"{split}.csv", newline="", encoding="utf-8") as f:
            out += [f"{r['section_header'].upper()}: {r['section_text']}" for r in csv.DictReader(f)
                    if len(r["section_text"]) > 200]
    for line in (HERE / "data" / "oncology" / "oncology_gold.jsonl").read_text().splitlines():
        if line.strip():
            out.append(json.loads(line)["text"])
    for path in sorted((HERE / "data" / "vignettes").glob("*.yaml")):
        out += [n["text"] for v in yaml.safe_load(path.read_text()) for n in v["notes"]]
    return out


def vary(text: str, rng: random.Random) -> str:
    """New names, ages, dates and numbers in one template (seeded)."""
    text = _NAME.sub(lambda m: (m.group().split()[0] + " " + rng.choice(LAST)) if m.group().endswith(".")
                     or m.group().split()[0] in ("Mr.", "Mrs.", "Ms.", "Dr.")
                     else f"{rng.choice(FIRST)} {rng.choice(LAST)}", text)
    text = _AGE.sub(lambda m: str(max(18, min(95, int(m.group(1)) + rng.randint(-8, 8)))), text)
    text = _DATE.sub(lambda m: f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.choice(('2019', '2021', '2023'))}", text)
    return _NUM.sub(lambda m: f"{max(1, int(int(m.group(1)) * rng.uniform(0.8, 1.2)))}{m.group(2)}", text)


def write_corpus(out: Path, notes: int, seed: int = 17) -> Path:
    rng = random.Random(seed)
    base = templates()
    out.mkdir(parents=True, exist_ok=True)
    path = out / "discharge.csv.gz"
    start = dt.datetime(2015, 1, 1)
    with gzip.open(path, "wt", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"])
        n = subject = 0
        while n < notes:
            subject += 1
            when = start + dt.timedelta(days=rng.randint(0, 3000))
            for k in range(rng.randint(1, 12)):
                if n >= notes:
                    break
                when += dt.timedelta(days=rng.randint(20, 200))
                hadm = 20_000_000 + subject * 20 + k
                text = vary(rng.choice(base), rng)
                w.writerow([f"{10_000_000 + subject}-DS-{k + 1}", 10_000_000 + subject, hadm, "DS", k + 1,
                            when.strftime("%Y-%m-%d %H:%M:%S"), (when + dt.timedelta(hours=6)).strftime("%Y-%m-%d %H:%M:%S"),
                            text])
                n += 1
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=100_000)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    path = write_corpus(args.out, args.notes, args.seed)
    print(json.dumps({"file": str(path), "notes": args.notes, "bytes": path.stat().st_size}))


if __name__ == "__main__":
    main()
