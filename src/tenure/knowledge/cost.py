"""`knowledge check`: what the corpus holds, what a model build would cost, step by step, and whether it
is worth one, before anything is spent; the same estimate for microsoft/graphrag's documented defaults on
the same corpus, so the two can be compared.

Nothing is asked of a model here. Extraction is counted exactly (chunks, batches, gleaning passes,
prompt tokens); summarisation and reports depend on what a model will find, so they are estimated from
the offline graph of the same chunks (its entities, relationships and Leiden communities), with the
assumptions listed in the answer.

graphrag's defaults (microsoft/graphrag v3.1.2, `graphrag/config/defaults.py`): chunks of 1200 tokens
with 100 overlapping, cut per document with no regard for headings; one gleaning per chunk (two calls);
one summarisation call per entity and relationship with more than one description; communities of at
most 10 (max_cluster_size) on the largest connected component, one report call each, its input up to
8000 tokens. Its prompt sizes below were counted with cl100k_base from that release's prompt files.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import graspologic_native as gn

from tenure.knowledge import offline, prompts, tokens
from tenure.knowledge.chunking import chunk_sections
from tenure.knowledge.communities import SEED
from tenure.knowledge.config import KnowledgeConfig
from tenure.knowledge.extraction import ANSWER_TOKENS
from tenure.knowledge.reports import MAX_INPUT_TOKENS
from tenure.knowledge.sources import KIND_NOUNS, SourceDocument
from tenure.knowledge.writing import REPORT_ANSWER_TOKENS, SUMMARY_BATCH_TOKENS

GRAPHRAG = {"release": "microsoft/graphrag v3.1.2", "chunk_size": 1200, "chunk_overlap": 100, "gleanings": 1,
            "max_cluster_size": 10, "report_max_input_tokens": 8000,
            # prompt templates, cl100k_base tokens: extract_graph, its continuation, summarize, community_report
            "extract_prompt_tokens": 1732, "continue_prompt_tokens": 34, "summarize_prompt_tokens": 136,
            "report_prompt_tokens": 1941}
# What a model writes back, as a share of what it read (the same assumption for both builds)
EXTRACT_ANSWER_SHARE = 0.4
GLEAN_ANSWER_SHARE = 0.15
DESCRIPTION_TOKENS = 40  # one model description of an entity or relationship
SUMMARY_TOKENS = 80
REPORT_TOKENS = 900
# Below these a model build finds little the offline one does not
THIN_CORPUS_TOKENS = 20_000
RATIONALE_KINDS = ("adr", "postmortem", "rfc", "design", "pr", "issue")


@dataclass
class _Estimate:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, calls: int, prompt: float, completion: float) -> None:
        self.calls += calls
        self.prompt_tokens += int(prompt)
        self.completion_tokens += int(completion)

    def as_dict(self) -> dict:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


def check(docs: list[SourceDocument], config: KnowledgeConfig, model: str | None,
          prices: tuple[float, float] | None = None) -> dict:
    corpus = _corpus(docs)
    ours_chunks = [(d, c) for d in docs if not d.thin_reason
                   for c in chunk_sections(list(d.sections), config.chunk_size, config.chunk_overlap)]
    proxy = _offline_graph(ours_chunks)
    ours = _ours(ours_chunks, proxy, config)
    theirs = _graphrag(docs, proxy)
    total = corpus["tokens"] or 1
    per_100k = {name: {"calls": round(sum(s["calls"] for s in est.values()) * 100_000 / total, 1),
                       "tokens": round(sum(s["prompt_tokens"] + s["completion_tokens"] for s in est.values())
                                       * 100_000 / total)} for name, est in (("tenure", ours), ("graphrag", theirs))}
    verdict = _verdict(corpus)
    out = {
        "tokenizer": tokens.TOKENIZER, "corpus": corpus, "model": model or "none configured (offline mode)",
        "estimate": {"tenure": {**ours, "total": _sum(ours)}, "graphrag_defaults": {**theirs, "total": _sum(theirs)}},
        "per_100k_corpus_tokens": per_100k,
        "settings": {"tenure": {k: getattr(config, k) for k in ("chunk_size", "chunk_overlap", "gleanings",
                                                                 "glean_min_tokens", "batch_tokens",
                                                                 "max_cluster_size", "min_report_size")},
                     "graphrag_defaults": GRAPHRAG},
        "offline_graph": proxy["counts"],
        "assumptions": [
            f"answers: extraction {EXTRACT_ANSWER_SHARE:.0%} of the text read, gleaning {GLEAN_ANSWER_SHARE:.0%},"
            f" {SUMMARY_TOKENS} tokens per summary, {REPORT_TOKENS} per report (both builds alike)",
            "entities, relationships and communities a model will find: as many as the offline extraction finds",
            f"a model description is {DESCRIPTION_TOKENS} tokens"],
        "worth_a_model_build": verdict["worth"], "why": verdict["why"],
        "budget": _budget(_sum(ours), config),
    }
    if prices:
        out["price"] = {name: round((e["total"]["prompt_tokens"] * prices[0] + e["total"]["completion_tokens"]
                                     * prices[1]) / 1e6, 2) for name, e in out["estimate"].items()}
        out["price"]["per"] = "USD at the configured price_in / price_out per million tokens"
    return out


def _corpus(docs: list[SourceDocument]) -> dict:
    kinds: Counter = Counter()
    thin: Counter = Counter()
    size = 0
    sections = 0
    by_kind_tokens: Counter = Counter()
    for doc in docs:
        kinds[doc.kind] += 1
        thin[doc.kind] += bool(doc.thin_reason)
        n = sum(tokens.count(s.text) for s in doc.sections)
        size += n
        by_kind_tokens[doc.kind] += n
        sections += len(doc.sections)
    commits = kinds.get("commit", 0)
    return {
        "documents": sum(n for k, n in kinds.items() if k not in ("pr", "issue", "commit")),
        "sections": sections, "threads": kinds.get("pr", 0) + kinds.get("issue", 0), "commits": commits,
        "commits_thin": thin.get("commit", 0),
        "thin_share_of_commits": round(thin.get("commit", 0) / commits, 3) if commits else None,
        "thin": sum(thin.values()), "tokens": size,
        "by_kind": {KIND_NOUNS.get(k, k): {"count": n, "thin": thin[k], "tokens": by_kind_tokens[k]}
                    for k, n in kinds.most_common()},
        "rationale_tokens": sum(by_kind_tokens[k] for k in RATIONALE_KINDS),
    }


def _offline_graph(chunks: list) -> dict:
    mentions: Counter = Counter()
    links: Counter = Counter()
    for doc, chunk in chunks:
        found = offline.extract(chunk.text, chunk.section,
                                offline.document_entities(doc.kind, doc.ref, doc.title, doc.key, doc.meta))
        mentions.update(found.mentions.keys())
        links.update(found.links.keys())
    edges = sorted((a, b, float(n)) for (a, b), n in links.items())
    return {"mentions": mentions, "links": links, "edges": edges,
            "counts": {"entities": len(mentions), "relationships": len(links)}}


def _communities(edges: list, max_cluster_size: int, largest_component: bool) -> list[int]:
    """Sizes of the communities hierarchical Leiden finds (graphrag clusters its largest component only)."""
    if largest_component:
        edges = _largest_component(edges)
    if not edges:
        return []
    clusters: Counter = Counter()
    for entry in gn.hierarchical_leiden(edges, max_cluster_size=max_cluster_size, seed=SEED):
        clusters[(entry.level, entry.cluster)] += 1
    return list(clusters.values())


def _largest_component(edges: list) -> list:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in edges:
        parent[find(a)] = find(b)
    sizes = Counter(find(x) for x in list(parent))
    if not sizes:
        return []
    biggest = sizes.most_common(1)[0][0]
    return [e for e in edges if find(e[0]) == biggest]


def _summaries(proxy: dict) -> tuple[int, int]:
    """(items with several descriptions, their description tokens)."""
    items = [n for n in proxy["mentions"].values() if n > 1] + [n for n in proxy["links"].values() if n > 1]
    return len(items), sum(items) * DESCRIPTION_TOKENS


def _ours(chunks: list, proxy: dict, config: KnowledgeConfig) -> dict:
    extraction, gleaning, summary, report = _Estimate(), _Estimate(), _Estimate(), _Estimate()
    system = tokens.count(prompts.EXTRACT)
    for batch in batch_sizes([c.size + 20 for _, c in sorted(chunks, key=lambda dc: dc[0].key)], config.batch_tokens):
        answer = min(ANSWER_TOKENS, EXTRACT_ANSWER_SHARE * batch + 50)
        extraction.add(1, system + batch, answer)
        if batch >= config.glean_min_tokens:
            for _ in range(config.gleanings):
                gleaning.add(1, system + batch + answer + tokens.count(prompts.GLEAN),
                             GLEAN_ANSWER_SHARE * batch + 20)
    items, described = _summaries(proxy)
    if items:
        summary.add(math.ceil(described / SUMMARY_BATCH_TOKENS), described + tokens.count(prompts.SUMMARIZE)
                    * math.ceil(described / SUMMARY_BATCH_TOKENS), items * SUMMARY_TOKENS)
    sizes = [s for s in _communities(proxy["edges"], config.max_cluster_size, False) if s >= config.min_report_size]
    report_prompt = tokens.count(prompts.REPORT)
    for size in sizes:
        report.add(1, report_prompt + min(MAX_INPUT_TOKENS, size * 2 * DESCRIPTION_TOKENS),
                   min(REPORT_ANSWER_TOKENS, REPORT_TOKENS))
    return {"extraction": extraction.as_dict(), "gleaning": gleaning.as_dict(), "summarisation": summary.as_dict(),
            "community_reports": report.as_dict()}


def _graphrag(docs: list[SourceDocument], proxy: dict) -> dict:
    extraction, gleaning, summary, report = _Estimate(), _Estimate(), _Estimate(), _Estimate()
    size, overlap = GRAPHRAG["chunk_size"], GRAPHRAG["chunk_overlap"]
    for doc in docs:  # every document, thin ones too: graphrag reads what its input holds
        text = "\n".join(s.text for s in doc.sections)
        for chunk in _windows(tokens.count(text), size, overlap):
            answer = EXTRACT_ANSWER_SHARE * chunk + 50
            extraction.add(1, GRAPHRAG["extract_prompt_tokens"] + chunk, answer)
            gleaning.add(1, GRAPHRAG["extract_prompt_tokens"] + chunk + answer + GRAPHRAG["continue_prompt_tokens"],
                         GLEAN_ANSWER_SHARE * chunk + 20)
    items, described = _summaries(proxy)
    summary.add(items, items * GRAPHRAG["summarize_prompt_tokens"] + described, items * SUMMARY_TOKENS)
    for community in _communities(proxy["edges"], GRAPHRAG["max_cluster_size"], True):
        report.add(1, GRAPHRAG["report_prompt_tokens"] + min(GRAPHRAG["report_max_input_tokens"],
                                                             community * 2 * DESCRIPTION_TOKENS), REPORT_TOKENS)
    return {"extraction": extraction.as_dict(), "gleaning": gleaning.as_dict(), "summarisation": summary.as_dict(),
            "community_reports": report.as_dict()}


def _windows(n: int, size: int, overlap: int) -> list[int]:
    """Token counts of graphrag's chunks of an n-token document: windows of `size`, `overlap` shared."""
    out, start = [], 0
    while True:
        out.append(max(1, min(size, n - start)))
        if start + size >= n:
            return out
        start += size - overlap


def batch_sizes(sizes: list[int], limit: int) -> list[int]:
    out: list[int] = []
    used = 0
    for size in sizes:
        if used and used + size > limit:
            out.append(used)
            used = 0
        used += size
    if used:
        out.append(used)
    return out


def _budget(total: dict, config: KnowledgeConfig) -> dict:
    """A build's budget ([knowledge] max_calls / max_tokens) against the estimate: how many builds the
    estimate takes (each stops at the budget; the next resumes)."""
    spent = total["prompt_tokens"] + total["completion_tokens"]
    builds = max(math.ceil(total["calls"] / max(1, config.max_calls)), math.ceil(spent / max(1, config.max_tokens)), 1)
    return {"max_calls": config.max_calls, "max_tokens": config.max_tokens, "builds": builds,
            "text": f"budget per build: {config.max_calls:,} calls, {config.max_tokens:,} tokens ([knowledge] "
                    f"max_calls, max_tokens; --max-calls, --max-tokens): the estimate takes "
                    + ("one build" if builds == 1 else f"{builds} builds (each stops at the budget, the next resumes)")}


def _sum(steps: dict) -> dict:
    return {k: sum(s[k] for s in steps.values()) for k in ("calls", "prompt_tokens", "completion_tokens")}


def _verdict(corpus: dict) -> dict:
    why: list[str] = []
    informative = corpus["tokens"] - sum(v["tokens"] for k, v in corpus["by_kind"].items() if k in ("README", "doc"))
    if corpus["commits"] and (corpus["thin_share_of_commits"] or 0) > 0.5:
        why.append(f"{corpus['thin_share_of_commits']:.0%} of the {corpus['commits']} commits are thin "
                   "('fix bug', 'wip', merges without a body): they are counted, not extracted")
    if corpus["tokens"] < THIN_CORPUS_TOKENS:
        why.append(f"the whole corpus is {corpus['tokens']:,} tokens: offline mode reads it all already")
    if corpus["threads"] == 0 and corpus["rationale_tokens"]:
        why.append("no PR or issue threads: export them (`gh pr view N --json number,title,body,comments,reviews,"
                   "state,author,createdAt,mergedAt,files`) into .tenure/threads/ or prs/, or `tenure knowledge "
                   "import-threads FILE`")
    if corpus["rationale_tokens"] == 0:
        why.append("no decision records, incident reviews, RFCs, design docs or PR/issue threads were found "
                   "(export threads with `gh pr view N --json ...` into .tenure/threads/ or prs/)")
    worth = corpus["tokens"] >= THIN_CORPUS_TOKENS and informative > 0
    if worth:
        why.insert(0, f"{corpus['tokens']:,} tokens of documents, threads and informative commits: a model can"
                      " extract claims (reasons, constraints, incidents) the offline links only co-locate")
    else:
        why.insert(0, "too thin to be worth a model build")
    return {"worth": worth, "why": why}
