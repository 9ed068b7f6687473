"""A small Language Server Protocol client: JSON-RPC 2.0 over a server's stdio, typed with lsprotocol.

One reader thread parses Content-Length frames: responses wake the request waiting for them,
requests from the server (configuration, capability registration, progress tokens) are answered at
once, notifications are dropped. The server runs in a process group of its own, so closing the
client (or a timeout) ends the server and whatever it spawned (tsserver, node workers).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

from tenure.state import process_folder
from tenure.structural.lsp.bounds import WATCH_S, GroupMemory

_converter = get_converter()
SHUTDOWN_TIMEOUT_S = 5.0
TMP_FOLDER = "lsp-tmp-"  # then the pid of the tenure process that started the server (state.process_folder)


class LspError(Exception):
    """The server failed: it is missing, crashed, hung or answered with an error."""


class ServerGone(LspError):
    """The server process exited or closed its output."""


class RequestTimeout(LspError):
    """No answer within the request's timeout: the server is treated as hung."""


def absolute_path() -> str:
    """PATH without its relative entries: "" and "." name the folder a program runs in, and the server runs
    in the project's root, where a cloned repository's `go` or `node` would then be the one its tools run."""
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p))


class LspClient:
    def __init__(self, command: list[str], root: Path, timeout: float = 60.0, env: dict[str, str] | None = None,
                 max_rss: int | None = None, settings: dict | None = None, scratch: Path | None = None):
        """`max_rss`: bytes the server's process group may hold resident; past them it is killed (and
        every request fails saying so). `settings`: section -> the value workspace/configuration answers.
        `scratch`: the state directory, where the server's TMPDIR is made, removed once its process group
        has ended (servers leave theirs in /tmp: tsserver a 32-hex folder per start, pyright one when killed)."""
        self.command = command
        self.settings = settings or {}
        self.root = root
        self.timeout = timeout
        self.max_rss = max_rss
        self._over_memory = ""  # why the watchdog killed the server
        self._tmp = process_folder(str(scratch), TMP_FOLDER) if scratch else None
        tmp = {"TMPDIR": self._tmp.name} if self._tmp else {}
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root,
                start_new_session=True, env={**os.environ, "PATH": absolute_path(), **tmp, **(env or {})},
            )
        except OSError as exc:
            if self._tmp:
                self._tmp.cleanup()
            raise LspError(f"cannot start {command[0]}: {exc.strerror or exc}") from exc
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        self._pending: dict[int, tuple[threading.Event, list[dict]]] = {}
        self._pending_lock = threading.Lock()
        self._gone = threading.Event()
        self._stderr_tail: list[str] = []
        self._logs: list[str] = []  # window/logMessage texts: some servers say there when they are ready
        self._logged = threading.Condition()
        self._progress_titles: dict[str, str] = {}  # $/progress token -> title, until it ends
        self.server_info = ""  # "name version" from the initialize result
        self.capabilities: lsp.ServerCapabilities | None = None
        threading.Thread(target=self._read_loop, name="lsp-reader", daemon=True).start()
        threading.Thread(target=self._drain_stderr, name="lsp-stderr", daemon=True).start()
        if max_rss is not None:
            threading.Thread(target=self._watch_memory, name="lsp-memory", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    # lifecycle ---------------------------------------------------------------------------------
    def initialize(self, timeout: float | None = None, options: dict | None = None) -> lsp.InitializeResult:
        uri = self.root.as_uri()
        params = lsp.InitializeParams(
            process_id=os.getpid(),
            initialization_options=options or None,
            root_uri=uri,
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
                text_document=lsp.TextDocumentClientCapabilities(
                    definition=lsp.DefinitionClientCapabilities(link_support=False),
                    references=lsp.ReferenceClientCapabilities(),
                    implementation=lsp.ImplementationClientCapabilities(link_support=False),
                ),
                window=lsp.WindowClientCapabilities(work_done_progress=True),
            ),
        )
        result: lsp.InitializeResult = self.request(lsp.INITIALIZE, params, timeout)
        self.capabilities = result.capabilities
        if result.server_info:
            self.server_info = f"{result.server_info.name} {result.server_info.version or ''}".strip()
        else:
            self.server_info = Path(self.command[0]).name
        self.notify(lsp.INITIALIZED, lsp.InitializedParams())
        return result

    def open_document(self, path: Path, language_id: str, text: str) -> str:
        uri = path.as_uri()
        self.notify(lsp.TEXT_DOCUMENT_DID_OPEN, lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)))
        return uri

    def close_document(self, uri: str) -> None:
        self.notify(lsp.TEXT_DOCUMENT_DID_CLOSE,
                    lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))

    def supports(self, provider: str) -> bool:
        """Whether the server advertised a capability, e.g. `implementation_provider`."""
        return bool(self.capabilities and getattr(self.capabilities, provider, None))

    def close(self) -> None:
        """shutdown + exit when the server is still answering, then end its whole process group."""
        if not self._gone.is_set():
            with contextlib.suppress(LspError):
                self.request(lsp.SHUTDOWN, None, SHUTDOWN_TIMEOUT_S)
                self.notify(lsp.EXIT, None)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(SHUTDOWN_TIMEOUT_S)
        self.kill()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # the server and every child it spawned
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(SHUTDOWN_TIMEOUT_S)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        if self._tmp:  # (the group has ended: nothing writes there any more)
            self._tmp.cleanup()

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # requests ----------------------------------------------------------------------------------
    def definition(self, uri: str, line: int, character: int) -> list[lsp.Location]:
        """Where the name at (0-based line, character) is defined."""
        params = lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                      position=lsp.Position(line=line, character=character))
        return _locations(self.request(lsp.TEXT_DOCUMENT_DEFINITION, params))

    def references(self, uri: str, line: int, character: int) -> list[lsp.Location]:
        params = lsp.ReferenceParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                     position=lsp.Position(line=line, character=character),
                                     context=lsp.ReferenceContext(include_declaration=False))
        return _locations(self.request(lsp.TEXT_DOCUMENT_REFERENCES, params))

    def implementation(self, uri: str, line: int, character: int) -> list[lsp.Location]:
        params = lsp.ImplementationParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                          position=lsp.Position(line=line, character=character))
        return _locations(self.request(lsp.TEXT_DOCUMENT_IMPLEMENTATION, params))

    def request(self, method: str, params: Any, timeout: float | None = None) -> Any:
        """Send a request and wait for its result (structured into lsprotocol types)."""
        request_type, response_type = lsp.METHOD_TO_TYPES[method][:2]
        msg_id = next(self._ids)
        done: tuple[threading.Event, list[dict]] = (threading.Event(), [])
        with self._pending_lock:
            self._pending[msg_id] = done
        try:
            self._send(_converter.unstructure(request_type(id=msg_id, params=params)))
            if not done[0].wait(self.timeout if timeout is None else timeout):
                if self._gone.is_set():
                    raise ServerGone(self._why_gone())
                raise RequestTimeout(f"{method} got no answer within {self.timeout if timeout is None else timeout:g}s")
        finally:
            with self._pending_lock:
                self._pending.pop(msg_id, None)
        if not done[1]:
            raise ServerGone(self._why_gone())
        message = done[1][0]
        if "error" in message:
            error = message["error"]
            raise LspError(f"{method} failed: {error.get('message', error)} (code {error.get('code')})")
        return _converter.structure(message, response_type).result

    def notify(self, method: str, params: Any) -> None:
        notification_type = lsp.METHOD_TO_TYPES[method][0]
        self._send(_converter.unstructure(notification_type(params=params)))

    def _send(self, message: dict) -> None:
        body = json.dumps(message, separators=(",", ":")).encode()
        frame = f"Content-Length: {len(body)}\r\n\r\n".encode() + body
        with self._write_lock:
            if self._gone.is_set():
                raise ServerGone(self._why_gone())
            try:
                self.process.stdin.write(frame)  # type: ignore[union-attr]
                self.process.stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, OSError, ValueError) as exc:
                raise ServerGone(self._why_gone()) from exc

    # the reader thread -------------------------------------------------------------------------
    def _read_loop(self) -> None:
        stream = self.process.stdout
        try:
            while (message := _read_frame(stream)) is not None:  # type: ignore[arg-type]
                self._dispatch(message)
        except (OSError, ValueError):
            pass
        finally:
            self._gone.set()
            with self._pending_lock:
                waiting = list(self._pending.values())
            for event, _ in waiting:
                event.set()  # wake every waiter: it finds no answer and reports the server gone

    def _dispatch(self, message: dict) -> None:
        if "method" not in message:
            with self._pending_lock:
                waiter = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if waiter:
                waiter[1].append(message)
                waiter[0].set()
            return
        if "id" in message:  # a request from the server: it waits for our answer
            self._answer(message)
        elif message["method"] == lsp.WINDOW_LOG_MESSAGE:
            with self._logged:
                self._logs.append(str((message.get("params") or {}).get("message", "")))
                self._logged.notify_all()
        elif message["method"] == lsp.PROGRESS:
            params = message.get("params") or {}
            value, token = params.get("value") or {}, str(params.get("token"))
            with self._logged:
                if value.get("kind") == "begin":
                    self._progress_titles[token] = str(value.get("title", ""))
                elif value.get("kind") == "end" and token in self._progress_titles:
                    self._logs.append(f"progress done: {self._progress_titles.pop(token)}")
                    self._logged.notify_all()

    def wait_for_log(self, pattern: str, timeout: float | None = None) -> None:
        """Wait until the server logs a line matching `pattern`, e.g. pyright's "Found 12 source files"
        (before it, cross-file references come back incomplete), or ends a piece of work: finished
        `$/progress` shows as "progress done: <title>" (a `ready_log` of the user's config may wait for it)."""
        regex = re.compile(pattern)
        seen = 0
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        with self._logged:
            while True:
                if any(regex.search(line) for line in self._logs[seen:]):
                    return
                seen = len(self._logs)
                if self._gone.is_set():
                    raise ServerGone(self._why_gone())
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RequestTimeout(f"the server never logged {pattern!r}")
                self._logged.wait(min(remaining, 0.5))

    def _answer(self, message: dict) -> None:
        method, params = message["method"], message.get("params") or {}
        if method == lsp.WORKSPACE_CONFIGURATION:
            # (a section not in settings: None, the server's defaults)
            result: Any = [self.settings.get(item.get("section")) for item in params.get("items", [])]
        else:
            result = None  # registerCapability, workDoneProgress/create, …: acknowledged
        with contextlib.suppress(LspError):
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def _drain_stderr(self) -> None:
        # A server that logs to stderr must never block on a full pipe; keep the tail for reports.
        for raw in self.process.stderr:  # type: ignore[union-attr]
            self._stderr_tail = [*self._stderr_tail[-19:], raw.decode(errors="replace").rstrip()]

    def _watch_memory(self) -> None:
        assert self.max_rss is not None
        group = GroupMemory(self.process.pid)
        while not self._gone.wait(WATCH_S):
            held = group.rss()
            if held is None:
                return  # no /proc: the time bounds alone hold
            if held > self.max_rss:
                self._over_memory = (f"{Path(self.command[0]).name} held {held >> 20:,} MB, past the bound of "
                                     f"{self.max_rss >> 20:,} MB ([lsp] max_memory_mb): ended")
                self.kill()
                return

    def _why_gone(self) -> str:
        if self._over_memory:
            return self._over_memory
        code = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self.process.wait(1)  # its output closes a moment before it exits
        tail = next((line for line in reversed(self._stderr_tail) if line.strip()), "")
        status = f"exited with code {code}" if code is not None else "closed its output"
        return f"{Path(self.command[0]).name} {status}" + (f": {tail[:200]}" if tail else "")


def _read_frame(stream: Any) -> dict | None:
    length = None
    while True:
        header = stream.readline()
        if not header:
            return None
        header = header.strip()
        if not header:
            break
        name, _, value = header.decode("ascii", errors="replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError("frame without Content-Length")
    body = stream.read(length)
    if len(body) < length:
        return None
    return json.loads(body)


def _locations(result: Any) -> list[lsp.Location]:
    """Definition-like answers come as one Location, a list of them, or LocationLinks."""
    if result is None:
        return []
    items = result if isinstance(result, list | tuple) else [result]
    out = []
    for item in items:
        if isinstance(item, lsp.LocationLink):
            out.append(lsp.Location(uri=item.target_uri, range=item.target_selection_range))
        else:
            out.append(item)
    return out
