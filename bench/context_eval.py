#!/usr/bin/env python3
"""Budgeted context and the query layer, measured.

1. Extractive coverage (``graphkit.context.evaluate``): MTS-Dialog (dialogue → one note section) and
   ACI-Bench (dialogue → full visit note), budgets 128–2048 tokens (all-MiniLM-L6-v2 tokenizer); for
   lead, random, mmr, rcd, router (thresholds calibrated on the TRAIN splits), oracle (best selector
   per budget on the evaluation split), cptf_fast (MiniLM attention), cptf_gemma (Gemma 3 270M, the
   default CPTF model; on the first --gemma ACI dialogues), cptf_rcd (RCD at twice the budget, then
   CPTF-MiniLM), and on ACI-Bench the ablations cptf_*_received (attention received from all content
   queries instead of the task's): ROUGE-1/2/L recall and F1 against the reference. Relevance comes
   from the task (the parts a note asks for, or the requested section), never from the reference;
   selector settings and CPTF's defaults were chosen on ACI-Bench train.
2. Protected spans kept by CPTF at 50 % retention, and CPTF throughput (tokens/s, after warm-up).
3. Packing: ms to pack one patient's prompt (2,048 tokens) from its graph context, warm caches,
   excluding model calls; median over the demo cohort (needs ``graphkit demo``; skipped otherwise).
4. Citation validity: the share of citations written in stored recommendations that resolve to graph
   nodes (CITES links), after ``graphkit recommend --all`` on the demo cohort (run here).

Last line JSON: protected_spans_kept, cptf_fast_tokens_per_s, cptf_gemma_tokens_per_s,
router_gap_to_oracle, citation_validity, pack_ms_per_patient (and read_and_pack_ms_per_patient), table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log  # noqa: E402
from graphkit.align.embed import TextEmbedder  # noqa: E402
from graphkit.context.evaluate import evaluate_context  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def query_layer(embedder) -> tuple[float | None, float | None, float | None, int]:
    """(median pack ms, median read + pack ms, citation validity, patients) over the demo cohort, or
    Nones without a graph."""
    from graphkit.context.pack import pack
    from graphkit.context.subgraph import load_context
    from graphkit.context.tokens import token_counter
    from graphkit.errors import GraphkitError
    from graphkit.recommend import recommend_patient
    from graphkit.store import GraphStore

    try:
        store = GraphStore.connect()
    except GraphkitError as exc:
        log(f"no graph ({exc.message}): packing and citation figures skipped")
        return None, None, None, 0
    with store:
        patients = [r["patient"] for r in store.read("context.aligned_patients")]
        if not patients:
            log("no aligned patients: run `graphkit demo` first")
            return None, None, None, 0
        counter = token_counter("minilm")
        for pid in patients:  # warm-up: embeddings of every note sentence cached
            pack(load_context(store, pid), counter, embedder)
        times, with_read = [], []
        for pid in patients:
            t = time.perf_counter()
            times.append(pack(load_context(store, pid), counter, embedder).ms)
            with_read.append((time.perf_counter() - t) * 1000)  # the subgraph read from Neo4j included
        cited = resolved = 0
        for pid in patients:
            rec = recommend_patient(store, pid, embedder)
            cited += len(rec.citations) + len(rec.unknown)
            resolved += len(rec.citations)
        stored = store.read("context.citation_validity")[0]
        log(f"packing: median {statistics.median(times):.1f} ms ({statistics.median(with_read):.1f} ms with the "
            f"graph read) over {len(patients)} patients; "
            f"citations {resolved}/{cited} resolve; stored recommendations {stored}")
    return (round(statistics.median(times), 1), round(statistics.median(with_read), 1),
            (round(resolved / cited, 4) if cited else None), len(patients))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--mts-calibration", type=int, default=300, help="MTS train dialogues for the router")
    ap.add_argument("--gemma", type=int, default=20, help="ACI dialogues for CPTF-Gemma (0: skip)")
    ap.add_argument("--no-cptf", action="store_true")
    ap.add_argument("--no-ablations", action="store_true", help="skip the CPTF rows in the other importance mode")
    args = ap.parse_args()
    embedder = TextEmbedder()
    fast = gemma = None
    if not args.no_cptf:
        from graphkit.context.cptf import CPTF, CPTFConfig

        fast = CPTF(CPTFConfig(model="minilm"))
        fast.filter("warm up the model once", ratio=0.5)
        if args.gemma:
            gemma = CPTF(CPTFConfig(model="gemma"))
    result = evaluate_context(args.data, embedder, mts_calibration=args.mts_calibration, cptf_fast=fast,
                              cptf_gemma=gemma, gemma_docs=args.gemma, ablations=not args.no_ablations, log=log)
    embedder.save()
    pack_ms, read_pack_ms, validity, patients = query_layer(embedder)
    embedder.save()
    emit({"protected_spans_kept": result["protected_spans_kept"],
          "cptf_fast_tokens_per_s": result["cptf_fast_tokens_per_s"],
          "cptf_gemma_tokens_per_s": result["cptf_gemma_tokens_per_s"],
          "router_gap_to_oracle": result["router_gap_to_oracle"], "citation_validity": validity,
          "pack_ms_per_patient": pack_ms, "read_and_pack_ms_per_patient": read_pack_ms, "patients": patients, "router": result["router"], "cptf": result["cptf"],
          "table": result["tables"]})


if __name__ == "__main__":
    main()
