"""Which database the shared stores (memories, episodes, knowledge, rules) use: the checkout's own
SQLite file by default, or a team's PostgreSQL.

Only the user chooses a server: `TENURE_DATABASE_URL`, or `[team] database` in the user's tenure
config. A repository's tenure.toml may name one (`[team] database = "postgresql://host:port/name"`),
used only when the user's config lists its host in `[team] allowed_hosts`; it carries no user,
password or connection options (credentials come from the user's environment, e.g. PGPASSWORD or
~/.pgpass), so a hostile repository can neither send a user's memories to a server it runs nor
point tenure at files on the user's machine.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from tenure.config import ConfigError
from tenure.storage import Database, StorageError
from tenure.team.user_config import allows_host, repository_team, user_config_path, user_table

DATABASE_ENV = "TENURE_DATABASE_URL"


class TeamDatabase(NamedTuple):
    """Where the shared stores are (a named tuple: see `tenure.episodic.testruns.Runner`)."""

    url: str | None  # None: the shared stores stay in the checkout's SQLite file
    derived: str  # how it was chosen (or why a repository's choice was not used), in words


def team_database(root: Path) -> TeamDatabase:
    if os.environ.get(DATABASE_ENV, "").strip():
        return TeamDatabase(os.environ[DATABASE_ENV].strip(), f"{DATABASE_ENV} (environment)")
    user = user_table("team")
    if "database" in user:
        return TeamDatabase(_user_url(user["database"]), "[team] database in your tenure config")
    repository, unreadable = repository_team(root)
    named = repository.get("database")
    if not named:
        return TeamDatabase(None, "none configured: the shared stores are in the checkout's own SQLite file"
                                  + unreadable)
    try:
        url, host = _repository_url(named)
    except ConfigError as exc:
        return TeamDatabase(None, f"{exc}: not used")
    if allows_host("team", host):
        return TeamDatabase(url, f"tenure.toml [team] database (its host {host} is in your config's allowed_hosts)")
    return TeamDatabase(None, f"tenure.toml names a team database on {host}; not used: a repository cannot choose"
                              " where your memories go. Add the host to [team] allowed_hosts in your tenure"
                              " config to accept it")


def _user_url(named: object) -> str:
    """The user's own database URL, as written (credentials and options are theirs to give); refused when it
    is no URL or names port 0 (which libpq would take for its default, 5432)."""
    where = f"{user_config_path()}: [team] database"
    if not isinstance(named, str) or not named.strip():
        raise ConfigError(f"{where} must be a postgresql:// URL, not {named!r}")
    try:
        port = urlsplit(named.strip()).port
    except ValueError:  # (libpq's list of hosts "a:5432,b:5433": the user's choice, told by libpq if wrong)
        port = None
    if port == 0:
        raise ConfigError(f"{where} must name a port from 1 to 65535, not 0")
    return named.strip()


def _repository_url(named: object) -> tuple[str, str]:
    """A repository's database URL reduced to host, port and database name; refused when it carries
    credentials or options."""
    if not isinstance(named, str):
        raise ConfigError("tenure.toml: [team] database must be a postgresql:// URL")
    parts = urlsplit(named.strip())
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise ConfigError("tenure.toml: [team] database must be a postgresql://host:port/name URL")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ConfigError("tenure.toml: [team] database may name only host, port and database: credentials and"
                          " options come from your own environment, never from a repository")
    try:
        if parts.port == 0:  # (dropped, libpq would take its default: said, as any other port out of range)
            raise ValueError
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # (a port past 65535, or a list of hosts "a:5432,b": libpq would try each)
        raise ConfigError("tenure.toml: [team] database must name one host and a port from 1 to 65535:"
                          " postgresql://host:port/name") from None
    if "," in parts.netloc:
        raise ConfigError("tenure.toml: [team] database must name one host: postgresql://host:port/name")
    return f"postgresql://{parts.hostname}{port}{parts.path}", parts.hostname


def open_team_database(root: Path) -> Database | None:
    """The team's database as this checkout's project sees it (None: none is configured)."""
    chosen = team_database(root)
    if chosen.url is None:
        return None
    try:
        from tenure.storage.postgres import PostgresDatabase  # (psycopg: loaded only for a team database)
    except ImportError as exc:
        raise StorageError(f"a team database is configured ({chosen.derived}) but its driver is not installed:"
                           " pip install 'tenure[team]'") from exc
    from tenure.team.identity import identify  # (here: a checkout without a team database names no project)

    who = identify(root)
    return PostgresDatabase(chosen.url, who.project, who.org)


def describe(root: Path, shared: Database) -> dict:
    """`tenure team status`: which database the shared stores use and whether it answers, and which
    project and organisation this checkout is there (each with how it was found)."""
    from tenure.team.identity import identify

    chosen = team_database(root)
    who = identify(root)
    try:
        answers, error = shared.server(), None
    except StorageError as exc:
        answers, error = None, str(exc)
    return {"backend": "postgresql" if chosen.url else "sqlite", "database": shared.where, "chosen": chosen.derived,
            "answers": answers is not None, "server": answers, **({"error": error} if error else {}),
            **(who.as_dict() if chosen.url else {"project": who.project, "derived": who.derived,
                                                  "note": "the project's name files its rows in a team database;"
                                                          " without one, the checkout's file holds only its own"})}
