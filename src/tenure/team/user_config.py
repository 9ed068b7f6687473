"""The user's own tenure config (`$XDG_CONFIG_HOME/tenure/config.toml`, default `~/.config`): settings a
cloned repository must not choose for the user (which database server, which organisation)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from tenure.config import ConfigError, project_table, read_toml, string_list, table_of


def user_config_dir() -> Path:
    """The user's tenure directory (config.toml, the projects' key files)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")) / "tenure"


def user_config_path() -> Path:
    return user_config_dir() / "config.toml"


def repository_team(root: Path) -> tuple[dict, str]:
    """The repository's own `[team]` table of tenure.toml, and "" — or {} and why it cannot be read (a
    repository's broken file never stops tenure from opening the project: its choices are only unused)."""
    try:
        return project_table(root, "team"), ""
    except ConfigError as exc:
        return {}, f"; tenure.toml cannot be read ({exc}), its [team] is not used"


def user_table(name: str) -> dict:
    """Table `name` of the user's config ({} without the file or the table); shared between calls: read it,
    never change it."""
    path = user_config_path()
    return table_of(_user_config(path), path, name)


def allows_host(section: str, host: str) -> bool:
    """Whether the user's config lists `host` in `[section] allowed_hosts`: a server a repository's tenure.toml
    names, where the user's key or memories would go, is used only then. Host names compare in lower case."""
    hosts = string_list(user_table(section), "allowed_hosts", f"{user_config_path()}: [{section}]", "host names")
    return host.lower() in {h.lower() for h in hosts}


# The user's config as last read: its path, the file's (mtime, size, inode, device, ctime) then, when it was
# read, its content. The ctime: a rewrite in place of the same size with its mtime put back (cp -p, rsync -t,
# touch -r) changes only that, and no one can set it back.
_read: tuple[Path, tuple[int, int, int, int, int], int, dict] | None = None
# A file changed this shortly before it was read may change again within one tick of the file system's clock,
# its mtime unchanged: it is read again until it is older (as git treats a "racily clean" index entry).
RACY_NS = 2_000_000_000


def _user_config(path: Path) -> dict:
    """The user's config, read once per process while the file stays as it was: a run asks it for every
    server, session and request; a long-running server (and a test) still sees the file once it changes."""
    global _read
    try:
        status = path.stat()
    except OSError:
        return {}
    if not stat.S_ISREG(status.st_mode):
        return {}
    signature = (status.st_mtime_ns, status.st_size, status.st_ino, status.st_dev, status.st_ctime_ns)
    if _read is not None and _read[:2] == (path, signature) and _read[2] - status.st_mtime_ns > RACY_NS:
        return _read[3]
    now = time.time_ns()  # (before reading: a change made while it reads is newer)
    document = read_toml(path)
    _read = (path, signature, now, document)
    return document


def trusts(table: str, root: Path) -> bool:
    """Whether the user's config lists `root` in `[<table>] trusted_projects` (a list of project folders).
    An entry must be an absolute path (~ allowed): "" or "." resolved against the current directory
    trusted whatever project tenure runs in."""
    where = f"{user_config_path()}: [{table}]"
    folders = [_trusted_folder(entry, where)
               for entry in string_list(user_table(table), "trusted_projects", where, "project folders")]
    return any(folder.resolve() == root.resolve() for folder in folders)


def _trusted_folder(entry: str, where: str) -> Path:
    """A `trusted_projects` entry as the absolute folder it must name, else ConfigError naming it."""
    try:
        folder = Path(entry).expanduser()
    except RuntimeError:  # (~someone unknown)
        folder = Path(entry)
    if not folder.is_absolute():
        raise ConfigError(f"{where} trusted_projects entry {entry!r} is not an absolute path: it would trust"
                          " whatever project tenure runs in")
    return folder
