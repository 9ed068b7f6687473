"""Which project a checkout is, and which organisation: the keys the team database files rows under.

A project is named by its normalised git remote by default (`git@github.com:Acme/Shop.git` and
`https://github.com/acme/shop` are both `github.com/acme/shop`), so two checkouts on two machines
share one project. A name written in the repository's tenure.toml (`[team] project`) is used only
when the user's own config accepts it (`[team] projects`): a cloned repository is someone else's
input, and a name it chose could open another project's memories. The organisation is the user's to
say (`TENURE_ORG` or `[team] org` in the user config), never the repository's.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tenure.config import ConfigError, string_list
from tenure.git import git_argv
from tenure.team.user_config import repository_team, user_config_path, user_table

PROJECT_ENV, ORG_ENV = "TENURE_PROJECT", "TENURE_ORG"
GIT_TIMEOUT_S = 5
# hosts whose paths are case-insensitive: Acme/Shop and acme/shop are one repository
CASE_INSENSITIVE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:owner/repo.git
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?([^/:]+)(?::\d+)?/(.+)$", re.I)


@dataclass(frozen=True)
class Identity:
    project: str
    derived: str  # how the project's name was found, in words
    org: str | None
    org_derived: str

    def as_dict(self) -> dict:
        return {"project": self.project, "derived": self.derived, "org": self.org, "orgDerived": self.org_derived}


def identify(root: Path) -> Identity:
    project, derived = _project(root)
    org, org_derived = _org()
    return Identity(project, derived, org, org_derived)


def normalised_remote(url: str) -> str | None:
    """A git remote URL as `host/path`: no scheme, user, port or `.git`; the host in lower case (and
    the path too where the host ignores case). None: not a remote URL (a local path)."""
    url = url.strip()
    m = _URL.match(url) or (None if url.startswith(("/", ".", "file:")) else _SCP.match(url))
    if m is None:
        return None
    host, path = m.group(1).lower(), m.group(2).strip("/")
    path = path.removesuffix(".git").strip("/")
    if not path:
        return None
    return f"{host}/{path.lower() if host in CASE_INSENSITIVE_HOSTS else path}"


def _project(root: Path) -> tuple[str, str]:
    if os.environ.get(PROJECT_ENV, "").strip():
        return os.environ[PROJECT_ENV].strip(), f"{PROJECT_ENV} (environment)"
    repository, unreadable = repository_team(root)
    named = repository.get("project")
    remote = _remote(root)
    accepted = string_list(user_table("team"), "projects", f"{user_config_path()}: [team]", "project names")
    if isinstance(named, str) and named.strip():
        if named.strip() in accepted:
            return named.strip(), "tenure.toml [team] project (accepted by your config's [team] projects)"
        unaccepted = (f"; tenure.toml names {named.strip()!r}, not used: add it to [team] projects in your"
                      " tenure config to accept it")
    else:
        unaccepted = unreadable
    if remote and remote[0]:
        name, remote_name = remote
        return name, f"git remote {remote_name!r}, normalised{unaccepted}"
    why = (f"git remote {remote[1]!r} is a local path, which names no repository another machine shares"
           if remote else "no git remote")
    return f"local/{root.resolve().name}", (f"{why}: the checkout's directory name (set {PROJECT_ENV} or"
                                             f" add a remote to share it between checkouts){unaccepted}")


def _remote(root: Path) -> tuple[str | None, str] | None:
    """The normalised URL of the checkout's remote (origin first) and the remote's name (its URL
    may carry a token: never shown); (None, its name) when every remote is a local path; None when
    there is no remote."""
    try:
        found = subprocess.run(git_argv(root, "remote", "-v"), capture_output=True, text=True,
                               timeout=GIT_TIMEOUT_S, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    remotes = {}
    for line in found.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] not in remotes:
            remotes[parts[0]] = parts[1]
    for name in ["origin", *sorted(remotes)]:
        if name in remotes and (normal := normalised_remote(remotes[name])):
            return normal, name
    return (None, "origin" if "origin" in remotes else min(remotes)) if remotes else None


def _org() -> tuple[str | None, str]:
    """The organisation's id: `org:` and its name (never equal to a project's name)."""
    if os.environ.get(ORG_ENV, "").strip():
        return f"org:{os.environ[ORG_ENV].strip()}", f"{ORG_ENV} (environment)"
    org = user_table("team").get("org")
    if org is not None and not (isinstance(org, str) and org.strip()):
        raise ConfigError(f"{user_config_path()}: [team] org must be the organisation's name, not {org!r}")
    if org:
        return f"org:{org.strip()}", "[team] org in your tenure config"
    return None, "none configured ([team] org in your tenure config)"
