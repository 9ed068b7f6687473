"""The organisation as organisation scope needs it: a name (its key file is named after it), or a
refusal that says how to set one (the user's to say: `TENURE_ORG` or `[team] org`, see identity.py)."""

from __future__ import annotations

import re
from pathlib import Path

from tenure.refusal import Refusal
from tenure.team.identity import ORG_ENV, identify
from tenure.team.user_config import user_config_path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")  # (the name becomes part of a key file's name)


class NoOrganisation(Refusal):
    """No organisation is configured: organisation scope needs one."""


def organisation(root: Path) -> str | None:
    """The organisation's name, safe in a file name (None: none is configured)."""
    org = identify(root).org
    return _UNSAFE.sub("_", org.removeprefix("org:")) if org else None


def require_organisation(root: Path) -> str:
    name = organisation(root)
    if name is None:
        raise NoOrganisation(f"organisation scope needs an organisation, and none is configured: set {ORG_ENV}=acme, "
                             f"or `org = \"acme\"` under [team] in your tenure config ({user_config_path()})")
    return name
