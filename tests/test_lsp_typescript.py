"""TypeScript through typescript-language-server (the optional npm extra, with TypeScript 5: 7 ships no
tsserver.js): the checker narrows a call on a record's value and confirms interface implementations.

The server is installed from npm into a cache directory on first use (a few seconds), as the MCP
Inspector test does; without npm the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tenure import Tenure

PACKAGES = ["typescript-language-server@5.3.0", "typescript@5"]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tenure-tests" / "ts-lsp-5.3.0"
FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}}\n',
    "src/shapes.ts": (
        "export interface Shape {\n"
        "  area(): number;\n"
        "}\n"
        "\n"
        "export class Circle implements Shape {\n"
        "  area(): number {\n"
        "    return 3;\n"
        "  }\n"
        "}\n"
        "\n"
        "export class Square implements Shape {\n"
        "  area(): number {\n"
        "    return 4;\n"
        "  }\n"
        "}\n"
    ),
    "src/report.ts": (
        'import { Circle, Shape } from "./shapes";\n'
        "\n"
        "export function total(shapes: Record<string, Circle>): number {\n"
        '  return shapes["a"].area();\n'  # tree-sitter: ambiguous between the three area() methods
        "}\n"
        "\n"
        "export function measure(s: Shape): number {\n"
        "  return s.area();\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def server_bin() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: typescript-language-server comes from npm (apt-get install npm)")
    bin_dir = CACHE / "node_modules" / ".bin"
    if not (bin_dir / "typescript-language-server").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), *PACKAGES],
                       check=True, capture_output=True, text=True, timeout=600)
    return bin_dir


def test_typescript_calls_are_narrowed_and_implementations_confirmed(server_bin, make_indexed_repo,
                                                                     monkeypatch) -> None:
    monkeypatch.setenv("PATH", f"{server_bin}{os.pathsep}{os.environ['PATH']}")
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        before = {d["symbol"]: d["tier"] for d in t.what_breaks("src/shapes.Circle.area")["dependants"]}
        assert before["src/report.total"] == "ambiguous"
        report = t.enrich()
        assert report["languages"]["typescript"]["server"] == "typescript-language-server"
        circle = {d["symbol"]: d for d in t.what_breaks("src/shapes.Circle.area")["dependants"]}
        assert (circle["src/report.total"]["tier"], circle["src/report.total"]["sources"]) == (
            "resolved", ["lsp", "tree-sitter"])
        square = t.what_breaks("src/shapes.Square.area")
        assert [r["symbol"] for r in square["refuted"]] == ["src/report.total"]
        shape = {d["symbol"]: d["tier"] for d in t.what_breaks("src/shapes.Shape")["dependants"]}
        assert shape["src/shapes.Circle"] == shape["src/shapes.Square"] == "resolved"  # implementation


def test_a_typescript_the_repository_holds_in_node_modules_is_never_run(server_bin, make_indexed_repo,
                                                                         monkeypatch, tmp_path: Path) -> None:
    """Left to itself, typescript-language-server runs the tsserver.js of the workspace's
    node_modules/typescript, which a cloned repository can commit: tenure hands it the TypeScript
    installed beside it, and the repository's file never runs."""
    monkeypatch.setenv("PATH", f"{server_bin}{os.pathsep}{os.environ['PATH']}")
    marker = tmp_path / "ran"
    planted = {"node_modules/typescript/package.json": '{"name": "typescript", "version": "5.6.3"}\n',
               "node_modules/typescript/lib/tsserver.js":
                   f"require('fs').writeFileSync({str(marker)!r}, 'the repository chose what ran');\n"}
    root = make_indexed_repo({**FILES, **planted})
    with Tenure.open(root, discover=False) as t:
        report = t.enrich()
        circle = {d["symbol"]: d for d in t.what_breaks("src/shapes.Circle.area")["dependants"]}
    assert not marker.exists()
    assert not report["languages"]["typescript"]["failed"]
    assert circle["src/report.total"]["tier"] == "resolved"


def test_the_typescript_server_installs_no_type_packages_a_repository_names(server_bin, make_indexed_repo,
                                                                             monkeypatch, tmp_path: Path) -> None:
    """tsserver's automatic type acquisition (on for JavaScript outside a tsconfig) runs npm for the
    @types of a package.json's dependencies, into the user's cache: the repository would choose what is
    downloaded and written outside it (and the types the checker then trusts). The server is started with
    it off."""
    monkeypatch.setenv("PATH", f"{server_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    script = "function pad() { return 1; }\nfunction main() { return pad(); }\n"  # (outside tsconfig's project)
    root = make_indexed_repo({**FILES, "package.json": '{"dependencies": {"left-pad": "1.3.0"}}\n',
                              "tools/main.js": script})
    with Tenure.open(root, discover=False) as t:
        report = t.enrich()
    assert report["languages"]["javascript"]["verified"] == 1
    assert not (tmp_path / "cache" / "typescript").exists()


def test_typescript_files_outside_any_tsconfig_are_verified(server_bin, make_indexed_repo, monkeypatch) -> None:
    """Files in no tsconfig/jsconfig project make an inferred project, whose loading tsserver never reports:
    the run does not wait for it, and the one tsserver answers cross-file calls (a syntax server beside it
    answered from the open file alone while the project loaded)."""
    monkeypatch.setenv("PATH", f"{server_bin}{os.pathsep}{os.environ['PATH']}")
    root = make_indexed_repo({path: text for path, text in FILES.items() if path != "tsconfig.json"})
    with Tenure.open(root, discover=False) as t:
        report = t.enrich()
        circle = {d["symbol"]: d for d in t.what_breaks("src/shapes.Circle.area")["dependants"]}
    assert not report["languages"]["typescript"]["failed"]
    assert (circle["src/report.total"]["tier"], circle["src/report.total"]["sources"]) == (
        "resolved", ["lsp", "tree-sitter"])


def test_the_typescript_server_leaves_nothing_in_the_system_temporary_directory(
        server_bin, make_indexed_repo, monkeypatch, tmp_path: Path) -> None:
    """typescript-language-server makes a folder named with 32 hex characters in os.tmpdir() for each tsserver
    it starts (its cancellation pipes) and never removes it: its TMPDIR is a folder of the state directory,
    removed when the server ends."""
    monkeypatch.setenv("PATH", f"{server_bin}{os.pathsep}{os.environ['PATH']}")
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))  # (what the server would otherwise inherit)
    root = make_indexed_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        report = t.enrich()
    assert report["languages"]["typescript"]["verified"] == 2
    assert list(system_tmp.iterdir()) == []
    assert not list((root / ".tenure").glob("lsp-tmp-*"))
