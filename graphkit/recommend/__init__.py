"""Guideline-grounded summaries and recommendations whose every citation is checked against the graph
and stored back in it as (:Recommendation)-[:CITES]->(evidence)."""

from graphkit.recommend.job import Recommendation, recommend_patient

__all__ = ["Recommendation", "recommend_patient"]
