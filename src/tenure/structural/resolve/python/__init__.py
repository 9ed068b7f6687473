"""Python resolution: a points-to analysis over the flow program the Python extractor records.

Names, attributes, parameters, returns and container items point to sets of abstract values
(functions, classes, instances, modules, lists and dicts, constants, externals and builtins). A
worklist fixpoint over one file's statements grows those sets; a call site's edges go to what its
callee points to. Arguments flow into parameters of the file's own functions, a class called gives
an instance (and calls `__init__`, found through the C3 linearisation of its bases), attributes of
instances are looked up through the same order, `super()` skips the class itself.

Other modules are read, never analysed with this file's arguments, in two layers, so the answer
never depends on which file was resolved first: the file's imports are analysed on their own
(:class:`Analysed`, cached for the run), and their imports in turn are followed syntactically only
(:class:`Syntactic`: definitions, re-exports, aliases, constants). Every read of another module goes
through the :class:`ProjectView`; a cached analysis replays its reads into the view that reuses it.

Tiers: one target at a site is `inferred`, several are `ambiguous` (all kept, at most
MAX_CANDIDATES), and a dynamic site (eval, getattr with a computed name, ...) a `dynamic` edge with
no target. Builtins, external names and methods of literals are named as the PyCG benchmark names
them: `<builtin>.len`, `requests.get`, `<**PyStr**>.join`.
"""

from tenure.structural.facts import FileFacts
from tenure.structural.resolve import Resolver
from tenure.structural.resolve.answers import spare
from tenure.structural.resolve.python.analysed import code_moved, forget_analyses, verify, warm
from tenure.structural.resolve.python.edges import resolve
from tenure.structural.resolve.python.edits import item_edits, outcome_unchanged
from tenure.structural.resolve.python.flows import module_flow

__all__ = ["PythonResolver", "forget_analyses", "resolver"]


class PythonResolver(Resolver):
    """Points-to resolution (edges.py) that keeps what it asked of other modules (answers.py): a
    dependant is verified by asking again only what an edit touched (analysed.py), or spared when the
    edited module's analysis gives its readers what it gave; an edit's changed items are told apart
    (edits.py); other modules' analyses are carried over code that only moved, and made ahead of time."""

    resolve = staticmethod(resolve)
    verify = staticmethod(verify)
    item_edits = staticmethod(item_edits)
    outcome_unchanged = staticmethod(outcome_unchanged)
    spare = staticmethod(spare)
    code_moved = staticmethod(code_moved)
    warm = staticmethod(warm)

    def names_called(self, facts: FileFacts) -> set[str]:
        """The names at the call sites of its flow program (its references hold only dynamic sites)."""
        return {site[1] for site in module_flow(facts, keep=False).sites if site[1]} | super().names_called(facts)


resolver = PythonResolver()
