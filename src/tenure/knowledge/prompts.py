"""The instructions given to a model, one per step. Every answer is one JSON object; the parsers in
the steps check its shape and repair once. Written for rationale in software projects: entity types
are what explains code (components, decisions, incidents, constraints), not graphrag's default
organisation / person / geo / event."""

from __future__ import annotations

ENTITY_TYPES = ("component", "decision", "incident", "constraint", "requirement", "ticket", "config", "external",
                "concept")

EXTRACT = f"""You read a software project's documents (decision records, incident reviews, design notes, PR and
issue threads, changelogs, commit messages) and extract the knowledge graph that explains why its code is
the way it is.

Entities: code the text names (classes, functions, methods, modules, files, services: write identifiers
exactly as the text writes them), decisions, incidents, constraints, requirements, tickets and PRs (as
#123), config keys, external systems, and concepts the text explains. Never people.
For each entity give: "name"; "type", one of {", ".join(ENTITY_TYPES)}; "description": what the text says
about it, in one or two sentences; "units": the ids of the text units that say it.

Relationships link two entities you listed. For each give: "source", "target" (entity names); "description":
the claim that links them, as the text makes it (a reason, a cause, a constraint, a change); "weight": 1-10,
how strongly the text supports it; "units".

Answer with one JSON object and nothing else:
{{"entities": [{{"name": "", "type": "", "description": "", "units": ["u1"]}}],
 "relationships": [{{"source": "", "target": "", "description": "", "weight": 5, "units": ["u1"]}}]}}
Use only what the text says. Empty lists when a unit says nothing of this kind."""

GLEAN = """Some entities or relationships in these units may have been missed. List only the missing ones, in the same
JSON format; {"entities": [], "relationships": []} when nothing was missed."""

REPAIR = """Your answer could not be read: {error}. Answer again with only the JSON object, in the format asked for."""

SUMMARIZE = """Each item below is an entity or a relationship of a software project's knowledge graph, with several
descriptions written from different documents. Merge each item's descriptions into one description of at most
{words} words: keep every distinct fact (reasons, constraints, incidents, changes), resolve contradictions in
favour of the later or corrected statement and say so, write in the third person and name the entities.

Answer with one JSON object and nothing else: {{"summaries": {{"<item id>": "<description>"}}}}"""

REPORT = """You write a report on one community of a software project's knowledge graph: a group of closely related
code, decisions, incidents and constraints. It will tell an engineer, before changing that code, why it is the way
it is and what to be careful about.

Give: "title" (short, naming the key entities); "summary" (what the community is about and how its parts relate);
"rating" (0-10: how much a change here needs this knowledge); "rating_explanation" (one sentence); "findings":
3-7 key insights, each {{"summary": one line, "explanation": a paragraph, "cites": ids of the entities [e:...],
relationships [r:...] or reports [c...] it rests on}}. State only what the data says; at most {words} words.

Answer with one JSON object and nothing else:
{{"title": "", "summary": "", "rating": 5, "rating_explanation": "",
 "findings": [{{"summary": "", "explanation": "", "cites": []}}]}}"""

MAP = """Answer the question from the community reports below, as a list of points. Each point: "description"
(the point, citing the reports it rests on as [c...]) and "score" (0-100: how much it helps answer the question;
0 for reports that do not answer it). Use only what the reports say.

Answer with one JSON object and nothing else: {"points": [{"description": "", "score": 50}]}"""

REDUCE = """Answer the question from the points below, which analysts took from a software project's knowledge graph,
most important first. Combine them into one answer in Markdown; keep the citations [c...] of the points you use,
drop what does not answer the question, and say so if the points do not answer it. Use only what the points say.

Answer with one JSON object and nothing else: {"answer": ""}"""

LOCAL = """Answer the question about a software project from the entities, relationships and source passages below.
Cite what you use by its id ([e:...], [r:...], [t:...]). Say so if the data does not answer it. Use only the data.

Answer with one JSON object and nothing else: {"answer": ""}"""
