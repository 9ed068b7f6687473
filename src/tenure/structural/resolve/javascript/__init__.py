"""JavaScript and TypeScript resolution that follows values (points-to over the flow program the
JavaScript extractor records): what a name, field, parameter, `this` or call holds, through
destructuring, object literals, classes and their fields, returned functions, callbacks,
`call`/`apply`/`bind`, getters and setters, CommonJS and ESM exports, declared TypeScript types.

analysis.py runs one file's fixpoint (and again where strong.py finds member reads that straight-line
writes before them tell better: strong updates); modules.py answers what other modules hold (each analysed on
its own, a layer further, then their symbols); edges.py turns the analysis into tiered edges (one
target `inferred`, several `ambiguous`), leaving to the generic resolver what only names can tell
(a callee that holds no known value), super types and imports. Every read of another file goes
through the ProjectView, so an edit re-resolves exactly the files that read what it changed.
"""

from tenure.structural.facts import FileFacts
from tenure.structural.gaps import names_in
from tenure.structural.languages import language_table
from tenure.structural.resolve import EdgeOut, ProjectView, Resolver
from tenure.structural.resolve.generic import LanguageRules
from tenure.structural.resolve.javascript.analysis import Analysis
from tenure.structural.resolve.javascript.edges import edges_of
from tenure.structural.resolve.javascript.modules import Project, forget_analyses
from tenure.structural.resolve.javascript.program import program_of

__all__ = ["JavaScriptResolver", "forget_analyses", "resolver"]


class JavaScriptResolver(Resolver):
    """Resolves, and keeps no answers to check later: an edit resolves again every file that read
    what it touched (as the generic resolver)."""

    def resolve(self, facts: FileFacts, view: ProjectView) -> list[EdgeOut]:
        project = Project(view, LanguageRules.of(language_table()[facts.language]))
        syntax = project.syntax(facts)
        if facts.flow is None:  # read cheaply, or facts of another extractor: the names alone
            return syntax.edges()
        program = program_of(facts)
        if program.unread:  # (what they bind holds nothing known: calls through it are missing)
            lines = ", ".join(str(line) for line, _ in program.unread)
            view.note_incomplete(f"imports not read (syntax errors) at line {lines}")
        analysis = Analysis(program, project, syntax, 0).run()
        if why := analysis.shortfall():
            view.note_incomplete(why)
        supertypes = [e for r in facts.references if r.kind in ("inherits", "implements")
                      for e in syntax.reference_edges(r)]
        return edges_of(analysis) + supertypes + syntax.import_edges()

    def names_called(self, facts: FileFacts) -> set[str]:
        """And the words of the imports the extractor could not read: a call through what they bind
        may reach a symbol of any of them."""
        unread = program_of(facts).unread if facts.flow is not None else []
        return super().names_called(facts).union(*(names_in(text.encode()) for _, text in unread))


resolver = JavaScriptResolver()
