"""Where a repository's compiled code and wiring live: class directories (`target/classes`,
`build/classes/**`), jars, Spring Boot beans files, and what `tenure.toml` names. Each origin has a
content hash, so an unchanged class directory or jar is never read twice; its classes are read
through a cache of models keyed by that hash."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tenure.config import CONFIG_FILE, ConfigError, project_table, string_list
from tenure.files import leads_to
from tenure.structural.discover import ALWAYS_IGNORED
from tenure.structural.jvm import classfile, model
from tenure.structural.jvm.inputs import BEANS_NAME, CLASS_DIRS, TOOL_JARS
from tenure.structural.jvm.model import ClassModel, OriginClasses
from tenure.structural.walk import walk


class JvmInputError(Exception):
    """An origin that cannot be read at all (a broken jar, a missing path): reported, never fatal."""


@dataclass(frozen=True)
class Origin:
    """A class directory or jar; `name` is how edges and symbols refer to it (repo-relative when inside)."""

    name: str
    path: Path
    kind: str  # classes | jar
    generated_home: bool  # a build's own output: classes without source there are generated code


@dataclass(frozen=True)
class BeansInput:
    name: str
    path: Path
    profile: str = ""


@dataclass
class JvmInputs:
    origins: list[Origin] = field(default_factory=list)
    beans: list[BeansInput] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # what leads out of the repository, and why it is not read

    def __bool__(self) -> bool:
        return bool(self.origins or self.beans or self.outside)


def find_inputs(root: Path, extra_classpath: Sequence[str] = ()) -> JvmInputs:
    """Everything under `root` (ignored directories pruned) plus what tenure.toml and the user named.
    Only the repository's own files: a link found in it or a tenure.toml entry that leads out of it (a
    cloned repository's settings are someone else's input) is named in `outside`, never read; a path
    outside is read when the user names it (`tenure bytecode ingest`, `tenure di ingest`)."""
    inputs = JvmInputs()
    top = root.resolve()
    jars: list[Path] = []
    build_dirs: set[Path] = set()
    # A walk on every index without a watcher, JVM project or not (the simplest correct way): class
    # directories and jars are build output that git ignores and a build writes without touching a
    # file the index reads, so neither git's listing nor the index's stats show them appear; a proof
    # from directory mtimes instead would be racy (coarse timestamps) and save little.
    for rel, subdirs, files, _ in walk(os.fspath(root), ALWAYS_IGNORED):
        name = rel.rpartition("/")[2] if rel else root.name
        for parent, child in CLASS_DIRS:
            if name == parent and child in subdirs:
                subdirs.remove(child)
                inputs.origins.append(_origin(root, Path(root, rel, child), "classes", generated_home=True))
                build_dirs.add(Path(root, rel))
        for f in files:
            path = Path(root, rel, f)
            if not (f.endswith(".jar") and f not in TOOL_JARS or BEANS_NAME.match(f)):
                continue
            if not leads_to(top, path)[1]:
                inputs.outside.append(f"{rel}/{f}".lstrip("/") + ": a link to outside the repository, not read")
            elif f.endswith(".jar"):
                jars.append(path)
            elif _looks_like_beans(path):
                inputs.beans.append(BeansInput(_name(root, path), path))
    # A jar a build put next to its class directory packages those same classes.
    inputs.origins += [_origin(root, j, "jar", False) for j in sorted(jars)
                       if not any(b in j.parents for b in build_dirs)]
    config = _config(root)
    for entry in config["classpath"]:
        if (p := _inside(top, entry, "classpath", "tenure bytecode ingest", inputs)) is not None:
            _add_classpath(root, p, inputs)
    for entry in extra_classpath:  # named by the user: read wherever it is
        _add_classpath(root, (root / entry).resolve(), inputs)
    for entry in config["beans"]:
        spec = entry if isinstance(entry, dict) else {"path": entry}
        if (p := _inside(top, spec["path"], "beans", "tenure di ingest", inputs)) is not None:
            inputs.beans = [b for b in inputs.beans if b.path.resolve() != p]
            inputs.beans.append(BeansInput(_name(root, p), p, spec.get("profile", "")))
    inputs.origins.sort(key=lambda o: (o.kind != "classes", o.name))
    return inputs


def _inside(top: Path, entry: str, setting: str, by_hand: str, inputs: JvmInputs) -> Path | None:
    """The tenure.toml entry's path when it stays inside the repository; else None, and why in `outside`."""
    p, inside = leads_to(top, entry)
    if inside:
        return p
    inputs.outside.append(f"{entry}: [jvm] {setting} leads outside the repository ({p}), not read; "
                          f"`{by_hand} {p}` reads it")
    return None


def _add_classpath(root: Path, p: Path, inputs: JvmInputs) -> None:
    if not any(o.path.resolve() == p for o in inputs.origins):
        kind = "jar" if p.suffix == ".jar" else "classes"
        inputs.origins.append(_origin(root, p, kind, generated_home=kind == "classes"))


def _config(root: Path) -> dict:
    """The `[jvm]` table with its lists checked: classpath paths, beans paths or {path, profile} tables."""
    try:
        table = project_table(root, "jvm")
    except ConfigError as exc:
        raise JvmInputError(str(exc)) from exc
    classpath = string_list(table, "classpath", f"{CONFIG_FILE}: [jvm]", "paths", error=JvmInputError)
    beans = table.get("beans", [])
    if not (isinstance(beans, list) and all(isinstance(e, str) or isinstance(e, dict) and isinstance(
            e.get("path"), str) and isinstance(e.get("profile", ""), str) for e in beans)):
        raise JvmInputError(f"tenure.toml: [jvm] beans must be a list of paths or {{ path = ..., profile = ... }}"
                            f" tables, not {beans!r}")
    return {"classpath": classpath, "beans": beans}


def _name(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def _origin(root: Path, path: Path, kind: str, generated_home: bool) -> Origin:
    return Origin(_name(root, path), path, kind, generated_home)


def _looks_like_beans(path: Path) -> bool:
    """A beans.json is only ours if it has the actuator's shape (the name is common)."""
    try:
        data = json.loads(path.read_bytes()[:5_000_000])
    except (OSError, ValueError):
        return False
    return (isinstance(data, dict) and isinstance(data.get("contexts"), dict)) or (
        isinstance(data, list) and all(isinstance(c, dict) and "beans" in c for c in data))


# --- reading origins -------------------------------------------------------------------------------


def content_hash(origin: Origin) -> str:
    """Of a class directory: every class file's path and bytes. Of a jar: its entries' names and
    CRCs from the central directory (a content hash without inflating anything)."""
    h = hashlib.blake2b(digest_size=16)
    if origin.kind == "jar":
        try:
            with zipfile.ZipFile(origin.path) as jar:
                for info in jar.infolist():
                    h.update(f"{info.filename}\0{info.CRC}\0{info.file_size}\n".encode())
        except (OSError, zipfile.BadZipFile) as exc:
            raise JvmInputError(f"{origin.name}: not a readable jar ({exc})") from exc
        return h.hexdigest()
    if not origin.path.is_dir():
        raise JvmInputError(f"{origin.name}: no such class directory")
    for rel, full in _class_files(origin.path):
        h.update(rel.encode() + b"\0")
        h.update(full.read_bytes())
    return h.hexdigest()


def _class_files(directory: Path) -> Iterator[tuple[str, Path]]:
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".class"):
                full = Path(dirpath) / f
                yield full.relative_to(directory).as_posix(), full


def _skip_entry(rel: str) -> bool:
    # module-info / package-info describe no code; multi-release variants duplicate the base classes.
    return rel.endswith(("module-info.class", "package-info.class")) or rel.startswith("META-INF/")


def read_classes(origin: Origin) -> OriginClasses:
    """The origin's classes, and (class path, reason) for each one that could not be read."""
    models: list[ClassModel] = []
    skipped: list[tuple[str, str]] = []
    for rel, data in _entries(origin):
        if _skip_entry(rel):
            continue
        try:
            models.append(model.build(classfile.parse(data), f"{origin.name}/{rel}" if origin.kind == "classes"
                                      else f"{origin.name}!/{rel}"))
        except (classfile.ClassFileError, ValueError, KeyError, IndexError) as exc:  # one bad class, not the origin
            skipped.append((f"{origin.name}/{rel}", str(exc)))
    return OriginClasses(models, skipped)


def _entries(origin: Origin) -> Iterator[tuple[str, bytes]]:
    if origin.kind == "classes":
        for rel, full in _class_files(origin.path):
            yield rel, full.read_bytes()
        return
    try:
        with zipfile.ZipFile(origin.path) as jar:
            for info in jar.infolist():
                if info.filename.endswith(".class") and not info.is_dir():
                    try:
                        data = jar.read(info)
                    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
                        data = f"unreadable entry: {exc}".encode()  # parse() reports it as a bad class file
                    yield info.filename, data
    except (OSError, zipfile.BadZipFile) as exc:
        raise JvmInputError(f"{origin.name}: not a readable jar ({exc})") from exc


class ModelCache:
    """Class models per origin content hash, under .tenure/jvm/ (dropped when the hash changes)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, origin: Origin, digest: str) -> OriginClasses:
        path = self.directory / f"{digest}.msgpack"
        if path.is_file():
            try:
                return model.decode(path.read_bytes())
            except (ValueError, OSError):
                pass  # a damaged cache entry is read again from the origin
        classes = read_classes(origin)
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(model.encode(classes))
        tmp.replace(path)
        return classes

    def keep_only(self, digests: set[str]) -> None:
        if self.directory.is_dir():
            for p in self.directory.glob("*.msgpack"):
                if p.stem not in digests:
                    p.unlink(missing_ok=True)
