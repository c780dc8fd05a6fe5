"""Regenerate graphkit's Neo4j artifact lock with Maven (developers only; users need just Java).

    python tools/neo4j-lock/make_lock.py

Resolves graphkit/neo4j/pom.xml's runtime closure, hashes every jar and writes
graphkit/neo4j/neo4j-<version>.lock.json: one entry per jar with its Maven Central
path, size and sha256. `graphkit neo4j install` downloads exactly those files.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
POM = ROOT / "graphkit" / "neo4j" / "pom.xml"
# group:artifact:type[:classifier]:version:scope:/abs/path[ -- module ...]
LINE = re.compile(r"^\s*([^:\s]+):([^:]+):jar:(?:([^:]+):)?([^:]+):(compile|runtime):(/\S+\.jar)")


def main() -> int:
    pom = POM.read_text()
    version = re.search(r"<neo4j.version>([^<]+)<", pom).group(1)
    browser = re.search(r"<browser.version>([^<]+)<", pom).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "deps.txt"
        subprocess.run(
            ["mvn", "-q", "-f", str(POM), "dependency:list", "-DincludeScope=runtime",
             "-DoutputAbsoluteArtifactFilename=true", f"-DoutputFile={out}"],
            check=True,
        )
        artifacts = []
        for line in out.read_text().splitlines():
            m = LINE.match(line)
            if not m:
                continue
            group, artifact, classifier, ver, _scope, path = m.groups()
            data = Path(path).read_bytes()
            name = f"{artifact}-{ver}" + (f"-{classifier}" if classifier else "") + ".jar"
            artifacts.append({
                "path": f"{group.replace('.', '/')}/{artifact}/{ver}/{name}",
                "file": name,
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            })
    artifacts.sort(key=lambda a: a["path"])
    lock = {
        "neo4j_version": version,
        "browser_version": browser,
        "main_class": "org.neo4j.server.CommunityEntryPoint",
        "admin_class": "org.neo4j.cli.AdminTool",
        "artifacts": artifacts,
    }
    dest = ROOT / "graphkit" / "neo4j" / f"neo4j-{version}.lock.json"
    dest.write_text(json.dumps(lock, indent=1) + "\n")
    print(f"{dest.relative_to(ROOT)}: {len(artifacts)} artifacts, "
          f"{sum(a['size'] for a in artifacts) / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
