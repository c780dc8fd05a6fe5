"""Quarantine: bad records go to a JSONL file with their reason, never into the graph or a log.

The file may hold PHI (the raw record), so it is created with mode 0600 and an existing file's mode is
tightened to 0600 before anything is appended. Records are de-duplicated by content (file, row,
reason and record), so a re-run appends nothing it already holds. The default place is
``GRAPHKIT_HOME/quarantine/`` (mode 0700), not the current directory. Every line names the patient
when the record did, so that deleting a patient can purge their lines (:func:`purge_patient`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ingest.model import BadRecord

DEFAULT_NAME = "ingest.jsonl"


def default_path(home: str | os.PathLike | None = None) -> Path:
    """``GRAPHKIT_HOME/quarantine/ingest.jsonl``."""
    from graphkit.settings import graphkit_home

    return graphkit_home(home) / "quarantine" / DEFAULT_NAME


def _clean(value):
    """JSON-safe copy: lone surrogates (undecodable bytes read with surrogateescape) become U+FFFD so
    the writer can never raise on them."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if any(
            "\ud800" <= ch <= "\udfff" for ch in value) else value
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _key(entry: dict) -> str:
    core = {k: entry.get(k) for k in ("file", "row", "reason", "record")}
    return hashlib.sha256(json.dumps(core, sort_keys=True, default=str).encode()).hexdigest()[:32]


def secure_file(path: Path) -> None:
    """Create the folder 0700 (when graphkit makes it) and make the file 0600 if it exists."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
    if path.exists():
        os.chmod(path, 0o600)


class Quarantine:
    """Append-only, de-duplicated JSONL file of rejected records, mode 0600."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.count = 0  # records rejected in this run (duplicates of earlier runs included)
        self.written = 0  # lines actually appended
        self.reasons: dict[str, int] = {}
        self._fh = None
        self._seen: set[str] | None = None

    def _open(self) -> None:
        secure_file(self.path)
        self._seen = set()
        if self.path.exists():
            with open(self.path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    self._seen.add(entry.get("key") or _key(entry))
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(fd, 0o600)
        self._fh = os.fdopen(fd, "a", encoding="utf-8")

    def add(self, bad: BadRecord) -> None:
        if self._fh is None:
            self._open()
        entry = _clean({"file": bad.source.file, "row": bad.source.row, "reason": bad.reason, "fix": bad.fix,
                        "patient": bad.patient, "record": bad.record})
        entry["key"] = _key(entry)
        self.count += 1
        key = bad.reason.split(":")[0]
        self.reasons[key] = self.reasons.get(key, 0) + 1
        if entry["key"] in self._seen:
            return
        self._seen.add(entry["key"])
        entry["quarantined_at"] = datetime.now().isoformat(timespec="seconds")
        self._fh.write(json.dumps(entry, default=str, ensure_ascii=False) + "\n")
        self._fh.flush()
        self.written += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def purge_patient(paths: Iterable[Path], patient: str) -> dict[str, int]:
    """Remove every line naming ``patient`` from the quarantine files; rewrites each file atomically
    (0600). Returns lines removed per file. O(size of the files)."""
    removed: dict[str, int] = {}
    for path in paths:
        path = Path(path)
        if not path.is_file():
            continue
        keep, n = [], 0
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                try:
                    owner = json.loads(line).get("patient")
                except (json.JSONDecodeError, AttributeError):
                    owner = None
                if owner == patient:
                    n += 1
                else:
                    keep.append(line)
        if n:
            tmp = path.with_suffix(path.suffix + ".part")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
                out.writelines(keep)
            os.replace(tmp, path)
        removed[str(path)] = n
    return removed


def quarantine_files(home: str | os.PathLike | None = None) -> list[Path]:
    """The quarantine files in graphkit's home."""
    folder = default_path(home).parent
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
