"""Logging that cannot carry note text or query parameters, at any level.

Only graphkit's own loggers (``graphkit``, ``ingest``, ``bench``) may log below WARNING, and their
messages never include note text or parameters (they log counts, ids of runs, types of errors).
Third-party loggers can: the Neo4j driver logs every query's parameters at DEBUG (note text travels
as parameters), HTTP clients log request bodies (LLM prompts). So every record from outside graphkit
below WARNING is dropped by a filter on the handler itself, whatever level a library sets on its own
logger, and warnings from the driver are cut to their first line.
"""

from __future__ import annotations

import logging

OWN = ("graphkit", "ingest", "bench", "__main__")


def _own(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in OWN)


class PhiFilter(logging.Filter):
    """Drop third-party records below WARNING; strip arguments from third-party warnings."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _own(record.name):
            return True
        if record.levelno < logging.WARNING:
            return False
        # a third-party warning may format parameters into its message: keep its first line only
        message = record.getMessage().splitlines()[0] if record.getMessage() else ""
        record.msg, record.args = message[:300], None
        record.exc_info = record.exc_text = None
        return True


def configure(debug: bool = False) -> None:
    """One stderr handler with the filter; graphkit at DEBUG when asked, everything else at WARNING."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_graphkit", False):
            root.removeHandler(h)
    handler = logging.StreamHandler()
    handler._graphkit = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(PhiFilter())
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in OWN:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)
    for noisy in ("neo4j", "httpx", "httpcore", "urllib3", "openai", "langchain", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
