"""The organisation a project belongs to: what organisation-scope memories and rules are shared by.

Named in tenure.toml (`[organisation] name = "acme"`), else by the owner in the project's git
remote (`git@github.com:acme/shop.git`, `https://gitlab.example.com/acme/shop` -> `acme`). A project
with neither has no organisation, and an organisation-scope write says how to name one.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tenure.config import CONFIG_FILE, ConfigError, project_table
from tenure.refusal import Refusal

GIT_TIMEOUT_S = 10
# the owner in a remote URL: the path's segment before the repository's (scp-like or URL form)
_OWNER = re.compile(r"(?:^[^/:]+@[^/:]+:|://[^/]+/)(?:.*/)?([^/]+)/[^/]+?(?:\.git)?/?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # also a key file's name: no path, no spaces


class NoOrganisation(Refusal):
    """The project names no organisation: organisation scope needs one."""


@dataclass(frozen=True)
class Organisation:
    name: str
    how: str  # where the name came from, in words


def organisation(root: Path) -> Organisation | None:
    """The project's organisation, or None when neither tenure.toml nor a git remote names one."""
    named = project_table(root, "organisation").get("name")
    if named is not None:
        if not isinstance(named, str) or not _NAME.match(named):
            raise ConfigError(f"{CONFIG_FILE}: [organisation] name must be letters, digits, '.', '_' or '-', "
                              f"not {named!r}")
        return Organisation(named, f"{CONFIG_FILE} [organisation] name")
    remote = _origin(root)
    found = _OWNER.search(remote) if remote else None
    if found and _NAME.match(found.group(1)):
        return Organisation(found.group(1), f"the owner in the git remote {remote}")
    return None


def require_organisation(root: Path) -> Organisation:
    found = organisation(root)
    if found is None:
        raise NoOrganisation(f"organisation scope needs an organisation: this project names none. Add "
                             f"`[organisation]\\nname = \"acme\"` to {CONFIG_FILE}, or give the repository a "
                             "git remote (its owner names the organisation)")
    return found


def _origin(root: Path) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), "config", "--get", "remote.origin.url"],
                              capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
