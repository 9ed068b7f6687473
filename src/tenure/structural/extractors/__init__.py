"""Dedicated extractors: a language whose resolver needs more than the query captures names one in
languages.toml (`extractor = "<module>"`); the module exports `extract(spec, tree, path) -> FileFacts`.

They start from the generic query pass (`tenure.structural.extract.extract`) and add what their
resolver needs in `FileFacts.flow`.
"""

from collections.abc import Callable

import msgspec

State = dict[str, list[int]]  # a scope's names -> the variables reaching a point of its code


def join(*states: State) -> State:
    """Where branches meet: each name reached by the variables any branch left it with."""
    joined: State = {}
    for state in states:
        for name, vars_ in state.items():
            have = joined.get(name)
            if have is None:
                joined[name] = vars_
            elif have is not vars_:
                joined[name] = [*have, *(v for v in vars_ if v not in have)]
    return joined


def flow_lines(flow: bytes) -> tuple[list[int], Callable[[Callable[[int], int]], object]]:
    """The line numbers in a flow program whose `sites` start with their line, and a way to rebuild
    it with each line mapped (the indexer compares programs up to where code moved, see parse.shape)."""
    program = msgspec.msgpack.decode(flow)
    lines = [site[0] for site in program["sites"]]

    def remap(rank: Callable[[int], int]) -> object:
        return {**program, "sites": [[rank(site[0]), *site[1:]] for site in program["sites"]]}

    return lines, remap
