"""The pinned Neo4j artifacts: where they come from and how they are verified.

``neo4j-<version>.lock.json`` (made by ``tools/neo4j-lock/make_lock.py``) lists every jar of the
server's runtime classpath with its Maven repository path, size and sha256. A jar is taken, in this
order, from graphkit's download cache, the user's local Maven repository (``~/.m2``), a Maven
repository URL in ``GRAPHKIT_MAVEN_REPOSITORY`` (Maven Central or a hospital mirror), and finally
Maven itself (``mvn``) if it is installed. Every jar, wherever it came from, must match its sha256;
downloads land in ``*.part`` files and are renamed only once verified, so an interrupted or
corrupted download is never used.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from graphkit.errors import GraphkitError

HERE = Path(__file__).resolve().parent
NEO4J_VERSION = "5.26.30"
REPOSITORY_ENV = "GRAPHKIT_MAVEN_REPOSITORY"


@dataclass(frozen=True)
class Artifact:
    path: str  # repository-relative, e.g. org/neo4j/neo4j/5.26.30/neo4j-5.26.30.jar
    file: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Lock:
    neo4j_version: str
    browser_version: str
    main_class: str
    admin_class: str
    artifacts: tuple[Artifact, ...]

    @property
    def total_bytes(self) -> int:
        return sum(a.size for a in self.artifacts)


def load_lock(version: str = NEO4J_VERSION) -> Lock:
    data = json.loads((HERE / f"neo4j-{version}.lock.json").read_text())
    return Lock(
        neo4j_version=data["neo4j_version"], browser_version=data["browser_version"],
        main_class=data["main_class"], admin_class=data["admin_class"],
        artifacts=tuple(Artifact(**a) for a in data["artifacts"]),
    )


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_valid(path: Path, art: Artifact) -> bool:
    return path.is_file() and path.stat().st_size == art.size and sha256_of(path) == art.sha256


def _disk_full(exc: OSError, where: Path, need: int) -> GraphkitError:
    return GraphkitError(
        f"disk full while writing {where} ({need / 1e6:.0f} MB needed for Neo4j)",
        fix="free disk space or install elsewhere with `graphkit neo4j install --home DIR`",
    )


def place_copy(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` atomically (tmp file + rename), owner-only. Never a hard link: an
    in-place edit of a linked jar would change every copy (cache, ~/.m2, installed lib) at once."""
    tmp = dest.with_suffix(dest.suffix + ".part")
    tmp.unlink(missing_ok=True)
    shutil.copyfile(src, tmp)
    os.chmod(tmp, 0o600)
    os.replace(tmp, dest)


def _download(url: str, dest: Path, art: Artifact) -> None:
    tmp = dest.with_suffix(dest.suffix + ".part")
    with urllib.request.urlopen(url, timeout=60) as resp, open(tmp, "wb") as out:
        shutil.copyfileobj(resp, out, 1 << 20)
    if not is_valid(tmp, art):
        tmp.unlink(missing_ok=True)
        raise GraphkitError(
            f"checksum mismatch for {art.file} downloaded from {url}",
            fix=f"check {REPOSITORY_ENV} points at a faithful Maven repository, then run install again",
        )
    os.replace(tmp, dest)


def _fetch_with_maven(cache: Path, missing: list[Artifact]) -> None:
    """Resolve the pinned pom with ``mvn`` and take the missing jars from its output."""
    mvn = shutil.which("mvn")
    if mvn is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [mvn, "-q", "-B", "-f", str(HERE / "pom.xml"), "dependency:copy-dependencies",
             "-DincludeScope=runtime", f"-DoutputDirectory={tmp}"],
            capture_output=True, text=True,
        )
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            raise GraphkitError("Maven could not resolve the Neo4j artifacts: " + " | ".join(tail),
                                fix=f"check network access to Maven Central or set {REPOSITORY_ENV}")
        for art in missing:
            got = Path(tmp) / art.file
            if got.exists():
                if not is_valid(got, art):
                    raise GraphkitError(f"checksum mismatch for {art.file} resolved by Maven",
                                        fix="clear ~/.m2/repository for that artifact and retry")
                place_copy(got, cache / art.file)


def fetch_artifacts(lock: Lock, cache: Path, progress: Callable[[int], None] | None = None) -> Path:
    """Make ``cache`` hold every locked jar, verified; returns the folder. Idempotent.

    Cost: one sha256 pass over ~145 MB for jars already cached, downloads for the rest.
    """
    cache.mkdir(parents=True, exist_ok=True)
    m2 = Path(os.environ.get("MAVEN_LOCAL_REPOSITORY", Path.home() / ".m2" / "repository"))
    repo_url = os.environ.get(REPOSITORY_ENV, "").rstrip("/")

    def ensure(art: Artifact) -> bool:
        dest = cache / art.file
        if is_valid(dest, art):
            return True
        local = m2 / art.path
        if is_valid(local, art):
            place_copy(local, dest)
            return True
        if repo_url:
            _download(f"{repo_url}/{art.path}", dest, art)
            return True
        return False

    def step(art: Artifact) -> Artifact | None:
        try:
            ok = ensure(art)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise _disk_full(exc, cache, lock.total_bytes) from exc
            raise GraphkitError(f"could not fetch {art.file}: {exc}",
                                fix=f"check the network or {REPOSITORY_ENV}, then run install again") from exc
        if progress:
            progress(art.size)
        return None if ok else art

    with ThreadPoolExecutor(max_workers=8) as pool:
        missing = [a for a in pool.map(step, lock.artifacts) if a is not None]
    if missing:
        try:
            _fetch_with_maven(cache, missing)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise _disk_full(exc, cache, lock.total_bytes) from exc
            raise
        still = [a.file for a in missing if not is_valid(cache / a.file, a)]
        if still:
            raise GraphkitError(
                f"{len(still)} Neo4j artifacts could not be obtained (e.g. {still[0]})",
                fix=f"install Maven (`apt-get install maven`) or set {REPOSITORY_ENV} to a Maven repository URL",
            )
    return cache


STAMP = ".graphkit-verified.json"


def _fingerprint(st: os.stat_result) -> list[int]:
    # ctime cannot be set back by a user: any edit, even one that restores size and mtime, changes it
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def write_stamp(lib: Path, lock: Lock) -> None:
    """Record each installed jar's sha256 (just verified) with its file fingerprint."""
    stamp = {a.file: {"sha256": a.sha256, "stat": _fingerprint((lib / a.file).stat())} for a in lock.artifacts}
    tmp = lib / (STAMP + ".part")
    tmp.write_text(json.dumps(stamp))
    os.chmod(tmp, 0o600)
    os.replace(tmp, lib / STAMP)


def verify_installed(lib: Path, lock: Lock) -> list[str]:
    """Problems with the installed jars: a jar whose sha256 differs from the lock (re-hashed only when
    its fingerprint changed since the last verification), a missing jar, or a jar the lock does not
    list. Refreshes the stamp for jars re-hashed and found good. O(jars) stats; O(bytes) for changed jars."""
    try:
        stamp = json.loads((lib / STAMP).read_text())
    except (OSError, ValueError):
        stamp = {}
    problems, changed = [], False
    for art in lock.artifacts:
        path = lib / art.file
        try:
            st = path.stat()
        except OSError:
            problems.append(f"{art.file} is missing")
            continue
        entry = stamp.get(art.file) or {}
        if entry.get("sha256") == art.sha256 and entry.get("stat") == _fingerprint(st):
            continue
        if st.st_size != art.size or sha256_of(path) != art.sha256:
            problems.append(f"{art.file} does not match its pinned sha256 (modified or corrupted)")
            continue
        stamp[art.file] = {"sha256": art.sha256, "stat": _fingerprint(path.stat())}
        changed = True
    wanted = {a.file for a in lock.artifacts}
    problems += [f"{p.name} is not one of the pinned jars" for p in sorted(lib.glob("*.jar")) if p.name not in wanted]
    if changed and not problems:
        tmp = lib / (STAMP + ".part")
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, lib / STAMP)
    return problems
