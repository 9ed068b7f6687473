"""Dedicated extractors: a language whose resolver needs more than the query captures names one in
languages.toml (`extractor = "<module>"`); the module exports `extract(spec, tree, path) -> FileFacts`.

They start from the generic query pass (`tenure.structural.extract.extract`) and add what their
resolver needs in `FileFacts.flow`.
"""
