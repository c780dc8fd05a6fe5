"""A local Neo4j Community server that graphkit installs, starts, stops and reports on.

Layout under the graphkit home (default ``~/.graphkit``, or ``--home`` / ``GRAPHKIT_HOME``)::

    credentials.json        generated login, mode 0600
    neo4j/                  the Neo4j home
        conf/neo4j.conf     written by graphkit (loopback only, auth on, Browser enabled)
        lib/                the locked jars (copies, verified by sha256; a stamp makes a normal start fast)
        data/ logs/ run/    the store, logs and the pid file
        graphkit-install.json   what was installed (version, ports, memory)
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import string
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from graphkit.errors import DatabaseUnavailableError, GraphkitError
from graphkit.neo4j.artifacts import Lock, fetch_artifacts, load_lock, place_copy, verify_installed, write_stamp
from graphkit.settings import cache_dir, graphkit_home, read_credentials, write_credentials

MIN_JAVA = 17
_JAVA_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')

CONF_TEMPLATE = """\
# Written by `graphkit neo4j install`; re-running install rewrites it.
server.default_listen_address={listen}
server.bolt.listen_address={listen}:{bolt_port}
server.bolt.advertised_address=localhost:{bolt_port}
server.http.enabled=true
server.http.listen_address={listen}:{http_port}
server.http.advertised_address=localhost:{http_port}
server.https.enabled=false
server.http_enabled_modules=TRANSACTIONAL_ENDPOINTS,UNMANAGED_EXTENSIONS,BROWSER
dbms.security.auth_enabled=true
server.memory.heap.initial_size={heap}
server.memory.heap.max_size={heap}
server.memory.pagecache.size={pagecache}
# Transaction logs serve crash recovery only here (Community has no incremental backup): keep a bounded
# amount, not Neo4j's default of 2 days (a bulk load writes gigabytes of them).
db.tx_log.rotation.retention_policy=256M size
db.tx_log.preallocate=false
db.tx_log.rotation.size=64M
dbms.usage_report.enabled=false
"""

# The JVM flags Neo4j's own launcher passes that matter on Java 17 (netty, unsafe access).
JVM_FLAGS = [
    "-XX:+UseG1GC", "-XX:-OmitStackTraceInFastThrow", "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024", "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true", "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
]


@dataclass(frozen=True)
class InstallOptions:
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = "1g"
    pagecache: str = "512m"
    listen: str = "127.0.0.1"


@dataclass
class ServerStatus:
    installed: bool
    running: bool
    pid: int | None
    version: str | None
    bolt_uri: str | None
    browser_url: str | None
    home: str
    store_bytes: int
    home_bytes: int

    def as_dict(self) -> dict:
        return asdict(self)


def java_executable() -> str:
    """The ``java`` to use (``JAVA_HOME`` first), checked to be Java 17 or newer."""
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        raise GraphkitError("no Java runtime found (Neo4j 5.26 needs Java 17 or newer)",
                            fix="install one, e.g. `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME")
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    m = _JAVA_VERSION.search(out)
    major = int(m.group(1)) if m else 0
    if major == 1 and m and m.group(2):  # "1.8.0_x" style
        major = int(m.group(2))
    if major < MIN_JAVA:
        raise GraphkitError(f"Java {major or '?'} at {java} is too old: Neo4j 5.26 needs Java {MIN_JAVA}+",
                            fix="install Java 17 or 21 and set JAVA_HOME to it")
    return java


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                st = os.lstat(os.path.join(root, f))
            except OSError:
                continue
            total += st.st_blocks * 512 if hasattr(st, "st_blocks") else st.st_size
    return total


class LocalNeo4j:
    """One graphkit-managed Neo4j server. All methods are idempotent."""

    def __init__(self, home: str | os.PathLike | None = None, lock: Lock | None = None):
        self.home = graphkit_home(home)
        self.lock = lock or load_lock()
        self.neo4j_home = self.home / "neo4j"
        self.conf_dir = self.neo4j_home / "conf"
        self.lib_dir = self.neo4j_home / "lib"
        self.logs_dir = self.neo4j_home / "logs"
        self.pid_file = self.neo4j_home / "run" / "graphkit-neo4j.pid"
        self.manifest_file = self.neo4j_home / "graphkit-install.json"

    # -- install ---------------------------------------------------------------------------
    def manifest(self) -> dict | None:
        if not self.manifest_file.exists():
            return None
        return json.loads(self.manifest_file.read_text())

    def is_installed(self) -> bool:
        m = self.manifest()
        return bool(m and m.get("neo4j_version") == self.lock.neo4j_version and
                    read_credentials(self.home) is not None)

    def install(self, options: InstallOptions | None = None,
                progress: Callable[[int], None] | None = None) -> bool:
        """Fetch and verify the jars, write the config, set the generated password.

        Returns False when that exact installation was already there (nothing changed).
        """
        java_executable()
        previous = self.manifest()
        options = options or (InstallOptions(**previous["options"]) if previous else InstallOptions())
        cache = fetch_artifacts(self.lock, cache_dir() / f"neo4j-{self.lock.neo4j_version}", progress)
        conf = CONF_TEMPLATE.format(**asdict(options))
        conf_file = self.conf_dir / "neo4j.conf"
        unchanged = (self.is_installed() and previous["options"] == asdict(options)
                     and self._lib_complete() and conf_file.is_file() and conf_file.read_text() == conf)
        if unchanged:
            return False
        for d in (self.home, self.neo4j_home, self.conf_dir, self.lib_dir, self.logs_dir, self.neo4j_home / "data",
                  self.neo4j_home / "run", self.neo4j_home / "plugins", self.neo4j_home / "import"):
            d.mkdir(parents=True, exist_ok=True)
        wanted = {a.file for a in self.lock.artifacts}
        for stale in self.lib_dir.glob("*.jar"):
            if stale.name not in wanted:
                stale.unlink()
        bad = {p.split(" ")[0] for p in verify_installed(self.lib_dir, self.lock)}
        for art in self.lock.artifacts:
            dest = self.lib_dir / art.file
            if art.file in bad or not dest.exists() or dest.stat().st_nlink > 1:
                place_copy(cache / art.file, dest)  # a copy, verified in the cache: never a hard link
        write_stamp(self.lib_dir, self.lock)
        conf_file.write_text(conf)  # a newer graphkit's template reaches an existing install too
        self.secure()
        if read_credentials(self.home) is None:
            if (self.neo4j_home / "data" / "dbms" / "auth.ini").exists() or \
                    (self.neo4j_home / "data" / "databases" / "system").exists():
                raise GraphkitError(
                    f"{self.home / 'credentials.json'} is missing but the store in {self.neo4j_home / 'data'} "
                    "already has a password", fix=f"restore credentials.json, or delete {self.neo4j_home / 'data'} "
                    "to start over with an empty store")
            # letters and digits only: a leading '-' would read as an option to neo4j-admin
            password = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
            self.admin("dbms", "set-initial-password", password)
            write_credentials(self.home, f"bolt://localhost:{options.bolt_port}", "neo4j", password,
                              f"http://localhost:{options.http_port}")
        else:  # ports may have changed: keep the password, refresh the URIs
            creds = read_credentials(self.home)
            write_credentials(self.home, f"bolt://localhost:{options.bolt_port}", creds["user"],
                              creds["password"], f"http://localhost:{options.http_port}")
        tmp = self.manifest_file.with_suffix(".part")
        tmp.write_text(json.dumps({"neo4j_version": self.lock.neo4j_version,
                                   "browser_version": self.lock.browser_version,
                                   "options": asdict(options)}, indent=1))
        os.replace(tmp, self.manifest_file)
        return True

    def _lib_complete(self) -> bool:
        return self.lib_dir.is_dir() and not verify_installed(self.lib_dir, self.lock)

    def secure(self) -> None:
        """Owner-only access to everything under the graphkit home: the store, transaction logs,
        auth.ini (the password hash), logs and config — folders 0700, files 0600 (jars included).
        O(files); a start calls it, so a home made by an older graphkit is tightened too."""
        for top in (self.home, self.neo4j_home):
            if top.exists():
                os.chmod(top, 0o700)
        for root, dirs, files in os.walk(self.neo4j_home):
            for d in dirs:
                path = os.path.join(root, d)
                if stat.S_IMODE(os.lstat(path).st_mode) != 0o700 and not os.path.islink(path):
                    os.chmod(path, 0o700)
            for f in files:
                path = os.path.join(root, f)
                if not os.path.islink(path) and stat.S_IMODE(os.lstat(path).st_mode) & 0o077:
                    os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & 0o700 or 0o600)

    def verify_jars(self) -> None:
        """Refuse to run a server whose installed jars differ from the pinned sha256s."""
        problems = verify_installed(self.lib_dir, self.lock)
        if problems:
            raise GraphkitError(f"the installed Neo4j in {self.lib_dir} failed verification: {problems[0]}"
                                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                                fix="run `graphkit neo4j install` to restore the pinned jars from the verified cache")

    def admin(self, *args: str) -> str:
        """Run a neo4j-admin command (the server's own AdminTool) with this home's configuration;
        raise with the tool's last words when it fails. Returns its output."""
        env = dict(os.environ, NEO4J_HOME=str(self.neo4j_home), NEO4J_CONF=str(self.conf_dir))
        proc = subprocess.run([java_executable(), "-cp", f"{self.lib_dir}/*", self.lock.admin_class, *args],
                              capture_output=True, text=True, env=env, umask=0o077)
        if proc.returncode != 0:
            raise GraphkitError(f"neo4j-admin {' '.join(args[:2])} failed: "
                                f"{(proc.stderr or proc.stdout).strip()[-500:]}")
        return proc.stdout

    def options(self) -> InstallOptions:
        m = self.manifest()
        if not m:
            raise GraphkitError(f"Neo4j is not installed in {self.home}", fix="run `graphkit neo4j install`")
        return InstallOptions(**m["options"])

    # -- run -------------------------------------------------------------------------------
    def pid(self) -> int | None:
        """The server's pid if it is alive."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        cmdline = Path(f"/proc/{pid}/cmdline")
        if cmdline.exists() and self.lock.main_class.encode() not in cmdline.read_bytes():
            return None  # the pid was reused by something else
        return pid

    def start(self, timeout_s: float = 90.0) -> float:
        """Start the server and return once Bolt accepts our login; returns seconds to ready."""
        if not self.is_installed():
            raise GraphkitError(f"Neo4j is not installed in {self.home}", fix="run `graphkit neo4j install` first")
        t0 = time.monotonic()
        if self.pid() is not None:
            self._wait_ready(timeout_s, None)
            return time.monotonic() - t0
        opts = self.options()
        self.verify_jars()
        self.secure()
        for port in (opts.bolt_port, opts.http_port):
            if port_in_use(port, opts.listen):
                raise GraphkitError(
                    f"port {port} is already in use by another process, so Neo4j cannot listen on it",
                    fix="stop that process, or pick free ports: `graphkit neo4j install --bolt-port 7688 --http-port 7475`")
        java = java_executable()
        console = open(os.open(self.logs_dir / "console.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab")
        cmd = [java, f"-Xms{opts.heap}", f"-Xmx{opts.heap}", *JVM_FLAGS, "-cp", f"{self.lib_dir}/*",
               self.lock.main_class, f"--home-dir={self.neo4j_home}", f"--config-dir={self.conf_dir}"]
        proc = subprocess.Popen(cmd, stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=self.neo4j_home, start_new_session=True, umask=0o077)
        console.close()
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.write_text(str(proc.pid))
        self._wait_ready(timeout_s, proc)
        return time.monotonic() - t0

    def _wait_ready(self, timeout_s: float, proc: subprocess.Popen | None) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import ServiceUnavailable

        creds = read_credentials(self.home)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise GraphkitError(f"Neo4j exited during start-up (code {proc.returncode}): "
                                    f"{self._last_error()}",
                                    fix=f"see {self.logs_dir / 'console.log'}")
            try:
                with GraphDatabase.driver(creds["uri"], auth=(creds["user"], creds["password"]),
                                          connection_timeout=2) as drv:
                    drv.verify_connectivity()
                return
            except (ServiceUnavailable, OSError):
                time.sleep(0.25)
        raise DatabaseUnavailableError(f"Neo4j did not answer on {creds['uri']} within {timeout_s:.0f} s",
                                       fix=f"see {self.logs_dir / 'console.log'}")

    def _last_error(self) -> str:
        try:
            lines = (self.logs_dir / "console.log").read_text(errors="replace").splitlines()
        except OSError:
            return "no log"
        errors = [ln for ln in lines[-200:] if "ERROR" in ln or "Exception" in ln]
        return (errors or lines[-1:] or ["no log"])[-1].strip()[:300]

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout_s``). False if it was not running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.pid() is None:
                break
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
        try:  # reap it if it is our child
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        self.pid_file.unlink(missing_ok=True)
        # An exiting process leaves /proc/PID/cmdline before it closes its sockets: wait until the
        # ports are free, so that an immediate start() does not find them "in use".
        opts = self.options()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(port_in_use(p, opts.listen) for p in (opts.bolt_port, opts.http_port)):
            time.sleep(0.2)
        return True

    def status(self) -> ServerStatus:
        m = self.manifest()
        creds = read_credentials(self.home) or {}
        installed = self.is_installed()
        data = self.neo4j_home / "data"
        return ServerStatus(
            installed=installed,
            running=self.pid() is not None,
            pid=self.pid(),
            version=m["neo4j_version"] if m else None,
            bolt_uri=creds.get("uri"),
            browser_url=creds.get("browser"),
            home=str(self.home),
            store_bytes=_dir_bytes(data) if data.exists() else 0,
            home_bytes=_dir_bytes(self.home) if self.home.exists() else 0,
        )
