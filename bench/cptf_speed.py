#!/usr/bin/env python3
"""CPTF speed and protected-span retention on ACI-Bench dialogues.

Measured, on the first ``--notes`` dialogues (column ``dialogue``) of the ACI-Bench validation split:

- cptf_fast_tokens_per_s: model tokens filtered per second by the MiniLM backend (``CPTF.filter`` at
  ``--ratio``: windows, attention, word selection), after one warm-up call so model loading and
  first-call overheads are excluded;
- cptf_gemma_tokens_per_s: the same for Gemma 3 270M on the first ``--gemma-notes`` dialogues, after
  its load and a short warm-up (``--skip-gemma`` leaves it out: null). Load time goes to stderr;
- protected_spans_kept: protected words kept / protected words, over every filtered note (must be 1.0);
- notes, tokens: dialogues and MiniLM tokens in the fast run.

Only numbers are printed: never note text. Usage:
python bench/cptf_speed.py [--data PATH] [--notes 10] [--gemma-notes 10] [--skip-gemma]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log, ratio  # noqa: E402
from graphkit.context.cptf import CPTF, CPTFConfig, FilterResult  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "aci-bench" / "valid.csv"


def load_dialogues(path: Path, n: int) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        rows = [r["dialogue"] for r in csv.DictReader(f)]
    return rows[:n]


def run(cptf: CPTF, notes: list[str], ratio_: float) -> tuple[float, int, list[FilterResult]]:
    """Seconds and input tokens to filter ``notes``, and the results."""
    t0 = time.perf_counter()
    results = [cptf.filter(text, ratio=ratio_) for text in notes]
    return time.perf_counter() - t0, sum(r.tokens_in for r in results), results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="ACI-Bench CSV with a 'dialogue' column")
    ap.add_argument("--notes", type=int, default=10, help="dialogues for the MiniLM run")
    ap.add_argument("--gemma-notes", type=int, default=10, help="dialogues for the Gemma run")
    ap.add_argument("--skip-gemma", action="store_true", help="MiniLM only")
    ap.add_argument("--ratio", type=float, default=0.5, help="CPTF keep ratio")
    args = ap.parse_args()
    if not args.data.is_file():
        sys.exit(f"no ACI-Bench CSV at {args.data}: pass --data")
    notes = load_dialogues(args.data, max(args.notes, args.gemma_notes))
    fast_notes = notes[:args.notes]

    fast = CPTF(CPTFConfig(model="minilm"))
    t0 = time.perf_counter()
    fast.filter(fast_notes[0], ratio=args.ratio)  # warm-up: model load and first-call overheads
    log(f"minilm loaded + warm-up in {time.perf_counter() - t0:.1f} s")
    secs, tokens, results = run(fast, fast_notes, args.ratio)
    fast_tps = tokens / secs
    log(f"minilm: {len(fast_notes)} notes, {tokens} tokens in {secs:.2f} s = {fast_tps:.0f} tokens/s")

    gemma_tps = None
    all_results = list(results)
    if not args.skip_gemma:
        gemma = CPTF(CPTFConfig(model="gemma"))
        t0 = time.perf_counter()
        gemma.count_tokens("warm")
        log(f"gemma loaded in {time.perf_counter() - t0:.1f} s")
        gemma.filter(" ".join(notes[0].split()[:64]), ratio=args.ratio)  # a short warm-up pass
        g_secs, g_tokens, g_results = run(gemma, notes[:args.gemma_notes], args.ratio)
        gemma_tps = g_tokens / g_secs
        all_results += g_results
        log(f"gemma: {args.gemma_notes} notes, {g_tokens} tokens in {g_secs:.2f} s = {gemma_tps:.0f} tokens/s")

    kept = sum(r.protected_kept for r in all_results)
    total = sum(r.protected_total for r in all_results)
    kept_tokens = sum(r.tokens_out for r in results)
    log(f"protected words kept {kept}/{total}; minilm kept {kept_tokens}/{tokens} tokens; "
        f"over budget in {sum(r.over_budget for r in all_results)} notes")
    emit({"cptf_fast_tokens_per_s": round(fast_tps, 1),
          "cptf_gemma_tokens_per_s": round(gemma_tps, 1) if gemma_tps is not None else None,
          "protected_spans_kept": ratio(kept, total),
          "notes": len(fast_notes), "tokens": tokens,
          "gemma_notes": 0 if args.skip_gemma else args.gemma_notes, "ratio": args.ratio,
          "kept_token_fraction": ratio(kept_tokens, tokens)})


if __name__ == "__main__":
    main()
