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

from tenure.structural.resolve.answers import spare as spare
from tenure.structural.resolve.python.analysed import code_moved as code_moved
from tenure.structural.resolve.python.analysed import forget_analyses as forget_analyses
from tenure.structural.resolve.python.analysed import verify as verify
from tenure.structural.resolve.python.analysed import warm as warm
from tenure.structural.resolve.python.edges import resolve as resolve
from tenure.structural.resolve.python.edits import item_edits as item_edits
from tenure.structural.resolve.python.edits import outcome_unchanged as outcome_unchanged
