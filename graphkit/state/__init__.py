"""Patient state at a date: cancer, stage, biomarkers, performance status and treatments, with evidence."""

from graphkit.state.build import build_state
from graphkit.state.model import Fact, PatientState

__all__ = ["Fact", "PatientState", "build_state"]
