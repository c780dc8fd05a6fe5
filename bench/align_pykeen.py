#!/usr/bin/env python3
"""Does a knowledge-graph embedding (PyKEEN) help the trajectory-guideline aligner?

In the spirit of ConTextual App. C (link-prediction evaluation of a merged KG), the merged graph is
flattened into (head, relation, tail) triples, with node ids as entity labels:

- event  -INSTANCE_OF-> concept   (events asserted present / historical only; concept = system:code)
- event  -NEXT->        event     (per-patient temporal chain)
- step   -NEXT->        step      (guideline flow)
- step   -CODED_AS->    concept
- event  -ALIGNED_TO->  step      (the newest AlignmentRun, primary and support roles)

Two measurements:

1. link_prediction: the triples are split 80/10/10 (fixed seed); a model (TransE by default) is
   trained on 80 % and scored on the test 10 % with PyKEEN's filtered, both-sided, realistic rank
   (MRR and Hits@10 against every entity).
2. aligned_to_heldout: the ALIGNED_TO triples of 30 % of the patients (fixed seed) are withheld;
   everything else (their events' codes and NEXT chain included) stays in training. For each
   withheld (event, step) pair the model ranks the steps of that patient's guideline as tails of
   (event, ALIGNED_TO, ?); Hits@1 / MRR of the aligner's step. The baseline on the same pairs ranks
   steps by how often the event's concept codes were aligned to them in the training pairs (ties and
   uncoded events: the step's overall training frequency).

Caveat: ALIGNED_TO is the aligner's own output, not a gold standard. Measurement 2 asks whether the graph
structure can reproduce the aligner's decisions, not whether either is clinically right.

Needs the demo graph with at least one alignment run (``graphkit demo``) and ``pip install pykeen``.
Usage: python bench/align_pykeen.py [--model TransE] [--dim 64] [--epochs 60]
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import emit, log, ratio  # noqa: E402
from graphkit.store import GraphStore  # noqa: E402

ASSERTIONS = ["present", "historical"]
REL_ALIGNED = "ALIGNED_TO"


def concept_label(system: str, code: str) -> str:
    # Concepts carry no id of their own; (system, code) is their identity in the graph.
    return f"{system}:{code}"


def fetch_graph(store: GraphStore) -> dict:
    """Everything the bench needs from Neo4j, as plain rows."""
    run = store.read("bench.pykeen_newest_run")
    if not run:
        raise SystemExit("no AlignmentRun in the graph: run the aligner (graphkit demo) first")
    run_id = run[0]["id"]
    return {
        "run": run_id,
        "instance_of": store.read("bench.pykeen_instance_of", assertions=ASSERTIONS),
        "event_next": store.read("bench.pykeen_event_next"),
        "steps": store.read("bench.pykeen_steps"),
        "step_next": store.read("bench.pykeen_step_next"),
        "coded_as": store.read("bench.pykeen_coded_as"),
        "aligned": store.read("bench.pykeen_aligned_to", run=run_id),
    }


def build_triples(g: dict) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(structural triples, ALIGNED_TO triples), deduplicated and in a stable order."""
    structural = {(r["event"], "INSTANCE_OF", concept_label(r["system"], r["code"])) for r in g["instance_of"]}
    structural |= {(r["head"], "NEXT", r["tail"]) for r in g["event_next"]}
    structural |= {(r["head"], "NEXT", r["tail"]) for r in g["step_next"]}
    structural |= {(r["step"], "CODED_AS", concept_label(r["system"], r["code"])) for r in g["coded_as"]}
    aligned = {(r["event"], REL_ALIGNED, r["step"]) for r in g["aligned"]}
    return sorted(structural), sorted(aligned)


def realistic_rank(scores: np.ndarray, true_idx: int) -> float:
    """Expected rank of the true candidate under random tie-breaking (PyKEEN's 'realistic' rank)."""
    t = scores[true_idx]
    optimistic = 1 + int((scores > t).sum())
    pessimistic = int((scores >= t).sum())
    return (optimistic + pessimistic) / 2


def train(args, training, testing, validation=None):
    """One PyKEEN pipeline run with the bench's fixed, CPU-sized settings."""
    from pykeen.pipeline import pipeline

    return pipeline(
        training=training, testing=testing, validation=validation,
        model=args.model, model_kwargs={"embedding_dim": args.dim},
        optimizer="Adam", optimizer_kwargs={"lr": args.lr},
        negative_sampler="basic", negative_sampler_kwargs={"num_negs_per_pos": args.negs},
        epochs=args.epochs, training_kwargs={"batch_size": args.batch_size, "use_tqdm": False},
        # An explicit batch size: PyKEEN's automatic search falls back to 32 on CPU, which is slow.
        evaluation_kwargs={"batch_size": 256, "use_tqdm": False},
        random_seed=args.seed, device="cpu", use_tqdm=False,
    )


def both_realistic(result) -> tuple[float, float]:
    mr = result.metric_results
    return (float(mr.get_metric("both.realistic.inverse_harmonic_mean_rank")),
            float(mr.get_metric("both.realistic.hits_at_10")))


def link_prediction(args, triples: np.ndarray) -> dict:
    from pykeen.triples import TriplesFactory

    tf = TriplesFactory.from_labeled_triples(triples)
    train_tf, valid_tf, test_tf = tf.split([0.8, 0.1, 0.1], random_state=args.seed)
    log(f"link prediction: {train_tf.num_triples} train / {valid_tf.num_triples} valid / "
        f"{test_tf.num_triples} test triples; training {args.model} dim={args.dim} epochs={args.epochs}")
    t0 = time.perf_counter()
    result = train(args, train_tf, test_tf, valid_tf)
    mrr, h10 = both_realistic(result)
    log(f"link prediction: MRR={mrr:.4f} Hits@10={h10:.4f} ({time.perf_counter() - t0:.1f} s)")
    return {"model": args.model, "mrr": round(mrr, 4), "hits_at_10": round(h10, 4)}


def frequency_scores(events: list[str], candidates: list[str], codes_of: dict[str, set[str]],
                     by_code: dict[str, Counter], overall: Counter) -> np.ndarray:
    """Baseline scores per (held-out event, candidate step): code votes first, overall frequency as tie-break."""
    # Lexicographic (votes, overall) packed into one number, so realistic_rank handles both levels.
    scale = max(overall.values(), default=0) + 1
    out = np.zeros((len(events), len(candidates)))
    for i, ev in enumerate(events):
        votes = Counter()
        for c in codes_of.get(ev, ()):
            votes.update(by_code.get(c, {}))
        out[i] = [votes[s] * scale + overall[s] for s in candidates]
    return out


def aligned_heldout(args, structural: list, aligned: list, g: dict) -> dict:
    from pykeen.triples import TriplesFactory

    patient_of = {r["event"]: r["patient"] for r in g["aligned"]}
    guideline_of = {r["event"]: r["guideline"] for r in g["aligned"]}
    role_of = {r["event"]: r["role"] for r in g["aligned"]}
    patients = sorted(set(patient_of.values()))
    held_patients = set(random.Random(args.seed).sample(patients, max(1, round(args.heldout * len(patients)))))
    train_al = [t for t in aligned if patient_of[t[0]] not in held_patients]
    test_al = [t for t in aligned if patient_of[t[0]] in held_patients]

    # One id space over every entity and every guideline step (even ones no triple mentions), so
    # held-out events keep the embeddings their codes / NEXT chain give them and every candidate step
    # has a row to score.
    steps_of: dict[str, list[str]] = defaultdict(list)
    for r in sorted(g["steps"], key=lambda r: r["uid"]):
        steps_of[r["guideline"]].append(r["uid"])
    labels = sorted({x for h, _, t in structural + aligned for x in (h, t)} | {r["uid"] for r in g["steps"]})
    entity_to_id = {e: i for i, e in enumerate(labels)}
    relation_to_id = {r: i for i, r in enumerate(sorted({rel for _, rel, _ in structural + aligned}))}
    train_entities = {x for h, _, t in structural + train_al for x in (h, t)}
    missing = [t for t in test_al if t[0] not in train_entities]
    if missing:
        # An event that occurs only in its withheld ALIGNED_TO triple has an untrained embedding.
        log(f"held-out: {len(missing)} pairs whose event has no training triple (kept, scored as-is)")

    def factory(rows):
        return TriplesFactory.from_labeled_triples(
            np.array(rows, dtype=str), entity_to_id=entity_to_id, relation_to_id=relation_to_id)

    train_tf, test_tf = factory(structural + train_al), factory(test_al)
    log(f"held-out: {len(held_patients)}/{len(patients)} patients, {len(test_al)} ALIGNED_TO pairs withheld, "
        f"{len(train_al)} kept; training {args.model}")
    t0 = time.perf_counter()
    result = train(args, train_tf, test_tf)
    mrr_all, _ = both_realistic(result)
    log(f"held-out: trained in {time.perf_counter() - t0:.1f} s; unrestricted both-sided MRR on the "
        f"withheld triples={mrr_all:.4f}")
    model = result.model.eval()

    # Baseline statistics come from exactly the ALIGNED_TO pairs the model was trained on.
    codes_of: dict[str, set[str]] = defaultdict(set)
    for h, rel, t in structural:
        if rel == "INSTANCE_OF":
            codes_of[h].add(t)
    by_code: dict[str, Counter] = defaultdict(Counter)
    overall = Counter(t for _, _, t in train_al)
    for h, _, t in train_al:
        for c in codes_of.get(h, ()):
            by_code[c][t] += 1

    rel_id = relation_to_id[REL_ALIGNED]
    ranks = {"pykeen": [], "baseline": [], "random_rr": [], "role": []}
    by_guideline: dict[str, list] = defaultdict(list)
    for t in test_al:
        by_guideline[guideline_of[t[0]]].append(t)
    for gl, pairs in sorted(by_guideline.items()):
        cands = steps_of[gl]
        cand_ids = torch.tensor([entity_to_id[s] for s in cands])
        events = [h for h, _, _ in pairs]
        hr = torch.tensor([[entity_to_id[h], rel_id] for h in events])
        with torch.no_grad():
            # Only the guideline's steps: scoring all entities would materialise events x entities x dim.
            kge = model.score_t(hr, tails=cand_ids).numpy()
        freq = frequency_scores(events, cands, codes_of, by_code, overall)
        for i, (h, _, step) in enumerate(pairs):
            j = cands.index(step)
            ranks["pykeen"].append(realistic_rank(kge[i], j))
            ranks["baseline"].append(realistic_rank(freq[i], j))
            ranks["random_rr"].append(sum(1 / k for k in range(1, len(cands) + 1)) / len(cands))
            ranks["role"].append(role_of[h])

    def summary(rs: list[float]) -> tuple[float | None, float | None]:
        return ratio(sum(r <= 1 for r in rs), len(rs)), ratio(sum(1 / r for r in rs), len(rs))

    p_h1, p_mrr = summary(ranks["pykeen"])
    b_h1, b_mrr = summary(ranks["baseline"])
    for role in sorted(set(ranks["role"])):
        keep = [i for i, r in enumerate(ranks["role"]) if r == role]
        ph, pm = summary([ranks["pykeen"][i] for i in keep])
        bh, bm = summary([ranks["baseline"][i] for i in keep])
        log(f"held-out role={role:8} n={len(keep):5} pykeen hits1={ph} mrr={pm} | baseline hits1={bh} mrr={bm}")
    log(f"held-out: uniform-random MRR over the guideline's steps would be "
        f"{ratio(sum(ranks['random_rr']), len(ranks['random_rr']))}")
    beats = p_mrr is not None and b_mrr is not None and p_mrr > b_mrr and p_h1 > b_h1
    log(f"held-out: {args.model} hits1={p_h1} mrr={p_mrr} vs frequency baseline hits1={b_h1} mrr={b_mrr} -> "
        + ("the embedding BEATS the baseline on both" if beats else "the embedding does NOT beat the baseline"))
    return {"pairs": len(test_al), "pykeen_hits1": p_h1, "pykeen_mrr": p_mrr,
            "frequency_baseline_hits1": b_h1, "frequency_baseline_mrr": b_mrr, "pykeen_beats_baseline": beats}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="TransE", help="any PyKEEN model name (TransE, RotatE, ComplEx, ...)")
    ap.add_argument("--dim", type=int, default=64, help="embedding dimension")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--negs", type=int, default=4, help="negatives per positive (sLCWA)")
    ap.add_argument("--heldout", type=float, default=0.3, help="share of patients whose ALIGNED_TO is withheld")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    try:
        import pykeen
    except ImportError:
        raise SystemExit("PyKEEN is not installed: pip install pykeen") from None

    # PyKEEN's INFO chatter and torch's CPU pin_memory warning would drown the bench's own progress lines.
    logging.getLogger("pykeen").setLevel(logging.WARNING)
    logging.getLogger("torch_max_mem").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message=".*pin_memory.*")

    t0 = time.perf_counter()
    with GraphStore.connect() as store:
        g = fetch_graph(store)
    structural, aligned = build_triples(g)
    triples = np.array(structural + aligned, dtype=str)
    entities = {x for h, _, t in triples for x in (h, t)}
    relations = sorted({r for _, r, _ in triples})
    log(f"run {g['run']}: {len(triples)} triples ({len(aligned)} ALIGNED_TO), {len(entities)} entities, "
        f"relations {relations}")

    lp = link_prediction(args, triples)
    held = aligned_heldout(args, structural, aligned, g)
    emit({"pykeen_version": pykeen.get_version(), "triples": len(triples), "entities": len(entities),
          "relations": len(relations), "link_prediction": lp, "aligned_to_heldout": held,
          "seconds": round(time.perf_counter() - t0, 1)})


if __name__ == "__main__":
    main()
