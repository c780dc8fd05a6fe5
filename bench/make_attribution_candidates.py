"""Attribution candidates for labelling: every (summary claim, cited source sentence) pair that
``graphkit summary`` would check, for the vignette patients of the named splits, as of each vignette's
evaluation date. The pairs are what production checks (a claim and the evidence sentence of the event
it states), so a labelled set built from them measures the check on its real input.

Run after ``bench/recommend_eval.py --split S`` has ingested the split. Writes one JSON line per pair
(id, split, patient, claim, sentence, sentence_id); labels are written separately, blind, by a person
who sees only the claim and the sentence (``labels*.jsonl``: id, supports, note).

    python bench/make_attribution_candidates.py --split holdout5 --split holdout6 \\
        --out bench/data/attribution/holdout_candidates.jsonl --prefix h
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench._common import log  # noqa: E402
from bench.recommend_eval import load_vignettes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", action="append", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--prefix", default="h", help="id prefix of the pairs")
    args = ap.parse_args()

    import datetime as dt

    from graphkit.documents.summary import claims_from
    from graphkit.reason.job import load_guideline_specs, reason_about
    from graphkit.state.io import load_facts
    from graphkit.store import GraphStore

    store = GraphStore.connect()
    guidelines = load_guideline_specs(store)
    vignettes = [v for v in load_vignettes() if v["split"] in args.split]
    rows = []
    for v in vignettes:
        pid = f"vig-{v['id']}"
        at = v["at"] if isinstance(v["at"], dt.date) else dt.date.fromisoformat(str(v["at"]))
        facts = load_facts(store, [pid]).get(pid, [])
        claims = claims_from(reason_about(pid, facts, guidelines, at))
        events = sorted({e for c in claims for e in c.events})
        ev_sent = {r["event"]: (r["sentence"], r["text"]) for r in store.read("documents.event_sentences", ids=events)}
        seen = set()
        for c in claims:
            for ev in c.events:
                if ev in ev_sent and (c.text, ev_sent[ev][0]) not in seen:
                    seen.add((c.text, ev_sent[ev][0]))
                    rows.append({"split": v["split"], "patient": pid, "claim": c.text, "sentence": ev_sent[ev][1],
                                 "sentence_id": ev_sent[ev][0]})
    with args.out.open("w") as fh:
        for k, r in enumerate(rows):
            fh.write(json.dumps({"id": f"{args.prefix}{k:03d}", **r}) + "\n")
    log(f"{len(rows)} pairs from {len(vignettes)} patients -> {args.out}")


if __name__ == "__main__":
    main()
