"""The structural store: the code graph (files, symbols, tiered edges) and the sources that confirm it."""
