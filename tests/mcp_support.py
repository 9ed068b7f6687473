"""Starting `tenure serve` for real and talking to it with the SDK's own client."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

# The installed entry point, run by this interpreter: the same code the `tenure` script runs.
TENURE = [sys.executable, "-c", "from tenure.cli import app; app()"]


def server_env(home: Path) -> dict[str, str]:
    """A clean environment with a temporary HOME: memories' key files land there, not in the real one.
    PYTHONPATH is kept: a worktree's tests run the worktree's code, not the installed one."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "PYTHONPATH")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONUNBUFFERED="1")
    return env


def stdio_params(repo: Path, home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=TENURE[0], args=[*TENURE[1:], "serve", "--repo", str(repo)],
                                 env=server_env(home))


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(repo: Path, home: Path, host: str = "127.0.0.1", token: str | None = None) -> Iterator[str]:
    """`tenure serve --http` in a subprocess; yields its MCP URL once it accepts connections.
    A server bound to every interface (0.0.0.0) is still reached through loopback: tests send traffic
    to this machine's loopback addresses only."""
    port = free_port(host)
    connect = "127.0.0.1" if host == "0.0.0.0" else host
    args = [*TENURE, "serve", "--http", "--host", host, "--port", str(port), "--repo", str(repo)]
    if token:
        args += ["--token", token]
    proc = subprocess.Popen(args, env=server_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(connect, port, proc)
        yield f"http://{connect}:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for_port(host: str, port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s")
