"""Guideline reasoning: eligibility (three-valued) and normative conformance for a patient state."""

from graphkit.reason.model import CareItem, GuidelineAssessment, MissingInfo
from graphkit.reason.normative import assess

__all__ = ["CareItem", "GuidelineAssessment", "MissingInfo", "assess"]
