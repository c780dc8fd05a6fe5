"""Relevance of text units to a task or a question — never to a reference summary."""

from __future__ import annotations

import numpy as np

#: What a clinical note asks for, one query per part: a unit is relevant when it serves any part
#: (max over queries). A single "write the note" query scores small talk and substance alike.
NOTE_TASK_QUERIES = (
    "the patient's chief complaint and reason for the visit",
    "history of the present illness: symptoms, onset, duration",
    "past medical history, surgeries and family history",
    "current medications and doses",
    "allergies",
    "review of systems",
    "physical examination findings",
    "test results, labs and imaging",
    "assessment: the diagnosis",
    "plan: treatment, prescriptions, referrals and follow-up",
)


def relevance(unit_vecs: np.ndarray, query_vecs: np.ndarray) -> np.ndarray:
    """Per unit, the best cosine with any query (rows unit-norm). O(n · q · d)."""
    if len(unit_vecs) == 0:
        return np.zeros(0)
    return (unit_vecs @ query_vecs.T).max(axis=1)
