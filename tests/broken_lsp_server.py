"""A language server that misbehaves on purpose, for the failure tests (run as a script).

    python broken_lsp_server.py crash            answers initialize, exits on the first later request
    python broken_lsp_server.py hang PIDFILE     answers initialize, starts a child, never answers again
    python broken_lsp_server.py crash-once MARK  crashes like `crash` unless MARK exists (it creates
                                                 it), then runs the real basedpyright in its place
    python broken_lsp_server.py grow             answers initialize, then a child of it grows by 20 MB
                                                 every 50 ms (to 300 MB); nothing is answered again
    python broken_lsp_server.py slow             answers every request, each after 0.2 s (never done)
    python broken_lsp_server.py late-refs        answers at once, but references after 4 s, with every call
                                                 of the asked-about name in its file
    python broken_lsp_server.py tmp FILE         answers initialize, makes a folder in its temporary directory
                                                 (as tsserver does) and writes its path to FILE; then hangs
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# 20 MB written every 50 ms, up to 300 MB (a test's bound is far below), then held
GROW = ("import time\nheld = []\nwhile len(held) < 15:\n    held.append(b'x' * (20 << 20))\n    time.sleep(0.05)\n"
        "time.sleep(600)\n")


def read(stream) -> dict | None:  # noqa: ANN001
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b"\n"):
        if not line:
            return None
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def write(message: dict) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def calls(params: dict) -> list[dict]:
    """Where the name at the asked position is called in its file (`name(` on a line)."""
    uri = params["textDocument"]["uri"]
    lines = Path(uri.removeprefix("file://")).read_text().splitlines()
    at = params["position"]
    line = lines[at["line"]]
    start = at["character"]
    end = start
    while end < len(line) and (line[end].isalnum() or line[end] == "_"):
        end += 1
    name = line[start:end]
    found = [(i, c) for i, text in enumerate(lines)
             if (c := text.find(name + "(")) >= 0 and not text.lstrip().startswith("def")]
    return [{"uri": uri, "range": {"start": {"line": i, "character": c},
                                   "end": {"line": i, "character": c + len(name)}}} for i, c in found]


def main(mode: str, arg: str = "") -> None:
    if mode == "crash-once" and Path(arg).exists():
        os.execvp("basedpyright-langserver", ["basedpyright-langserver", "--stdio"])
    if mode == "crash-once":
        Path(arg).write_text("crashed once")
    while (message := read(sys.stdin.buffer)) is not None:
        if message.get("method") == "initialize":
            write({"jsonrpc": "2.0", "id": message["id"],
                   "result": {"capabilities": {"definitionProvider": True, "referencesProvider": mode == "late-refs"},
                              "serverInfo": {"name": "broken"}}})
            if mode == "hang":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                Path(arg).write_text(str(child.pid))
            if mode == "tmp":
                made = Path(tempfile.mkdtemp())  # (in $TMPDIR, as a Node server's os.tmpdir())
                Path(arg).write_text(str(made))
            if mode == "grow":  # (a child: the bound covers the server's whole process group)
                subprocess.Popen([sys.executable, "-c", GROW])
        elif "id" in message and mode == "slow":
            time.sleep(0.2)
            write({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif "id" in message and mode == "late-refs":
            result = None
            if message["method"] == "textDocument/references":
                time.sleep(4)
                result = calls(message["params"])
            write({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "id" in message and mode in ("crash", "crash-once"):
            print("segfault simulated", file=sys.stderr, flush=True)
            sys.exit(3)


if __name__ == "__main__":
    main(*sys.argv[1:])
