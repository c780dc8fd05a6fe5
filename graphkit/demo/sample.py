"""Load the small sample patient graph that `graphkit demo` shows before the ingestion pipeline runs.

The JSON describes encounters, note sections and the events mentioned in them; this module turns it
into the writer rows of ``cypher/tkg.cypher`` (sentences with character offsets, evidence spans,
codes, the time-ordered NEXT chain) and writes them with :meth:`GraphStore.write_batches`.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from pathlib import Path

from graphkit.store import GraphStore

SAMPLE = Path(__file__).with_name("sample_patient.json")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _sentences(text: str, base: int) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for piece in _SENTENCE_END.split(text):
        start = text.index(piece, pos)
        out.append((base + start, base + start + len(piece), piece))
        pos = start + len(piece)
    return out


def sample_rows(data: dict) -> dict[str, list[dict]]:
    """Writer rows per statement of ``tkg.cypher``, in dependency order."""
    pid = data["patient"]["id"]
    rows: dict[str, list[dict]] = {k: [] for k in (
        "merge_patients", "merge_encounters", "link_next_encounter", "merge_notes", "merge_sections",
        "merge_sentences", "merge_events", "link_evidence", "merge_concepts", "link_instance_of",
        "link_next_event")}
    rows["merge_patients"].append({"id": pid, "props": data["patient"]["props"]})
    events = []
    for enc in data["encounters"]:
        start, end = datetime.fromisoformat(enc["start"]), datetime.fromisoformat(enc["end"])
        rows["merge_encounters"].append({"id": enc["id"], "patient": pid, "start": start, "end": end,
                                         "class": enc["class"]})
        note = enc["note"]
        full = "\n\n".join(s["text"] for s in note["sections"])
        authored = datetime.fromisoformat(note["authored_at"])
        rows["merge_notes"].append({"id": note["id"], "encounter": enc["id"], "type": note["type"],
                                    "authored_at": authored, "patient": pid,
                                    "sha256": hashlib.sha256(full.encode()).hexdigest()})
        offset, section_sentences = 0, []
        for s_idx, sec in enumerate(note["sections"]):
            sec_id = f"{note['id']}:s{s_idx}"
            rows["merge_sections"].append({"id": sec_id, "note": note["id"], "name": sec["name"], "idx": s_idx})
            sents = []
            for t_idx, (a, b, text) in enumerate(_sentences(sec["text"], offset)):
                sent_id = f"{sec_id}:t{t_idx}"
                rows["merge_sentences"].append({"id": sent_id, "section": sec_id, "idx": t_idx,
                                                "text": text, "start": a, "end": b})
                sents.append((sent_id, text))
            section_sentences.append(sents)
            offset += len(sec["text"]) + 2
        for order, ev in enumerate(enc["events"]):
            sent_id, text = next((sid, t) for sid, t in section_sentences[ev["section"]] if ev["mention"] in t)
            at = text.index(ev["mention"])
            ev_id = f"{note['id']}:ev{order}"
            valid = datetime.fromisoformat(ev["valid_time"]) if "valid_time" in ev else start
            events.append((valid, enc["start"], order, ev_id))
            rows["merge_events"].append({
                "id": ev_id, "encounter": enc["id"], "patient": pid, "kind": ev["kind"], "text": ev["mention"],
                "assertion": ev["assertion"], "valid_time": valid, "recorded_time": authored,
                "order": order, "value": ev.get("value")})
            rows["link_evidence"].append({"event": ev_id, "sentence": sent_id, "start": at,
                                          "end": at + len(ev["mention"])})
            for system, code, name in ev["codes"]:
                rows["merge_concepts"].append({"system": system, "code": code, "name": name})
                rows["link_instance_of"].append({"event": ev_id, "system": system, "code": code})
    encs = sorted(data["encounters"], key=lambda e: e["start"])
    rows["link_next_encounter"] = [{"from": a["id"], "to": b["id"]} for a, b in zip(encs, encs[1:])]
    ordered = [e[-1] for e in sorted(events)]
    rows["link_next_event"] = [{"from": a, "to": b} for a, b in zip(ordered, ordered[1:])]
    return rows


def load_sample(store: GraphStore, path: Path = SAMPLE) -> dict[str, int]:
    """Write the sample patient (idempotent: MERGE on ids). Returns rows written per statement."""
    rows = sample_rows(json.loads(path.read_text()))
    return {name: store.write_batches(f"tkg.{name}", batch).rows for name, batch in rows.items() if batch}
