"""Note-text extraction quality on the demo cohort, scored against the cohort's own FHIR resources.

    .venv/bin/python bench/extraction.py [--cohort ingest/demo/cohort] [--top 15]

What it measures
----------------
The demo cohort (30 Synthea FHIR bundles) holds, per encounter, one clinical note (a
DocumentReference) AND the structured resources of that encounter (Condition, Procedure,
MedicationAdministration / MedicationRequest). The structured resources are an independent answer
key for what graphkit extracts from the note TEXT.

The script runs, in memory (no Neo4j), exactly the steps ``ingest.job.ingest_paths`` runs before it
writes: ``ingest.readers.read_paths`` → per note ``normalize`` → ``split_sections`` →
``split_sentences`` → one ``extract_mentions`` input per sentence (with its section name) →
``ingest.tkg.build.note_graph`` (which gives every mention its event id, codes and valid time).
Encounters keep their earliest start and duplicate note ids are skipped, as in the job.

Three kinds are scored, each by (system, code):

============  ===========================================  ======================  =========  =========
kind          FHIR resources (CodedFact.resource_type)     note mention kinds      system     scope
============  ===========================================  ======================  =========  =========
conditions    Condition                                    Problem, Cancer         SNOMED-CT  patient
procedures    Procedure                                    Procedure               SNOMED-CT  encounter
medications   MedicationAdministration, MedicationRequest  Medication              RxNorm     encounter
============  ===========================================  ======================  =========  =========

Conditions are scored per PATIENT because Synthea notes repeat the active problem list at every
visit while the Condition resource sits at one encounter; procedures and medications per ENCOUNTER
(the note of that encounter against the resources of that encounter).

* Predictions: the distinct (scope, system, code) of note mentions of those kinds (one code per mention:
  the one naming a fact of the scope when the mention carries several of the system), leaving out
  mentions whose assertion is ``negated`` or ``family``, and leaving out codes of other systems
  (DOID/NCIt/ICD-10-CM cross-references). Mentions with no SNOMED-CT/RxNorm code are counted as
  ``uncoded`` and left out.
* Gold ("the facts the notes mention"): the distinct (scope, system, code) of the FHIR facts whose
  display — SNOMED semantic tag such as " (procedure)" removed, lower-cased, whitespace collapsed —
  occurs in the lower-cased (whitespace-collapsed) text of a note of that scope (any note of the
  patient for conditions; the note of that encounter for procedures and medications).
* precision = predictions found among ALL FHIR facts of their scope (mentioned in a note or not) /
  predictions; recall = gold found among predictions / gold. Micro-averaged overall and per kind.
* dated_correctly: among the procedure and medication mentions (not negated/family, every mention,
  not deduplicated) with a code that some FHIR fact of the SAME PATIENT carries, the fraction whose
  note's encounter is the encounter of such a fact — the event is attached to the right encounter.
  valid_time_correct: the fraction of the same mentions whose valid time (``note_graph``'s
  ``valid_time``: a date written in the sentence, else the encounter start) falls on the start date
  of such a fact's encounter.

stderr: progress, per-kind figures, and the most frequent false negatives (with the likely cause:
not matched at all / matched with another code or kind / dropped for its assertion) and false
positives (with whether the code exists at another encounter of the patient, i.e. a dating error).
stdout: one JSON line with precision, recall, dated_correctly, valid_time_correct, per_kind
{conditions|procedures|medications: {precision, recall, gold, pred, ...}}, notes, patients, ...
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from _common import emit, log, ratio

from ingest.model import BadRecord, CodedFact, Encounter, Note, Patient
from ingest.nlp import build_pipeline
from ingest.readers import read_paths
from ingest.job import absorb_context, process_notes
from ingest.tkg.build import note_sha

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Kind:
    name: str
    mention_kinds: frozenset[str]
    resource_types: frozenset[str]
    system: str
    per_patient: bool  # scope: patient (True) or encounter (False)


KINDS = (
    Kind("conditions", frozenset({"Problem", "Cancer"}), frozenset({"Condition"}), "SNOMED-CT", True),
    Kind("procedures", frozenset({"Procedure", "Test"}), frozenset({"Procedure"}), "SNOMED-CT", False),
    Kind("medications", frozenset({"Medication"}), frozenset({"MedicationAdministration", "MedicationRequest"}),
         "RxNorm", False),
)
EXCLUDED_ASSERTIONS = {"negated", "family"}
# SNOMED CT semantic tags (the hierarchy names), as they end a Synthea display.
_SEMANTIC_TAG = re.compile(
    r"\s*\((?:disorder|finding|procedure|situation|regime/therapy|morphologic abnormality|observable entity|"
    r"qualifier value|substance|body structure|person|event|product|physical object|record artifact|"
    r"environment|social concept|navigational concept|occupation|attribute|specimen|staging scale|"
    r"assessment scale|tumor staging|clinical drug|medicinal product|medicinal product form)\)\s*$", re.I)


def plain(text: str) -> str:
    """Display / note text for substring tests: no semantic tag, lower case, single spaces."""
    return " ".join(_SEMANTIC_TAG.sub("", text).lower().split())


# -- the pipeline, as ingest.job runs it -------------------------------------------------------------
def read_cohort(path: Path):
    """(patients, encounters, facts, notes, bad) — the record handling of ``ingest_paths``."""
    patients: dict[str, Patient] = {}
    encounters: dict[str, Encounter] = {}
    facts: list[CodedFact] = []
    notes: list[Note] = []
    seen: dict[str, str] = {}
    bad = 0
    for rec in read_paths([path]):
        if isinstance(rec, BadRecord):
            bad += 1
        elif absorb_context(rec, patients, encounters, facts):
            continue
        elif isinstance(rec, Note):
            if rec.id in seen:  # a duplicate (same text) is skipped, a conflicting one quarantined
                continue
            seen[rec.id] = note_sha(rec)
            notes.append(rec)
    return patients, encounters, facts, notes, bad


def note_events(nlp, notes: list[Note], encounters: dict[str, Encounter]) -> list[dict]:
    """Every event row ``note_graph`` makes for the notes, with ``codes`` [(system, code, name)] added."""
    log(f"text + NLP over {len(notes)} notes (ingest.job.process_notes)")
    t = time.perf_counter()
    graphs = process_notes(nlp, notes, {n.encounter: encounters[n.encounter].start for n in notes})
    log(f"  process_notes: {time.perf_counter() - t:.1f} s")
    events = []
    for g in graphs:
        codes: dict[str, list] = defaultdict(list)
        for link, concept in zip(g.instance_of, g.concepts):
            codes[link["event"]].append((concept["system"], concept["code"], concept["name"]))
        for ev in g.events:
            events.append({**ev, "codes": codes.get(ev["id"], [])})
    return events


# -- scoring -----------------------------------------------------------------------------------------
def score(kind: Kind, events: list[dict], facts: list[CodedFact], notes: list[Note]) -> dict:
    def scope_of(patient: str, encounter: str | None) -> str | None:
        return patient if kind.per_patient else encounter

    texts: dict[str, list[str]] = defaultdict(list)  # scope → plain note texts
    for n in notes:
        texts[scope_of(n.patient, n.encounter)].append(plain(n.text))

    mine = [f for f in facts if f.resource_type in kind.resource_types and f.system == kind.system]
    display = {(f.system, f.code): _SEMANTIC_TAG.sub("", f.display) for f in mine}
    all_facts, gold = set(), set()
    unscoped = 0
    for f in mine:
        scope = scope_of(f.patient, f.encounter)
        if scope is None:
            unscoped += 1  # a fact without an encounter cannot be scored per encounter
            continue
        key = (scope, f.system, f.code)
        all_facts.add(key)
        name = plain(f.display)
        if name and any(name in t for t in texts.get(scope, ())):
            gold.add(key)

    pred: dict[tuple, list[dict]] = defaultdict(list)
    seen_in_scope: dict[tuple, list[dict]] = defaultdict(list)  # every mention's code, any assertion
    uncoded = 0
    for ev in events:
        if ev["kind"] not in kind.mention_kinds or ev.get("context") == "medication-list":
            continue  # active-list entries claim no encounter: scored apart (medication_list_precision)
        codes = {(s, c) for s, c, _ in ev["codes"] if s == kind.system}
        scope = scope_of(ev["patient"], ev["encounter"])
        for s, c in codes:
            seen_in_scope[(scope, s, c)].append(ev)
        if ev["assertion"] in EXCLUDED_ASSERTIONS:
            continue
        if not codes:
            uncoded += 1
            continue
        # a mention carries every code its vocabularies give for it (a Synthea display's code beside the
        # SNOMED CT cross-references of DO or HPO): one prediction per mention — the code that names a
        # fact of the scope when one does, else the lowest code
        hit = sorted((s, c) for s, c in codes if (scope, s, c) in all_facts)
        s, c = (hit or sorted(codes))[0]
        pred[(scope, s, c)].append(ev)
    tp_pred = sum(1 for k in pred if k in all_facts)
    tp_gold = sum(1 for k in gold if k in pred)
    return {"kind": kind, "pred": pred, "gold": gold, "all_facts": all_facts, "display": display,
            "seen": seen_in_scope, "tp_pred": tp_pred, "tp_gold": tp_gold, "uncoded": uncoded,
            "unscoped": unscoped, "facts": mine}


def medication_list_precision(events: list[dict], facts: list[CodedFact]) -> dict:
    """Active medication-list entries ("# Medications" sections) at patient level: is the listed drug
    one the patient has a FHIR medication resource for?"""
    meds = {(f.patient, f.code) for f in facts if f.resource_type.startswith("Medication") and f.system == "RxNorm"}
    listed = {(ev["patient"], c) for ev in events if ev.get("context") == "medication-list"
              and ev["assertion"] not in EXCLUDED_ASSERTIONS for s, c, _ in ev["codes"] if s == "RxNorm"}
    return {"entries": len(listed), "precision": ratio(len(listed & meds), len(listed))}


def dating(events: list[dict], facts: list[CodedFact], encounters: dict[str, Encounter]) -> dict:
    """dated_correctly and valid_time_correct over procedure and medication mentions."""
    counts = Counter()
    for kind in KINDS:
        if kind.per_patient:
            continue
        encs: dict[tuple, set[str]] = defaultdict(set)  # (patient, system, code) → encounters of its facts
        for f in facts:
            if f.resource_type in kind.resource_types and f.system == kind.system and f.encounter:
                encs[(f.patient, f.system, f.code)].add(f.encounter)
        for ev in events:
            if (ev["kind"] not in kind.mention_kinds or ev["assertion"] in EXCLUDED_ASSERTIONS
                    or ev.get("context") == "medication-list"):
                continue
            where = set().union(*(encs.get((ev["patient"], s, c), set()) for s, c, _ in ev["codes"]))
            if not where:
                continue
            counts[kind.name, "matched"] += 1
            counts[kind.name, "encounter"] += ev["encounter"] in where
            counts[kind.name, "valid_time"] += ev["valid_time"].date() in {encounters[e].start.date() for e in where
                                                                           if e in encounters}
    total = {what: sum(v for (k, w), v in counts.items() if w == what) for what in ("matched", "encounter", "valid_time")}
    return {"matched": total["matched"], "dated_correctly": ratio(total["encounter"], total["matched"]),
            "valid_time_correct": ratio(total["valid_time"], total["matched"]),
            "by_kind": {k.name: {"matched": counts[k.name, "matched"],
                                 "dated_correctly": ratio(counts[k.name, "encounter"], counts[k.name, "matched"]),
                                 "valid_time_correct": ratio(counts[k.name, "valid_time"], counts[k.name, "matched"])}
                        for k in KINDS if not k.per_patient}}


def false_negatives(r: dict) -> Counter:
    """(kind, display, likely cause) → how many scopes miss it."""
    out = Counter()
    for key in r["gold"]:
        if key in r["pred"]:
            continue
        seen = r["seen"].get(key)
        if seen:
            cause = "dropped as " + "/".join(sorted({e["assertion"] for e in seen}))
        else:
            cause = "no mention with this code"
        out[(r["kind"].name, r["display"][key[1:]], cause)] += 1
    return out


def false_positives(r: dict) -> Counter:
    """(kind, mention text, code display, where the code is) → how many scopes predict it wrongly."""
    out = Counter()
    elsewhere = {(f.patient, f.system, f.code) for f in r["facts"]}
    for key, evs in r["pred"].items():
        if key in r["all_facts"]:
            continue
        ev = evs[0]
        name = next((n for s, c, n in ev["codes"] if (s, c) == key[1:]), key[2])
        if r["kind"].per_patient:
            where = "no such FHIR fact for the patient"
        elif (ev["patient"], *key[1:]) in elsewhere:
            where = "FHIR fact at ANOTHER encounter of the patient"
        else:
            where = "no such FHIR fact for the patient"
        out[(r["kind"].name, ev["text"], f"{key[1]} {key[2]} {name}", where)] += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cohort", type=Path, default=REPO / "ingest" / "demo" / "cohort",
                    help="folder of FHIR bundles with DocumentReference notes (default: the demo cohort)")
    ap.add_argument("--top", type=int, default=15, help="how many false negatives / positives to list on stderr")
    args = ap.parse_args()

    t = time.perf_counter()
    patients, encounters, facts, notes, bad = read_cohort(args.cohort)
    log(f"read {len(patients)} patients, {len(encounters)} encounters, {len(notes)} notes, {len(facts):,} coded facts, "
        f"{bad} bad records ({time.perf_counter() - t:.1f} s)")
    t = time.perf_counter()
    nlp = build_pipeline()
    log(f"pipeline built in {time.perf_counter() - t:.1f} s")
    events = note_events(nlp, notes, encounters)
    log(f"{len(events):,} note events; assertions {dict(Counter(e['assertion'] for e in events))}")

    results = [score(k, events, facts, notes) for k in KINDS]
    per_kind = {}
    for r in results:
        k = r["kind"].name
        per_kind[k] = {"precision": ratio(r["tp_pred"], len(r["pred"])), "recall": ratio(r["tp_gold"], len(r["gold"])),
                       "gold": len(r["gold"]), "pred": len(r["pred"]), "fhir_facts": len(r["all_facts"]),
                       "uncoded_mentions": r["uncoded"], "facts_without_encounter": r["unscoped"]}
        log(f"{k:12s} P={per_kind[k]['precision']}  R={per_kind[k]['recall']}  gold={len(r['gold'])} "
            f"(of {len(r['all_facts'])} FHIR facts)  pred={len(r['pred'])}  uncoded mentions={r['uncoded']}")
    dated = dating(events, facts, encounters)
    med_lists = medication_list_precision(events, facts)
    log(f"medication lists (patient level): {med_lists}")
    log(f"dating: {dated}")

    fn, fp = Counter(), Counter()
    for r in results:
        fn.update(false_negatives(r))
        fp.update(false_positives(r))
    log(f"top {args.top} false negatives (gold fact the notes mention, not predicted) — count: kind | display | cause")
    for (kind, name, cause), n in fn.most_common(args.top):
        log(f"  {n:4d}  {kind:11s} | {name} | {cause}")
    log(f"top {args.top} false positives (predicted code not among the scope's FHIR facts) — "
        "count: kind | note text | code | where")
    for (kind, text, code, where), n in fp.most_common(args.top):
        log(f"  {n:4d}  {kind:11s} | {text!r} | {code} | {where}")

    tp_pred = sum(r["tp_pred"] for r in results)
    tp_gold = sum(r["tp_gold"] for r in results)
    emit({
        "precision": ratio(tp_pred, sum(len(r["pred"]) for r in results)),
        "recall": ratio(tp_gold, sum(len(r["gold"]) for r in results)),
        "dated_correctly": dated["dated_correctly"],
        "medication_list": med_lists,
        "valid_time_correct": dated["valid_time_correct"],
        "dated_mentions": dated["matched"],
        "dating_by_kind": dated["by_kind"],
        "per_kind": per_kind,
        "notes": len(notes),
        "patients": len(patients),
        "note_events": len(events),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
