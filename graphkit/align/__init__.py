"""Trajectory–guideline alignment (CliCARE §3.2, with BootEA-style bootstrapping) and conformance.

``Aligner`` aligns one patient (pure apart from the cached embedder); ``run_alignment`` is the job
that reads the graph, aligns patients and writes each result whole.
"""

from graphkit.align.aligner import Aligner
from graphkit.align.job import run_alignment
from graphkit.align.model import AlignParams, PatientAlignment

__all__ = ["Aligner", "AlignParams", "PatientAlignment", "run_alignment"]
