"""Where tenure keeps a project's state: `<root>/.tenure/tenure.db`. A module of its own, so that the
entry point can look before the product is loaded."""

from pathlib import Path

STATE_DIR = ".tenure"
DB_NAME = "tenure.db"


def state_dir(root: Path) -> Path:
    """The directory holding a project's state (its database, logs, caches, setup manifest)."""
    return root / STATE_DIR


def database_path(root: Path) -> Path:
    return state_dir(root) / DB_NAME


def make_state_dir(root: Path) -> Path:
    """`root`'s state directory, made if missing: private to its owner (0700, whatever the umask: it
    holds the memories and the session log) and ignored by git."""
    state = state_dir(root)
    state.mkdir(mode=0o700, exist_ok=True)  # (the umask can only narrow it)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return state
