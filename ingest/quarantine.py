"""Quarantine: bad records go to a JSONL file with their reason, never into the graph or a log."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from ingest.model import BadRecord


class Quarantine:
    """Append-only JSONL file of rejected records. The file may hold PHI: it is created 0600."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.count = 0
        self.reasons: dict[str, int] = {}
        self._fh = None

    def add(self, bad: BadRecord) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._fh = os.fdopen(fd, "a", encoding="utf-8")
        self._fh.write(json.dumps({"file": bad.source.file, "row": bad.source.row, "reason": bad.reason,
                                   "fix": bad.fix, "quarantined_at": datetime.now().isoformat(timespec="seconds"),
                                   "record": bad.record}, default=str, ensure_ascii=False) + "\n")
        self._fh.flush()
        self.count += 1
        key = bad.reason.split(":")[0]
        self.reasons[key] = self.reasons.get(key, 0) + 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
