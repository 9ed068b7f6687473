"""Real code: tenure's direct callers in ``requests`` 2.32.3 before and after LSP enrichment, against
basedpyright's own ``references`` as the oracle.

Usage::

    python bench/lsp_callers.py [--samples 50] [--seed 0] [--verbose] [--json-out FILE]

The ``requests`` sdist (``src/requests`` plus ``tests/``) is fetched once with ``pip download
requests==2.32.3 --no-binary :all: --no-deps`` (bench/common.py) and copied to
``$TENURE_BENCH_CACHE/lsp-callers/`` where it is indexed from scratch. The sample, the ``ast`` reading
of call sites and enclosing defs, tenure's answer (``what_breaks(symbol, depth=1)``, relation
``calls``) and the caller matching are bench/requests_callers.py's (imported). Oracle: basedpyright
started on the copy, asked ``textDocument/references`` at each sampled def's name; a reference that is
the callee name of an ``ast.Call`` gives its enclosing def as a true direct caller.

Caveat, printed with the figures: after enrichment tenure's ``resolved`` edges come from the same
checker (its ``definition`` and ``references``), so "after" measures how faithfully enrichment carries
the checker's answers into the graph, not an independent truth; bench/requests_callers.py scores the
same sample against jedi.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from common import CACHE_DIR, TIERS, fetch_sdist, fmt_ratio, print_table, ratio, write_json
from requests_callers import (
    REQUESTS,
    Answer,
    CallerKey,
    Def,
    SourceFile,
    TargetScore,
    TenureClient,
    defined_functions,
    package_dir,
    parse_tree,
    print_differences,
    sample_targets,
    tenure_callers,
    tier_counts,
)


def oracle(root: Path, targets: list[Def], files: dict[str, SourceFile]) -> dict[str, set[CallerKey]]:
    from tenure.structural.lsp.client import LspClient
    from tenure.structural.lsp.servers import server_table

    spec = server_table()["basedpyright"]
    truth: dict[str, set[CallerKey]] = {}
    with LspClient(spec.argv() or list(spec.command), root, timeout=300) as client:
        client.initialize()
        client.wait_for_log(spec.ready_log)
        for target in targets:
            uri = (root / target.path).as_uri()
            callers = set()
            for loc in client.references(uri, target.line - 1, target.column):
                path = Path(unquote(urlparse(loc.uri).path))
                try:
                    relative = path.relative_to(root).as_posix()
                except ValueError:
                    continue
                source = files.get(relative)
                line = loc.range.start.line + 1
                if source and (line, loc.range.start.character) in source.calls:
                    callers.add((relative, source.enclosing(line)))
            truth[target.fqn] = callers
    return truth


def score(client: TenureClient, targets: list[Def], truth: dict[str, set[CallerKey]],
          files: dict[str, SourceFile], root: Path) -> list[TargetScore]:
    return [TargetScore(t, truth[t.fqn], tenure_callers(client, t.fqn, files, root)) for t in targets]


def overall_row(name: str, scores: list[TargetScore]) -> list[object]:
    tp = sum(len(s.correct) for s in scores)
    fp = sum(len(s.wrong) for s in scores)
    fn = sum(len(s.missing) for s in scores)
    return [name, tp + fn, tp + fp, tp, fp, fn, fmt_ratio(ratio(tp, tp + fp)), fmt_ratio(ratio(tp, tp + fn))]


def per_tier_rows(scores: list[TargetScore]) -> dict[str, tuple[int, int]]:
    return {tier: (n, ok) for tier, (n, ok) in tier_counts(scores).items() if n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50, help="symbols in all (4 named checks + a seeded sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ["TENURE_ENRICH"] = "off"  # enrichment runs here, in the foreground, timed
    from tenure import Tenure

    source = fetch_sdist(*REQUESTS)
    root = CACHE_DIR / "lsp-callers" / source.name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".tenure"))
    root = root.resolve()
    files = parse_tree(root)
    targets = sample_targets(defined_functions(root, package_dir(root)), args.samples - 4, args.seed)
    print(f"requests {REQUESTS[1]}: {len(files)} Python files, {len(targets)} sampled functions")

    with Tenure.open(root, discover=False) as t:
        t.index()
    started = time.perf_counter()
    truth = oracle(root, targets, files)
    print(f"oracle: basedpyright references for {len(targets)} symbols in {time.perf_counter() - started:.1f}s, "
          f"{sum(len(v) for v in truth.values())} true direct callers")

    client = TenureClient(root, [])
    before = score(client, targets, truth, files, root)
    started = time.perf_counter()
    report = client.api.enrich()
    enrich_s = time.perf_counter() - started
    print(f"enrichment: {enrich_s:.1f}s — {report['text']}")
    after = score(client, targets, truth, files, root)

    headers = ["graph", "true callers", "tenure callers", "correct", "wrong", "missing", "precision", "recall"]
    print_table("Direct callers vs basedpyright references (symbol, caller) pairs", headers,
                [overall_row("tree-sitter only", before), overall_row("after enrichment", after)])
    true_total = sum(len(s.truth) for s in after)
    tiers_before, tiers_after = per_tier_rows(before), per_tier_rows(after)
    rows = []
    for tier in TIERS:
        for name, counts in (("before", tiers_before), ("after", tiers_after)):
            if tier in counts:
                n, ok = counts[tier]
                rows.append([f"{tier} ({name})", n, ok, n - ok, fmt_ratio(ratio(ok, n)),
                             fmt_ratio(ratio(ok, true_total))])
    print_table(f"Per tier ({true_total} true callers)", ["tier", "callers", "correct", "wrong", "precision",
                                                          "recall share"], rows)
    print("\ncaveat: the oracle is the checker enrichment asks, so 'after' is agreement with it, not independent "
          "truth (bench/requests_callers.py scores against jedi)")
    if args.verbose:
        print_differences(after)
    failed = [s.target.fqn for s in after if isinstance(s.answer, Answer) and s.answer.error]
    if failed:
        print(f"lookups failed: {failed}")
    client.api.close()
    write_json(args.json_out, {"enrich_seconds": enrich_s, "report": report,
                               "before": overall_row("before", before), "after": overall_row("after", after),
                               "tiers_before": tiers_before, "tiers_after": tiers_after})
    return 0


if __name__ == "__main__":
    sys.exit(main())
