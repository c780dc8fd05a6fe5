"""Clinical-guideline graphs: versioned YAML specs → validation → normative paths → Neo4j.

>>> result = validate_file("guidelines/nsclc.yaml")      # every problem, with file and line
>>> paths = enumerate_paths(result.spec, limit=1000)      # CliCARE's {Pa_k}, deterministic order
>>> load_guideline(store, result.spec)                    # one transaction; same version twice = no-op
"""

from graphkit.guidelines.codes import code_problem
from graphkit.guidelines.load import LoadResult, load_guideline
from graphkit.guidelines.paths import GuidelinePath, PathLimitError, enumerate_paths
from graphkit.guidelines.spec import Code, Condition, Edge, GuidelineSpec, Step, Timing
from graphkit.guidelines.validate import Problem, ValidationResult, validate_file

__all__ = ["Code", "Condition", "Edge", "GuidelineSpec", "Step", "Timing", "Problem", "ValidationResult",
           "validate_file", "GuidelinePath", "PathLimitError", "enumerate_paths", "load_guideline",
           "LoadResult", "code_problem"]
