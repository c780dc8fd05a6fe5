"""SOAP note per encounter (ConTextual, CLI-RAG): Subjective, Objective, Assessment, Plan, each built
from the graph — the encounter's note sentences with their sections and events, the patient state at
the encounter's date, the guideline steps due then — and every sentence cited.

No-LLM mode (:func:`build_soap`): each section takes the encounter's sentences that belong to it (by
their note section; sentences outside a known section — a dictated transcript — by their closeness to
a description of the section and by the events they carry), de-duplicated and in reading order, plus
graph facts (the cancer, stage and biomarkers for A; the guideline steps due for P). LLM mode
(:func:`llm_soap`): the same material as cited facts in a prompt; the answer is kept only when every
citation names a fact in the prompt, and each sentence's citations pass the attribution check.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, field

import numpy as np

SECTIONS = ("S", "O", "A", "P")
TITLES = {"S": "Subjective", "O": "Objective", "A": "Assessment", "P": "Plan"}
NOTE_SECTIONS = {
    "S": {"Chief Complaint", "History of Present Illness", "Review of Systems", "Social History", "Family History",
          "Past Medical History", "Past Surgical History", "Medications", "Allergies", "Discharge Medications"},
    "O": {"Physical Exam", "Vital Signs", "Results", "Imaging", "Findings", "Pathology", "Specimen", "Biomarkers",
          "Hospital Course"},
    "A": {"Impression", "Diagnosis", "Discharge Diagnosis"},
    "P": {"Plan", "Instructions", "Discharge Instructions"},
}
#: What each section is about, for sentences outside a known note section (embedded once).
PROTOTYPES = {
    "S": "The patient reports symptoms, complains of pain, says how she feels, describes her history and "
         "what happened at home.",
    "O": "On physical examination, vital signs, blood pressure, heart and lungs, lab results and imaging showed.",
    "A": "Assessment and impression: the diagnosis is, consistent with, the condition is stable or worsening.",
    "P": "Plan: we will start or continue the medication, order tests, refer, schedule surgery and follow up.",
}
_PLAN_WORDS = re.compile(r"\b(?:will|plan|continue|start|order|refer|schedule|recommend|follow[- ]?up|return|"
                         r"increase|decrease|stop|discontinue|prescrib\w*|consider)\b", re.I)
LIMITS = {"S": 10, "O": 8, "A": 5, "P": 8}
_SPEAKER = re.compile(r"^\s*\[(?:doctor|patient|patient_guest|guest_family|guest_clinician|nurse)\]\s*", re.I)


@dataclass
class Line:
    text: str
    cites: list[tuple[str, str]] = field(default_factory=list)  # (node id, label)
    kind: str = "sentence"  # sentence | fact
    supported: bool = True


@dataclass
class SoapNote:
    patient: str
    encounter: str
    date: str | None
    sections: dict[str, list[Line]] = field(default_factory=dict)
    mode: str = "no-llm"
    model: str = "graphkit-deterministic"
    ms: float = 0.0
    note: str | None = None

    def render(self, cite) -> str:
        """The note as text, each line ending with its [alias] citations (``cite(id, label)``)."""
        parts = []
        for s in SECTIONS:
            lines = self.sections.get(s) or []
            body = " ".join(f"{ln.text.rstrip('.')}. " + "".join(f"[{cite(i, lab)}]" for i, lab in ln.cites)
                            for ln in lines).strip()
            parts.append(f"{TITLES[s].upper()}: {body or 'Nothing documented for this encounter.'}")
        return "\n".join(parts)


def _clean(text: str) -> str:
    return " ".join(_SPEAKER.sub("", text).split())


def classify(sentences: list[dict], emb: np.ndarray, proto: np.ndarray) -> list[str]:
    """S/O/A/P for each sentence: its note section when known; else the closest section description,
    a sentence that plans care (a planned event, a plan verb) going to P. O(n)."""
    out = []
    sims = emb @ proto.T if len(sentences) else np.zeros((0, 4))
    for s, row in zip(sentences, sims):
        sec = s.get("section") or ""
        known = next((k for k, names in NOTE_SECTIONS.items() if sec in names), None)
        planned = any(e.get("assertion") == "planned" for e in s.get("events") or ())
        if sec == "Assessment and Plan":
            known = "P" if planned or _PLAN_WORDS.search(s["text"]) else "A"
        if known is None:
            known = "P" if planned else SECTIONS[int(np.argmax(row))]
        out.append(known)
    return out


def build_soap(patient: str, encounter: str, sentences: list[dict], embedder, facts: list[Line] | None = None,
               plan_facts: list[Line] | None = None, date: str | None = None) -> SoapNote:
    """The no-LLM SOAP note of one encounter from its sentences (``documents.encounter_sentences`` rows)
    and graph facts for A and P. Pure but for the embedder. O(n²) in the encounter's sentences."""
    t0 = time.perf_counter()
    note = SoapNote(patient, encounter, date, {s: [] for s in SECTIONS})
    usable = [s for s in sentences if len(_clean(s["text"]).split()) >= 3]
    texts = [_clean(s["text"]) for s in usable]
    emb = embedder.encode(texts) if texts else np.zeros((0, 384), dtype=np.float32)
    proto = embedder.encode([PROTOTYPES[s] for s in SECTIONS])
    labels = classify(usable, emb, proto)
    chosen: dict[str, list[int]] = {s: [] for s in SECTIONS}
    for sec in SECTIONS:
        idx = [i for i, lab in enumerate(labels) if lab == sec]
        # most on-topic first (section description + carrying events), near-duplicates once
        rel = {i: float(emb[i] @ proto[SECTIONS.index(sec)]) + 0.1 * bool(usable[i].get("events")) for i in idx}
        for i in sorted(idx, key=lambda i: -rel[i]):
            if len(chosen[sec]) >= LIMITS[sec]:
                break
            if any(float(emb[i] @ emb[j]) > 0.9 for s2 in SECTIONS for j in chosen[s2]):
                continue
            chosen[sec].append(i)
    for sec in SECTIONS:
        for i in sorted(chosen[sec]):  # reading order
            note.sections[sec].append(Line(texts[i], [(usable[i]["id"], "Sentence")]))
    note.sections["A"] = (facts or []) + note.sections["A"]
    note.sections["P"] = note.sections["P"] + (plan_facts or [])
    note.ms = (time.perf_counter() - t0) * 1000
    return note


def state_facts(reasoning) -> tuple[list[Line], list[Line]]:
    """(assessment lines, plan lines) from the patient state and the normative assessment at the
    encounter's date: the cancer, its stage and biomarkers; the guideline steps due or overdue then."""
    st = reasoning.state
    a_lines: list[Line] = []
    for c in st.cancers[:2]:
        bits = [c.name]
        if st.stage and st.stage.group:
            bits.append(f"stage {st.stage.group}" + (f" ({st.stage.tnm})" if st.stage.tnm else ""))
        markers = [f"{m.name} {m.status}" for m in st.markers.values() if st.marker(m.name) and not m.derived_from]
        cites = [(e.event, "Event") for e in c.evidence[:1]]
        cites += [(e.event, "Event") for e in (st.stage.evidence[:1] if st.stage else ())]
        cites += [(m.evidence[0].event, "Event") for m in st.markers.values() if m.evidence and st.marker(m.name)][:3]
        a_lines.append(Line(", ".join(bits) + (f"; {', '.join(markers)}" if markers else ""),
                            list(dict.fromkeys(cites)), "fact"))
    p_lines: list[Line] = []
    for a in reasoning.applicable:
        for i in a.next_steps[:3]:
            if i.status in ("due", "overdue", "missing", "option"):
                word = {"due": "due", "overdue": "overdue", "missing": "not documented", "option": "an option"}[i.status]
                p_lines.append(Line(f"Per {a.guideline} {a.version}, {i.name} is {word}",
                                    [(i.step_uid, "GuidelineStep")] + [(e, "Event") for e in i.evidence[:1]], "fact"))
    return a_lines, p_lines


def encounter_date(sentences: list[dict]) -> dt.date | None:
    for s in sentences:
        for key in ("encounter_start", "time"):
            if s.get(key):
                try:
                    return dt.date.fromisoformat(s[key][:10])
                except ValueError:
                    pass
    return None
