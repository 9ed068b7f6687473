"""`tenure why` and `tenure knowledge check|build|ask|import-threads`: the knowledge store (SPEC 2.2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tenure.cli.common import JsonOpt, RepoOpt, console, err, escape, new_table, open_project, refused, with_progress
from tenure.words import counted

knowledge_app = typer.Typer(help="Knowledge: why the code is this way (decisions, incidents, threads, history).",
                            no_args_is_help=True)
Offline = Annotated[bool, typer.Option("--offline", help="Use no model even when one is configured.")]


def register(app: typer.Typer) -> None:
    app.command("why")(why_cmd)
    app.add_typer(knowledge_app, name="knowledge")


def why_cmd(
    symbol: Annotated[str, typer.Argument(help="A symbol (full name or unique suffix) or a phrase, e.g. SECRET_KEY")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100, help="Passages and commits listed.")] = 12,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Why SYMBOL is the way it is: decisions, incidents, threads and commits, each with source and tier."""
    with open_project(repo, create=False) as t:
        result = t.knowledge.why(symbol, limit)
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _print_why(result)
    if not result["evidence"] and not result["commits"]["total"]:
        raise typer.Exit(1)


def _print_why(result: dict) -> None:
    console.print(f"[bold]{escape(result['symbol'] or result['query'])}[/bold]  mode: {result['mode']}")
    if result.get("resolved"):
        r = result["resolved"]
        console.print(f"  ({escape(result['query'])} → {escape(r['fqn'])}: {r['tier']}, {escape(r['how'])})")
    console.print(escape(result["summary"]["text"]))
    for item in result["evidence"]:
        source = item["source"]
        where = source["ref"] + (f" › {source['section']}" if source["section"] else "") + \
            (f":{source['line']}" if source.get("line") else "")
        label = escape(f"[{_links_of(item, result['symbol'])}, {item['mode']}]")
        console.print(f"- [cyan]{item['what']}[/cyan] {escape(where)} {label}")
        console.print(f"    “{escape(item['quote'])}”")
        if item.get("model_says"):
            console.print("    [dim]the model's description (not the source's words):[/dim] "
                          + escape(item["model_says"]))
        if item.get("memory") is not None:
            console.print(f"    names memory #{item['memory']} (`tenure history {item['memory']}`)")
        for cited in item.get("cited", []) if item["kind"] != "citation" else ():
            console.print(f"    cited at {escape(cited['path'])}:{cited['line']}: {escape(cited['text'])}")
    if result["evidence_total"] > len(result["evidence"]):
        console.print(f"  … {result['evidence_total'] - len(result['evidence'])} more passages (--limit, --json)")
    for rel in result["related"][:5]:
        said = "the model's description: " if rel["mode"] == "model" else ""
        console.print(f"- related {rel['type']} [bold]{escape(rel['entity'])}[/bold]: "
                      f"{said}{escape(rel['relationship'])}")
    commits = result["commits"]
    for c in commits["listed"]:
        console.print(f"- commit {c['sha']} {escape((c['date'] or '')[:10])} {escape(c['author'] or '')}: "
                      f"{escape(c['subject'])} ({c['how']}{_sweep(c)})")
    if commits["total"] > len(commits["listed"]):
        console.print(f"  … {commits['total'] - len(commits['listed'])} more commits (-n {commits['total']})")
    if commits.get("history"):
        console.print(f"  history: {escape(commits['history'])}")
    for c in result["communities"][:2]:
        console.print(f"- community “{escape(c['title'])}” ({counted(c['size'], 'entity')}, {c['mode']}): "
                      f"{escape(c['summary'])}")


def _links_of(item: dict, symbol: str | None) -> str:
    """The link's tier, and the path it takes to the symbol with the edge's tier: `exact via reads MAX_RETRIES
    (inferred read)`, `strong via calls submit (inferred call)`, `exact via class Scaffold`, `weak, via member X`."""
    if item.get("via"):
        return "; ".join(f"{v['link']} via {v['path']} " + (v["symbol"] if v["path"] == "module" else
                                                             v["symbol"].rpartition(".")[2])
                         + (f" ({v['edge']} {'call' if v['path'] == 'calls' else 'read'})" if v.get("edge") else "")
                         for v in item["via"])
    member = f", via member {item['symbol']}" if item["symbol"] and item["symbol"] != symbol else ""
    return f"{item['tier']}{member}"


def _sweep(commit: dict) -> str:
    if not commit.get("sweep"):
        return ""
    return f"; a sweep: {counted(commit['files'], 'file')}, {counted(commit['symbols'], 'symbol')}"


@knowledge_app.command()
def check(repo: RepoOpt = Path("."), as_json: JsonOpt = False) -> None:
    """What the sources hold, and what a model build would cost (tenure's settings and graphrag's defaults)."""
    with open_project(repo) as t:
        report = _config_errors(lambda: t.knowledge.check())
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    corpus = report["corpus"]
    console.print(f"{counted(corpus['documents'], 'document')}, {counted(corpus['sections'], 'section')} (threads "
                  f"and commits included), {counted(corpus['threads'], 'thread')}, "
                  f"{counted(corpus['commits'], 'commit')} ({corpus['commits_thin']} thin), "
                  f"{corpus['tokens']:,} tokens counted with {report['tokenizer']}")
    table = new_table("kind", "count", "thin", "tokens")
    for kind, row in corpus["by_kind"].items():
        table.add_row(kind, str(row["count"]), str(row["thin"]), f"{row['tokens']:,}")
    console.print(table)
    console.print(f"model: {escape(report['model'])}")
    table = new_table("step", "tenure calls", "tenure tokens", "graphrag calls", "graphrag tokens",
                      title="estimated model build")
    ours, theirs = report["estimate"]["tenure"], report["estimate"]["graphrag_defaults"]
    for step in ("extraction", "gleaning", "summarisation", "community_reports", "total"):
        a, b = ours[step], theirs[step]
        table.add_row(step.replace("_", " "), f"{a['calls']:,}", f"{a['prompt_tokens'] + a['completion_tokens']:,}",
                      f"{b['calls']:,}", f"{b['prompt_tokens'] + b['completion_tokens']:,}")
    console.print(table)
    per = report["per_100k_corpus_tokens"]
    console.print(f"per 100k corpus tokens: tenure {per['tenure']['calls']} calls, {per['tenure']['tokens']:,} tokens; "
                  f"graphrag defaults {per['graphrag']['calls']} calls, {per['graphrag']['tokens']:,} tokens")
    if "price" in report:
        console.print(f"price: tenure ${report['price']['tenure']}, graphrag ${report['price']['graphrag_defaults']}")
    console.print(escape(report["budget"]["text"]))
    console.print("[green]worth a model build[/green]" if report["worth_a_model_build"]
                  else "[yellow]not worth a model build[/yellow]")
    for reason in report["why"]:
        console.print(f"- {escape(reason)}")
    for note in report["assumptions"]:
        console.print(f"  assumed: {escape(note)}")
    _print_skipped(report["skipped"])


def _print_skipped(skipped: list[dict]) -> None:
    for item in skipped[:10]:
        err.print(f"skipped {escape(item['path'])}: {escape(item['reason'])}")
    if len(skipped) > 10:
        err.print(f"… {len(skipped) - 10} more skipped (`--json` lists them all)")


@knowledge_app.command()
def build(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be read and asked; write nothing.")]
    = False,
    max_calls: Annotated[int | None, typer.Option("--max-calls", min=0, help="Stop before the call past this.")]
    = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=0, help="Stop before passing this.")]
    = None,
    offline: Offline = False,
    no_embed: Annotated[bool, typer.Option("--no-embed", help="Leave embeddings out (queries match by name).")] = False,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Build or update the knowledge graph: only new or changed material is read; a rebuild asks nothing."""
    with open_project(repo) as t:
        report = _config_errors(lambda: with_progress(
            lambda progress: t.knowledge.build(dry_run, offline, max_calls, max_tokens, not no_embed, progress),
            as_json))
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    if report.get("dry_run"):
        console.print(f"dry run ({report['mode']}{', ' + report['model'] if report['model'] else ''}): "
                      f"{counted(report['documents'], 'document')}, {report['new_or_changed']} new or changed, "
                      f"{report['removed']} gone; {counted(report['chunks_to_read'], 'chunk')} to read, "
                      f"{counted(report['extraction_calls'], 'extraction call')}")
        console.print(escape(report["note"]))
        return
    steps = report["steps"]
    ingest = steps.get("ingest", {})
    console.print(f"mode: {report['mode']}; {counted(ingest.get('documents', 0), 'document')}: "
                  f"{ingest.get('new', 0)} new, {ingest.get('changed', 0)} changed, "
                  f"{ingest.get('removed', 0)} removed, {ingest.get('unchanged', 0)} unchanged")
    if "merge" in steps:
        m = steps["merge"]
        console.print(f"graph: {counted(m['entities'], 'entity')}, {counted(m['relationships'], 'relationship')} "
                      f"({m['described']} described again, {counted(m['removed_entities'], 'entity')} retracted)")
    if "join" in steps:
        j = steps["join"]
        console.print(f"join: {j['exact']} exact, {j['strong']} strong, {j['weak']} weak, {j['unresolved']} unresolved "
                      f"of {counted(j['entities_asked'], 'phrase')} that can name code")
    if "communities" in steps:
        c = steps["communities"]
        console.print(f"communities: {c['communities']} ({c['kept']} kept, {c['new']} new, {c['removed']} gone)")
    if "reports" in steps:
        r = steps["reports"]
        console.print(f"reports: {r['model']} by the model, {r['offline']} extractive, {r['kept']} kept")
    if "embeddings" in steps:
        e = steps["embeddings"]
        console.print("embeddings (" + e["model"] + "): " + ", ".join(
            f"{kind} {v['items']}" + (f" (failed: {v['failed']})" if v.get("failed") else "")
            for kind, v in e.items() if isinstance(v, dict)))
    if report["model"]:
        m = report["model"]
        console.print(f"model {m['model']}: {counted(m['calls'], 'call')} ({m['cached']} answered from the cache), "
                      f"{counted(m['prompt_tokens'] + m['completion_tokens'], 'token')}", emoji=False)
        console.print(escape(report["coverage"]["text"]), emoji=False)  # ("openai:m:" is no emoji)
        extraction = steps.get("extraction", {})
        if extraction.get("capped") or extraction.get("unsupported"):
            console.print(f"model claims left out: {extraction['capped']} past the caps of one answer, "
                          f"{extraction['unsupported']} that no text unit they cite bears out")
    history = report["history"]
    if history.get("available"):
        console.print(f"history: {counted(history.get('commits_total') or 0, 'commit')} "
                      f"({history.get('commits_new')} new)")
    elif history:
        console.print(f"history: not read ({escape(history.get('reason', ''))})")
    _print_skipped(report["skipped"])
    console.print(f"{sum(report['seconds'].values()):.2f}s")
    if report["failed"]:
        reason = steps.get("extraction", {}).get("reason")
        err.print("[red]model calls failed:[/red] " + ", ".join(f"{step} {n}" for step, n in report["failed"].items())
                  + (f" (last: {escape(reason)})" if reason else "") + "; the next build asks again")
    if report["stopped"]:
        remaining = report["remaining"]
        err.print(f"[yellow]stopped:[/yellow] {escape(report['stopped'])}; left: "
                  f"{counted(remaining['text_units_to_read'], 'text unit')} to read, steps not run: "
                  f"{', '.join(remaining['steps_not_run']) or 'none'}")
        raise typer.Exit(3)
    if report["failed"]:
        raise typer.Exit(4)


@knowledge_app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question about the project")],
    global_: Annotated[bool, typer.Option("--global", help="Search the whole corpus (map-reduce over reports).")]
    = False,
    offline: Offline = False,
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Ask the knowledge graph: local search around the entities the question names, or --global."""
    with open_project(repo, create=False) as t:
        answer = _config_errors(lambda: t.knowledge.ask(question, global_, offline))
    if as_json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
        return
    console.print(f"[bold]{answer['search']} search[/bold], mode: {answer['mode']}"
                  + (f" ({escape(answer['corpus'])})" if answer.get("corpus") else ""))
    console.print(escape(answer["answer"]))
    for source in answer.get("sources", [])[:10]:
        section = f" › {source['section']}" if source.get("section") else ""
        label = source.get("title") or source.get("ref", "") + section
        console.print(f"  [{escape(source['id'])}] {escape(label)}")


@knowledge_app.command("import-threads")
def import_threads(
    files: Annotated[list[Path], typer.Argument(help="JSON exports of `gh pr view N --json ...` / `gh issue view`")],
    repo: RepoOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Copy PR and issue exports into .tenure/threads/ (one file per thread); the next build reads them."""
    with open_project(repo) as t:
        report = t.knowledge.import_threads(files)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        console.print(f"imported {counted(len(report['imported']), 'thread')} into {report['folder']}/")
        for failure in report["failed"]:
            err.print(f"[red]error:[/red] {escape(failure['reason'])}")
    if report["failed"]:
        raise typer.Exit(1)


def _config_errors(work):
    """A wrong setting (tenure.toml, TENURE_LLM_*) is one line naming it, not a traceback."""
    from tenure.knowledge.providers import ProviderError

    try:
        with refused(ValueError, ProviderError):
            return work()
    finally:
        sys.stdout.flush()
