"""Errors that carry their CLI exit code and a one-line fix.

Every failure a user can act on is raised as a :class:`GraphkitError` subclass; the CLI prints
``error: <message>`` (plus ``fix: <hint>``) and exits with ``exit_code``. Tracebacks appear only
with ``--debug``.
"""

from __future__ import annotations


class GraphkitError(Exception):
    """A failure with a clear cause and fix. Exit code 1 ("other")."""

    exit_code = 1

    def __init__(self, message: str, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return self.message if not self.fix else f"{self.message} (fix: {self.fix})"


class BadInputError(GraphkitError):
    """The user's input (file, row, argument) is wrong. Exit code 2."""

    exit_code = 2


class DatabaseUnavailableError(GraphkitError):
    """Neo4j cannot be reached or refuses our credentials. Exit code 3."""

    exit_code = 3


class BatchWriteError(GraphkitError):
    """One batch failed and was rolled back whole; earlier batches stay committed."""

    def __init__(self, query: str, batch_index: int, first_row: int, cause: Exception):
        super().__init__(
            f"batch {batch_index} of query {query!r} (rows {first_row}..) failed and was rolled back: "
            f"{type(cause).__name__}: {getattr(cause, 'message', None) or cause}",
            fix="correct the offending rows and run the job again; finished batches are not rewritten twice",
        )
        self.query = query
        self.batch_index = batch_index
        self.first_row = first_row
        self.cause = cause
